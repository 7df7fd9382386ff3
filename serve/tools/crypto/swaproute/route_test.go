package swaproute_test

import (
	"math/big"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
)

// packedPath is a V3 path as QuoterV2 and SwapRouter02 read it.
func packedPath(a common.Address, fee int64, b common.Address, more ...any) []byte {
	out := append(append(append([]byte{}, a.Bytes()...), byte(fee>>16), byte(fee>>8), byte(fee)), b.Bytes()...)
	for i := 0; i+1 < len(more); i += 2 {
		f, t := more[i].(int64), more[i+1].(common.Address)
		out = append(append(out, byte(f>>16), byte(f>>8), byte(f)), t.Bytes()...)
	}
	return out
}

func balance(t *testing.T, c *evmtest.Chain, tok, who common.Address) *big.Int {
	return c.Read(tok, "Token", "balanceOf", who)[0].(*big.Int)
}

// swapAndCompare sends the tool's unsigned transaction from the wallet and
// checks the wallet received exactly the quoted output.
func swapAndCompare(t *testing.T, c *evmtest.Chain, m map[string]any, out common.Address) {
	t.Helper()
	tx := m["transaction"].(map[string]any)
	before := balance(t, c, out, c.WalletAddr)
	c.SendData(c.Wallet, common.HexToAddress(tx["to"].(string)), nil, hexutil.MustDecode(tx["data"].(string)))
	got := new(big.Int).Sub(balance(t, c, out, c.WalletAddr), before)
	if got.String() != m["amount_out_raw"] {
		t.Errorf("the swap delivered %v, the quote said %v", got, m["amount_out_raw"])
	}
}

func TestSwapRouteMultiHop(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{})
	c := e.Chain
	// VTT trades only in the V3 VTT/WETH pool: every route to it ends
	// with a V3 hop; the first hop is the V3 WETH/USDC pool (0.05%) for
	// small amounts, the deeper V2 pair (0.3%) for large ones.
	c.Send(c.Deployer, c.USDC, nil, "Token", "transfer", c.WalletAddr, evmtest.Units(100_000, 6))
	maxU := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	ask := func(amount string) map[string]any {
		e.Later() // see the approvals and swaps made since the last ask
		return e.PaidCall(t, http.MethodGet, "/v1/crypto/swap-route", map[string]any{
			"chain": "ethereum", "token_in": "USDC", "token_out": c.VTT.Hex(), "amount": amount, "sender": c.WalletAddr.Hex(), "slippage_bps": 100})
	}
	wantPath := []any{c.USDC.Hex(), c.WETH.Hex(), c.VTT.Hex()}

	t.Run("V2 then V3 in one multicall", func(t *testing.T) {
		m := ask("100000")
		if p := m["path"].([]any); len(p) != 3 || p[0] != wantPath[0] || p[1] != wantPath[1] || p[2] != wantPath[2] {
			t.Fatalf("path %v", p)
		}
		if m["dex"] != "uniswap-v2 + uniswap-v3 (fee 0.30%)" || m["router"] != c.V3Router.Hex() {
			t.Errorf("dex %v router %v", m["dex"], m["router"])
		}
		// The truth: the V2 router's quote of the first hop, QuoterV2's of
		// the second.
		weth := cryptotest.RouterQuote(c, evmtest.Units(100_000, 6), c.USDC, c.WETH)
		type params struct {
			TokenIn, TokenOut                common.Address
			AmountIn, Fee, SqrtPriceLimitX96 *big.Int
		}
		q := c.Read(c.V3Quoter, "QuoterV2", "quoteExactInputSingle", params{c.WETH, c.VTT, weth, big.NewInt(evmtest.V3Fee2), new(big.Int)})[0].(*big.Int)
		if m["amount_out_raw"] != q.String() {
			t.Errorf("out %v, V2 router then QuoterV2 say %v", m["amount_out_raw"], q)
		}
		hops := m["hops"].([]any)
		if len(hops) != 2 || hops[0].(map[string]any)["pool"] != c.Pairs["WETH/USDC"].Hex() || hops[1].(map[string]any)["pool"] != c.V3Pool2.Hex() {
			t.Errorf("hops %v", hops)
		}
		// 100,000 USDC is a third of the V3 pool's WETH: a large impact.
		if imp := cryptotest.Num(t, m, "price_impact_pct"); imp < 10 || imp > 40 {
			t.Errorf("price impact %v%%", imp)
		}
		// 0.3% in the V2 pair, 0.3% in the V3 pool.
		if fee := cryptotest.Num(t, m, "lp_fee_pct"); !cryptotest.Near(fee, (1-0.997*0.997)*100, 1e-6) {
			t.Errorf("LP fee %v%%", fee)
		}
		tx := m["transaction"].(map[string]any)
		if tx["data"].(string)[:10] != cryptotest.Selector("multicall(uint256,bytes[])") {
			t.Errorf("transaction %v", tx)
		}
		if al := m["allowance"].(map[string]any); al["sufficient"] != false || al["spender"] != c.V3Router.Hex() {
			t.Errorf("allowance %v", al)
		}
		c.Send(c.Wallet, c.USDC, nil, "Token", "approve", c.V3Router, maxU)
		m = ask("100000")
		if m["gas_from_node"] != true || m["simulation_error"] != nil {
			t.Errorf("gas %v from node %v: %v", m["gas_estimate"], m["gas_from_node"], m["simulation_error"])
		}
		swapAndCompare(t, c, m, c.VTT)
	})

	t.Run("two V3 hops through exactInput", func(t *testing.T) {
		m := ask("30")
		if m["dex"] != "uniswap-v3 (fee 0.05%) + uniswap-v3 (fee 0.30%)" || m["router"] != c.V3Router.Hex() {
			t.Errorf("dex %v router %v", m["dex"], m["router"])
		}
		q := c.Read(c.V3Quoter, "QuoterV2", "quoteExactInput",
			packedPath(c.USDC, evmtest.V3Fee, c.WETH, int64(evmtest.V3Fee2), c.VTT), evmtest.Units(30, 6))[0].(*big.Int)
		if m["amount_out_raw"] != q.String() {
			t.Errorf("out %v, QuoterV2 quoteExactInput says %v", m["amount_out_raw"], q)
		}
		tx := m["transaction"].(map[string]any)
		if tx["data"].(string)[:10] != cryptotest.Selector("exactInput((bytes,address,uint256,uint256))") {
			t.Errorf("transaction %v", tx)
		}
		minOut := new(big.Int).Div(new(big.Int).Mul(q, big.NewInt(9900)), big.NewInt(10000))
		if m["min_amount_out_raw"] != minOut.String() || len(m["alternatives"].([]any)) == 0 {
			t.Errorf("min out %v, want %v; alternatives %v", m["min_amount_out_raw"], minOut, m["alternatives"])
		}
		swapAndCompare(t, c, m, c.VTT)
	})
}
