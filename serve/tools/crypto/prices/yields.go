package prices

import (
	"context"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/num"
)

// secondsPerYear is the year of Aave's and Compound's rate maths (365 days).
const secondsPerYear = 365 * 24 * 3600

// Yields are the lending yields of crypto_prices' yields_chain.
type Yields struct {
	Chain   string         `json:"chain"`
	Block   uint64         `json:"block"`
	Markets []LendingYield `json:"markets"`
	Note    string         `json:"note"`
}

// LendingYield is one token's rates in one lending market, in percent a
// year. APR is the simple annual rate; APY compounds it every second, as
// Aave's and Compound's documentation define it.
type LendingYield struct {
	Protocol  string  `json:"protocol"` // aave-v3 or compound-v3
	Market    string  `json:"market"`
	Address   string  `json:"market_address"`
	Token     string  `json:"token"`
	Symbol    string  `json:"symbol,omitempty"`
	SupplyAPR float64 `json:"supply_apr_pct"`
	SupplyAPY float64 `json:"supply_apy_pct"`
	BorrowAPR float64 `json:"borrow_apr_pct"`
	BorrowAPY float64 `json:"borrow_apy_pct"`
	// UtilizationPct is the share of supplied funds lent out (Compound:
	// the rates follow from it).
	UtilizationPct *float64 `json:"utilization_pct,omitempty"`
}

// yieldsClient returns the client of yields_chain, or a 400 when it has no
// lending markets configured.
func (t *Tools) yieldsClient(name string) (*chain.EVM, error) {
	c, err := t.evm.Client("yields_chain", name)
	if err != nil {
		return nil, err
	}
	if len(c.Chain.Lending) == 0 {
		return nil, apierr.New(apierr.ErrInvalidInput, "yields_not_supported", "yields_chain: "+c.Chain.Name+" has no configured lending markets")
	}
	return c, nil
}

