package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/openshelf/openshelf/serve/apierr"
)

// Call is one call of a Multicall3 batch: method of ABI on Target.
type Call struct {
	Target common.Address
	Method string
	Args   []any
}

// Result is one answer of a batch: OK false when the call reverted or its
// answer did not decode.
type Result struct {
	OK  bool
	Out []any
	Raw []byte
}

type call3 struct {
	Target       common.Address
	AllowFailure bool
	CallData     []byte
}

// Multicall runs calls in one eth_call to Multicall3's aggregate3 at block
// (nil: the call's pinned block), so a tool reading twenty balances makes
// one RPC call. Calls may fail one by one. Each call's answer is kept for
// its block: calls already answered at that block are left out of the
// aggregate, and a multicall whose calls are all known makes no request.
func (c *EVM) Multicall(ctx context.Context, calls []Call, block *big.Int) ([]Result, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	if block == nil {
		if res, ok, err := c.multicallPinning(ctx, calls); ok || err != nil {
			return res, err
		}
	}
	tag, err := c.tag(ctx, block)
	if err != nil {
		return nil, err
	}
	raw := make([]*mcAnswer, len(calls))
	var in []call3
	var inKeys []string
	var at []int
	s := stateOf(ctx)
	for i, cl := range calls {
		c3 := call3{Target: cl.Target, AllowFailure: true, CallData: Pack(cl.Method, cl.Args...)}
		s.addCall(c, tag, c3)
		k := mcKey(tag, c3)
		if v, ok := c.reads.Get(k); ok {
			raw[i] = v.(*mcAnswer)
			continue
		}
		in, inKeys, at = append(in, c3), append(inKeys, k), append(at, i)
	}
	if len(in) > 0 {
		if block == nil {
			in, inKeys = c.withWanted(ctx, tag, in, inKeys)
		}
		v, err, _ := c.flight.Do(strings.Join(inKeys, "|"), func() (any, error) { return c.aggregate(ctx, in, tag) })
		if err != nil {
			return nil, err
		}
		for j, a := range v.([]*mcAnswer) {
			if j < len(at) {
				raw[at[j]] = a
			}
			c.keepAnswer(inKeys[j], a)
		}
	}
	return results(calls, raw), nil
}

// MulticallBlocks runs calls at each of blocks: one aggregate3 per block,
// all sent in one JSON-RPC batch (one HTTP request, a JSON-RPC call per
// block), so a search reading two candidate blocks waits for one round
// trip. Answers are kept for their block as Multicall keeps them, and
// entries already answered are left out; a block whose entries are all
// known is not asked. out[i] are the results at blocks[i].
func (c *EVM) MulticallBlocks(ctx context.Context, calls []Call, blocks []*big.Int) ([][]Result, error) {
	type job struct {
		tag  string
		raw  []*mcAnswer
		in   []call3
		keys []string
		at   []int
		ret  hexutil.Bytes
	}
	jobs := make([]*job, len(blocks))
	var elems []rpc.BatchElem
	var sent []*job
	s := stateOf(ctx)
	for b, n := range blocks {
		j := &job{tag: Block(n), raw: make([]*mcAnswer, len(calls))}
		jobs[b] = j
		for i, cl := range calls {
			c3 := call3{Target: cl.Target, AllowFailure: true, CallData: Pack(cl.Method, cl.Args...)}
			s.addCall(c, j.tag, c3)
			k := mcKey(j.tag, c3)
			if v, ok := c.reads.Get(k); ok {
				j.raw[i] = v.(*mcAnswer)
				continue
			}
			if usesLens(c3) && c.noLens.Load() {
				j.raw[i] = &mcAnswer{}
				continue
			}
			j.in, j.keys, j.at = append(j.in, c3), append(j.keys, k), append(j.at, i)
		}
		if len(j.in) == 0 {
			continue
		}
		mc := c.Chain.Multicall3
		args := []any{CallArgs{To: &mc, Data: Pack("aggregate3", j.in)}, j.tag}
		if over := lensOverride(j.in); over != nil {
			args = append(args, over)
		}
		elems = append(elems, rpc.BatchElem{Method: "eth_call", Args: args, Result: &j.ret})
		sent = append(sent, j)
	}
	keep := func(j *job, got []*mcAnswer) {
		for i, a := range got {
			j.raw[j.at[i]] = a
			c.keepAnswer(j.keys[i], a)
		}
	}
	if len(sent) == 1 {
		// Alone, the aggregate goes as Multicall sends it.
		got, err := c.aggregate(ctx, sent[0].in, sent[0].tag)
		if err != nil {
			return nil, err
		}
		keep(sent[0], got)
	} else if len(sent) > 1 {
		bctx, cancel, err := c.begin(ctx)
		if err != nil {
			return nil, err
		}
		defer cancel()
		c.count(bctx, len(elems))
		for _, j := range sent {
			c.stats.Reads.Add(int64(len(j.in)))
		}
		if err := c.classify(c.rpc.BatchCallContext(bctx, elems)); err != nil {
			return nil, err
		}
		for e, j := range sent {
			var got []*mcAnswer
			if err := c.classify(elems[e].Error); errors.Is(err, ErrInvalidParams) && lensOverride(j.in) != nil {
				// The node refused the lens's override: without it.
				c.noLens.Store(true)
				got, err = c.aggregateWithoutLens(ctx, j.in, j.tag)
				if err != nil {
					return nil, err
				}
			} else if err != nil {
				return nil, err
			} else if got, err = decodeAggregate(j.ret, len(j.in)); err != nil {
				return nil, apierr.New(apierr.ErrUpstream, "rpc_bad_answer", fmt.Sprintf("%s: %v", c.Chain.Name, err))
			}
			keep(j, got)
		}
	}
	out := make([][]Result, len(blocks))
	for b, j := range jobs {
		out[b] = results(calls, j.raw)
	}
	return out, nil
}

