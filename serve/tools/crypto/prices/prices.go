package prices

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/num"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/token"
)

// Input is the input of crypto_prices.
type Input struct {
	Tokens      string `json:"tokens,omitempty" doc:"Comma list of at most 10 tokens: symbols of the configured token lists (ETH, WETH, USDC, ...; searched chain by chain, ethereum first) or chain:address / chain:SYMBOL." maxLength:"1000"`
	YieldsChain string `json:"yields_chain,omitempty" doc:"Add the lending yields (Aave V3, Compound V3) of this chain for the requested tokens that have a market there, or for its token list when no tokens are given." enum:"ethereum|base|arbitrum|optimism|polygon|bsc"`
	Change24h   bool   `json:"change_24h,omitempty" doc:"Add the 24-hour change, from pool state of the block 24 hours ago." default:"true"`
}

// Validate checks the list shape; tokens are resolved in Check.
func (in *Input) Validate() error {
	n := len(call.List(in.Tokens))
	if n == 0 && in.YieldsChain == "" {
		return apierr.Invalid("tokens", "give tokens (at most 10)")
	}
	if n > 10 {
		return apierr.Invalid("tokens", fmt.Sprintf("at most 10 tokens, got %d", n))
	}
	return nil
}

// Output is the answer of crypto_prices.
type Output struct {
	Prices []TokenPrice `json:"prices"`
	// Yields is present when yields_chain was given.
	Yields    *Yields   `json:"yields,omitempty"`
	CheckedAt time.Time `json:"checked_at"`
}

// TokenPrice is one token's price.
type TokenPrice struct {
	Input    string  `json:"input"`
	Chain    string  `json:"chain"`
	Address  string  `json:"address"`
	Symbol   string  `json:"symbol,omitempty"`
	Name     string  `json:"name,omitempty"`
	Decimals uint8   `json:"decimals"`
	PriceUSD float64 `json:"price_usd"`
	// DepthUSD is the value of both sides of the deepest pool.
	DepthUSD float64 `json:"depth_usd"`
	// Confidence in [0,1] from depth and agreement between pools;
	// ConfidenceLabel high (≥ 0.75), medium (≥ 0.4) or low.
	Confidence      float64         `json:"confidence"`
	ConfidenceLabel string          `json:"confidence_label"`
	Pool            string          `json:"pool,omitempty"`
	DEX             string          `json:"dex,omitempty"`
	QuoteToken      string          `json:"quote_token"`
	Sources         []market.Source `json:"sources"`
	Block           uint64          `json:"block"`
	// Change24hPct compares with the price at Block24hAgo (the last block
	// at least 24 hours old); absent when the token had no pool then.
	Change24hPct  *float64 `json:"change_24h_pct,omitempty"`
	Price24hAgo   *float64 `json:"price_24h_ago_usd,omitempty"`
	Block24hAgo   uint64   `json:"block_24h_ago,omitempty"`
	PegAssumption bool     `json:"peg_assumed,omitempty"` // USDC is priced at 1 USD
	// Resolved is the token a symbol input stood for: its symbol,
	// address, chain and the list it was found in (absent for addresses).
	Resolved *token.Resolution `json:"resolved,omitempty"`
}

func (t *Tools) resolveTokens(in *Input) ([]token.Ref, error) {
	var refs []token.Ref
	for _, s := range call.List(in.Tokens) {
		r, err := t.tokens.Resolve("tokens", s, "")
		if err != nil {
			return nil, err
		}
		refs = append(refs, r)
	}
	return refs, nil
}

