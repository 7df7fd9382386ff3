package crypto

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/num"
)

// PricesInput is the input of crypto_prices.
type PricesInput struct {
	Tokens      string `json:"tokens,omitempty" doc:"Comma list of at most 10 tokens: symbols of the configured token lists (ETH, WETH, USDC, ...; searched chain by chain, ethereum first) or chain:address / chain:SYMBOL." maxLength:"1000"`
	YieldsChain string `json:"yields_chain,omitempty" doc:"Add the lending yields (Aave V3, Compound V3) of this chain for the requested tokens that have a market there, or for its token list when no tokens are given." enum:"ethereum|base|arbitrum|optimism|polygon|bsc"`
	Change24h   bool   `json:"change_24h,omitempty" doc:"Add the 24-hour change, from pool state of the block 24 hours ago." default:"true"`
}

// Validate checks the list shape; tokens are resolved in Check.
func (in *PricesInput) Validate() error {
	n := len(call.List(in.Tokens))
	if n == 0 && in.YieldsChain == "" {
		return apierr.Invalid("tokens", "give tokens (at most 10)")
	}
	if n > 10 {
		return apierr.Invalid("tokens", fmt.Sprintf("at most 10 tokens, got %d", n))
	}
	return nil
}

// PricesOutput is the answer of crypto_prices.
type PricesOutput struct {
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
	Resolved *Resolution `json:"resolved,omitempty"`
}

// tokenRef is a resolved token of a chain.
type tokenRef struct {
	Input string
	Chain string
	Addr  common.Address
	Mint  string // solana
	// Resolved says which token a symbol stood for (nil for addresses).
	Resolved *Resolution
}

// Resolution is the token a symbol was resolved to, and from where.
type Resolution struct {
	Symbol  string `json:"symbol"`
	Name    string `json:"name,omitempty"`
	Address string `json:"address"`
	Chain   string `json:"chain"`
	// Source is "chain configuration", "native coin" or the token list
	// and its version.
	Source string `json:"source"`
	// Note explains an alias: BTC priced as a wrapped form.
	Note string `json:"note,omitempty"`
}

// nativeSymbols map a native coin to its chain (priced as its wrapped token).
var nativeSymbols = map[string]string{"ETH": "ethereum", "POL": "polygon", "MATIC": "polygon", "BNB": "bsc"}

// symbolRef resolves a symbol on one chain: the native coin (as its wrapped
// token), a configured token, a token of the installed lists, or a wrapped
// form of a coin without an EVM contract (BTC).
func symbolRef(input, sym string, c *chain.EVM) (tokenRef, bool) {
	ch := c.Chain
	if strings.EqualFold(sym, "native") || strings.EqualFold(sym, ch.Native) {
		return nativeRef(input, c), true
	}
	tok, alias, ok := ch.Resolve(sym)
	if !ok {
		return tokenRef{}, false
	}
	r := &Resolution{Symbol: tok.Symbol, Name: tok.Name, Address: tok.Address.Hex(), Chain: ch.Name, Source: tok.Source}
	if r.Source == "" {
		r.Source = "chain configuration"
	}
	if alias != "" {
		r.Note = strings.ToUpper(sym) + " has no contract on " + ch.Name + ": priced as " + alias + ", its wrapped form there"
	}
	return tokenRef{Input: input, Chain: ch.Name, Addr: tok.Address, Resolved: r}, true
}

// nativeRef is the chain's native coin, priced as its wrapped token.
func nativeRef(input string, c *chain.EVM) tokenRef {
	ch := c.Chain
	return tokenRef{Input: input, Chain: ch.Name, Addr: ch.WrappedNative, Resolved: &Resolution{Symbol: ch.Native,
		Address: ch.WrappedNative.Hex(), Chain: ch.Name, Source: "native coin",
		Note: ch.Native + " is priced as its wrapped token"}}
}

// resolveToken turns "chain:0x..", "chain:SYM", "SYM" or "native" (with a
// chain) into an address on a configured EVM chain. A bare symbol is
// looked up chain by chain, ethereum first.
func (t *Tools) resolveToken(field, s, defChain string) (tokenRef, error) {
	s = strings.TrimSpace(s)
	name, rest, ok := strings.Cut(s, ":")
	if !ok {
		name, rest = defChain, s
	}
	name = strings.ToLower(name)
	if name == "solana" || name == "" && (strings.EqualFold(rest, "SOL") || strings.EqualFold(rest, "WSOL")) {
		return t.resolveSolana(field, s, rest)
	}
	if name == "" {
		up := strings.ToUpper(rest)
		if ch, ok := nativeSymbols[up]; ok && t.evm[ch] != nil {
			return nativeRef(s, t.evm[ch]), nil
		}
		for _, ch := range chain.EVMChains {
			if c := t.evm[ch]; c != nil {
				if r, ok := symbolRef(s, rest, c); ok {
					return r, nil
				}
			}
		}
		return tokenRef{}, apierr.Invalid(field, "unknown symbol "+quoteStr(rest)+" (not in the configured tokens nor the installed token lists of any chain); use chain:0x... for other tokens")
	}
	c, err := t.evm.Client(field, name)
	if err != nil {
		return tokenRef{}, err
	}
	if common.IsHexAddress(rest) && strings.HasPrefix(rest, "0x") {
		return tokenRef{Input: s, Chain: name, Addr: common.HexToAddress(rest)}, nil
	}
	if r, ok := symbolRef(s, rest, c); ok {
		return r, nil
	}
	return tokenRef{}, apierr.Invalid(field, "not an address or known symbol of "+name+": "+quoteStr(rest))
}

func (t *Tools) resolveTokens(in *PricesInput) ([]tokenRef, error) {
	var refs []tokenRef
	for _, s := range call.List(in.Tokens) {
		r, err := t.resolveToken("tokens", s, "")
		if err != nil {
			return nil, err
		}
		refs = append(refs, r)
	}
	return refs, nil
}

// checkPrices resolves the tokens and refuses, before payment, a
// yields_chain without lending markets and tokens that have no pool at all.
func (t *Tools) checkPrices(ctx context.Context, in *PricesInput) error {
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
func byChain(refs []tokenRef) map[string][]common.Address {
	m := map[string][]common.Address{}
	for _, r := range refs {
		if r.Chain != "solana" {
			m[r.Chain] = append(m[r.Chain], r.Addr)
		}
	}
	return m
}

func (t *Tools) prices(ctx context.Context, in *PricesInput) (*PricesOutput, error) {
	refs, err := t.resolveTokens(in)
	if err != nil {
		return nil, err
	}
	out := &PricesOutput{Prices: []TokenPrice{}, CheckedAt: t.cfg.Now().UTC()}
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
