package crypto

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

// v3pool is a Uniswap-V3-style pool's state: price and in-range liquidity.
type v3pool struct {
	DEX    chain.DEX
	Addr   common.Address
	T0, T1 common.Address
	Fee    int64    // hundredths of a basis point
	SqrtP  *big.Int // sqrtPriceX96
	L      *big.Int // in-range liquidity
}

var q96 = new(big.Float).SetInt(new(big.Int).Lsh(big.NewInt(1), 96))

// rawPrice is token1 per token0 in base units: (sqrtPriceX96 / 2^96)^2.
func (p *v3pool) rawPrice() float64 {
	s, _ := new(big.Float).Quo(new(big.Float).SetInt(p.SqrtP), q96).Float64()
	return s * s
}

// virtualReserve of token t: the constant-product reserve equivalent of
// the in-range liquidity (L/√P for token0, L·√P for token1). Liquidity
// outside the current range is not counted, so this is a lower bound near
// the price and an overstatement far from it.
func (p *v3pool) virtualReserve(t common.Address) float64 {
	l, _ := new(big.Float).SetInt(p.L).Float64()
	s, _ := new(big.Float).Quo(new(big.Float).SetInt(p.SqrtP), q96).Float64()
	if s == 0 {
		return 0
	}
	if t == p.T0 {
		return l / s
	}
	return l * s
}

// findV3Pools returns the V3-style pools of the pairs in every fee tier,
// with price and liquidity at block: one Multicall3 call for the pool
// addresses (cached) and one for their state.
func findV3Pools(ctx context.Context, c *chain.EVM, pairs [][2]common.Address, block *big.Int) (map[[2]common.Address][]*v3pool, error) {
	type want struct {
		dex  chain.DEX
		a, b common.Address
		fee  int64
	}
	var wants []want
	var lookups []chain.Call
	var lookupIdx []int
	addrs := map[int]common.Address{}
	for _, pr := range pairs {
		if pr[0] == pr[1] {
			continue
		}
		for _, d := range c.Chain.DEXes {
			if d.Kind != "v3" {
				continue
			}
			for _, fee := range d.FeeTiers {
				wants = append(wants, want{d, pr[0], pr[1], fee})
				i := len(wants) - 1
				if v, ok := c.Cache.Get(v3key(d, pr[0], pr[1], fee)); ok {
					addrs[i] = v.(common.Address)
					continue
				}
				lookups = append(lookups, chain.Call{Target: d.Factory, Method: "getPool", Args: []any{pr[0], pr[1], big.NewInt(fee)}})
				lookupIdx = append(lookupIdx, i)
			}
		}
	}
	out := map[[2]common.Address][]*v3pool{}
	if len(wants) == 0 {
		return out, nil
	}
	if len(lookups) > 0 {
		res, err := c.Multicall(ctx, lookups, nil)
		if err != nil {
			return nil, err
		}
		for j, r := range res {
			i := lookupIdx[j]
			a, _ := r.Addr(0)
			addrs[i] = a
			ttl := time.Hour
			if a == (common.Address{}) {
				ttl = time.Minute
			}
			c.Cache.Put(v3key(wants[i].dex, wants[i].a, wants[i].b, wants[i].fee), a, ttl)
		}
	}
	var calls []chain.Call
	var found []int
	seen := map[common.Address]bool{}
	for i := range wants {
		a := addrs[i]
		if a == (common.Address{}) || seen[a] {
			continue
		}
		seen[a] = true
		found = append(found, i)
		calls = append(calls, chain.Call{Target: a, Method: "slot0"}, chain.Call{Target: a, Method: "liquidity"}, chain.Call{Target: a, Method: "token0"})
	}
	if len(calls) == 0 {
		return out, nil
	}
	res, err := c.Multicall(ctx, calls, block)
	if err != nil {
		return nil, err
	}
	for k, i := range found {
		w := wants[i]
		sp, l := res[3*k].Big(0), res[3*k+1].Big(0)
		t0, ok := res[3*k+2].Addr(0)
		if sp == nil || l == nil || !ok || sp.Sign() == 0 || l.Sign() == 0 {
			continue
		}
		t1 := w.a
		if t0 == w.a {
			t1 = w.b
		}
		key := [2]common.Address{w.a, w.b}
		out[key] = append(out[key], &v3pool{DEX: w.dex, Addr: addrs[i], T0: t0, T1: t1, Fee: w.fee, SqrtP: sp, L: l})
	}
	return out, nil
}

func v3key(d chain.DEX, a, b common.Address, fee int64) string {
	return fmt.Sprintf("v3:%s%s%s%d", d.Factory.Hex(), a.Hex(), b.Hex(), fee)
}

// v3Source prices token t in quote token q from a V3-style pool; usdQ is
// q's USD price.
func v3Source(p *v3pool, t, q common.Address, decT, decQ uint8, usdQ float64, quoteSym string) PriceSource {
	raw := p.rawPrice() // token1 per token0
	if t != p.T0 {
		if raw == 0 {
			return PriceSource{}
		}
		raw = 1 / raw
	}
	px := raw * pow10f(int(decT)-int(decQ))
	return PriceSource{Pool: p.Addr.Hex(), DEX: fmt.Sprintf("%s (fee %.2f%%)", p.DEX.Name, float64(p.Fee)/1e4), Quote: quoteSym,
		PriceUSD: px * usdQ, DepthUSD: 2 * p.virtualReserve(q) / pow10f(int(decQ)) * usdQ}
}

func pow10f(n int) float64 {
	f := 1.0
	for ; n > 0; n-- {
		f *= 10
	}
	for ; n < 0; n++ {
		f /= 10
	}
	return f
}

// quoteV3 asks the DEX's QuoterV2 for single-hop outputs of amt through the
// given pools, in one Multicall3 call; a failed quote is nil.
func quoteV3(ctx context.Context, c *chain.EVM, pools []*v3pool, in common.Address, amt *big.Int) ([]*big.Int, error) {
	type params struct {
		TokenIn           common.Address
		TokenOut          common.Address
		AmountIn          *big.Int
		Fee               *big.Int
		SqrtPriceLimitX96 *big.Int
	}
	calls := make([]chain.Call, len(pools))
	for i, p := range pools {
		calls[i] = chain.Call{Target: p.DEX.Quoter, Method: "quoteExactInputSingle",
			Args: []any{params{in, p.other(in), amt, big.NewInt(p.Fee), new(big.Int)}}}
	}
	res, err := c.Multicall(ctx, calls, nil)
	if err != nil {
		return nil, err
	}
	out := make([]*big.Int, len(pools))
	for i, r := range res {
		out[i] = r.Big(0)
	}
	return out, nil
}

func (p *v3pool) other(t common.Address) common.Address {
	if p.T0 == t {
		return p.T1
	}
	return p.T0
}
