package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"

	"github.com/openshelf/openshelf/serve/apierr"
)

// Options tune every client.
type Options struct {
	// Timeout bounds each RPC request (a batch is one request). Default 10s.
	Timeout time.Duration
	// RatePerSecond and Burst limit HTTP requests per chain (a batch
	// counts once; answers from the read cache not at all). Default 20/s,
	// burst 40.
	RatePerSecond float64
	Burst         int
	// HTTPClient carries the requests; default a client with Timeout.
	HTTPClient *http.Client
	// HeadTTL is how long the head block number is trusted before it is
	// asked again (reads in between are answered for that block); default
	// half the chain's block time, at most 1s; negative: always ask.
	HeadTTL time.Duration
	// ReadCache and ReadCacheBytes bound the answers of reads of named
	// blocks kept (entries, and bytes of answers and keys; least recently
	// used first out); default 16384 and 64 MiB.
	ReadCache, ReadCacheBytes int
	// Now is the clock of the head's TTL; default time.Now.
	Now func() time.Time
}

func (o *Options) fill() {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.RatePerSecond <= 0 {
		o.RatePerSecond = 20
	}
	if o.Burst <= 0 {
		o.Burst = 40
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: o.Timeout}
	}
	if o.ReadCache <= 0 {
		o.ReadCache = 16384
	}
	if o.ReadCacheBytes <= 0 {
		o.ReadCacheBytes = 64 << 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// EVM talks JSON-RPC to one EVM chain.
type EVM struct {
	Chain *Chain
	// Cache keeps decoded facts (token metadata, pool addresses) and
	// short-lived figures; reads keeps raw answers of reads of a named
	// block (reads.go).
	Cache  *Cache
	reads  *Cache
	plans  *Cache // prefetch.go
	rpc    *rpc.Client
	lim    *rate.Limiter
	opts   Options
	stats  Stats
	spent  sync.Map // tool name → *Spent
	head   head
	flight singleflight.Group
	// noLens: the node refused the lens's state override (lens.go), so
	// aggregates are sent without the lens's entries.
	noLens atomic.Bool
}

// Stats count what a client asked of its node: HTTP requests, JSON-RPC
// calls (a batch entry is one call), and reads (a Multicall3 entry is one
// read: what a client without batching would have sent as calls).
type Stats struct {
	Requests, Calls, Reads atomic.Int64
}

// Stats returns the client's counters.
func (c *EVM) Stats() *Stats { return &c.stats }

// NewEVM returns a client of ch's first RPC endpoint. Dialling HTTP does not
// connect, so this does not block.
func NewEVM(ch *Chain, opts Options) (*EVM, error) {
	opts.fill()
	if len(ch.RPC) == 0 {
		return nil, fmt.Errorf("%w: %s has no RPC endpoint", ErrConfig, ch.Name)
	}
	c, err := rpc.DialOptions(context.Background(), ch.RPC[0], rpc.WithHTTPClient(opts.HTTPClient))
	if err != nil {
		return nil, fmt.Errorf("%w: %s RPC %q: %v", ErrConfig, ch.Name, ch.RPC[0], err)
	}
	return &EVM{Chain: ch, Cache: NewCache(8192), reads: NewSizedCache(opts.ReadCache, opts.ReadCacheBytes), plans: NewSizedCache(1024, 16<<20), rpc: c,
		lim: rate.NewLimiter(rate.Limit(opts.RatePerSecond), opts.Burst), opts: opts}, nil
}

// Close releases the connection.
func (c *EVM) Close() { c.rpc.Close() }

// Call makes one JSON-RPC call. A read of a named block ("latest" is
// the call's pinned block) is answered from the read cache when the same
// read was made before; concurrent identical reads share one request.
func (c *EVM) Call(ctx context.Context, result any, method string, args ...any) error {
	args, err := c.pinArgs(ctx, args)
	if err != nil {
		return err
	}
	key := readKey(method, args)
	if headReads[method] && len(args) == 0 {
		h, err := c.Pin(ctx)
		if err != nil {
			return err
		}
		key = headKey(method, h.Tag())
	}
	if key == "" {
		return c.send(ctx, result, method, args...)
	}
	stateOf(ctx).addRead(c, method, args)
	raw, err := c.read(key, func() (json.RawMessage, error) {
		var raw json.RawMessage
		err := c.send(ctx, &raw, method, args...)
		return raw, err
	})
	if err != nil || result == nil {
		return err
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return apierr.New(apierr.ErrUpstream, "rpc_bad_answer", c.Chain.Name+": "+method+" answer does not decode")
	}
	return nil
}

// send makes one JSON-RPC call, uncached.
func (c *EVM) send(ctx context.Context, result any, method string, args ...any) error {
	ctx, cancel, err := c.begin(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	c.count(ctx, 1)
	c.stats.Reads.Add(1)
	return c.classify(c.rpc.CallContext(ctx, result, method, args...))
}

// Batch sends calls in one JSON-RPC batch. Per-call errors are left in each
// element's Error; the returned error is a transport failure. Reads of a
// named block already made are answered from the read cache and left out
// of the batch.
func (c *EVM) Batch(ctx context.Context, b []rpc.BatchElem) error {
	keys := make([]string, len(b))
	var miss []rpc.BatchElem
	var at []int
	for i := range b {
		args, err := c.pinArgs(ctx, b[i].Args)
		if err != nil {
			return err
		}
		b[i].Args = args
		if keys[i] = readKey(b[i].Method, args); keys[i] != "" {
			stateOf(ctx).addRead(c, b[i].Method, args)
			if e, ok := c.cachedRead(keys[i]); ok {
				b[i].Error = e.fill(b[i].Result)
				continue
			}
		}
		miss = append(miss, rpc.BatchElem{Method: b[i].Method, Args: args, Result: new(json.RawMessage)})
		at = append(at, i)
	}
	if len(miss) == 0 {
		return nil
	}
	ctx, cancel, err := c.begin(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	c.count(ctx, len(miss))
	c.stats.Reads.Add(int64(len(miss)))
	if err := c.classify(c.rpc.BatchCallContext(ctx, miss)); err != nil {
		return err
	}
	for j, m := range miss {
		i := at[j]
		e := &readEntry{}
		if m.Error != nil {
			m.Error = c.classify(m.Error)
			if !e.setErr(m.Error) {
				b[i].Error = m.Error
				continue
			}
		} else {
			e.raw = *m.Result.(*json.RawMessage)
		}
		if keys[i] != "" {
			c.keep(keys[i], e)
		}
		b[i].Error = e.fill(b[i].Result)
	}
	return nil
}

func (c *EVM) begin(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if err := c.lim.Wait(ctx); err != nil {
		return nil, nil, apierr.New(apierr.ErrUnavailable, "rpc_busy", c.Chain.Name+": too many RPC requests in flight")
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	return ctx, cancel, nil
}

// RevertError is an eth_call that reverted: not an upstream failure but an
// answer about the call.
type RevertError struct {
	Reason string // decoded Error(string) or Panic(uint256), else ""
	Data   []byte
}

func (e *RevertError) Error() string {
	if e.Reason == "" {
		return "execution reverted"
	}
	return "execution reverted: " + e.Reason
}

// ErrMethodNotFound marks a JSON-RPC method the node does not offer
// (error -32601), so a caller can fall back to another one.
var ErrMethodNotFound = errors.New("chain: method not offered by the node")

// ErrInvalidParams marks parameters the node does not accept (error
// -32602), such as eth_call state overrides on a node without them.
var ErrInvalidParams = errors.New("chain: parameters not accepted by the node")

// classify maps RPC failures: a revert becomes *RevertError; a timeout 504;
// anything else from the node 502.
func (c *EVM) classify(err error) error {
	if err == nil {
		return nil
	}
	var re *RevertError
	var ae *apierr.Error
	if errors.As(err, &re) || errors.As(err, &ae) {
		return err
	}
	var de rpc.DataError
	if errors.As(err, &de) && (strings.Contains(err.Error(), "revert") || isRevertCode(err)) {
		return revertFrom(de.ErrorData())
	}
	var re2 rpc.Error
	if errors.As(err, &re2) && re2.ErrorCode() == -32601 {
		return fmt.Errorf("%w: %w", ErrMethodNotFound,
			apierr.New(apierr.ErrUpstream, "rpc_method_unsupported", c.Chain.Name+": the RPC node does not offer a method this tool needs"))
	}
	if errors.As(err, &re2) && re2.ErrorCode() == -32602 {
		return fmt.Errorf("%w: %w", ErrInvalidParams,
			apierr.New(apierr.ErrUpstream, "rpc_error", c.Chain.Name+": the RPC node failed: "+cut(err.Error(), 200)))
	}
	if strings.Contains(err.Error(), "execution reverted") {
		return &RevertError{}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return apierr.New(apierr.ErrUpstreamTimeout, "rpc_timeout", c.Chain.Name+": the RPC node did not answer in time")
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return apierr.New(apierr.ErrUpstream, "rpc_error", c.Chain.Name+": the RPC node failed: "+cut(err.Error(), 200))
}

func isRevertCode(err error) bool {
	var e rpc.Error
	return errors.As(err, &e) && e.ErrorCode() == 3
}

func revertFrom(data any) *RevertError {
	s, _ := data.(string)
	b, err := hexutil.Decode(s)
	if err != nil {
		return &RevertError{}
	}
	return &RevertError{Reason: RevertReason(b), Data: b}
}

// RevertReason decodes Error(string) and Panic(uint256) revert data.
func RevertReason(b []byte) string {
	if r, err := abi.UnpackRevert(b); err == nil {
		return r
	}
	if len(b) >= 4 {
		return "custom error 0x" + common.Bytes2Hex(b[:4])
	}
	return ""
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Override is an eth_call state override of one account.
type Override struct {
	Code      hexutil.Bytes               `json:"code,omitempty"`
	Balance   *hexutil.Big                `json:"balance,omitempty"`
	StateDiff map[common.Hash]common.Hash `json:"stateDiff,omitempty"`
}

// Block names a block for a call: nil is latest.
func Block(n *big.Int) string {
	if n == nil {
		return "latest"
	}
	return hexutil.EncodeBig(n)
}

// CallArgs is an eth_call message.
type CallArgs struct {
	From  *common.Address `json:"from,omitempty"`
	To    *common.Address `json:"to"`
	Gas   *hexutil.Uint64 `json:"gas,omitempty"`
	Value *hexutil.Big    `json:"value,omitempty"`
	Data  hexutil.Bytes   `json:"data,omitempty"`
}

// EthCall runs a call at block (nil: latest) with optional overrides.
func (c *EVM) EthCall(ctx context.Context, msg CallArgs, block *big.Int, over map[common.Address]Override) ([]byte, error) {
	var out hexutil.Bytes
	var err error
	if len(over) > 0 {
		err = c.Call(ctx, &out, "eth_call", msg, Block(block), over)
	} else {
		err = c.Call(ctx, &out, "eth_call", msg, Block(block))
	}
	return out, err
}

// Read calls a view method of ABI on to.
func (c *EVM) Read(ctx context.Context, to common.Address, block *big.Int, method string, args ...any) ([]any, error) {
	ret, err := c.EthCall(ctx, CallArgs{To: &to, Data: Pack(method, args...)}, block, nil)
	if err != nil {
		return nil, err
	}
	return ABI.Unpack(method, ret)
}
