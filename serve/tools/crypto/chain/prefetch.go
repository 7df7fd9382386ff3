package chain

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// Prefetching: a tool call asked again (the same tool and input) at a new
// block mostly reads what it read last time, at the new block: the same
// reserves, balances, allowances, owner, supply, simulated sells. The reads
// of the pinned block a call makes are recorded as its plan; when the same
// call pins a newer block, every read of the plan not yet known at that
// block is sent at once, in one JSON-RPC batch carrying one Multicall3
// aggregate3 for all Multicall3 entries, and kept. The call then finds its
// reads in the read cache; a read the plan did not foresee (a price moved,
// so a sell amount changed) goes to the node as usual.

// plan is what one call read of one chain at block tag.
type plan struct {
	tag   string
	mc    []call3
	reads []planRead
	seen  map[string]bool
}

type planRead struct {
	method string
	args   string // the JSON array of the parameters
}

// planOf returns the call's plan for c, nil outside a planned call or when
// tag is not the call's pinned block.
func (s *callState) planOf(c *EVM, tag string) *plan {
	if s == nil || s.key == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, ok := s.pins[c.Chain.Name]; !ok || h.Tag() != tag {
		return nil
	}
	p := s.plans[c.Chain.Name]
	if p == nil {
		p = &plan{tag: tag, seen: map[string]bool{}}
		s.plans[c.Chain.Name] = p
		s.clients[c.Chain.Name] = c
	}
	return p
}

func (s *callState) addCall(c *EVM, tag string, in call3) {
	if usesLens(in) && !bytes.HasPrefix(in.CallData, ABI.Methods["route"].ID) {
		// What the lens found is kept as facts and its reads are recorded
		// one by one (Resolve), code for longer than a block: the next
		// call does not ask it again. A route is read again per block. The
		// beacon-roots count starts a search whose bracket is kept.
		return
	}
	if p := s.planOf(c, tag); p != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if k := mcKey(tag, in); !p.seen[k] {
			p.seen[k] = true
			p.mc = append(p.mc, in)
		}
	}
}

// addRead records a read whose parameters name the pinned block.
func (s *callState) addRead(c *EVM, method string, args []any) {
	if s == nil || s.key == "" {
		return
	}
	s.mu.Lock()
	h, ok := s.pins[c.Chain.Name]
	s.mu.Unlock()
	if !ok {
		return
	}
	b, err := json.Marshal(args)
	if err != nil || !headReads[method] && !strings.Contains(string(b), `"`+h.Tag()+`"`) {
		return
	}
	if p := s.planOf(c, h.Tag()); p != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if k := method + string(b); !p.seen[k] {
			p.seen[k] = true
			p.reads = append(p.reads, planRead{method, string(b)})
		}
	}
}

// size is about the bytes a plan holds.
func (p *plan) size() int {
	n := 0
	for _, e := range p.mc {
		n += len(e.CallData) + 64
	}
	for _, r := range p.reads {
		n += len(r.args) + len(r.method)
	}
	return n
}

func mcKey(tag string, in call3) string {
	return "mc:" + tag + ":" + in.Target.Hex() + ":" + hexutil.Encode(in.CallData)
}

// WithPlan is WithCall for a call identified by key (its tool and input):
// its reads are recorded, and a later call with the same key prefetches
// them at its own block, with those of the plans of also (the paid call a
// check before payment precedes) in the same request. EndCall stores the
// plan.
func WithPlan(ctx context.Context, tool, key string, also ...string) context.Context {
	ctx = WithCall(ctx, tool)
	s := stateOf(ctx)
	s.key, s.also = key, also
	return ctx
}

// EndCall keeps the call's plans for the next call with its key.
func EndCall(ctx context.Context) {
	s := stateOf(ctx)
	if s == nil || s.key == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, p := range s.plans {
		p.seen = nil // recorded: the plan is read only from now on
		s.clients[name].plans.PutSized(s.key, p, Forever, len(s.key)+p.size())
	}
}