// Want queues calls the tool call will make later at its pinned block of
// this chain but that need not wait for what it reads first (token
// metadata while pool addresses are looked up, pool addresses while
// balances are read): they ride along with the call's next Multicall3
// aggregate of its pinned block, and their answers are kept for that
// block, so the later Multicall of them asks nothing. Calls already
// answered at that block are left out; outside a tool call Want does
// nothing.
func (c *EVM) Want(ctx context.Context, calls ...Call) {
	s := stateOf(ctx)
	if s == nil || len(calls) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wants == nil {
		s.wants = map[string][]call3{}
	}
	for _, cl := range calls {
		s.wants[c.Chain.Name] = append(s.wants[c.Chain.Name], call3{Target: cl.Target, AllowFailure: true, CallData: Pack(cl.Method, cl.Args...)})
	}
}

// withWanted appends to in (keyed by keys) the calls wanted on this chain
// that are neither in it nor answered at tag, and clears the wants.
func (c *EVM) withWanted(ctx context.Context, tag string, in []call3, keys []string) ([]call3, []string) {
	s := stateOf(ctx)
	if s == nil {
		return in, keys
	}
	s.mu.Lock()
	w := s.wants[c.Chain.Name]
	delete(s.wants, c.Chain.Name)
	s.mu.Unlock()
	seen := map[string]bool{}
	for _, k := range keys {
		seen[k] = true
	}
	for _, c3 := range w {
		k := mcKey(tag, c3)
		if seen[k] {
			continue
		}
		seen[k] = true
		if _, ok := c.reads.Get(k); !ok {
			in, keys = append(in, c3), append(keys, k)
		}
	}
	return in, keys
}

// results decodes the answers of calls.
func results(calls []Call, raw []*mcAnswer) []Result {
	res := make([]Result, len(calls))
	for i, r := range raw {
		res[i].Raw = r.ReturnData
		if !r.Success || len(r.ReturnData) == 0 {
			continue
		}
		out, err := ABI.Unpack(calls[i].Method, r.ReturnData)
		if err != nil {
			continue
		}
		res[i] = Result{OK: true, Out: out, Raw: r.ReturnData}
	}
	return res
}

// multicallPinning runs the first multicall of a call that has no pin on
// this chain, when the head is not known either: instead of reading the
// head, then the calls at its block, it sends the calls at "latest" with
// Multicall3's getBlockNumber and getCurrentBlockTimestamp, which name the
// block they were read at (the node evaluates an eth_call in the context
// of the block it reads), and pins the call to that block. ok is false
// when the call did not go this way (a pin or a fresh head exists, or a
// concurrent read of the call pinned another block first: the caller
// reads at the pin).
func (c *EVM) multicallPinning(ctx context.Context, calls []Call) (res []Result, ok bool, err error) {
	if stateOf(ctx) == nil {
		return nil, false, nil
	}
	if _, ok := c.pinOf(ctx); ok {
		return nil, false, nil
	}
	if _, ok := c.freshHead(); ok {
		return nil, false, nil
	}
	mc := c.Chain.Multicall3
	in := make([]call3, 0, len(calls)+2)
	for _, cl := range calls {
		in = append(in, call3{Target: cl.Target, AllowFailure: true, CallData: Pack(cl.Method, cl.Args...)})
	}
	in = append(in, call3{Target: mc, AllowFailure: true, CallData: Pack("getBlockNumber")},
		call3{Target: mc, AllowFailure: true, CallData: Pack("getCurrentBlockTimestamp")})
	// Wanted calls go last; their keys name the block only once it is known.
	in, _ = c.withWanted(ctx, "latest", in, nil)
	raw, err := c.aggregate(ctx, in, "latest")
	if err != nil {
		return nil, false, err
	}
	bn, bt := raw[len(calls)], raw[len(calls)+1]
	n, t := new(big.Int).SetBytes(bn.ReturnData), new(big.Int).SetBytes(bt.ReturnData)
	if !bn.Success || !bt.Success || len(bn.ReturnData) != 32 || len(bt.ReturnData) != 32 || !n.IsUint64() || !t.IsInt64() {
		// A Multicall3 without the two (not the canonical one): the
		// caller reads the head.
		return nil, false, nil
	}
	h := Header{Number: n.Uint64(), Time: t.Int64()}
	c.sawHead(h)
	tag := h.Tag()
	for i := range in {
		// Kept before pinning, so the prefetch started by the pin leaves
		// them out.
		if i < len(calls) || i >= len(calls)+2 {
			c.keepAnswer(mcKey(tag, in[i]), raw[i])
		}
	}
	if c.pinTo(ctx, h) != h {
		return nil, false, nil
	}
	for i := range calls {
		stateOf(ctx).addCall(c, tag, in[i])
	}
	return results(calls, raw[:len(calls)]), true, nil
}

