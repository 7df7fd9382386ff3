package market

import (
	"bytes"
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

type pairKey struct {
	dex  common.Address
	a, b common.Address
}

// Batch collects Multicall3 calls with what to do with each answer.
type Batch struct {
	calls []chain.Call
	done  []func(chain.Result)
}

// Add queues c; f gets its answer when the batch runs.
func (b *Batch) Add(c chain.Call, f func(chain.Result)) {
	b.calls = append(b.calls, c)
	b.done = append(b.done, f)
}

// Run makes the queued calls at block (nil: latest) in one Multicall3
// call and hands each answer to its function.
func (b *Batch) Run(ctx context.Context, c *chain.EVM, block *big.Int) error {
	if len(b.calls) == 0 {
		return nil
	}
	res, err := c.Multicall(ctx, b.calls, block)
	if err != nil {
		return err
	}
	for i, r := range res {
		b.done[i](r)
	}
	return nil
}

// PoolSet is every pool of some token pairs, keyed by the pair as asked.
type PoolSet struct {
	V2 map[[2]common.Address][]*Pool
	V3 map[[2]common.Address][]*V3Pool
}

// FindPools returns the pools of the given token pairs on every DEX of the
// chain (V2-style pairs and V3-style pools of every fee tier) with their
// state at block (nil: the call's pinned block). Pool addresses are kept
// (they never change once created; a missing one is rechecked after a
// minute), so a warm lookup is one Multicall3 eth_call, a cold one two,
// and none when the same pools were read at the same block before.
func FindPools(ctx context.Context, c *chain.EVM, pairs [][2]common.Address, block *big.Int) (*PoolSet, error) {
	type found struct {
		dex  chain.DEX
		a, b common.Address
		fee  int64 // V3 only
		addr common.Address
	}
	var all []*found
	var lookups []chain.Lookup
	var done []func(common.Address)
	eachLookup(c, pairs, func(d chain.DEX, pr [2]common.Address, fee int64, key string, call chain.Call) {
		f := &found{dex: d, a: pr[0], b: pr[1], fee: fee}
		all = append(all, f)
		if v, ok := c.Cache.Get(key); ok {
			f.addr = v.(common.Address)
			return
		}
		lookups = append(lookups, lookupOf(d, call))
		done = append(done, func(a common.Address) {
			f.addr = a
			ttl := chain.Forever
			if f.addr == (common.Address{}) {
				ttl = time.Minute
			}
			c.Cache.Put(key, f.addr, ttl)
		})
	})
	if len(lookups) > 0 {
		// The lens looks each pool up and reads its state in one entry:
		// the state batch below then asks nothing at the pinned block.
		addrs, err := c.Resolve(ctx, lookups)
		if err != nil {
			return nil, err
		}
		for i, a := range addrs {
			done[i](a)
		}
	}
	out := &PoolSet{V2: map[[2]common.Address][]*Pool{}, V3: map[[2]common.Address][]*V3Pool{}}
	var state Batch
	seen := map[common.Address]bool{}
	for _, f := range all {
		if f.addr == (common.Address{}) || seen[f.addr] {
			continue
		}
		seen[f.addr] = true
		key := [2]common.Address{f.a, f.b}
		other := func(t0 common.Address) common.Address {
			if t0 == f.a {
				return f.b
			}
			return f.a
		}
		if f.dex.Kind == "v3" {
			p := &V3Pool{DEX: f.dex, Addr: f.addr, Fee: f.fee}
			ok := 0
			state.Add(chain.Call{Target: f.addr, Method: "slot0"}, func(r chain.Result) {
				if p.SqrtP = r.Big(0); p.SqrtP != nil && p.SqrtP.Sign() > 0 {
					ok++
				}
			})
			state.Add(chain.Call{Target: f.addr, Method: "liquidity"}, func(r chain.Result) {
				if p.L = r.Big(0); p.L != nil && p.L.Sign() > 0 {
					ok++
				}
			})
			state.Add(chain.Call{Target: f.addr, Method: "token0"}, func(r chain.Result) {
				if t0, got := r.Addr(0); got && ok == 2 {
					p.T0, p.T1 = t0, other(t0)
					out.V3[key] = append(out.V3[key], p)
				}
			})
			continue
		}
		p := &Pool{DEX: f.dex, Addr: f.addr}
		state.Add(chain.Call{Target: f.addr, Method: "getReserves"}, func(r chain.Result) { p.R0, p.R1 = r.Big(0), r.Big(1) })
		state.Add(chain.Call{Target: f.addr, Method: "totalSupply"}, func(r chain.Result) { p.LPSupply = r.Big(0) })
		state.Add(chain.Call{Target: f.addr, Method: "token0"}, func(r chain.Result) {
			// Not deployed yet at that block, or not a V2 pair: left out.
			if t0, got := r.Addr(0); got && p.R0 != nil && p.R1 != nil {
				p.T0, p.T1 = t0, other(t0)
				out.V2[key] = append(out.V2[key], p)
			}
		})
	}
	if err := state.Run(ctx, c, block); err != nil {
		return nil, err
	}
	return out, nil
}

// eachLookup calls f with each factory lookup of the pools of pairs: the
// DEX, the pair as asked, the V3 fee tier (0 for V2), the Cache key of the
// pool's address and the factory call finding it. Both are of the pair in
// address order (factories answer either order alike), so the lookups of
// (a, b) and (b, a) are one.
func eachLookup(c *chain.EVM, pairs [][2]common.Address, f func(d chain.DEX, pr [2]common.Address, fee int64, key string, call chain.Call)) {
	for _, pr := range pairs {
		if pr[0] == pr[1] {
			continue
		}
		a, b := pr[0], pr[1]
		if bytes.Compare(a[:], b[:]) > 0 {
			a, b = b, a
		}
		for _, d := range c.Chain.DEXes {
			if d.Kind != "v3" {
				f(d, pr, 0, "pair:"+keyString(pairKey{d.Factory, a, b}), chain.Call{Target: d.Factory, Method: "getPair", Args: []any{a, b}})
				continue
			}
			for _, fee := range d.FeeTiers {
				f(d, pr, fee, v3key(d, a, b, fee), chain.Call{Target: d.Factory, Method: "getPool", Args: []any{a, b, big.NewInt(fee)}})
			}
		}
	}
}

// WantPools asks for the lookups (with the state) of the pools of pairs
// not known yet to ride along with the call's next Multicall3 read
// (chain.EVM.Want), when a tool knows the pairs it will price before it
// reads something else.
func WantPools(ctx context.Context, c *chain.EVM, pairs [][2]common.Address) {
	var calls []chain.Call
	eachLookup(c, pairs, func(d chain.DEX, _ [2]common.Address, _ int64, key string, call chain.Call) {
		if _, ok := c.Cache.Get(key); !ok {
			calls = append(calls, lookupOf(d, call).Lens())
		}
	})
	c.Want(ctx, calls...)
}

// lookupOf is a pool's factory lookup with the reads of the pool's state
// FindPools makes.
func lookupOf(d chain.DEX, call chain.Call) chain.Lookup {
	if d.Kind == "v3" {
		return chain.Lookup{Call: call, Reads: []chain.Call{{Method: "slot0"}, {Method: "liquidity"}, {Method: "token0"}}}
	}
	return chain.Lookup{Call: call, Reads: []chain.Call{{Method: "getReserves"}, {Method: "totalSupply"}, {Method: "token0"}}}
}
