package tokenreport

import (
	"context"

	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/num"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/sell"
)

// solanaSells quotes sales of usd worth of mint to USDC from pool math:
// through its deepest pool, then the SOL/USDC pool when that pool quotes
// in SOL. Nothing is simulated: a transfer hook or a frozen account would
// not show; the tests say so with QuoteOnly.
func (t *Tools) solanaSells(ctx context.Context, mint string) []sell.Test {
	var out []sell.Test
	skip := func(why string) []sell.Test {
		for _, usd := range reportSellUSD {
			out = append(out, sell.Test{USD: usd, Path: []string{}, Skipped: why, QuoteOnly: true})
		}
		return out
	}
	w := market.SolWhirlpool(t.sol)
	if w == nil {
		return skip("no Solana pool configuration")
	}
	m, err := market.SolPrices(ctx, t.sol, []string{mint})
	if err != nil {
		return skip("pool read failed: " + err.Error())
	}
	q := m.Quotes[mint]
	if q == nil || q.Best == nil || q.PriceUSD <= 0 {
		return skip("no pool against USDC or SOL")
	}
	viaSOL := !market.PairOf(q.Best, mint, w.USDCMint)
	if viaSOL && m.SOLPool == nil {
		return skip("no SOL/USDC pool for the second hop")
	}
	for _, usd := range reportSellUSD {
		st := sell.Test{USD: usd, Path: []string{q.Best.Addr}, QuoteOnly: true}
		amt := market.FromFloat(usd/q.PriceUSD, q.Decimals)
		st.AmountIn = amt.String()
		got := market.WhirlOut(q.Best, mint, amt)
		if viaSOL {
			st.Path = append(st.Path, m.SOLPool.Addr)
			got = market.WhirlOut(m.SOLPool, w.WSOLMint, got)
		}
		st.ReceivedUSDC = num.Ptr(num.Round(market.ToFloat(got, 6), 10))
		st.ExpectedUSDC = st.ReceivedUSDC
		out = append(out, st)
	}
	return out
}
