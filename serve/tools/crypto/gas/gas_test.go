package gas_test

import (
	"context"
	"math/big"
	"net/http"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
)

func TestGasTracker(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{Solana: cryptotest.SolanaReplay(t, nil)})
	m := e.PaidCall(t, http.MethodGet, "/v1/crypto/gas-tracker", map[string]any{"chains": "ethereum,solana"})
	chains := m["chains"].([]any)
	if len(chains) != 2 {
		t.Fatalf("chains: %v", chains)
	}
	eth := chains[0].(map[string]any)
	// Truth: the node's own fee history and head.
	fh, err := e.Chain.Client.FeeHistory(context.Background(), 20, nil, []float64{10, 50, 90})
	if err != nil {
		t.Fatal(err)
	}
	next := fh.BaseFee[len(fh.BaseFee)-1]
	wantBase, _ := new(big.Float).Quo(new(big.Float).SetInt(next), big.NewFloat(1e9)).Float64()
	if got := cryptotest.Num(t, eth, "base_fee_gwei"); !cryptotest.Near(got, wantBase, 1e-5) {
		t.Errorf("base fee %v gwei, node says %v", got, wantBase)
	}
	if got := uint64(cryptotest.Num(t, eth, "block")); got != e.Chain.BlockNumber() {
		t.Errorf("block %d, head is %d", got, e.Chain.BlockNumber())
	}
	// WETH/USDC holds 1,000 WETH against 3,000,000 USDC.
	if got := cryptotest.Num(t, eth, "native_usd"); got != 3000 {
		t.Errorf("native_usd %v, want 3000", got)
	}
	std := eth["standard"].(map[string]any)
	if got, want := cryptotest.Num(t, std, "transfer_cost_usd"), cryptotest.Num(t, std, "transfer_cost_native")*3000; !cryptotest.Near(got, want, 1e-4) {
		t.Errorf("transfer cost %v USD, want %v", got, want)
	}
	if eth["congestion"] == "" || eth["base_fee_trend"] == "" {
		t.Errorf("congestion/trend missing: %v", eth)
	}
	sol := chains[1].(map[string]any)
	// The recorded fees are 0, 1000, 500, 0, 1234 (nearest-rank percentiles).
	for k, want := range map[string]float64{"p25": 0, "p50": 500, "p75": 1000, "p90": 1234} {
		if got := cryptotest.Num(t, sol, "priority_fee_percentiles", k); got != want {
			t.Errorf("solana %s = %v, want %v", k, got, want)
		}
	}
	// Two samples of 126 transactions in 60 s each; 1 non-vote each.
	if got := cryptotest.Num(t, sol, "tps"); got != 2.1 {
		t.Errorf("tps %v, want 2.1", got)
	}
	if got := cryptotest.Num(t, sol, "non_vote_tps"); !cryptotest.Near(got, 2.0/120, 1e-5) {
		t.Errorf("non-vote tps %v", got)
	}
}

func TestGasTrackerBadChainBeforePayment(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{Solana: cryptotest.SolanaReplay(t, nil)})
	res, m := e.Call(t, http.MethodGet, "/v1/crypto/gas-tracker", map[string]any{"chains": "ethereum,dogecoin"}, "")
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("%d %v, want 400", res.StatusCode, m)
	}
	if code := m["error"].(map[string]any)["code"]; code != "invalid_input" {
		t.Errorf("code %v", code)
	}
}
