package swaproute

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
)

// hop is one pool of a route: a V2-style pair or a V3-style pool.
type hop struct {
	v2 *market.Pool
	v3 *market.V3Pool
}

func (h hop) addr() common.Address {
	if h.v3 != nil {
		return h.v3.Addr
	}
	return h.v2.Addr
}

// label names the hop's exchange, with the fee tier of a V3 pool.
func (h hop) label() string {
	if h.v3 != nil {
		return fmt.Sprintf("%s (fee %.2f%%)", h.v3.DEX.Name, float64(h.v3.Fee)/1e4)
	}
	return h.v2.DEX.Name
}

// feeKeep is the share of the input the pool's fee leaves.
func (h hop) feeKeep() float64 {
	if h.v3 != nil {
		return 1 - float64(h.v3.Fee)/1e6
	}
	return 1 - float64(h.v2.DEX.FeeBps)/10000
}

// mid is the pool's mid price of out per in, in base units.
func (h hop) mid(in common.Address) float64 {
	if h.v3 != nil {
		p := h.v3.RawPrice()
		if in != h.v3.T0 && p != 0 {
			p = 1 / p
		}
		return p
	}
	rIn, rOut := h.v2.Reserves(in)
	return market.ToFloat(rOut, 0) / market.ToFloat(rIn, 0)
}

// route is a path of tokens with the pool chosen for each hop and the
// amounts along it (outs[0] is the input).
type route struct {
	path []common.Address
	hops []hop
	outs []*big.Int
}

func (r *route) out() *big.Int { return r.outs[len(r.outs)-1] }

// label is the route's exchange: one name when every hop shares it.
func (r *route) label() string {
	var names []string
	for _, h := range r.hops {
		if l := h.label(); len(names) == 0 || names[len(names)-1] != l {
			names = append(names, l)
		}
	}
	return strings.Join(names, " + ")
}

// graph is the pools between the tokens a route may pass through.
type graph struct {
	paths [][]common.Address
	edges map[[2]common.Address][]hop // by (in, out)
}

// routeGraph finds every pool (V2 pairs and V3 pools of every fee tier)
// among token_in, token_out and the intermediates (the wrapped native
// token, USDC and the listed tokens, six at most), and the paths of up to
// three hops whose every hop has a pool: one Multicall3 call for the pool
// addresses (cached) and one for their state.
//
// first, when known, is the amount to be quoted: the first hop's V3 quotes
// of every pool that may exist ride along with the lookups (a quote of a
// pool that does not exist fails), so quoting the first hop asks nothing.
func routeGraph(ctx context.Context, c *chain.EVM, a, b common.Address, first *big.Int) (*graph, error) {
	mids := []common.Address{c.Chain.WrappedNative, c.Chain.USDC}
	for _, tk := range c.Chain.Tokens {
		if len(mids) < 6 && !slices.Contains(mids, tk.Address) {
			mids = append(mids, tk.Address)
		}
	}
	var inner []common.Address
	for _, m := range mids {
		if m != a && m != b {
			inner = append(inner, m)
		}
	}
	nodes := append([]common.Address{a, b}, inner...)
	var pairs [][2]common.Address
	for i := range nodes {
		for j := i + 1; j < len(nodes); j++ {
			pairs = append(pairs, [2]common.Address{nodes[i], nodes[j]})
		}
	}
	// The tokens' metadata, needed to show the route, rides along with the
	// pool lookups.
	market.WantMeta(ctx, c, nodes)
	if first != nil && first.Sign() > 0 {
		var quotes []chain.Call
		for _, x := range nodes[1:] {
			for _, d := range c.Chain.DEXes {
				if d.Kind != "v3" {
					continue
				}
				for _, fee := range d.FeeTiers {
					quotes = append(quotes, quoteCallOf(d, a, x, fee, first))
				}
			}
		}
		c.Want(ctx, quotes...)
	}
	ps, err := market.FindPools(ctx, c, pairs, nil)
	if err != nil {
		return nil, err
	}
	g := &graph{edges: map[[2]common.Address][]hop{}}
	for k, pools := range ps.V2 {
		for _, p := range pools {
			if p.R0.Sign() > 0 && p.R1.Sign() > 0 {
				g.edges[k] = append(g.edges[k], hop{v2: p})
				g.edges[[2]common.Address{k[1], k[0]}] = append(g.edges[[2]common.Address{k[1], k[0]}], hop{v2: p})
			}
		}
	}
	for k, pools := range ps.V3 {
		for _, p := range pools {
			g.edges[k] = append(g.edges[k], hop{v3: p})
			g.edges[[2]common.Address{k[1], k[0]}] = append(g.edges[[2]common.Address{k[1], k[0]}], hop{v3: p})
		}
	}
	cands := [][]common.Address{{a, b}}
	for _, x := range inner {
		cands = append(cands, []common.Address{a, x, b})
		for _, y := range inner {
			if x != y {
				cands = append(cands, []common.Address{a, x, y, b})
			}
		}
	}
next:
	for _, p := range cands {
		for i := 0; i+1 < len(p); i++ {
			if len(g.edges[[2]common.Address{p[i], p[i+1]}]) == 0 {
				continue next
			}
		}
		g.paths = append(g.paths, p)
	}
	return g, nil
}

