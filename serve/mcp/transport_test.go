package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openshelf/openshelf/serve/mcp"
)

const (
	initBody  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}`
	listBody  = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	notifBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	batchBody = `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`
	v0618     = "2025-06-18"
)

// TestTransport checks the HTTP rules of the endpoint over raw requests.
func TestTransport(t *testing.T) {
	env := newEnv(t, withMCP(func(c *mcp.Config) {
		c.AllowedOrigins = []string{"https://app.example"}
		c.AllowedHosts = []string{"mcp.internal:8443"}
		c.MaxRequestBytes = 64 << 10
	}))
	ver := map[string]string{"MCP-Protocol-Version": v0618}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name   string
		body   string
		hdr    map[string]string
		status int
		check  string // substring of the body
	}{
		{"initialize without version header", initBody, nil, 200, `"protocolVersion":"2025-06-18"`},
		{"initialize answers the pinned version", initBody, ver, 200, `"capabilities":{"tools":{}}`},
		{"tools/list without initialize", listBody, ver, 200, `"name":"get_thing"`},
		{"notification", notifBody, ver, 202, ""},
		{"unsupported version", listBody, with("MCP-Protocol-Version", "2025-11-25"), 400, ""},
		{"old version", listBody, with("MCP-Protocol-Version", "2024-11-05"), 400, ""},
		{"garbage version", listBody, with("MCP-Protocol-Version", "banana"), 400, ""},
		{"future version", listBody, with("MCP-Protocol-Version", "2026-07-28"), 400, ""},
		{"batch", batchBody, ver, 400, "batch"},
		{"batch without version header", batchBody, nil, 400, "batch"},
		{"no Accept", listBody, with("Accept", ""), 406, "Accept"},
		{"Accept html", listBody, with("Accept", "text/html"), 406, ""},
		{"Accept SSE only", listBody, with("Accept", "text/event-stream"), 406, ""},
		{"Accept json q=0", listBody, with("Accept", "application/json;q=0, text/event-stream"), 406, ""},
		{"Accept JSON only is served", listBody, with("Accept", "application/json"), 200, `"tools"`},
		{"Accept */*", listBody, with("Accept", "*/*"), 200, `"tools"`},
		{"no Content-Type", listBody, with("Content-Type", ""), 415, ""},
		{"text Content-Type", listBody, with("Content-Type", "text/plain"), 415, ""},
		{"not JSON", `{"jsonrpc":`, ver, 400, ""},
		{"too large", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + strings.Repeat("a", 70<<10) + `"}}`, nil, 413, ""},
		{"foreign Origin", listBody, with("Origin", "https://evil.example"), 403, "cross-origin"},
		{"null Origin", listBody, with("Origin", "null"), 403, ""},
		{"base Origin", listBody, with("Origin", "https://openshelf.test"), 200, `"tools"`},
		{"base Origin with default port", listBody, with("Origin", "https://OpenShelf.test:443"), 200, `"tools"`},
		{"base host, other scheme", listBody, with("Origin", "http://openshelf.test"), 403, ""},
		{"allowed Origin", listBody, with("Origin", "https://app.example"), 200, `"tools"`},
		{"cross-site fetch without Origin", listBody, with("Sec-Fetch-Site", "cross-site"), 403, ""},
		{"loopback Host", listBody, with("Host", "localhost:9999"), 200, `"tools"`},
		{"public Host behind a proxy", listBody, with("Host", "openshelf.test"), 200, `"tools"`},
		{"allowed Host", listBody, with("Host", "mcp.internal"), 200, `"tools"`},
		{"rebinding Host", listBody, with("Host", "evil.example:8080"), 403, "Host"},
		{"stray session id is ignored", listBody, with("Mcp-Session-Id", "abc123"), 200, `"tools"`},
		// The SDK refuses a method it does not know at the HTTP level; known
		// methods without a handler (resources/list) get empty answers.
		{"unknown method", `{"jsonrpc":"2.0","id":3,"method":"nope/nope"}`, ver, 400, "unsupported"},
		{"invalid params", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[1]}`, ver, 200, `"code":-32602`},
		{"unknown tool", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}`, ver, 200, `"code":-32602`},
		{"tools/call over raw HTTP", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo_text","arguments":{"text":"x"}}}`, ver, 200, `"structuredContent":{"html"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := rawPost(t, env.url, tt.body, tt.hdr)
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tt.status, body)
			}
			if !strings.Contains(body, tt.check) {
				t.Errorf("body %q lacks %q", body, tt.check)
			}
			if id := res.Header.Get("Mcp-Session-Id"); id != "" {
				t.Errorf("Mcp-Session-Id %q issued", id)
			}
			switch {
			case tt.status == 202:
				if body != "" {
					t.Errorf("202 with body %q", body)
				}
			case tt.status == 200:
				if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Errorf("Content-Type %q, want JSON (never SSE)", ct)
				}
			case tt.status >= 400:
				// Protocol-level refusals are JSON-RPC error objects too.
				checkRPCError(t, res, body, rpcCodes[tt.name])
			}
		})
	}

	for _, m := range []string{http.MethodGet, http.MethodDelete, http.MethodPut} {
		req, _ := http.NewRequest(m, env.url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("MCP-Protocol-Version", v0618)
		res, body := send(t, req)
		if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "POST" {
			t.Errorf("%s: %d, Allow %q", m, res.StatusCode, res.Header.Get("Allow"))
		}
		checkRPCError(t, res, body, 0)
	}
}

