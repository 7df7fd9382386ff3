package crypto_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
)

// TestWithoutStateOverrides: on a node that refuses eth_call state
// overrides the pool lookups and code reads go without the lens, and the
// answers still match the chain.
func TestWithoutStateOverrides(t *testing.T) {
	e := newEnv(t)
	c := e.chain
	c.RefuseOverrides(true)
	m := e.PaidCall(t, http.MethodGet, "/v1/crypto/prices", map[string]any{"tokens": "GOOD,ETH"})
	good := m["prices"].([]any)[0].(map[string]any)
	if got, want := num(t, good, "price_usd"), cryptotest.ReserveRatio(t, c, 0, "GOOD/USDC", 6, 18, c.GOOD); !near(got, want, 1e-9) || good["pool"] != c.Pairs["GOOD/USDC"].Hex() {
		t.Errorf("GOOD %v in %v, pool says %v in %v", got, good["pool"], want, c.Pairs["GOOD/USDC"].Hex())
	}
	if got := num(t, good, "price_24h_ago_usd"); got != 2 {
		t.Errorf("GOOD 24h ago %v, want 2", got)
	}
	e.etherscan[lower(c.Proxy)] = "etherscan_getsourcecode_proxy_hemispheres.json"
	m = e.PaidCall(t, http.MethodGet, "/v1/crypto/contract-abi", map[string]any{"chain": "ethereum", "address": c.Proxy.Hex()})
	if p, _ := m["proxy"].(map[string]any); p["type"] != "EIP-1967" || p["implementation"] != c.ProxyImpl.Hex() {
		t.Errorf("proxy %v", p)
	}
	// A route of V2 and V3 hops, quoted depth by depth here and by the
	// lens on a node with overrides: the same route and output.
	swap := func(e *env) map[string]any {
		return e.PaidCall(t, http.MethodGet, "/v1/crypto/swap-route", map[string]any{"chain": "ethereum", "token_in": "USDC",
			"token_out": e.chain.VTT.Hex(), "amount": "100000"})
	}
	got, want := swap(e), swap(newEnv(t))
	if got["amount_out_raw"] == nil || got["amount_out_raw"] != want["amount_out_raw"] || fmt.Sprint(got["path"]) != fmt.Sprint(want["path"]) || got["dex"] != want["dex"] {
		t.Errorf("without overrides %v via %v on %v; with them %v via %v on %v", got["amount_out_raw"], got["path"], got["dex"],
			want["amount_out_raw"], want["path"], want["dex"])
	}
}