// checkPrices resolves the tokens and refuses, before payment, a
// yields_chain without lending markets and tokens that have no pool at all.
func (t *Tools) checkPrices(ctx context.Context, in *Input) error {
	if in.YieldsChain != "" {
		if _, err := t.yieldsClient(in.YieldsChain); err != nil {
			return err
		}
	}
	refs, err := t.resolveTokens(in)
	if err != nil {
		return err
	}
	for ch, addrs := range byChain(refs) {
		qs, err := market.USDPrices(ctx, t.evm[ch], addrs, nil)
		if err != nil {
			return err
		}
		for _, a := range addrs {
			if qs[a] == nil {
				return apierr.NotFound("no_pool", fmt.Sprintf("%s:%s has no pool against USDC or the wrapped native token on the configured exchanges", ch, a.Hex()))
			}
		}
	}
	return t.checkSolanaPrices(ctx, refs)
}

// byChain groups the EVM tokens by chain.
func byChain(refs []token.Ref) map[string][]common.Address {
	m := map[string][]common.Address{}
	for _, r := range refs {
		if r.Chain != "solana" {
			m[r.Chain] = append(m[r.Chain], r.Addr)
		}
	}
	return m
}

func (t *Tools) prices(ctx context.Context, in *Input) (*Output, error) {
	refs, err := t.resolveTokens(in)
	if err != nil {
		return nil, err
	}
	out := &Output{Prices: []TokenPrice{}, CheckedAt: t.cfg.Now().UTC()}
	for ch, addrs := range byChain(refs) {
		c := t.evm[ch]
		head, err := c.HeaderAt(ctx, nil)
		if err != nil {
			return nil, err
		}
		at := new(big.Int).SetUint64(head.Number)
		now, err := market.USDPrices(ctx, c, addrs, at)
		if err != nil {
			return nil, err
		}
		var then map[common.Address]*market.Price
		var thenBlock uint64
		if in.Change24h {
			// The search reads block times with the state of the pools
			// priced, so pricing the block found asks nothing more.
			if thenBlock, err = market.BlockAt(ctx, c, head, head.Time-24*3600, market.PriceReads(c, addrs)); err != nil {
				return nil, err
			}
			if then, err = market.USDPrices(ctx, c, addrs, new(big.Int).SetUint64(thenBlock)); err != nil {
				return nil, err
			}
		}
		meta, err := market.TokenInfo(ctx, c, addrs)
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			if r.Chain != ch {
				continue
			}
			q := now[r.Addr]
			if q == nil {
				return nil, apierr.NotFound("no_pool", r.Input+" has no pool any more")
			}
			tp := TokenPrice{Input: r.Input, Chain: ch, Address: r.Addr.Hex(), PriceUSD: num.Round(q.PriceUSD, 10),
				DepthUSD: num.Round(q.DepthUSD, 8), Confidence: q.Confidence, ConfidenceLabel: market.ConfidenceLabel(q.Confidence),
				QuoteToken: q.Quote, Sources: q.Sources, Block: head.Number, PegAssumption: r.Addr == c.Chain.USDC, Resolved: r.Resolved}
			if tp.Sources == nil {
				tp.Sources = []market.Source{}
			}
			if m := meta[r.Addr]; m != nil {
				tp.Symbol, tp.Name, tp.Decimals = m.Symbol, m.Name, m.Decimals
			}
			if len(q.Sources) > 0 {
				tp.Pool, tp.DEX = q.Sources[0].Pool, q.Sources[0].DEX
			}
			if old := then[r.Addr]; old != nil && old.PriceUSD > 0 {
				tp.Price24hAgo = num.Ptr(num.Round(old.PriceUSD, 10))
				tp.Change24hPct = num.Ptr(num.Round((q.PriceUSD/old.PriceUSD-1)*100, 6))
				tp.Block24hAgo = thenBlock
			}
			out.Prices = append(out.Prices, tp)
		}
	}
	if err := t.solanaTokenPrices(ctx, refs, out); err != nil {
		return nil, err
	}
	if in.YieldsChain != "" {
		c, err := t.yieldsClient(in.YieldsChain)
		if err != nil {
			return nil, err
		}
		if out.Yields, err = t.yields(ctx, c, t.yieldTokens(c, in)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
