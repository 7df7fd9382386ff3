package prices

import (
	"context"
	"slices"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/num"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/token"
)

func solanaMints(refs []token.Ref) []string {
	var out []string
	for _, r := range refs {
		if r.Chain == "solana" && !slices.Contains(out, r.Mint) {
			out = append(out, r.Mint)
		}
	}
	return out
}

// checkSolanaPrices refuses, before payment, a Solana token without pool.
func (t *Tools) checkSolanaPrices(ctx context.Context, refs []token.Ref) error {
	mints := solanaMints(refs)
	if len(mints) == 0 {
		return nil
	}
	m, err := market.SolPrices(ctx, t.sol, mints)
	if err != nil {
		return err
	}
	for _, mint := range mints {
		if m.Quotes[mint] == nil {
			return apierr.NotFound("no_pool", "solana:"+mint+" has no Whirlpool pool against USDC or SOL")
		}
	}
	return nil
}

// solanaTokenPrices adds the Solana tokens' prices (no 24-hour change:
// Solana nodes keep no past account state to compare with).
func (t *Tools) solanaTokenPrices(ctx context.Context, refs []token.Ref, out *Output) error {
	mints := solanaMints(refs)
	if len(mints) == 0 {
		return nil
	}
	w := market.SolWhirlpool(t.sol)
	m, err := market.SolPrices(ctx, t.sol, mints)
	if err != nil {
		return err
	}
	for _, r := range refs {
		if r.Chain != "solana" {
			continue
		}
		q := m.Quotes[r.Mint]
		if q == nil {
			return apierr.NotFound("no_pool", r.Input+" has no pool any more")
		}
		tp := TokenPrice{Input: r.Input, Chain: "solana", Address: r.Mint, Decimals: q.Decimals, PriceUSD: num.Round(q.PriceUSD, 10),
			DepthUSD: num.Round(q.DepthUSD, 8), Confidence: q.Confidence, ConfidenceLabel: market.ConfidenceLabel(q.Confidence),
			QuoteToken: q.Quote, Sources: q.Sources, Block: m.Slot, PegAssumption: r.Mint == w.USDCMint}
		switch r.Mint {
		case w.WSOLMint:
			tp.Symbol, tp.Name = "SOL", "Wrapped SOL"
		case w.USDCMint:
			tp.Symbol, tp.Name = "USDC", "USD Coin"
		}
		if tp.Sources == nil {
			tp.Sources = []market.Source{}
		}
		if len(q.Sources) > 0 {
			tp.Pool, tp.DEX = q.Sources[0].Pool, q.Sources[0].DEX
		}
		out.Prices = append(out.Prices, tp)
	}
	return nil
}
