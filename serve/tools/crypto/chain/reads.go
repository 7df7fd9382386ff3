package chain

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/openshelf/openshelf/serve/apierr"
)

// The read cache: the answer of a read of a named block (eth_call,
// eth_getCode, eth_getStorageAt, ... with a block number, never "latest")
// cannot change, so it is kept, keyed by the method and its parameters,
// and the same read of the same block (a repeated or concurrent tool
// call, a check before payment and the paid call after it) costs no
// request. Reverts of eth_call are answers too and are kept with them.

// blockReads are the methods whose answer is fixed by their parameters
// once those name a block by number.
var blockReads = map[string]bool{
	"eth_call": true, "eth_getCode": true, "eth_getStorageAt": true, "eth_getBalance": true,
	"eth_getBlockByNumber": true, "eth_getLogs": true, "eth_createAccessList": true,
	"eth_feeHistory": true, "eth_getTransactionCount": true, "eth_getProof": true,
}

// headReads are the methods without a block parameter whose answer is
// about the head block (the gas price): kept for the call's pinned block.
var headReads = map[string]bool{"eth_gasPrice": true, "eth_maxPriorityFeePerGas": true}

// headKey is the read cache key of a head read at block tag.
func headKey(method, tag string) string { return method + "@" + tag }

// maxKept bounds the size of one kept answer (a large log range or
// contract is read again rather than kept).
const maxKept = 1 << 20

// readKey is the read cache key of a call, "" when its answer may change:
// a method outside blockReads, or parameters naming a block by tag.
func readKey(method string, args []any) string {
	if !blockReads[method] {
		return ""
	}
	b, err := json.Marshal(args)
	if err != nil {
		return ""
	}
	for _, tag := range []string{`"latest"`, `"pending"`, `"safe"`, `"finalized"`, `"earliest"`} {
		if strings.Contains(string(b), tag) {
			return ""
		}
	}
	return method + string(b)
}

// readEntry is a kept answer: the raw result, or the revert.
type readEntry struct {
	raw    json.RawMessage
	revert *RevertError
}

// setErr keeps a revert; other errors are not answers and are not kept.
func (e *readEntry) setErr(err error) bool {
	var re *RevertError
	if errors.As(err, &re) {
		e.revert = re
		return true
	}
	return false
}

// fill decodes the answer into result.
func (e *readEntry) fill(result any) error {
	if e.revert != nil {
		r := *e.revert
		return &r
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(e.raw, result)
}

func (c *EVM) cachedRead(key string) (*readEntry, bool) {
	v, ok := c.reads.Get(key)
	if !ok {
		return nil, false
	}
	return v.(*readEntry), true
}

func (c *EVM) keep(key string, e *readEntry) {
	if len(e.raw) <= maxKept {
		c.reads.PutSized(key, e, Forever, len(key)+len(e.raw))
	}
}

// read answers key from the read cache, else by fetch, shared with
// concurrent callers of the same key and kept.
func (c *EVM) read(key string, fetch func() (json.RawMessage, error)) (json.RawMessage, error) {
	if e, ok := c.cachedRead(key); ok {
		return e.raw, e.fill(nil)
	}
	v, err, _ := c.flight.Do(key, func() (any, error) {
		raw, err := fetch()
		e := &readEntry{raw: raw}
		if err != nil && !e.setErr(err) {
			return nil, err
		}
		c.keep(key, e)
		return e, nil
	})
	if err != nil {
		return nil, err
	}
	e := v.(*readEntry)
	return e.raw, e.fill(nil)
}

// Spent counts what one tool asked of a chain's node.
type Spent struct {
	Requests, Calls atomic.Int64
}

// count records one HTTP request carrying calls JSON-RPC calls, for the
// client and for the tool of the context.
func (c *EVM) count(ctx context.Context, calls int) {
	c.stats.Requests.Add(1)
	c.stats.Calls.Add(int64(calls))
	v, _ := c.spent.LoadOrStore(ToolOf(ctx), &Spent{})
	s := v.(*Spent)
	s.Requests.Add(1)
	s.Calls.Add(int64(calls))
}

// SpentBy calls f with each tool's counts ("" is requests made outside a
// tool call).
func (c *EVM) SpentBy(f func(tool string, s *Spent)) {
	c.spent.Range(func(k, v any) bool {
		f(k.(string), v.(*Spent))
		return true
	})
}

// Forget drops the kept reads and facts and the head (benchmarks measure
// cold calls with it).
func (c *EVM) Forget() {
	c.Cache.Clear()
	c.reads.Clear()
	c.plans.Clear()
	c.ForgetHead()
}

// Code reads addr's code and the values of its storage slots at the
// call's pinned block: the code through the lens in a Multicall3 call
// (which pins the block when it is the call's first read, CodeOf), then
// eth_getProof, which answers every slot at once (the proofs are
// ignored); a node without eth_getProof is asked each slot with
// eth_getStorageAt.
func (c *EVM) Code(ctx context.Context, addr common.Address, slots []common.Hash) (code []byte, vals []common.Hash, err error) {
	if code, err = c.CodeOf(ctx, addr); err != nil {
		return nil, nil, err
	}
	var proof struct {
		Storage []struct {
			Key   common.Hash `json:"key"`
			Value hexutil.Big `json:"value"`
		} `json:"storageProof"`
	}
	vals = make([]common.Hash, len(slots))
	err = c.Call(ctx, &proof, "eth_getProof", addr, slots, "latest")
	if errors.Is(err, ErrMethodNotFound) {
		b := make([]rpc.BatchElem, len(slots))
		for i, s := range slots {
			b[i] = rpc.BatchElem{Method: "eth_getStorageAt", Args: []any{addr, s, "latest"}, Result: &vals[i]}
		}
		if err := c.Batch(ctx, b); err != nil {
			return nil, nil, err
		}
		for _, e := range b {
			if e.Error != nil {
				return nil, nil, e.Error
			}
		}
		return code, vals, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if len(proof.Storage) != len(slots) {
		return nil, nil, apierr.New(apierr.ErrUpstream, "rpc_bad_answer", c.Chain.Name+": eth_getProof answered the wrong number of slots")
	}
	for i, p := range proof.Storage {
		vals[i] = common.BigToHash(p.Value.ToInt())
	}
	return code, vals, nil
}

// CodeOf reads addr's code at the call's pinned block through the lens,
// in a Multicall3 call (so it rides with other reads, and a first read
// pins the block without a separate read of the head); with eth_getCode
// when the lens cannot run (a node without state overrides).
func (c *EVM) CodeOf(ctx context.Context, addr common.Address) ([]byte, error) {
	res, err := c.Multicall(ctx, []Call{CodeCall(addr)}, nil)
	if err != nil {
		return nil, err
	}
	if res[0].OK {
		return res[0].Bytes(0), nil
	}
	var code hexutil.Bytes
	if err := c.Call(ctx, &code, "eth_getCode", addr, "latest"); err != nil {
		return nil, err
	}
	return code, nil
}