// quoteRoutes quotes amt along every path of g and returns one route per
// path. Every pool's output grows with its input, so the best route of a
// fixed path takes the best pool at each hop: hops are quoted depth by
// depth, V2 pairs from their reserves and V3 pools with their DEX's
// QuoterV2 (the chain's own swap simulation, ticks crossed included), one
// Multicall3 call per depth with quotes shared between paths.
func quoteRoutes(ctx context.Context, c *chain.EVM, g *graph, amt *big.Int) ([]*route, error) {
	rs := make([]*route, len(g.paths))
	for i, p := range g.paths {
		rs[i] = &route{path: p, outs: []*big.Int{amt}}
	}
	for depth := 0; depth < 3; depth++ {
		if depth == 1 {
			// The further depths of every route in one call.
			done, err := quoteRest(ctx, c, g, rs)
			if err != nil {
				return nil, err
			}
			if done {
				break
			}
		}
		type v3q struct {
			p   *market.V3Pool
			in  common.Address
			amt *big.Int
		}
		quotes := map[string]*big.Int{}
		var asks []v3q
		key := func(p *market.V3Pool, in common.Address, amt *big.Int) string {
			return p.Addr.Hex() + in.Hex() + amt.String()
		}
		for _, r := range rs {
			if depth+1 >= len(r.path) || r.outs[depth].Sign() == 0 {
				continue
			}
			for _, h := range g.edges[[2]common.Address{r.path[depth], r.path[depth+1]}] {
				if h.v3 == nil {
					continue
				}
				if k := key(h.v3, r.path[depth], r.outs[depth]); quotes[k] == nil {
					quotes[k] = new(big.Int)
					asks = append(asks, v3q{h.v3, r.path[depth], r.outs[depth]})
				}
			}
		}
		if len(asks) > 0 {
			calls := make([]chain.Call, len(asks))
			for i, q := range asks {
				calls[i] = quoteCall(q.p, q.in, q.amt)
			}
			res, err := c.Multicall(ctx, calls, nil)
			if err != nil {
				return nil, err
			}
			for i, q := range asks {
				if o := res[i].Big(0); o != nil {
					quotes[key(q.p, q.in, q.amt)] = o
				}
			}
		}
		for _, r := range rs {
			if depth+1 >= len(r.path) {
				continue
			}
			in, x := r.path[depth], r.outs[depth]
			var best hop
			bestOut := big.NewInt(-1)
			for _, h := range g.edges[[2]common.Address{in, r.path[depth+1]}] {
				o := new(big.Int)
				switch {
				case x.Sign() == 0:
				case h.v3 != nil:
					o = quotes[key(h.v3, in, x)]
				default:
					o = h.v2.AmountOut(in, x)
				}
				if o.Cmp(bestOut) > 0 {
					best, bestOut = h, o
				}
			}
			r.hops = append(r.hops, best)
			r.outs = append(r.outs, bestOut)
		}
	}
	return rs, nil
}

