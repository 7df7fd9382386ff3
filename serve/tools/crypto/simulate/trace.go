package simulate

import (
	"context"
	"errors"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/events"
)

// callFrame is one frame of go-ethereum's callTracer answer
// (debug_traceCall with {"tracer":"callTracer","tracerConfig":{"withLog":true}},
// the format geth, Erigon, Nethermind and Reth share). The local EVM runs
// the same tracer, so both paths decode the same JSON. Logs of failed
// frames are already removed by the tracer.
type callFrame struct {
	Type         string          `json:"type"`
	From         common.Address  `json:"from"`
	To           *common.Address `json:"to"`
	Value        *hexutil.Big    `json:"value"`
	GasUsed      hexutil.Uint64  `json:"gasUsed"`
	Input        hexutil.Bytes   `json:"input"`
	Output       hexutil.Bytes   `json:"output"`
	Error        string          `json:"error"`
	RevertReason string          `json:"revertReason"`
	Calls        []callFrame     `json:"calls"`
	Logs         []traceLog      `json:"logs"`
}

// traceLog is a log in a frame; Position is the number of the frame's
// sub-calls made before it.
type traceLog struct {
	logEntry
	Position hexutil.Uint `json:"position"`
}

func (f *callFrame) to() common.Address {
	if f.To == nil {
		return common.Address{}
	}
	return *f.To
}

// Bounds of the call-trace summary in an answer.
const (
	maxTraceFrames = 100
	maxTraceDepth  = 8
)

// Trace is the summary of a simulation's call tree: frames in
// execution order, depth-first, at most maxTraceFrames of them and none
// deeper than maxTraceDepth.
type Trace struct {
	Frames      []Frame `json:"frames"`
	TotalFrames int     `json:"total_frames"`
	Truncated   bool    `json:"truncated"`
	// RevertOrigin is the frame the revert came from (the deepest failed
	// frame whose revert data the callers passed up), when the call fails.
	RevertOrigin *Frame `json:"revert_origin,omitempty"`
	// StateRPCCalls is what the local EVM asked of the node (state reads).
	StateRPCCalls int `json:"state_rpc_calls,omitempty"`
}

// Frame is one call of the tree.
type Frame struct {
	Depth        int    `json:"depth"`
	Type         string `json:"type"` // CALL, STATICCALL, DELEGATECALL, CREATE, CREATE2, SELFDESTRUCT…
	From         string `json:"from"`
	To           string `json:"to,omitempty"`
	ValueWei     string `json:"value_wei,omitempty"`
	Selector     string `json:"selector,omitempty"` // first 4 bytes of the input
	InputBytes   int    `json:"input_bytes"`
	GasUsed      uint64 `json:"gas_used"`
	Error        string `json:"error,omitempty"`
	RevertReason string `json:"revert_reason,omitempty"`
	Logs         int    `json:"logs"`
}

func (f *callFrame) summary(depth int) Frame {
	tf := Frame{Depth: depth, Type: f.Type, From: f.From.Hex(), InputBytes: len(f.Input), GasUsed: uint64(f.GasUsed),
		Error: f.Error, Logs: len(f.Logs)}
	if f.To != nil {
		tf.To = f.To.Hex()
	}
	if v := f.value(); v.Sign() > 0 {
		tf.ValueWei = v.String()
	}
	if len(f.Input) >= 4 {
		tf.Selector = hexutil.Encode(f.Input[:4])
	}
	if f.Error != "" {
		tf.RevertReason = f.reason()
	}
	return tf
}

func (f *callFrame) value() *big.Int {
	if f.Value == nil {
		return new(big.Int)
	}
	return f.Value.ToInt()
}

// reason decodes a failed frame's revert data: Error(string),
// Panic(uint256), a custom error's selector, else the EVM's error.
func (f *callFrame) reason() string {
	if r := chain.RevertReason(f.Output); r != "" {
		return r
	}
	if f.RevertReason != "" {
		return f.RevertReason
	}
	return f.Error
}

// summarize flattens the tree into a Trace.
func (f *callFrame) summarize() *Trace {
	ct := &Trace{Frames: []Frame{}}
	var walk func(g *callFrame, depth int)
	walk = func(g *callFrame, depth int) {
		ct.TotalFrames++
		if depth <= maxTraceDepth && len(ct.Frames) < maxTraceFrames {
			ct.Frames = append(ct.Frames, g.summary(depth))
		} else {
			ct.Truncated = true
		}
		for i := range g.Calls {
			walk(&g.Calls[i], depth+1)
		}
	}
	walk(f, 0)
	if f.Error != "" {
		o, depth := f.revertOrigin(0)
		s := o.summary(depth)
		ct.RevertOrigin = &s
	}
	return ct
}

// revertOrigin follows a failure down the tree: a failed frame whose revert
// data equals that of one of its failed sub-calls passed it up.
func (f *callFrame) revertOrigin(depth int) (*callFrame, int) {
	for i := len(f.Calls) - 1; i >= 0; i-- {
		g := &f.Calls[i]
		if g.Error != "" && string(g.Output) == string(f.Output) {
			return g.revertOrigin(depth + 1)
		}
	}
	return f, depth
}

