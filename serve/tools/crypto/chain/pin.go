package chain

import (
	"context"
	"encoding/json"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Header is a block's number and time.
type Header struct {
	Number uint64
	Time   int64
}

// Tag is the block's JSON-RPC block parameter.
func (h Header) Tag() string { return hexutil.EncodeUint64(h.Number) }

// Big is the block number.
func (h Header) Big() *big.Int { return new(big.Int).SetUint64(h.Number) }

// A tool call: which tool spends the requests, and the block each chain's
// reads are pinned to, so every read of one call sees one block and reads
// of the same block are answered from the read cache.
type callState struct {
	tool string
	key  string   // the tool and input, for prefetching (prefetch.go)
	also []string // plans prefetched with the call's own
	mu   sync.Mutex
	pins map[string]Header // chain name → pinned head
	// plans are the reads of each chain's pinned block, for the next call
	// with the same key.
	plans   map[string]*plan
	clients map[string]*EVM
	// wants are calls queued to ride along with each chain's next
	// Multicall3 aggregate (Want).
	wants map[string][]call3
}

type callKey struct{}

// WithCall starts a tool call: requests made under the returned context
// are counted for tool, and the first read of each chain pins that
// chain's head block for the rest of the call.
func WithCall(ctx context.Context, tool string) context.Context {
	return context.WithValue(ctx, callKey{}, &callState{tool: tool, pins: map[string]Header{},
		plans: map[string]*plan{}, clients: map[string]*EVM{}})
}

func stateOf(ctx context.Context) *callState {
	s, _ := ctx.Value(callKey{}).(*callState)
	return s
}

// ToolOf is the tool a context's requests are counted for ("" outside a
// tool call).
func ToolOf(ctx context.Context) string {
	if s := stateOf(ctx); s != nil {
		return s.tool
	}
	return ""
}

// head is the last head block asked of the node, trusted for a fraction
// of the block time.
type head struct {
	mu  sync.Mutex
	h   Header
	exp time.Time
}

// Head returns the head block: asked of the node at most once per
// HeadTTL, one request shared by concurrent callers.
func (c *EVM) Head(ctx context.Context) (Header, error) {
	if h, ok := c.freshHead(); ok {
		return h, nil
	}
	v, err, _ := c.flight.Do("head", func() (any, error) {
		var msg json.RawMessage
		if err := c.send(ctx, &msg, "eth_getBlockByNumber", "latest", false); err != nil {
			return Header{}, err
		}
		var raw struct {
			Number    hexutil.Uint64 `json:"number"`
			Timestamp hexutil.Uint64 `json:"timestamp"`
		}
		if err := json.Unmarshal(msg, &raw); err != nil {
			return Header{}, err
		}
		h := Header{Number: uint64(raw.Number), Time: int64(raw.Timestamp)}
		// The header itself answers a later read of the block by number.
		c.keep(readKey("eth_getBlockByNumber", []any{h.Tag(), false}), &readEntry{raw: msg})
		c.sawHead(h)
		return h, nil
	})
	if err != nil {
		return Header{}, err
	}
	return v.(Header), nil
}

// freshHead is the last head asked of the node while it is trusted.
func (c *EVM) freshHead() (Header, bool) {
	c.head.mu.Lock()
	defer c.head.mu.Unlock()
	return c.head.h, c.opts.Now().Before(c.head.exp)
}

// sawHead records h, the head block just read, as the head for HeadTTL and
// keeps its header.
func (c *EVM) sawHead(h Header) {
	c.Cache.Put("hdr:"+h.Tag(), h, Forever)
	c.head.mu.Lock()
	defer c.head.mu.Unlock()
	if h.Number >= c.head.h.Number {
		c.head.h, c.head.exp = h, c.opts.Now().Add(c.headTTL())
	}
}

// headTTL is Options.HeadTTL, else half the block time, at most a second.
func (c *EVM) headTTL() time.Duration {
	if c.opts.HeadTTL != 0 {
		return max(c.opts.HeadTTL, 0)
	}
	return min(time.Second, time.Duration(c.Chain.BlockTime*float64(time.Second)/2))
}

// ForgetHead makes the next Head ask the node.
func (c *EVM) ForgetHead() {
	c.head.mu.Lock()
	defer c.head.mu.Unlock()
	c.head.exp = time.Time{}
}

// Pin is the block the call's reads of this chain are pinned to: the head
// when first asked in the call (outside a tool call, the head).
func (c *EVM) Pin(ctx context.Context) (Header, error) {
	if h, ok := c.pinOf(ctx); ok {
		return h, nil
	}
	h, err := c.Head(ctx)
	if err != nil {
		return Header{}, err
	}
	return c.pinTo(ctx, h), nil
}

// pinOf is the call's pin of this chain, if it has one.
func (c *EVM) pinOf(ctx context.Context) (Header, bool) {
	s := stateOf(ctx)
	if s == nil {
		return Header{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.pins[c.Chain.Name]
	return h, ok
}

// pinTo pins the call's reads of this chain to h, the head, unless a
// concurrent read of the call pinned first, and returns the pin; a new pin
// starts the prefetch of the reads of the last call with the same key.
func (c *EVM) pinTo(ctx context.Context, h Header) Header {
	s := stateOf(ctx)
	if s == nil {
		return h
	}
	s.mu.Lock()
	old, ok := s.pins[c.Chain.Name]
	if ok {
		h = old
	} else {
		s.pins[c.Chain.Name] = h
	}
	s.mu.Unlock()
	if !ok && s.key != "" {
		c.prefetch(ctx, append([]string{s.key}, s.also...), h)
	}
	return h
}

// tag is the block parameter of a read at n, or at the pinned block when
// n is nil.
func (c *EVM) tag(ctx context.Context, n *big.Int) (string, error) {
	if n != nil {
		return hexutil.EncodeBig(n), nil
	}
	h, err := c.Pin(ctx)
	if err != nil {
		return "", err
	}
	return h.Tag(), nil
}

// pinArgs replaces "latest" block parameters with the pinned block, so a
// read names the block it is about and its answer can be kept for it.
func (c *EVM) pinArgs(ctx context.Context, args []any) ([]any, error) {
	at := -1
	for i, a := range args {
		if s, ok := a.(string); ok && s == "latest" {
			at = i
		}
	}
	if at < 0 {
		return args, nil
	}
	h, err := c.Pin(ctx)
	if err != nil {
		return nil, err
	}
	out := append([]any(nil), args...)
	out[at] = h.Tag()
	return out, nil
}