// yieldTokens are the requested tokens as addresses of the yields chain
// (bare symbols looked up in its token list, chain:... entries of other
// chains skipped), or its whole token list when none was requested.
func (t *Tools) yieldTokens(c *chain.EVM, in *Input) []common.Address {
	var out []common.Address
	add := func(a common.Address) {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	list := call.List(in.Tokens)
	if len(list) == 0 {
		for _, tk := range c.Chain.Tokens {
			add(tk.Address)
		}
		return out
	}
	for _, s := range list {
		if name, _, ok := strings.Cut(s, ":"); ok && !strings.EqualFold(name, c.Chain.Name) {
			continue
		}
		if r, err := t.tokens.Resolve("tokens", s, c.Chain.Name); err == nil && r.Chain == c.Chain.Name {
			add(r.Addr)
		}
	}
	return out
}

// yields reads every configured market's rates for tokens at the head
// block: one Multicall3 call for Aave's getReserveData and Comet's
// utilization (Comet's base token is cached), one for Comet's rates at
// that utilization.
func (t *Tools) yields(ctx context.Context, c *chain.EVM, tokens []common.Address) (*Yields, error) {
	head, err := c.HeaderAt(ctx, nil)
	if err != nil {
		return nil, err
	}
	at := new(big.Int).SetUint64(head.Number)
	out := &Yields{Chain: c.Chain.Name, Block: head.Number, Markets: []LendingYield{},
		Note: "Rates read now from the markets' contracts; APY compounds the per-second rate over 365 days. Rewards and incentives are not included."}
	if err := cometBases(ctx, c); err != nil {
		return nil, err
	}
	var reads, rates market.Batch
	for _, m := range c.Chain.Lending {
		switch m.Kind {
		case "aave-v3":
			for _, tok := range tokens {
				reads.Add(chain.Call{Target: m.Address, Method: "getReserveData", Args: []any{tok}}, func(r chain.Result) {
					// An unlisted asset reads as the zero struct.
					if a, ok := r.Addr(8); !ok || a == (common.Address{}) {
						return
					}
					supply, borrow := rayAPR(r.Big(2)), rayAPR(r.Big(4))
					out.Markets = append(out.Markets, LendingYield{Protocol: m.Kind, Market: m.Name, Address: m.Address.Hex(), Token: tok.Hex(),
						SupplyAPR: num.Round(supply*100, 9), SupplyAPY: num.Round(perSecondAPY(supply/secondsPerYear)*100, 9),
						BorrowAPR: num.Round(borrow*100, 9), BorrowAPY: num.Round(perSecondAPY(borrow/secondsPerYear)*100, 9)})
				})
			}
		case "compound-v3":
			v, _ := c.Cache.Get("comet:" + m.Address.Hex())
			base, _ := v.(common.Address)
			if !slices.Contains(tokens, base) {
				continue
			}
			reads.Add(chain.Call{Target: m.Address, Method: "getUtilization"}, func(r chain.Result) {
				u := r.Big(0)
				if u == nil {
					return
				}
				y := &LendingYield{Protocol: m.Kind, Market: m.Name, Address: m.Address.Hex(), Token: base.Hex(),
					UtilizationPct: num.Ptr(num.Round(market.ToFloat(u, 18)*100, 9))}
				rates.Add(chain.Call{Target: m.Address, Method: "getSupplyRate", Args: []any{u}}, func(r chain.Result) {
					if s := r.Big(0); s != nil {
						ps := market.ToFloat(s, 18)
						y.SupplyAPR, y.SupplyAPY = num.Round(ps*secondsPerYear*100, 9), num.Round(perSecondAPY(ps)*100, 9)
					}
				})
				rates.Add(chain.Call{Target: m.Address, Method: "getBorrowRate", Args: []any{u}}, func(r chain.Result) {
					if b := r.Big(0); b != nil {
						pb := market.ToFloat(b, 18)
						y.BorrowAPR, y.BorrowAPY = num.Round(pb*secondsPerYear*100, 9), num.Round(perSecondAPY(pb)*100, 9)
						out.Markets = append(out.Markets, *y)
					}
				})
			})
		}
	}
	if err := reads.Run(ctx, c, at); err != nil {
		return nil, err
	}
	if err := rates.Run(ctx, c, at); err != nil {
		return nil, err
	}
	var addrs []common.Address
	for _, y := range out.Markets {
		addrs = append(addrs, common.HexToAddress(y.Token))
	}
	meta, err := market.TokenInfo(ctx, c, addrs)
	if err != nil {
		return nil, err
	}
	for i := range out.Markets {
		if m := meta[common.HexToAddress(out.Markets[i].Token)]; m != nil {
			out.Markets[i].Symbol = m.Symbol
		}
	}
	return out, nil
}

// cometBases reads the base token of every Comet not yet known (it never
// changes: cached for a day) in one Multicall3 call.
func cometBases(ctx context.Context, c *chain.EVM) error {
	var b market.Batch
	for _, m := range c.Chain.Lending {
		if m.Kind != "compound-v3" {
			continue
		}
		key := "comet:" + m.Address.Hex()
		if _, ok := c.Cache.Get(key); ok {
			continue
		}
		b.Add(chain.Call{Target: m.Address, Method: "baseToken"}, func(r chain.Result) {
			a, _ := r.Addr(0)
			ttl := 24 * time.Hour
			if a == (common.Address{}) {
				ttl = time.Minute
			}
			c.Cache.Put(key, a, ttl)
		})
	}
	return b.Run(ctx, c, nil)
}

// rayAPR is an Aave rate (ray, 1e27 = 100% a year) as a fraction a year.
func rayAPR(r *big.Int) float64 {
	if r == nil {
		return 0
	}
	return market.ToFloat(r, 27)
}

// perSecondAPY compounds a per-second rate over a year: (1+r)^N − 1,
// computed as expm1(N·log1p(r)) to keep the precision of tiny r.
func perSecondAPY(r float64) float64 {
	return math.Expm1(secondsPerYear * math.Log1p(r))
}
