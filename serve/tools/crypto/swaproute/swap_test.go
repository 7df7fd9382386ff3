package swaproute_test

import (
	"context"
	"math/big"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
)

func TestSwapRoute(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{})
	c := e.Chain

	t.Run("direct beats the detour", func(t *testing.T) {
		m := e.PaidCall(t, http.MethodGet, "/v1/crypto/swap-route", map[string]any{
			"chain": "ethereum", "token_in": "GOOD", "token_out": c.USDC.Hex(), "amount": "1000", "slippage_bps": 100})
		want := cryptotest.RouterQuote(c, evmtest.Units(1000, 18), c.GOOD, c.USDC)
		if m["amount_out_raw"] != want.String() {
			t.Errorf("out %v, router says %v", m["amount_out_raw"], want)
		}
		minOut := new(big.Int).Div(new(big.Int).Mul(want, big.NewInt(9900)), big.NewInt(10000))
		if m["min_amount_out_raw"] != minOut.String() {
			t.Errorf("min out %v, want %v", m["min_amount_out_raw"], minOut)
		}
		if p := m["path"].([]any); len(p) != 2 || len(m["alternatives"].([]any)) == 0 {
			t.Errorf("path %v alternatives %v", p, m["alternatives"])
		}
		if imp := cryptotest.Num(t, m, "price_impact_pct"); imp <= 0 || imp > 0.2 {
			t.Errorf("price impact %v%% for 1,000 GOOD in a 950,000 GOOD pool", imp)
		}
		if m["transaction"] != nil || m["gas_from_node"] != false {
			t.Error("transaction without sender")
		}
	})

	t.Run("two hops", func(t *testing.T) {
		m := e.PaidCall(t, http.MethodGet, "/v1/crypto/swap-route", map[string]any{
			"chain": "ethereum", "token_in": "USDC", "token_out": c.FEE.Hex(), "amount_raw": "1000000000"})
		want := cryptotest.RouterQuote(c, big.NewInt(1_000_000_000), c.USDC, c.WETH, c.FEE)
		if m["amount_out_raw"] != want.String() || len(m["hops"].([]any)) != 2 {
			t.Errorf("out %v via %v, router says %v via WETH", m["amount_out_raw"], m["path"], want)
		}
		// Value change: 1,000 USDC in, FEE out at its pool price.
		if v := cryptotest.Num(t, m, "value_in_usd"); v != 1000 {
			t.Errorf("value in %v", v)
		}
		if ch := cryptotest.Num(t, m, "value_change_pct"); ch > -0.5 || ch < -1.5 {
			t.Errorf("value change %v%%: two 0.3%% fees and a little impact expected", ch)
		}
	})

	t.Run("with sender", func(t *testing.T) {
		// 4,000.5 USDC: enough that the deep V2 WETH/USDC pair beats the
		// cheaper but shallower V3 pool, and GOOD is cheaper through WETH
		// (nobody arbitraged the 24h buy): a V2-only route, which the
		// wallet's router approval covers.
		m := e.PaidCall(t, http.MethodGet, "/v1/crypto/swap-route", map[string]any{
			"chain": "ethereum", "token_in": "USDC", "token_out": "GOOD", "amount": "4000.5", "sender": c.WalletAddr.Hex()})
		if want := cryptotest.RouterQuote(c, evmtest.Units(40005, 5), c.USDC, c.WETH, c.GOOD); m["amount_out_raw"] != want.String() || m["router"] != c.Router.Hex() {
			t.Errorf("out %v via %v on %v, V2 router says %v via WETH", m["amount_out_raw"], m["path"], m["router"], want)
		}
		al := m["allowance"].(map[string]any)
		if al["sufficient"] != true || al["balance_sufficient"] != true || al["balance_raw"] != "5000000000" || m["amount_in_raw"] != "4000500000" {
			t.Errorf("allowance %v amount %v", al, m["amount_in_raw"])
		}
		// The unsigned transaction is valid: the wallet's call of it
		// succeeds on the chain (eth_call, nothing sent).
		tx := m["transaction"].(map[string]any)
		to := common.HexToAddress(tx["to"].(string))
		if _, err := c.Client.CallContract(context.Background(), ethereum.CallMsg{From: c.WalletAddr, To: &to,
			Data: hexutil.MustDecode(tx["data"].(string))}, nil); err != nil {
			t.Errorf("the unsigned swap does not run: %v", err)
		}
		if m["gas_from_node"] != true || cryptotest.Num(t, m, "gas_estimate") < 50_000 || m["simulation_error"] != nil {
			t.Errorf("gas %v from node %v (%v)", m["gas_estimate"], m["gas_from_node"], m["simulation_error"])
		}
	})

	t.Run("fee token misses the minimum", func(t *testing.T) {
		// FEE keeps 5% of the transfer to the wallet: more than the 0.5%
		// slippage, so the router's minimum check fails, and says so.
		m := e.PaidCall(t, http.MethodGet, "/v1/crypto/swap-route", map[string]any{
			"chain": "ethereum", "token_in": "USDC", "token_out": c.FEE.Hex(), "amount": "4000", "sender": c.WalletAddr.Hex()})
		if m["simulation_error"] != "execution reverted: UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT" || m["gas_from_node"] != false {
			t.Errorf("simulation error %v", m["simulation_error"])
		}
	})

	t.Run("v3 pool wins small trades", func(t *testing.T) {
		// 30 USDC to ETH: the V3-style pool's 0.05% fee beats the V2
		// pair's 0.3% (and no detour through GOOD pays here).
		m := e.PaidCall(t, http.MethodGet, "/v1/crypto/swap-route", map[string]any{
			"chain": "ethereum", "token_in": "USDC", "token_out": "native", "amount": "30", "sender": c.WalletAddr.Hex()})
		type params struct {
			TokenIn, TokenOut                common.Address
			AmountIn, Fee, SqrtPriceLimitX96 *big.Int
		}
		amt := evmtest.Units(30, 6)
		q := c.Read(c.V3Quoter, "QuoterV2", "quoteExactInputSingle", params{c.USDC, c.WETH, amt, big.NewInt(evmtest.V3Fee), new(big.Int)})
		if m["amount_out_raw"] != q[0].(*big.Int).String() || m["dex"] != "uniswap-v3 (fee 0.05%)" {
			t.Errorf("out %v on %v, the quoter says %v", m["amount_out_raw"], m["dex"], q[0])
		}
		if v2 := cryptotest.RouterQuote(c, amt, c.USDC, c.WETH); v2.Cmp(q[0].(*big.Int)) >= 0 {
			t.Errorf("V2 gives %v, not less than V3's %v: the test proves nothing", v2, q[0])
		}
		tx := m["transaction"].(map[string]any)
		if tx["to"] != c.V3Router.Hex() || tx["value"] != "0" || tx["data"].(string)[:10] != cryptotest.Selector("exactInputSingle((address,address,uint24,address,uint256,uint256,uint160))") {
			t.Errorf("transaction %v", tx)
		}
		// The wallet approved the V2 router only.
		if al := m["allowance"].(map[string]any); al["sufficient"] != false || al["spender"] != c.V3Router.Hex() {
			t.Errorf("allowance %v", al)
		}
		if imp := cryptotest.Num(t, m, "price_impact_pct"); imp <= 0 || imp > 0.05 {
			t.Errorf("impact %v%% for 30 of 300,000 USDC in range", imp)
		}
	})

	t.Run("no allowance", func(t *testing.T) {
		m := e.PaidCall(t, http.MethodGet, "/v1/crypto/swap-route", map[string]any{
			"chain": "ethereum", "token_in": "GOOD", "token_out": "native", "amount": "10", "sender": c.WalletAddr.Hex()})
		al := m["allowance"].(map[string]any)
		if al["sufficient"] != false || al["approve_transaction"] == nil || m["native_out"] != true {
			t.Errorf("allowance %v native_out %v", al, m["native_out"])
		}
	})
}