// keepAnswer keeps one Multicall3 entry's answer for its block.
func (c *EVM) keepAnswer(key string, a *mcAnswer) {
	c.reads.PutSized(key, a, Forever, len(key)+len(a.ReturnData))
}

// mcAnswer is one call's answer in an aggregate3 result.
type mcAnswer struct {
	Success    bool
	ReturnData []byte
}

// aggregate sends one aggregate3 eth_call at tag (with the lens's state
// override when an entry calls the lens; without those entries, which
// then fail, on a node that refuses overrides).
func (c *EVM) aggregate(ctx context.Context, in []call3, tag string) ([]*mcAnswer, error) {
	over := lensOverride(in)
	if over != nil && c.noLens.Load() {
		return c.aggregateWithoutLens(ctx, in, tag)
	}
	c.stats.Reads.Add(int64(len(in) - 1)) // the eth_call itself counts one
	mc := c.Chain.Multicall3
	var ret hexutil.Bytes
	args := []any{CallArgs{To: &mc, Data: Pack("aggregate3", in)}, tag}
	if over != nil {
		args = append(args, over)
	}
	if err := c.send(ctx, &ret, "eth_call", args...); err != nil {
		if over != nil && errors.Is(err, ErrInvalidParams) {
			c.noLens.Store(true)
			return c.aggregateWithoutLens(ctx, in, tag)
		}
		return nil, err
	}
	out, err := decodeAggregate(ret, len(in))
	if err != nil {
		return nil, apierr.New(apierr.ErrUpstream, "rpc_bad_answer", fmt.Sprintf("%s: %v", c.Chain.Name, err))
	}
	return out, nil
}

// aggregateWithoutLens sends the entries of in that do not run the lens;
// those that do are answered as failed (their callers read another way).
func (c *EVM) aggregateWithoutLens(ctx context.Context, in []call3, tag string) ([]*mcAnswer, error) {
	out := make([]*mcAnswer, len(in))
	var rest []call3
	var at []int
	for i, e := range in {
		if usesLens(e) {
			out[i] = &mcAnswer{}
			continue
		}
		rest, at = append(rest, e), append(at, i)
	}
	if len(rest) > 0 {
		got, err := c.aggregate(ctx, rest, tag)
		if err != nil {
			return nil, err
		}
		for j, a := range got {
			out[at[j]] = a
		}
	}
	return out, nil
}

// decodeAggregate decodes the n answers of an aggregate3 result.
func decodeAggregate(ret []byte, n int) ([]*mcAnswer, error) {
	outs, err := ABI.Unpack("aggregate3", ret)
	if err != nil || len(outs) != 1 {
		return nil, errors.New("Multicall3 answer does not decode")
	}
	raw := *abi.ConvertType(outs[0], new([]mcAnswer)).(*[]mcAnswer)
	if len(raw) != n {
		return nil, errors.New("Multicall3 answer has the wrong shape")
	}
	out := make([]*mcAnswer, len(raw))
	for i := range raw {
		out[i] = &raw[i]
	}
	return out, nil
}

// Big returns the i-th output as *big.Int (nil when absent).
func (r Result) Big(i int) *big.Int {
	if !r.OK || len(r.Out) <= i {
		return nil
	}
	v, _ := r.Out[i].(*big.Int)
	return v
}

// Addr returns the i-th output as an address.
func (r Result) Addr(i int) (common.Address, bool) {
	if !r.OK || len(r.Out) <= i {
		return common.Address{}, false
	}
	v, ok := r.Out[i].(common.Address)
	return v, ok
}
