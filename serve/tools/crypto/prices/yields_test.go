package prices_test

import (
	"math/big"
	"net/http"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
)

// compoundYear is (1+r)^n − 1 by repeated squaring in 256-bit floats: the
// compounding of Aave's and Compound's docs, computed without the tool's
// expm1/log1p shortcut.
func compoundYear(r *big.Float, n uint64) float64 {
	prec := uint(256)
	base := new(big.Float).SetPrec(prec).Add(big.NewFloat(1).SetPrec(prec), r)
	acc := new(big.Float).SetPrec(prec).SetInt64(1)
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			acc.Mul(acc, base)
		}
		base.Mul(base, base)
	}
	f, _ := acc.Sub(acc, big.NewFloat(1)).Float64()
	return f
}

func quo(a *big.Int, scale *big.Int, n uint64) *big.Float {
	f := new(big.Float).SetPrec(256).SetInt(a)
	return f.Quo(f, new(big.Float).SetPrec(256).SetInt(new(big.Int).Mul(scale, new(big.Int).SetUint64(n))))
}

func TestCryptoPricesYields(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{})
	c := e.Chain
	const year = 365 * 24 * 3600
	before := c.Calls()
	m := e.PaidCall(t, http.MethodGet, "/v1/crypto/prices", map[string]any{
		"tokens": "USDC,WETH,GOOD", "yields_chain": "ethereum", "change_24h": false})
	if len(m["prices"].([]any)) != 3 {
		t.Errorf("prices %v", m["prices"])
	}
	y := m["yields"].(map[string]any)
	got := map[string]map[string]any{}
	for _, x := range y["markets"].([]any) {
		mk := x.(map[string]any)
		got[mk["market"].(string)+"/"+mk["symbol"].(string)] = mk
	}
	// GOOD has no market; USDC is in both, WETH in Aave only.
	if len(got) != 3 || got["aave-v3/USDC"] == nil || got["aave-v3/WETH"] == nil || got["compound-v3-usdc/USDC"] == nil {
		t.Fatalf("markets %v", got)
	}
	ray := evmtest.Units(1, 27)
	for sym, r := range evmtest.AaveRates {
		mk := got["aave-v3/"+sym]
		wantSupply := compoundYear(quo(r[0], ray, year), year) * 100
		wantBorrow := compoundYear(quo(r[1], ray, year), year) * 100
		if !cryptotest.Near(cryptotest.Num(t, mk, "supply_apy_pct"), wantSupply, 1e-6) || !cryptotest.Near(cryptotest.Num(t, mk, "borrow_apy_pct"), wantBorrow, 1e-6) {
			t.Errorf("%s: supply %v%% borrow %v%%, want %v and %v", sym, mk["supply_apy_pct"], mk["borrow_apy_pct"], wantSupply, wantBorrow)
		}
		apr, _ := new(big.Float).Quo(new(big.Float).SetInt(r[0]), new(big.Float).SetInt(ray)).Float64()
		if !cryptotest.Near(cryptotest.Num(t, mk, "supply_apr_pct"), apr*100, 1e-9) || mk["market_address"] != c.AavePool.Hex() {
			t.Errorf("%s: %v", sym, mk)
		}
	}
	// Comet: utilization 850,000/1,000,000 is under the kink, so the rate
	// is base + slopeLow·u (1e18 scale, per second), as Comet.sol computes.
	cr := evmtest.CometRates
	u := new(big.Int).Div(evmtest.Units(85, 16), big.NewInt(1))
	e18 := evmtest.Units(1, 18)
	lin := func(base, slope uint64) *big.Int {
		v := new(big.Int).Mul(new(big.Int).SetUint64(slope), u)
		return v.Add(v.Div(v, e18), new(big.Int).SetUint64(base))
	}
	supply, borrow := lin(cr[3], cr[1]), lin(cr[7], cr[5])
	mk := got["compound-v3-usdc/USDC"]
	if cryptotest.Num(t, mk, "utilization_pct") != 85 || mk["market_address"] != c.Comet.Hex() {
		t.Errorf("comet %v", mk)
	}
	for _, tc := range []struct {
		field string
		rate  *big.Int
	}{{"supply", supply}, {"borrow", borrow}} {
		apr, _ := quo(new(big.Int).Mul(tc.rate, big.NewInt(year)), e18, 1).Float64()
		apy := compoundYear(quo(tc.rate, e18, 1), year)
		if !cryptotest.Near(cryptotest.Num(t, mk, tc.field+"_apr_pct"), apr*100, 1e-9) || !cryptotest.Near(cryptotest.Num(t, mk, tc.field+"_apy_pct"), apy*100, 1e-6) {
			t.Errorf("comet %s: APR %v APY %v, want %v and %v", tc.field, mk[tc.field+"_apr_pct"], mk[tc.field+"_apy_pct"], apr*100, apy*100)
		}
	}
	if s := cryptotest.Num(t, mk, "supply_apr_pct"); s < 4 || s > 6 {
		t.Errorf("comet supply APR %v%%: the configured slope gives about 5%%", s)
	}
	t.Logf("prices with yields: %d JSON-RPC calls", c.Calls()-before)

	// No tokens: the chain's token list; yields only.
	m = e.PaidCall(t, http.MethodGet, "/v1/crypto/prices", map[string]any{"yields_chain": "ethereum"})
	if n := len(m["yields"].(map[string]any)["markets"].([]any)); n != 3 || len(m["prices"].([]any)) != 0 {
		t.Errorf("%d markets, prices %v", n, m["prices"])
	}

	t.Run("prices through a listed token", func(t *testing.T) { pricesThroughListedToken(t, e) })
}

// pricesThroughListedToken runs in TestCryptoPricesYields' chain (one
// chain fewer to deploy).
func pricesThroughListedToken(t *testing.T, e *cryptotest.Env) {
	c := e.Chain
	m := e.PaidCall(t, http.MethodGet, "/v1/crypto/prices", map[string]any{
		"tokens": "ethereum:" + c.TAIL.Hex() + ",ethereum:" + c.VTT.Hex() + ",GOOD", "change_24h": false})
	ps := m["prices"].([]any)
	tail, vtt, good := ps[0].(map[string]any), ps[1].(map[string]any), ps[2].(map[string]any)
	// TAIL has only a TAIL/GOOD pair: 10 TAIL per GOOD, times GOOD's own
	// price; the route is no deeper than GOOD's pool.
	want := cryptotest.ReserveRatio(t, c, 0, "TAIL/GOOD", 18, 18, c.TAIL) * cryptotest.Num(t, good, "price_usd")
	if got := cryptotest.Num(t, tail, "price_usd"); !cryptotest.Near(got, want, 1e-9) || tail["quote_token"] != "GOOD" || tail["pool"] != c.Pairs["TAIL/GOOD"].Hex() {
		t.Errorf("TAIL %v via %v (%v), want %v via GOOD", got, tail["quote_token"], tail["pool"], want)
	}
	if d := cryptotest.Num(t, tail, "depth_usd"); d > cryptotest.Num(t, good, "depth_usd")+1e-6 {
		t.Errorf("TAIL depth %v deeper than GOOD's %v", d, good["depth_usd"])
	}
	// VTT has only the V3 pool against WETH: 10,000 VTT per WETH at
	// 3,000 USD.
	if got := cryptotest.Num(t, vtt, "price_usd"); !cryptotest.Near(got, 0.3, 1e-9) || vtt["quote_token"] != "WETH" {
		t.Errorf("VTT %v via %v, want 0.3 via WETH", got, vtt["quote_token"])
	}
}