func TestSwapRouteRefusedBeforePayment(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{})
	before := e.Settlements(t)
	for _, tc := range []struct {
		in     map[string]any
		status int
		code   string
	}{
		{map[string]any{"chain": "ethereum", "token_in": "GOOD", "token_out": e.Chain.ProxyImpl.Hex(), "amount": "1"}, 404, "no_route"},
		{map[string]any{"chain": "ethereum", "token_in": "GOOD", "token_out": "USDC"}, 400, "invalid_input"},
		{map[string]any{"chain": "ethereum", "token_in": "GOOD", "token_out": "USDC", "amount": "1", "amount_raw": "1"}, 400, "invalid_input"},
		{map[string]any{"chain": "ethereum", "token_in": "GOOD", "token_out": "USDC", "amount": "1", "slippage_bps": 6000}, 400, "invalid_input"},
		{map[string]any{"chain": "ethereum", "token_in": "GOOD", "token_out": "GOOD", "amount": "1"}, 400, "invalid_input"},
	} {
		res, m := e.Call(t, http.MethodGet, "/v1/crypto/swap-route", tc.in, "")
		if res.StatusCode != tc.status || m["error"].(map[string]any)["code"] != tc.code {
			t.Errorf("%v: %d %v, want %d %s", tc.in, res.StatusCode, m, tc.status, tc.code)
		}
	}
	if e.Settlements(t) != before {
		t.Error("a refused call was charged")
	}
}