// rpcCodes are the JSON-RPC codes of refusals that have a specific one;
// the others are -32600 (invalid request).
var rpcCodes = map[string]int{"not JSON": -32700, "unknown method": -32601,
	// The SDK answers these itself in JSON-RPC (a 2026 header asks for
	// the version in _meta).
	"garbage version": -32602, "future version": -32602}

// checkRPCError checks that a refusal is a JSON-RPC 2.0 error object sent
// as JSON, with the given code (-32600 when 0).
func checkRPCError(t *testing.T, res *http.Response, body string, code int) {
	t.Helper()
	if code == 0 {
		code = -32600
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("refusal with Content-Type %q, want application/json: %s", ct, body)
	}
	var m struct {
		JSONRPC string `json:"jsonrpc"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	var keys map[string]json.RawMessage
	json.Unmarshal([]byte(body), &keys)
	if _, hasID := keys["id"]; !hasID {
		t.Errorf("refusal without id: %s", body)
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || m.JSONRPC != "2.0" || m.Error == nil {
		t.Fatalf("refusal is not a JSON-RPC error object: %q (%v)", body, err)
	}
	if m.Error.Code != code || m.Error.Message == "" {
		t.Errorf("error %+v, want code %d", *m.Error, code)
	}
}

// TestInitializeShape pins the literal initialize answer clients see.
func TestInitializeShape(t *testing.T) {
	env := newEnv(t)
	_, body := rawPost(t, env.url, initBody, nil)
	var m struct {
		ID     int `json:"id"`
		Result struct {
			ProtocolVersion string                     `json:"protocolVersion"`
			Capabilities    map[string]json.RawMessage `json:"capabilities"`
			ServerInfo      map[string]string          `json:"serverInfo"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	if m.ID != 1 || m.Result.ProtocolVersion != v0618 || len(m.Result.Capabilities) != 1 ||
		string(m.Result.Capabilities["tools"]) != "{}" || m.Result.ServerInfo["name"] != "openshelf" {
		t.Errorf("initialize = %s", body)
	}
}

// TestGoClientDefaults connects the Go SDK client as it comes: it probes
// server/discover with a 2026 version first, then falls back to initialize,
// and opens the GET stream, which gets 405.
func TestGoClientDefaults(t *testing.T) {
	env := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "0"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: env.url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != v0618 {
		t.Errorf("negotiated %q", v)
	}
	res := callTool(t, cs, "echo_text", map[string]any{"text": "ok"}, nil)
	if res.IsError {
		t.Errorf("call: %+v", res)
	}
}
