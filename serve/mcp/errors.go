package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// JSON-RPC 2.0 error codes of protocol-level refusals.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
)

// jsonErrors makes the SDK's HTTP-level refusals (bad JSON, an unknown
// method, a wrong content type, an unsupported protocol version), which it
// writes as text/plain, JSON-RPC error objects with a JSON content type,
// keeping the status: a client reads every answer of /mcp as JSON-RPC.
// Successful and JSON answers pass through unchanged.
type jsonErrors struct {
	w      http.ResponseWriter
	body   []byte // the request, to pick the code and echo its id
	status int
	buf    bytes.Buffer
	pass   bool
}

func (j *jsonErrors) Header() http.Header { return j.w.Header() }

func (j *jsonErrors) WriteHeader(status int) {
	if j.status != 0 {
		return
	}
	j.status = status
	ct := j.w.Header().Get("Content-Type")
	j.pass = status < 400 || strings.HasPrefix(ct, "application/json")
	if j.pass {
		j.w.WriteHeader(status)
	}
}

func (j *jsonErrors) Write(b []byte) (int, error) {
	if j.status == 0 {
		j.WriteHeader(http.StatusOK)
	}
	if j.pass {
		return j.w.Write(b)
	}
	return j.buf.Write(b)
}

// Flush lets a streamed success through; refusals are whole when finish
// runs.
func (j *jsonErrors) Flush() {
	if f, ok := j.w.(http.Flusher); ok && j.pass {
		f.Flush()
	}
}

// finish writes the buffered refusal as a JSON-RPC error.
func (j *jsonErrors) finish() {
	if j.status == 0 || j.pass {
		return
	}
	msg := strings.TrimSpace(j.buf.String())
	if msg == "" {
		msg = http.StatusText(j.status)
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	code := codeInvalidRequest
	switch {
	case !json.Valid(j.body):
		code = codeParseError
	case json.Unmarshal(j.body, &req) == nil && req.Method != "" && (strings.Contains(msg, "not handled") || strings.Contains(msg, "method")):
		// The SDK's words for a method it does not serve.
		code = codeMethodNotFound
	}
	h := j.w.Header()
	h.Del("Content-Length")
	writeRPCError(j.w, j.status, code, req.ID, msg)
}

func writeRPCError(w http.ResponseWriter, status, code int, id json.RawMessage, msg string) {
	m := map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": code, "message": msg}}
	if len(id) > 0 && string(id) != "null" {
		m["id"] = id
	} else {
		m["id"] = nil
	}
	b, _ := json.Marshal(m)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
