package evmtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/rpc"
)

// relay serves JSON-RPC over HTTP by passing every call to the node's
// in-process client, so the tools reach the chain the way they reach a real
// node, and counts what they ask for.
type relay struct {
	rpc      *rpc.Client
	calls    atomic.Int64 // JSON-RPC calls, batch entries counted one by one
	requests atomic.Int64 // HTTP requests
	mu       sync.Mutex
	refused  map[string]bool // methods answered with -32601, as a node without them
	// noOverrides: eth_call with state overrides answered with -32602
	noOverrides bool
	debug       *rpc.Client    // serves debug_* when set (EnableDebug)
	served      map[string]int // calls per method
}

type rpcReq struct {
	ID     json.RawMessage   `json:"id"`
	Method string            `json:"method"`
	Params []json.RawMessage `json:"params"`
}

type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

type rpcResp struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcErr         `json:"error,omitempty"`
}

func (r *relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.requests.Add(1)
	body, err := io.ReadAll(io.LimitReader(req.Body, 8<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	body = bytes.TrimSpace(body)
	batch := len(body) > 0 && body[0] == '['
	var reqs []rpcReq
	if batch {
		err = json.Unmarshal(body, &reqs)
	} else {
		reqs = make([]rpcReq, 1)
		err = json.Unmarshal(body, &reqs[0])
	}
	if err != nil {
		http.Error(w, "bad JSON-RPC request", http.StatusBadRequest)
		return
	}
	out := make([]rpcResp, len(reqs))
	for i, q := range reqs {
		out[i] = r.call(req, q)
	}
	w.Header().Set("Content-Type", "application/json")
	if batch {
		json.NewEncoder(w).Encode(out)
		return
	}
	json.NewEncoder(w).Encode(out[0])
}

func (r *relay) call(req *http.Request, q rpcReq) rpcResp {
	r.calls.Add(1)
	r.mu.Lock()
	refused, noOverrides := r.refused[q.Method], r.noOverrides
	if r.served == nil {
		r.served = map[string]int{}
	}
	r.served[q.Method]++
	client := r.rpc
	if r.debug != nil && strings.HasPrefix(q.Method, "debug_") {
		client = r.debug
	}
	r.mu.Unlock()
	if refused {
		return rpcResp{JSONRPC: "2.0", ID: q.ID, Error: &rpcErr{Code: -32601, Message: "the method " + q.Method + " does not exist/is not available"}}
	}
	if noOverrides && q.Method == "eth_call" && len(q.Params) > 2 {
		return rpcResp{JSONRPC: "2.0", ID: q.ID, Error: &rpcErr{Code: -32602, Message: "too many arguments, want at most 2"}}
	}
	args := make([]any, len(q.Params))
	for i, p := range q.Params {
		args[i] = p
	}
	var res json.RawMessage
	err := client.CallContext(req.Context(), &res, q.Method, args...)
	out := rpcResp{JSONRPC: "2.0", ID: q.ID}
	if err == nil {
		if res == nil {
			res = json.RawMessage("null")
		}
		out.Result = res
		return out
	}
	e := &rpcErr{Code: -32000, Message: err.Error()}
	var re rpc.Error
	if errors.As(err, &re) {
		e.Code = re.ErrorCode()
	}
	var de rpc.DataError
	if errors.As(err, &de) {
		e.Data = de.ErrorData()
	}
	out.Error = e
	return out
}