// quoteRest quotes the hops of every route past the first with the
// lens (chain.RouteCall), one Multicall3 entry a route that takes the
// best pool at each depth as quoteRoutes does: V2 pairs from the reserves
// read, V3 pools by their DEX's QuoterV2. done is false, and nothing
// changed, when the lens did not answer (a node without state overrides,
// an amount too large for its arithmetic): the depths are quoted one by
// one.
func quoteRest(ctx context.Context, c *chain.EVM, g *graph, rs []*route) (done bool, err error) {
	var calls []chain.Call
	var at []*route
	for _, r := range rs {
		if len(r.path) <= 2 {
			continue
		}
		var depths [][]chain.RouteHop
		for d := 1; d+1 < len(r.path); d++ {
			in := r.path[d]
			var hs []chain.RouteHop
			for _, h := range g.edges[[2]common.Address{in, r.path[d+1]}] {
				if h.v3 != nil {
					hs = append(hs, chain.RouteHop{V3: true, Quoter: h.v3.DEX.Quoter, TokenIn: in, TokenOut: h.v3.Other(in),
						Fee: big.NewInt(h.v3.Fee), RIn: new(big.Int), ROut: new(big.Int), FeeBps: new(big.Int)})
					continue
				}
				rIn, rOut := h.v2.Reserves(in)
				fee := h.v2.DEX.FeeBps
				if fee <= 0 {
					fee = 30
				}
				hs = append(hs, chain.RouteHop{TokenIn: in, TokenOut: h.v2.Other(in), Fee: new(big.Int), RIn: rIn, ROut: rOut, FeeBps: big.NewInt(fee)})
			}
			depths = append(depths, hs)
		}
		calls = append(calls, chain.RouteCall(r.outs[1], depths))
		at = append(at, r)
	}
	if len(calls) == 0 {
		return true, nil
	}
	res, err := c.Multicall(ctx, calls, nil)
	if err != nil {
		return false, err
	}
	type answer struct{ outs, picks []*big.Int }
	ans := make([]answer, len(res))
	for i, r := range res {
		if !r.OK || len(r.Out) != 2 {
			return false, nil
		}
		outs, _ := r.Out[0].([]*big.Int)
		picks, _ := r.Out[1].([]*big.Int)
		if len(outs) != len(at[i].path)-2 || len(picks) != len(outs) {
			return false, nil
		}
		ans[i] = answer{outs, picks}
	}
	for i, r := range at {
		for d, p := range ans[i].picks {
			hs := g.edges[[2]common.Address{r.path[d+1], r.path[d+2]}]
			if !p.IsInt64() || p.Int64() >= int64(len(hs)) {
				return false, nil
			}
		}
	}
	for i, r := range at {
		for d, p := range ans[i].picks {
			r.hops = append(r.hops, g.edges[[2]common.Address{r.path[d+1], r.path[d+2]}][p.Int64()])
			r.outs = append(r.outs, ans[i].outs[d])
		}
	}
	return true, nil
}

// quoteCall is a QuoterV2 quoteExactInputSingle of amt through p.
func quoteCall(p *market.V3Pool, in common.Address, amt *big.Int) chain.Call {
	return quoteCallOf(p.DEX, in, p.Other(in), p.Fee, amt)
}

// quoteCallOf is a QuoterV2 quoteExactInputSingle of amt from in to out
// through d's pool of the fee tier.
func quoteCallOf(d chain.DEX, in, out common.Address, fee int64, amt *big.Int) chain.Call {
	type params struct {
		TokenIn           common.Address
		TokenOut          common.Address
		AmountIn          *big.Int
		Fee               *big.Int
		SqrtPriceLimitX96 *big.Int
	}
	return chain.Call{Target: d.Quoter, Method: "quoteExactInputSingle",
		Args: []any{params{in, out, amt, big.NewInt(fee), new(big.Int)}}}
}

// v3Path packs a V3 route for exactInput: token, fee (3 bytes), token, ...
func v3Path(path []common.Address, hops []hop) []byte {
	out := append([]byte{}, path[0].Bytes()...)
	for i, h := range hops {
		f := h.v3.Fee
		out = append(out, byte(f>>16), byte(f>>8), byte(f))
		out = append(out, path[i+1].Bytes()...)
	}
	return out
}

// Gas of a swap when the node cannot estimate it: about 40k for the call
// and the first transfer, 60k per V2 hop and 90k per V3 hop (a V2 single
// hop about 100k, a V3 single hop about 130k).
const (
	gasSwapBase = 40_000
	gasV2Hop    = 60_000
	gasV3Hop    = 90_000
)

func (r *route) gas() uint64 {
	g := uint64(gasSwapBase)
	for _, h := range r.hops {
		if h.v3 != nil {
			g += gasV3Hop
		} else {
			g += gasV2Hop
		}
	}
	return g
}

