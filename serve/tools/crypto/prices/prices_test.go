package prices_test

import (
	"net/http"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
)

func TestCryptoPrices(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{})
	c := e.Chain
	m := e.PaidCall(t, http.MethodGet, "/v1/crypto/prices", map[string]any{
		"tokens": "GOOD,ETH,USDC,ethereum:" + c.FEE.Hex()})
	prices := m["prices"].([]any)
	if len(prices) != 4 {
		t.Fatalf("prices: %v", prices)
	}
	good, eth, usdc, fee := prices[0].(map[string]any), prices[1].(map[string]any), prices[2].(map[string]any), prices[3].(map[string]any)

	// GOOD: the deepest pool is GOOD/USDC; its reserves are the truth.
	want := cryptotest.ReserveRatio(t, c, 0, "GOOD/USDC", 6, 18, c.GOOD)
	if got := cryptotest.Num(t, good, "price_usd"); !cryptotest.Near(got, want, 1e-9) {
		t.Errorf("GOOD %v, pool says %v", got, want)
	}
	if good["pool"] != c.Pairs["GOOD/USDC"].Hex() || good["symbol"] != "GOOD" {
		t.Errorf("GOOD pool %v symbol %v", good["pool"], good["symbol"])
	}
	// 24 hours ago (before the 100,000 USDC buy) GOOD was exactly 2 USDC.
	if got := cryptotest.Num(t, good, "price_24h_ago_usd"); got != 2 {
		t.Errorf("GOOD 24h ago %v, want 2", got)
	}
	if got := uint64(cryptotest.Num(t, good, "block_24h_ago")); got != c.Before24h {
		t.Errorf("24h block %d, want %d", got, c.Before24h)
	}
	if got := cryptotest.Num(t, good, "change_24h_pct"); !cryptotest.Near(got, (want/2-1)*100, 1e-5) {
		t.Errorf("GOOD change %v%%, want %v", got, (want/2-1)*100)
	}
	if len(good["sources"].([]any)) != 2 {
		t.Errorf("GOOD sources: %v", good["sources"])
	}
	// ETH is WETH at 3,000 USDC in both the V2 pair and the V3-style pool
	// (300,000 USDC in range: 600,000 USD of depth); the deeper V2 pair
	// sets the price and the two agree.
	if got := cryptotest.Num(t, eth, "price_usd"); got != 3000 {
		t.Errorf("ETH %v", got)
	}
	src := eth["sources"].([]any)
	if len(src) != 2 {
		t.Fatalf("ETH sources %v", src)
	}
	v3 := src[1].(map[string]any)
	if v3["pool"] != c.V3Pool.Hex() || !cryptotest.Near(cryptotest.Num(t, v3, "price_usd"), 3000, 1e-9) || !cryptotest.Near(cryptotest.Num(t, v3, "depth_usd"), 600_000, 1e-9) {
		t.Errorf("V3 source %v", v3)
	}
	if eth["confidence_label"] != "high" {
		t.Errorf("ETH confidence %v", eth["confidence"])
	}
	if got := cryptotest.Num(t, usdc, "price_usd"); got != 1 || usdc["peg_assumed"] != true {
		t.Errorf("USDC %v", usdc)
	}
	// FEE trades only against WETH: 1,000,000 FEE for 100 WETH.
	if got := cryptotest.Num(t, fee, "price_usd"); !cryptotest.Near(got, 0.3, 1e-9) || fee["quote_token"] != "WETH" {
		t.Errorf("FEE %v via %v, want 0.3 via WETH", got, fee["quote_token"])
	}
	// The buy moved GOOD/USDC but not GOOD/WETH (nobody arbitraged): two
	// deep pools 10% apart make the price uncertain, while FEE's single
	// 600,000 USD pool is believed.
	if good["confidence_label"] != "low" || fee["confidence_label"] != "medium" {
		t.Errorf("confidence GOOD %v (%v), FEE %v (%v); want low and medium",
			good["confidence"], good["confidence_label"], fee["confidence"], fee["confidence_label"])
	}
}

func TestCryptoPricesRefusedBeforePayment(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{})
	before := e.Settlements(t)
	for _, tc := range []struct {
		name   string
		in     map[string]any
		status int
		code   string
	}{
		{"no pool", map[string]any{"tokens": "ethereum:" + e.Chain.ProxyImpl.Hex()}, 404, "no_pool"},
		{"unknown symbol", map[string]any{"tokens": "NOPE"}, 400, "invalid_input"},
		{"unknown chain", map[string]any{"tokens": "dogechain:0x0000000000000000000000000000000000000001"}, 400, "invalid_input"},
		{"eleven tokens", map[string]any{"tokens": "USDC,USDC,USDC,USDC,USDC,USDC,USDC,USDC,USDC,USDC,USDC"}, 400, "invalid_input"},
		{"yields of an unconfigured chain", map[string]any{"tokens": "USDC", "yields_chain": "base"}, 400, "invalid_input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, m := e.Call(t, http.MethodGet, "/v1/crypto/prices", tc.in, "")
			if res.StatusCode != tc.status {
				t.Fatalf("%d %v, want %d", res.StatusCode, m, tc.status)
			}
			if code := m["error"].(map[string]any)["code"]; code != tc.code {
				t.Errorf("code %v, want %v", code, tc.code)
			}
		})
	}
	if e.Settlements(t) != before {
		t.Error("a refused call was charged")
	}
}
