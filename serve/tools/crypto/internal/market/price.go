package market

import (
	"context"
	"math"
	"math/big"
	"slices"
	"sort"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

// Price is a token's USD price from on-chain pools.
type Price struct {
	PriceUSD float64
	DepthUSD float64 // both sides of the deepest pool (V2 or V3), in USD
	Quote    string  // USDC or the wrapped native symbol
	// Pool is the deepest V2-style pool, the one sells go through, and
	// PoolDepth its depth.
	Pool       *Pool
	PoolDepth  float64
	Confidence float64
	Sources    []Source
}

// Source is one pool's view of a price.
type Source struct {
	Pool     string  `json:"pool"`
	DEX      string  `json:"dex"`
	Quote    string  `json:"quote_token"`
	PriceUSD float64 `json:"price_usd"`
	DepthUSD float64 `json:"depth_usd"`
}

// USDPrices prices tokens at block (nil: latest) against USDC directly and
// through the wrapped native token; the deepest pool wins. A token with
// neither is priced through the chain's other listed tokens (viaListed).
// USDC is taken as 1 USD. A token without any pool is absent from the
// answer.
func USDPrices(ctx context.Context, c *chain.EVM, tokens []common.Address, block *big.Int) (map[common.Address]*Price, error) {
	out, err := directPrices(ctx, c, tokens, block)
	if err != nil {
		return nil, err
	}
	var missing []common.Address
	for _, t := range tokens {
		if out[t] == nil && !slices.Contains(missing, t) {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		if err := viaListed(ctx, c, missing, block, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// viaListed prices tokens that have no USDC or wrapped-native pool through
// their pools against the chain's other listed tokens (a two-hop route:
// token → listed token → USD): the price in the listed token times its
// direct USD price, the depth the shallower of the two hops. Such a
// source has no V2 pool to sell through (token_report skips its sales).
func viaListed(ctx context.Context, c *chain.EVM, missing []common.Address, block *big.Int, out map[common.Address]*Price) error {
	var mids []common.Address
	for _, tk := range c.Chain.Tokens {
		if tk.Address != c.Chain.USDC && tk.Address != c.Chain.WrappedNative {
			mids = append(mids, tk.Address)
		}
	}
	var pairs [][2]common.Address
	for _, t := range missing {
		for _, x := range mids {
			if x != t {
				pairs = append(pairs, [2]common.Address{t, x})
			}
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	ps, err := FindPools(ctx, c, pairs, block)
	if err != nil {
		return err
	}
	var used []common.Address
	for _, pr := range pairs {
		if (len(ps.V2[pr]) > 0 || len(ps.V3[pr]) > 0) && !slices.Contains(used, pr[1]) {
			used = append(used, pr[1])
		}
	}
	if len(used) == 0 {
		return nil
	}
	midQ, err := directPrices(ctx, c, used, block)
	if err != nil {
		return err
	}
	meta, err := TokenInfo(ctx, c, append(slices.Clone(missing), used...))
	if err != nil {
		return err
	}
	dec := func(a common.Address) uint8 {
		if m := meta[a]; m != nil && m.OK {
			return m.Decimals
		}
		return 18
	}
	for _, t := range missing {
		var q *Price
		for _, x := range used {
			mq := midQ[x]
			if mq == nil || mq.PriceUSD <= 0 {
				continue
			}
			sym := symbolOr(meta[x], x.Hex())
			for _, p := range ps.V2[[2]common.Address{t, x}] {
				rt, rx := p.Reserves(t)
				usd := ToFloat(rx, dec(x)) * mq.PriceUSD
				s := Source{Pool: p.Addr.Hex(), DEX: p.DEX.Name, Quote: sym, DepthUSD: math.Min(2*usd, mq.DepthUSD)}
				if n := ToFloat(rt, dec(t)); n > 0 {
					s.PriceUSD = usd / n
				}
				q = addSource(q, s, nil)
			}
			for _, p := range ps.V3[[2]common.Address{t, x}] {
				s := v3Source(p, t, x, dec(t), dec(x), mq.PriceUSD, sym)
				s.DepthUSD = math.Min(s.DepthUSD, mq.DepthUSD)
				q = addSource(q, s, nil)
			}
		}
		if q != nil {
			q.Confidence = confidence(q)
			out[t] = q
		}
	}
	return nil
}

// directPrices prices tokens against USDC and the wrapped native token
// only.
func directPrices(ctx context.Context, c *chain.EVM, tokens []common.Address, block *big.Int) (map[common.Address]*Price, error) {
	usdc, w := c.Chain.USDC, c.Chain.WrappedNative
	pairs, all := DirectPairs(c, tokens)
	// The metadata rides along with the pool lookups (or the pool state,
	// when the addresses are known).
	WantMeta(ctx, c, all)
	ps, err := FindPools(ctx, c, pairs, block)
	if err != nil {
		return nil, err
	}
	pools, v3 := ps.V2, ps.V3
	meta, err := TokenInfo(ctx, c, all)
	if err != nil {
		return nil, err
	}
	dec := func(a common.Address) uint8 {
		if m := meta[a]; m != nil && m.OK {
			return m.Decimals
		}
		return 18
	}
	out := map[common.Address]*Price{}
	// The wrapped native token against USDC first: other tokens use it.
	var wq *Price
	for _, p := range pools[[2]common.Address{w, usdc}] {
		rw, ru := p.Reserves(w)
		usd := ToFloat(ru, dec(usdc))
		q := Source{Pool: p.Addr.Hex(), DEX: p.DEX.Name, Quote: "USDC", DepthUSD: 2 * usd}
		if x := ToFloat(rw, dec(w)); x > 0 {
			q.PriceUSD = usd / x
		}
		wq = addSource(wq, q, p)
	}
	for _, p := range v3[[2]common.Address{w, usdc}] {
		wq = addSource(wq, v3Source(p, w, usdc, dec(w), dec(usdc), 1, "USDC"), nil)
	}
	for _, t := range tokens {
		if t == usdc {
			out[t] = &Price{PriceUSD: 1, Quote: "USDC", Confidence: 1}
			continue
		}
		if t == w {
			if wq != nil {
				out[t] = wq
			}
			continue
		}
		var q *Price
		for _, p := range pools[[2]common.Address{t, usdc}] {
			rt, ru := p.Reserves(t)
			usd := ToFloat(ru, dec(usdc))
			s := Source{Pool: p.Addr.Hex(), DEX: p.DEX.Name, Quote: "USDC", DepthUSD: 2 * usd}
			if x := ToFloat(rt, dec(t)); x > 0 {
				s.PriceUSD = usd / x
			}
			q = addSource(q, s, p)
		}
		for _, p := range v3[[2]common.Address{t, usdc}] {
			q = addSource(q, v3Source(p, t, usdc, dec(t), dec(usdc), 1, "USDC"), nil)
		}
		if wq != nil {
			for _, p := range v3[[2]common.Address{t, w}] {
				q = addSource(q, v3Source(p, t, w, dec(t), dec(w), wq.PriceUSD, symbolOr(meta[w], "WETH")), nil)
			}
			for _, p := range pools[[2]common.Address{t, w}] {
				rt, rw := p.Reserves(t)
				usd := ToFloat(rw, dec(w)) * wq.PriceUSD
				s := Source{Pool: p.Addr.Hex(), DEX: p.DEX.Name, Quote: symbolOr(meta[w], "WETH"), DepthUSD: 2 * usd}
				if x := ToFloat(rt, dec(t)); x > 0 {
					s.PriceUSD = usd / x
				}
				q = addSource(q, s, p)
			}
		}
		if q != nil {
			out[t] = q
		}
	}
	for _, q := range out {
		if q.Sources != nil {
			q.Confidence = confidence(q)
		}
	}
	return out, nil
}

// DirectPairs are the pools directPrices reads to price tokens (the
// wrapped native token against USDC, each token against both) and the
// tokens whose metadata it needs.
func DirectPairs(c *chain.EVM, tokens []common.Address) (pairs [][2]common.Address, all []common.Address) {
	usdc, w := c.Chain.USDC, c.Chain.WrappedNative
	pairs = [][2]common.Address{{w, usdc}}
	all = []common.Address{usdc, w}
	for _, t := range tokens {
		all = append(all, t)
		if t != usdc {
			pairs = append(pairs, [2]common.Address{t, usdc})
		}
		if t != w && t != usdc {
			pairs = append(pairs, [2]common.Address{t, w})
		}
	}
	return pairs, all
}

func symbolOr(m *TokenMeta, def string) string {
	if m != nil && m.Symbol != "" {
		return m.Symbol
	}
	return def
}

// addSource keeps the sources sorted deepest first; the deepest sets the
// price. p is the V2-style pool of the source (nil for V3).
func addSource(q *Price, s Source, p *Pool) *Price {
	if s.PriceUSD <= 0 || math.IsInf(s.PriceUSD, 0) || math.IsNaN(s.PriceUSD) {
		return q
	}
	if q == nil {
		q = &Price{}
	}
	q.Sources = append(q.Sources, s)
	sort.SliceStable(q.Sources, func(i, j int) bool { return q.Sources[i].DepthUSD > q.Sources[j].DepthUSD })
	if s.DepthUSD >= q.DepthUSD {
		q.PriceUSD, q.DepthUSD, q.Quote = s.PriceUSD, s.DepthUSD, s.Quote
	}
	if p != nil && s.DepthUSD >= q.PoolDepth {
		q.Pool, q.PoolDepth = p, s.DepthUSD
	}
	return q
}

// confidence in [0,1]: depth (1 at 1M USD or more, log scale from 1k USD)
// times agreement of the other pools holding at least a tenth of the
// deepest one's depth (a single pool counts as 0.8: nothing to compare).
func confidence(q *Price) float64 {
	depth := math.Max(0, math.Min(1, (math.Log10(math.Max(q.DepthUSD, 1))-3)/3))
	agree := 0.8
	n := 0
	dev := 0.0
	for _, s := range q.Sources[1:] {
		if s.DepthUSD < q.DepthUSD/10 {
			continue
		}
		n++
		dev = math.Max(dev, math.Abs(s.PriceUSD/q.PriceUSD-1))
	}
	if n > 0 {
		agree = math.Max(0, 1-10*dev)
	}
	return math.Round(depth*agree*100) / 100
}

// ConfidenceLabel words a confidence: high, medium or low.
func ConfidenceLabel(c float64) string {
	switch {
	case c >= 0.75:
		return "high"
	case c >= 0.4:
		return "medium"
	}
	return "low"
}

// timesOf reads the times of blocks ns (one or two, a round of a search):
// their headers, or with carry the getCurrentBlockTimestamp of a
// Multicall3 call at each carrying them, the blocks' aggregates sent in
// one JSON-RPC batch.
func timesOf(ctx context.Context, c *chain.EVM, ns []uint64, carry []chain.Call) ([]chain.Header, error) {
	out := make([]chain.Header, len(ns))
	var ask []*big.Int
	var at []int
	for i, n := range ns {
		b := new(big.Int).SetUint64(n)
		if v, ok := c.Cache.Get("hdr:" + chain.Block(b)); ok {
			out[i] = v.(chain.Header)
			continue
		}
		ask, at = append(ask, b), append(at, i)
	}
	if len(ask) == 0 {
		return out, nil
	}
	var res [][]chain.Result
	if len(carry) > 0 {
		var err error
		calls := append(slices.Clip(carry), chain.Call{Target: c.Chain.Multicall3, Method: "getCurrentBlockTimestamp"})
		if res, err = c.MulticallBlocks(ctx, calls, ask); err != nil {
			return nil, err
		}
	}
	for j, b := range ask {
		var t *big.Int
		if res != nil {
			t = res[j][len(carry)].Big(0)
		}
		if t == nil || !t.IsInt64() {
			h, err := c.HeaderAt(ctx, b)
			if err != nil {
				return nil, err
			}
			out[at[j]] = h
			continue
		}
		h := chain.Header{Number: b.Uint64(), Time: t.Int64()}
		c.Cache.Put("hdr:"+chain.Block(b), h, chain.Forever)
		out[at[j]] = h
	}
	return out, nil
}

// PriceReads are the Multicall3 calls USDPrices makes to price tokens
// directly (the state of their USDC and wrapped-native pools) when the
// pools' addresses are known, to be carried by another read of the same
// block (BlockAt).
func PriceReads(c *chain.EVM, tokens []common.Address) []chain.Call {
	pairs, _ := DirectPairs(c, tokens)
	var out []chain.Call
	seen := map[common.Address]bool{}
	eachLookup(c, pairs, func(d chain.DEX, _ [2]common.Address, _ int64, key string, call chain.Call) {
		v, ok := c.Cache.Get(key)
		if !ok || v.(common.Address) == (common.Address{}) || seen[v.(common.Address)] {
			return
		}
		a := v.(common.Address)
		seen[a] = true
		for _, r := range lookupOf(d, call).Reads {
			out = append(out, chain.Call{Target: a, Method: r.Method, Args: r.Args})
		}
	})
	return out
}

// BlockAt finds the last block at or before target (0 when every block is
// later). Where the chain keeps the EIP-4788 beacon-roots ring (Ethereum
// since Cancun) and it reaches back past target, one read at head counts
// the blocks since target, and the block it names and the next are read
// together to confirm it (chain.NewerCall); otherwise, or when they do not
// confirm it, the search of blockSearch runs, none of its reads needed when
// the last search's bracket still holds. A block's time is read with
// carry, Multicall3 calls the caller will make at the block found, in one
// aggregate3 at that block (its getCurrentBlockTimestamp is the block's
// time), so reading the block found afterwards asks nothing.
func BlockAt(ctx context.Context, c *chain.EVM, head chain.Header, target int64, carry []chain.Call) (uint64, error) {
	if head.Time <= target {
		return head.Number, nil
	}
	s := newBlockSearch(head, target, c.Chain.BlockTime)
	// The last search's bracket still holds the target when the chain
	// moved on by less than the gap (the target moves with the head).
	if v, ok := c.Cache.Get("blockAt"); ok {
		m := v.([2]chain.Header)
		s.resume(m[0], m[1])
	}
	defer func() { c.Cache.Put("blockAt", [2]chain.Header{s.lo, s.hi}, chain.Forever) }()
	var first []uint64
	if !s.loKnown() && ringReaches(c, head, target) {
		if n, ok := ringCount(ctx, c, head, target); ok {
			first = s.around(n)
		}
	}
	return s.run(first, func(ns []uint64) ([]chain.Header, error) { return timesOf(ctx, c, ns, carry) })
}

// ringBlocks is how many blocks the beacon-roots ring holds.
const ringBlocks = 8191

// ringReaches reports whether the beacon-roots ring may reach back to
// target: the chain has fewer blocks than it holds, or its configured
// block time puts target within them (Ethereum's 12 s: 27 hours; a 2 s
// chain's ring holds 4.5 hours, so it is not asked).
func ringReaches(c *chain.EVM, head chain.Header, target int64) bool {
	if _, off := c.Cache.Get("ring:none"); off {
		return false
	}
	return head.Number < ringBlocks || ringBlocks*c.Chain.BlockTime >= float64(head.Time-target)
}

// ringCount is the last block at or before target by the beacon-roots
// ring read at head: head's number less the blocks the ring holds later
// than target; ok is false where the chain has no ring in use, it does not
// reach back to target, or the node refuses the lens or the gas it takes
// (then the ring is not asked again for an hour). The count is a guess (a
// slot overwritten within the day, or a block off its chain's slots,
// makes it short) that the caller confirms. A chain of whole-second block
// times whose day holds fewer slots than the ring has only those slots
// read (Ethereum's 7200), else every slot of the ring.
func ringCount(ctx context.Context, c *chain.EVM, head chain.Header, target int64) (uint64, bool) {
	if target < 0 {
		return 0, false
	}
	var step int64
	if bt := c.Chain.BlockTime; bt >= 1 && bt == math.Trunc(bt) && float64(head.Time-target)/bt < ringBlocks {
		step = int64(bt)
	}
	res, err := c.Multicall(ctx, []chain.Call{chain.NewerCall(target, step)}, head.Big())
	if err != nil || len(res) != 1 {
		return 0, false
	}
	r := res[0]
	current := false
	if r.OK && len(r.Out) == 3 {
		current, _ = r.Out[2].(bool)
	}
	if !current {
		c.Cache.Put("ring:none", true, time.Hour)
		return 0, false
	}
	count, oldest := r.Big(0), r.Big(1)
	if count == nil || oldest == nil || !count.IsUint64() || count.Uint64() > head.Number || oldest.Cmp(big.NewInt(target)) > 0 {
		return 0, false
	}
	return head.Number - count.Uint64(), true
}

// TokenUSD prices one token at the call's block, for gas_tracker.
func TokenUSD(ctx context.Context, c *chain.EVM, token common.Address) (float64, bool) {
	qs, err := USDPrices(ctx, c, []common.Address{token}, nil)
	if err != nil || qs[token] == nil {
		return 0, false
	}
	return qs[token].PriceUSD, true
}
