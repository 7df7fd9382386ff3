package evmtest

import (
	"math/big"
	"testing"
)

func TestScenario(t *testing.T) {
	c := New(t)
	r := c.Read(c.Pairs["WETH/USDC"], "UniswapV2Pair", "getReserves")
	t0 := c.Read(c.Pairs["WETH/USDC"], "UniswapV2Pair", "token0")[0]
	t.Logf("WETH/USDC reserves %v %v token0 %v usdc %v", r[0], r[1], t0, c.USDC)
	bal := c.Read(c.USDC, "Token", "balanceOf", c.WalletAddr)[0].(*big.Int)
	if bal.Cmp(Units(5000, 6)) != 0 {
		t.Fatalf("wallet USDC %v", bal)
	}
	if c.Calls() == 0 {
		t.Log("no relay calls yet (deploy uses the in-process client)")
	}
	t.Logf("head %d, before24h %d", c.BlockNumber(), c.Before24h)
}