// swapPlan is how a route becomes one router call.
type swapPlan struct {
	router common.Address
	// kind: v2 (a V2 router, every hop on its DEX), v3 (SwapRouter02
	// exactInputSingle or exactInput, every hop on its DEX) or mixed
	// (SwapRouter02 multicall of V3 and V2 segments, the V2 hops on its
	// factoryV2).
	kind string
}

// planSwap picks the router of a route; a zero router means none
// executes it in one transaction.
func planSwap(r *route) swapPlan {
	var v2, v3 []chain.DEX
	for _, h := range r.hops {
		if h.v3 != nil {
			v3 = append(v3, h.v3.DEX)
		} else {
			v2 = append(v2, h.v2.DEX)
		}
	}
	same := func(ds []chain.DEX) bool {
		for _, d := range ds {
			if d.Factory != ds[0].Factory {
				return false
			}
		}
		return true
	}
	switch {
	case len(v3) == 0 && same(v2):
		return swapPlan{router: v2[0].Router, kind: "v2"}
	case len(v2) == 0 && same(v3):
		return swapPlan{router: v3[0].Router, kind: "v3"}
	case same(v3) && v3[0].V2Factory != (common.Address{}):
		for _, d := range v2 {
			if d.Factory != v3[0].V2Factory {
				return swapPlan{}
			}
		}
		return swapPlan{router: v3[0].Router, kind: "mixed"}
	}
	return swapPlan{}
}

// SwapRouter02's recipient placeholder for itself; an amountIn of 0 spends
// its own balance (CONTRACT_BALANCE).
var routerItself = common.BigToAddress(big.NewInt(2))

// calldata encodes the router call of r.
func (pl swapPlan) calldata(r *route, amt, minOut *big.Int, sender common.Address, deadline *big.Int, nativeIn, nativeOut bool) []byte {
	switch pl.kind {
	case "v2":
		switch {
		case nativeIn:
			return chain.Pack("swapExactETHForTokensSupportingFeeOnTransferTokens", minOut, r.path, sender, deadline)
		case nativeOut:
			return chain.Pack("swapExactTokensForETHSupportingFeeOnTransferTokens", amt, minOut, r.path, sender, deadline)
		}
		return chain.Pack("swapExactTokensForTokensSupportingFeeOnTransferTokens", amt, minOut, r.path, sender, deadline)
	case "v3":
		if len(r.hops) == 1 {
			type params struct {
				TokenIn           common.Address
				TokenOut          common.Address
				Fee               *big.Int
				Recipient         common.Address
				AmountIn          *big.Int
				AmountOutMinimum  *big.Int
				SqrtPriceLimitX96 *big.Int
			}
			return chain.Pack("exactInputSingle", params{r.path[0], r.path[1], big.NewInt(r.hops[0].v3.Fee), sender, amt, minOut, new(big.Int)})
		}
		return exactInputCall(r.path, r.hops, sender, amt, minOut)
	}
	// mixed: one call per run of V3 or V2 hops; each but the last leaves
	// its output in the router, each but the first spends the router's
	// balance; only the last checks the minimum.
	var calls [][]byte
	for i := 0; i < len(r.hops); {
		j := i + 1
		for j < len(r.hops) && (r.hops[j].v3 != nil) == (r.hops[i].v3 != nil) {
			j++
		}
		in, min, to := new(big.Int), new(big.Int), routerItself
		if i == 0 {
			in = amt
		}
		if j == len(r.hops) {
			min, to = minOut, sender
		}
		if r.hops[i].v3 != nil {
			calls = append(calls, exactInputCall(r.path[i:j+1], r.hops[i:j], to, in, min))
		} else {
			calls = append(calls, chain.Pack("swapExactTokensForTokens", in, min, r.path[i:j+1], to))
		}
		i = j
	}
	return chain.Pack("multicall", deadline, calls)
}

func exactInputCall(path []common.Address, hops []hop, to common.Address, amt, minOut *big.Int) []byte {
	type params struct {
		Path             []byte
		Recipient        common.Address
		AmountIn         *big.Int
		AmountOutMinimum *big.Int
	}
	return chain.Pack("exactInput", params{v3Path(path, hops), to, amt, minOut})
}
