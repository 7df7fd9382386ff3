package crypto

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
)

// TestCryptoPricesColdCalls: a cold crypto_prices call with the 24-hour
// change (the check before payment, then the handler) makes at most six
// JSON-RPC calls at the node on the test chain, whose time jumped 25 hours
// in one block, and finds the block before the jump. Counted at the relay
// in front of the chain.
func TestCryptoPricesColdCalls(t *testing.T) {
	c := evmtest.New(t)
	tools, err := New(Config{Chains: c.Config()})
	if err != nil {
		t.Fatal(err)
	}
	defer tools.Close()
	body, _ := json.Marshal(map[string]any{"tokens": "GOOD,ETH,USDC,ethereum:" + c.FEE.Hex()})
	for _, e := range tools.Endpoints() {
		if e.Name != "crypto_prices" {
			continue
		}
		ctx := context.Background()
		in := e.NewInput()
		if err := e.Input.DecodeJSON(in, body, nil); err != nil {
			t.Fatal(err)
		}
		before := c.Calls()
		if err := e.Check(ctx, in); err != nil {
			t.Fatal(err)
		}
		res, err := e.Handle(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if n := c.Calls() - before; n > 6 {
			t.Errorf("a cold call made %d JSON-RPC calls, want at most 6", n)
		}
		raw, err := json.Marshal(res.Value)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Prices []struct {
				Block24hAgo uint64 `json:"block_24h_ago"`
			} `json:"prices"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		if len(out.Prices) != 4 || out.Prices[0].Block24hAgo != c.Before24h {
			t.Errorf("prices %s, want the block 24 hours ago %d", raw, c.Before24h)
		}
		return
	}
	t.Fatal("no crypto_prices endpoint")
}