// failedInner counts failed frames below a successful parent: reverts the
// callers caught.
func (f *callFrame) failedInner() int {
	n := 0
	for i := range f.Calls {
		if f.Calls[i].Error != "" {
			n++
			continue
		}
		n += f.Calls[i].failedInner()
	}
	return n
}

// effects lists what the call did, in execution order, as logs: the
// frames' logs, and every native value transfer as a Transfer log of
// nativeTransferAddr (the convention of eth_simulateV1's traceTransfers).
// Failed frames did nothing. Each log carries the account that called the
// contract emitting it (through DELEGATECALLs, the caller of the proxy), so
// an inner call pulling the sender's tokens can be told apart.
func (f *callFrame) effects() []logEntry {
	var out []logEntry
	var walk func(g *callFrame, caller common.Address)
	walk = func(g *callFrame, caller common.Address) {
		if g.Error != "" {
			return
		}
		self := g.From
		if g.Type == "DELEGATECALL" || g.Type == "CALLCODE" {
			self = caller
		}
		switch g.Type {
		case "CALL", "CREATE", "CREATE2", "SELFDESTRUCT":
			if v := g.value(); v.Sign() > 0 {
				out = append(out, logEntry{Address: nativeTransferAddr,
					Topics: []common.Hash{events.Transfer, common.BytesToHash(g.From.Bytes()), common.BytesToHash(g.to().Bytes())},
					Data:   common.BigToHash(v).Bytes(), caller: g.From})
			}
		}
		li := 0
		for i := 0; i <= len(g.Calls); i++ {
			for ; li < len(g.Logs) && int(g.Logs[li].Position) <= i; li++ {
				l := g.Logs[li].logEntry
				l.caller = self
				out = append(out, l)
			}
			if i < len(g.Calls) {
				walk(&g.Calls[i], self)
			}
		}
	}
	walk(f, f.From)
	return out
}

// traceCall runs the call with go-ethereum's callTracer: debug_traceCall
// where the node offers it (asked once per chain, the answer kept for the
// life of the process), else the local EVM over state fetched from the
// node. It returns the call tree, the method used and, for the local EVM,
// the RPC calls it spent.
func (t *Tools) traceCall(ctx context.Context, c *chain.EVM, msg chain.CallArgs, over map[common.Address]accountOverride, h *header) (*callFrame, string, int, error) {
	if ok, probed := t.debugOK.Load(c.Chain.Name); !probed || ok.(bool) {
		f, err := debugTrace(ctx, c, msg, over, h)
		switch {
		case err == nil:
			t.debugOK.Store(c.Chain.Name, true)
			return f, "debug_traceCall", 0, nil
		case !traceUnsupported(err):
			return nil, "", 0, err
		}
		t.debugOK.Store(c.Chain.Name, false)
		t.cfg.Logger.Info("crypto: node lacks debug_traceCall with callTracer; simulate_tx runs a local EVM", "chain", c.Chain.Name, "err", err)
	}
	f, n, err := localTrace(ctx, c, msg, over, h, t.cfg.StateReads)
	if errors.Is(err, core.ErrInsufficientFundsForTransfer) || errors.Is(err, core.ErrInsufficientFunds) {
		return failedFrame(msg, "insufficient funds for transfer"), "local_evm", n, nil
	}
	return f, "local_evm", n, err
}

// failedFrame stands for a call the EVM refused to start.
func failedFrame(msg chain.CallArgs, why string) *callFrame {
	return &callFrame{Type: "CALL", From: *msg.From, To: msg.To, Value: msg.Value, Input: hexutil.Bytes(msg.Data), Error: why}
}

// debugTrace asks the node for debug_traceCall with the callTracer at the
// pinned block.
func debugTrace(ctx context.Context, c *chain.EVM, msg chain.CallArgs, over map[common.Address]accountOverride, h *header) (*callFrame, error) {
	cfg := map[string]any{"tracer": "callTracer", "tracerConfig": map[string]any{"withLog": true}}
	if len(over) > 0 {
		cfg["stateOverrides"] = over
	}
	var f callFrame
	err := c.Call(ctx, &f, "debug_traceCall", msg, h.tag(), cfg)
	if err != nil && strings.Contains(apierr.From(err).Message, "insufficient funds") {
		// geth refuses to trace a call whose value exceeds the balance.
		return failedFrame(msg, "insufficient funds for transfer"), nil
	}
	if err != nil {
		return nil, err
	}
	if f.Type == "" {
		return nil, apierr.New(apierr.ErrUpstream, "rpc_bad_answer", c.Chain.Name+": debug_traceCall answer is not a callTracer frame")
	}
	return &f, nil
}

// traceUnsupported tells a node without debug_traceCall (or without the
// callTracer) from a failing one: JSON-RPC -32601, or an error text saying
// the method or tracer is not offered.
func traceUnsupported(err error) bool {
	if errors.Is(err, chain.ErrMethodNotFound) {
		return true
	}
	msg := strings.ToLower(apierr.From(err).Message)
	for _, s := range []string{"not available", "not supported", "unsupported", "does not exist", "not found", "not whitelisted", "not allowed", "disabled"} {
		if strings.Contains(msg, s) && (strings.Contains(msg, "method") || strings.Contains(msg, "debug") || strings.Contains(msg, "tracer")) {
			return true
		}
	}
	return false
}