// prefetch sends the reads of the last plans of keys that are not known
// at block h. Failures are left to the reads themselves.
func (c *EVM) prefetch(ctx context.Context, keys []string, h Header) {
	tag := h.Tag()
	var ps []*plan
	for _, k := range keys {
		if v, ok := c.plans.Get(k); ok && v.(*plan).tag != tag {
			ps = append(ps, v.(*plan))
		}
	}
	var elems []rpc.BatchElem
	var in []call3
	seen := map[string]bool{}
	for _, p := range ps {
		for _, e := range p.mc {
			if k := mcKey(tag, e); !seen[k] {
				seen[k] = true
				if _, ok := c.reads.Get(k); !ok {
					in = append(in, e)
				}
			}
		}
	}
	if c.noLens.Load() {
		in = slices.DeleteFunc(in, usesLens)
	}
	var agg hexutil.Bytes
	if len(in) > 0 {
		mc := c.Chain.Multicall3
		args := []any{CallArgs{To: &mc, Data: Pack("aggregate3", in)}, tag}
		if over := lensOverride(in); over != nil {
			args = append(args, over)
		}
		elems = append(elems, rpc.BatchElem{Method: "eth_call", Args: args, Result: &agg})
	}
	var rkeys []string
	for _, p := range ps {
		for _, r := range p.reads {
			args, ok := retag(r, p.tag, h)
			if !ok {
				continue
			}
			k := readKey(r.method, args)
			if headReads[r.method] {
				k, args = headKey(r.method, tag), nil
			}
			if _, ok := c.reads.Get(k); ok || k == "" || seen[k] {
				continue
			}
			seen[k] = true
			elems = append(elems, rpc.BatchElem{Method: r.method, Args: args, Result: new(json.RawMessage)})
			rkeys = append(rkeys, k)
		}
	}
	if len(elems) == 0 {
		return
	}
	ctx, cancel, err := c.begin(ctx)
	if err != nil {
		return
	}
	defer cancel()
	c.count(ctx, len(elems))
	c.stats.Reads.Add(int64(len(elems) + len(in) - min(1, len(in))))
	if c.rpc.BatchCallContext(ctx, elems) != nil {
		return
	}
	if len(in) > 0 {
		if elems[0].Error == nil {
			if outs, err := decodeAggregate(agg, len(in)); err == nil {
				for i, a := range outs {
					c.keepAnswer(mcKey(tag, in[i]), a)
				}
			}
		}
		elems = elems[1:]
	}
	for i, e := range elems {
		re := &readEntry{}
		if e.Error != nil {
			if !re.setErr(c.classify(e.Error)) {
				continue
			}
		} else {
			re.raw = *e.Result.(*json.RawMessage)
		}
		c.keep(rkeys[i], re)
	}
}

// retag moves a recorded read from block old to block h: the block
// parameter, and for eth_getLogs a range ending at the old block shifted
// to end at h (a range from genesis keeps its start).
func retag(r planRead, old string, h Header) ([]any, bool) {
	s := strings.ReplaceAll(r.args, `"`+old+`"`, `"`+h.Tag()+`"`)
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, false
	}
	if r.method == "eth_getLogs" && len(raw) == 1 {
		var f map[string]any
		if json.Unmarshal(raw[0], &f) != nil {
			return nil, false
		}
		from, ok := f["fromBlock"].(string)
		o, err1 := hexutil.DecodeUint64(old)
		fb, err2 := hexutil.DecodeUint64(from)
		if !ok || err1 != nil || err2 != nil || f["toBlock"] != h.Tag() || h.Number < o {
			return nil, false
		}
		if fb > 0 { // a range from genesis stays from genesis
			f["fromBlock"] = hexutil.EncodeBig(new(big.Int).SetUint64(fb + h.Number - o))
		}
		b, err := json.Marshal(f)
		if err != nil {
			return nil, false
		}
		raw[0] = b
	}
	out := make([]any, len(raw))
	for i := range raw {
		out[i] = raw[i]
	}
	return out, true
}
