package crypto

import (
	"context"
	"slices"
	"strings"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/num"
)

// resolveSolana turns SOL, USDC or a mint address into a Solana token.
func (t *Tools) resolveSolana(field, input, rest string) (tokenRef, error) {
	w := market.SolWhirlpool(t.sol)
	if w == nil {
		return tokenRef{}, apierr.Invalid(field, "Solana prices are not configured on this server")
	}
	r := tokenRef{Input: input, Chain: "solana"}
	switch {
	case strings.EqualFold(rest, "SOL") || strings.EqualFold(rest, "WSOL") || strings.EqualFold(rest, "native"):
		r.Mint = w.WSOLMint
	case strings.EqualFold(rest, "USDC"):
		r.Mint = w.USDCMint
	case market.IsSolanaAddress(rest):
		r.Mint = rest
	default:
		return tokenRef{}, apierr.Invalid(field, "not a Solana mint address or SOL/USDC: "+quoteStr(rest))
	}
	return r, nil
}

func solanaMints(refs []tokenRef) []string {
	var out []string
	for _, r := range refs {
		if r.Chain == "solana" && !slices.Contains(out, r.Mint) {
			out = append(out, r.Mint)
		}
	}
	return out
}

// checkSolanaPrices refuses, before payment, a Solana token without pool.
func (t *Tools) checkSolanaPrices(ctx context.Context, refs []tokenRef) error {
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
func (t *Tools) solanaTokenPrices(ctx context.Context, refs []tokenRef, out *PricesOutput) error {
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
