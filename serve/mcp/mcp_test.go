package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openshelf/openshelf/serve/mcp"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/x402"
	"github.com/openshelf/openshelf/serve/x402/facilitatortest"
)

func TestInitializeAndList(t *testing.T) {
	env := newEnv(t)
	cs := connect(t, env.url)
	init := cs.InitializeResult()
	if init.ProtocolVersion != mcp.ProtocolVersion {
		t.Errorf("protocolVersion = %q", init.ProtocolVersion)
	}
	//lint:ignore SA1019 the test checks that the deprecated logging capability is absent
	if c := init.Capabilities; c.Tools == nil || c.Tools.ListChanged || c.Logging != nil || c.Resources != nil || c.Prompts != nil {
		t.Errorf("capabilities = %+v, want only tools:{}", c)
	}
	if init.ServerInfo == nil || init.ServerInfo.Name != "openshelf" {
		t.Errorf("serverInfo = %+v", init.ServerInfo)
	}
	if !strings.Contains(init.Instructions, "x402/payment") {
		t.Errorf("instructions do not explain payments: %q", init.Instructions)
	}

	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*sdk.Tool{}
	var names []string
	for _, tl := range lt.Tools {
		tools[tl.Name] = tl
		names = append(names, tl.Name)
	}
	// Every registry tool, under its tool name, and nothing else.
	var want []string
	for _, e := range env.reg.Tools() {
		want = append(want, e.ToolName())
	}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	for _, e := range env.reg.Tools() {
		tl := tools[e.ToolName()]
		if tl.Description != e.ToolDescription() {
			t.Errorf("%s description = %q, want %q", tl.Name, tl.Description, e.ToolDescription())
		}
		if tl.OutputSchema != nil {
			t.Errorf("%s declares an outputSchema", tl.Name)
		}
		a := tl.Annotations
		if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint ||
			a.OpenWorldHint == nil || *a.OpenWorldHint != e.Tool.OpenWorld {
			t.Errorf("%s annotations = %+v", tl.Name, a)
		}
		var s struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		remarshal(t, tl.InputSchema, &s)
		if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s inputSchema = %+v", tl.Name, s)
		}
		if _, ok := s.Properties[mcp.CursorArgument]; !ok {
			t.Errorf("%s inputSchema lacks the cursor argument", tl.Name)
		}
		in, _, _ := e.ToolInput()
		for _, f := range in.Fields {
			if _, ok := s.Properties[f.Name]; !ok {
				t.Errorf("%s inputSchema lacks %s", tl.Name, f.Name)
			}
		}
	}
	if d := tools["get_thing"].Description; !strings.Contains(d, "Price: 0.001 USD") {
		t.Errorf("paid description %q does not state the price", d)
	}
	if d := tools["echo_text"].Description; !strings.Contains(d, "Free") {
		t.Errorf("free description %q", d)
	}
	var ts struct {
		Required   []string                  `json:"required"`
		Properties map[string]map[string]any `json:"properties"`
	}
	remarshal(t, tools["get_thing"].InputSchema, &ts)
	if strings.Join(ts.Required, ",") != "id" || ts.Properties["id"]["pattern"] != "^[a-z]{1,10}$" {
		t.Errorf("get_thing schema = %+v", ts)
	}
}

func TestFreeTool(t *testing.T) {
	env := newEnv(t)
	cs := connect(t, env.url)
	res := callTool(t, cs, "echo_text", map[string]any{"text": "hello"}, nil)
	if res.IsError {
		t.Fatalf("isError: %+v", res)
	}
	txt := text(t, res, 0)
	// Compact JSON, HTML characters unescaped, defaults applied.
	if txt != `{"html":"<b>&</b>","limit":10,"text":"hello"}` {
		t.Errorf("text = %s", txt)
	}
	var sc map[string]any
	remarshal(t, res.StructuredContent, &sc)
	if sc["text"] != "hello" || sc["limit"] != float64(10) {
		t.Errorf("structuredContent = %v", sc)
	}
	if len(res.Content) != 1 || res.Meta[mcp.MetaPage] != nil || res.Meta[mcp.MetaPaymentResponse] != nil {
		t.Errorf("unexpected extras: %+v", res)
	}

	res = callTool(t, cs, "get_text", nil, nil)
	if res.IsError || text(t, res, 0) != "# Title\n\nbody ✓\n" || res.StructuredContent != nil {
		t.Errorf("text tool = %+v", res)
	}
}

func TestInvalidArguments(t *testing.T) {
	env := newEnv(t)
	cs := connect(t, env.url)
	tests := []struct {
		tool        string
		args        any
		field, text string
	}{
		{"echo_text", map[string]any{"text": "hi", "limit": 51}, "limit", "invalid_input: limit: must be at most 50"},
		{"echo_text", map[string]any{"text": "hi", "limit": "5"}, "limit", "invalid_input: limit: must be an integer"},
		{"echo_text", map[string]any{}, "text", "invalid_input: text: is required"},
		{"echo_text", map[string]any{"text": "hi", "bogus": 1}, "bogus", "unknown_parameter: bogus: unknown parameter; allowed: text, limit"},
		{"echo_text", []int{1}, "", "invalid_input: arguments must be a JSON object"},
		{"echo_text", map[string]any{"text": "hi", "cursor": 7}, "cursor", "invalid_input: cursor: must be a string"},
		{"echo_text", map[string]any{"text": "hi", "cursor": "nonsense!"}, "cursor", ""},
		{"get_thing", map[string]any{"id": "ABC"}, "id", "invalid_input: id: must match ^[a-z]{1,10}$"},
		{"get_thing", map[string]any{"id": 5}, "id", "invalid_input: id: must be a string"},
	}
	for _, tt := range tests {
		res := callTool(t, cs, tt.tool, tt.args, nil)
		e := toolError(t, res)
		want := "invalid_input"
		if tt.field == "bogus" {
			want = "unknown_parameter"
		}
		if e.Code != want || e.Field != tt.field || (tt.text != "" && text(t, res, 0) != tt.text) {
			t.Errorf("%s %v: %+v / %q", tt.tool, tt.args, e, text(t, res, 0))
		}
	}
	// Invalid input never reaches payment, even with a payment attached.
	if n := env.runs.Load(); n != 0 {
		t.Errorf("handler ran %d times", n)
	}
}

func TestNotFoundAsksNoPayment(t *testing.T) {
	env := newEnv(t)
	cs := connect(t, env.url)
	e := toolError(t, callTool(t, cs, "get_thing", map[string]any{"id": "missing"}, nil))
	if e.Code != "thing_not_found" {
		t.Errorf("error = %+v", e)
	}
}

func TestUnknownTool(t *testing.T) {
	env := newEnv(t)
	cs := connect(t, env.url)
	_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "no_such_tool"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("unknown tool: err = %v, want JSON-RPC %d", err, jsonrpc.CodeInvalidParams)
	}
	// An HTTP-only endpoint is not a tool.
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "http_only"}); err == nil {
		t.Error("http_only is callable as a tool")
	}
}

func TestPaidTool(t *testing.T) {
	env := newEnv(t)
	cs := connect(t, env.url)
	args := map[string]any{"id": "abc"}

	pr := paymentRequired(t, callTool(t, cs, "get_thing", args, nil))
	if pr.Resource.URL != testBase+"/things/abc" || pr.Accepts[0].Amount != "1000" || !strings.Contains(pr.Error, "x402/payment") {
		t.Fatalf("PaymentRequired = %+v", pr)
	}
	if env.runs.Load() != 0 {
		t.Fatal("the tool ran without payment")
	}

	p := env.pay(t, pr)
	res := callTool(t, cs, "get_thing", args, sdk.Meta{mcp.MetaPayment: p})
	if res.IsError || text(t, res, 0) != `{"id":"abc"}` {
		t.Fatalf("paid call = %+v", res)
	}
	r1 := receipt(t, res)
	if !r1.Success || r1.Transaction == "" || !strings.EqualFold(r1.Payer, p.Payload.Authorization.From) {
		t.Fatalf("receipt = %+v", r1)
	}
	if n := env.settlements(t); n != 1 {
		t.Fatalf("%d settlements after one payment", n)
	}

	// The same payment again is a replay: served, same receipt, no charge.
	res = callTool(t, cs, "get_thing", args, sdk.Meta{mcp.MetaPayment: p})
	if res.IsError {
		t.Fatalf("replay = %+v", res)
	}
	if r2 := receipt(t, res); r2.Transaction != r1.Transaction || !r2.Success {
		t.Errorf("replay receipt %+v != %+v", r2, r1)
	}
	if n := env.settlements(t); n != 1 {
		t.Errorf("%d settlements after a replay", n)
	}
	if n := env.runs.Load(); n != 1 {
		t.Errorf("handler ran %d times, want 1 (a replay is served from the stored answer)", n)
	}
	if text(t, res, 0) != `{"id":"abc"}` {
		t.Errorf("replay text %q", text(t, res, 0))
	}

	// The payment cannot buy another resource.
	pr2 := paymentRequired(t, callTool(t, cs, "get_thing", map[string]any{"id": "other"}, sdk.Meta{mcp.MetaPayment: p}))
	if !strings.Contains(pr2.Error, x402.ReasonResourceMismatch) && !strings.Contains(pr2.Error, x402.ReasonNonceAlreadyUsed) {
		t.Errorf("payment for another resource: error = %q", pr2.Error)
	}
	// Stripped of its resource, it is refused by the ledger instead.
	q := *p
	q.Resource = nil
	pr3 := paymentRequired(t, callTool(t, cs, "get_thing", map[string]any{"id": "other"}, sdk.Meta{mcp.MetaPayment: &q}))
	if !strings.Contains(pr3.Error, x402.ReasonNonceAlreadyUsed) {
		t.Errorf("reused nonce: error = %q", pr3.Error)
	}
	if n := env.settlements(t); n != 1 {
		t.Errorf("%d settlements", n)
	}

	// The header form of the payload is accepted too.
	p2 := env.pay(t, pr)
	res = callTool(t, cs, "get_thing", args, sdk.Meta{mcp.MetaPayment: x402.EncodeHeader(p2)})
	if res.IsError || !receipt(t, res).Success {
		t.Errorf("header-form payment = %+v", res)
	}
	if n := env.settlements(t); n != 2 {
		t.Errorf("%d settlements after a second payment", n)
	}
}

func TestBadPayments(t *testing.T) {
	env := newEnv(t)
	cs := connect(t, env.url)
	args := map[string]any{"id": "abc"}
	pr := paymentRequired(t, callTool(t, cs, "get_thing", args, nil))

	tampered := env.pay(t, pr)
	tampered.Payload.Authorization.Value = "1"
	wrongAmount := env.pay(t, pr)
	wrongAmount.Accepted.Amount = "1"
	wrongAmount.Payload.Authorization.Value = "1"
	if err := wrongAmount.Sign(env.key); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		meta   any
		reason string
	}{
		{"number", 42, x402.ReasonInvalidPaymentJSON},
		{"not base64", "%%%", x402.ReasonInvalidPaymentHeader},
		{"bad shape", map[string]any{"x402Version": "two"}, x402.ReasonInvalidPaymentJSON},
		{"version", map[string]any{"x402Version": 1}, x402.ReasonInvalidVersion},
		{"tampered", tampered, ""},
		{"amount", wrongAmount, x402.ReasonAmountMismatch},
	}
	for _, tt := range tests {
		got := paymentRequired(t, callTool(t, cs, "get_thing", args, sdk.Meta{mcp.MetaPayment: tt.meta}))
		if got.Error == "" || (tt.reason != "" && !strings.HasPrefix(got.Error, tt.reason)) {
			t.Errorf("%s: error = %q, want %s", tt.name, got.Error, tt.reason)
		}
		if got.Resource.URL != pr.Resource.URL || got.Accepts[0].Amount != pr.Accepts[0].Amount {
			t.Errorf("%s: requirements changed: %+v", tt.name, got)
		}
	}
	if env.runs.Load() != 0 || env.settlements(t) != 0 {
		t.Errorf("bad payments ran the tool (%d) or settled", env.runs.Load())
	}
}

func TestHandlerErrorIsNotCharged(t *testing.T) {
	env := newEnv(t)
	cs := connect(t, env.url)
	args := map[string]any{"id": "fail"}
	pr := paymentRequired(t, callTool(t, cs, "get_thing", args, nil))
	p := env.pay(t, pr)
	for i := 0; i < 2; i++ { // the authorization stays usable after a failure
		e := toolError(t, callTool(t, cs, "get_thing", args, sdk.Meta{mcp.MetaPayment: p}))
		if e.Code != "internal_error" || strings.Contains(e.Message, "EOF") {
			t.Errorf("handler failure = %+v", e)
		}
	}
	if env.runs.Load() != 2 || env.settlements(t) != 0 {
		t.Errorf("runs %d, settlements %d", env.runs.Load(), env.settlements(t))
	}
}

func TestFacilitatorFailures(t *testing.T) {
	fac := facilitatortest.New(nil)
	defer fac.Close()
	env := newEnv(t, withFacilitator(&x402.HTTPFacilitator{BaseURL: fac.URL,
		Timeouts: x402.Timeouts{Verify: 5 * time.Second, Settle: 5 * time.Second}}))
	cs := connect(t, env.url)
	args := map[string]any{"id": "abc"}
	pr := paymentRequired(t, callTool(t, cs, "get_thing", args, nil))

	// Unreachable or broken facilitator: an API error, not a new 402.
	fac.FailStatus(http.StatusBadGateway)
	e := toolError(t, callTool(t, cs, "get_thing", args, sdk.Meta{mcp.MetaPayment: env.pay(t, pr)}))
	if e.Code != "facilitator_error" {
		t.Errorf("facilitator down: %+v", e)
	}
	fac.FailStatus(0)

	// A refused settlement: PaymentRequired again, with the failed receipt,
	// and none of the tool's output.
	fac.FailSettle("insufficient_funds")
	res := callTool(t, cs, "get_thing", args, sdk.Meta{mcp.MetaPayment: env.pay(t, pr)})
	got := paymentRequired(t, res)
	if !strings.HasPrefix(got.Error, x402.ReasonSettlementFailed) {
		t.Errorf("settle failure error = %q", got.Error)
	}
	if r := receipt(t, res); r.Success || r.ErrorReason != "insufficient_funds" {
		t.Errorf("failed receipt = %+v", r)
	}
	var sc map[string]any
	remarshal(t, res.StructuredContent, &sc)
	if _, ok := sc[mcp.MetaPaymentResponse]; !ok || sc["id"] != nil {
		t.Errorf("structuredContent = %v", sc)
	}
	fac.FailSettle("")

	res = callTool(t, cs, "get_thing", args, sdk.Meta{mcp.MetaPayment: env.pay(t, pr)})
	if res.IsError || !receipt(t, res).Success {
		t.Errorf("after recovery: %+v", res)
	}
	if n := env.settlements(t); n != 1 {
		t.Errorf("%d settlements", n)
	}
}

func TestPaymentsUnavailable(t *testing.T) {
	env := newEnv(t)
	h := mcp.New(mcp.Config{Registry: env.reg, BaseURL: testBase})
	srv := newServer(t, h)
	cs := connect(t, srv+"/mcp")
	if e := toolError(t, callTool(t, cs, "get_thing", map[string]any{"id": "abc"}, nil)); e.Code != "payments_unavailable" {
		t.Errorf("no core: %+v", e)
	}
}

// collect reads every part of a cut result, checking each, and returns the
// joined text and the results.
func collect(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any, meta sdk.Meta, max int) (string, []*sdk.CallToolResult) {
	t.Helper()
	var sb strings.Builder
	var all []*sdk.CallToolResult
	cursor := ""
	for i := 0; ; i++ {
		a := map[string]any{}
		for k, v := range args {
			a[k] = v
		}
		if cursor != "" {
			a["cursor"] = cursor
		}
		res := callTool(t, cs, tool, a, meta)
		if res.IsError {
			t.Fatalf("part %d: %+v", i, res)
		}
		all = append(all, res)
		// A result with rights fields carries them first in every part.
		first := 0
		if _, ok := res.Meta[mcp.MetaRights]; ok {
			first = 1
			checkRightsPart(t, res)
		}
		part := text(t, res, first)
		if len(part) > max || !utf8.ValidString(part) {
			t.Fatalf("part %d: %d bytes (max %d), valid UTF-8 %v", i, len(part), max, utf8.ValidString(part))
		}
		if res.StructuredContent != nil {
			t.Fatalf("part %d of a cut result has structuredContent", i)
		}
		var pg mcp.Page
		remarshal(t, res.Meta[mcp.MetaPage], &pg)
		if pg.Offset != sb.Len() || pg.Bytes != len(part) {
			t.Fatalf("part %d: page %+v, have %d bytes so far", i, pg, sb.Len())
		}
		marker := text(t, res, first+1)
		sb.WriteString(part)
		if pg.NextCursor == "" {
			if pg.TotalBytes != sb.Len() || !strings.Contains(marker, "last part") {
				t.Fatalf("last part: page %+v, marker %q", pg, marker)
			}
			return sb.String(), all
		}
		if !strings.Contains(marker, pg.NextCursor) || !strings.Contains(marker, tool) {
			t.Fatalf("marker %q does not say how to continue", marker)
		}
		cursor = pg.NextCursor
		if i > 1000 {
			t.Fatal("paging does not end")
		}
	}
}

// checkRightsPart checks that content[0] of a part is the rights fields as
// a JSON object, the same as _meta["openshelf/rights"].
func checkRightsPart(t *testing.T, res *sdk.CallToolResult) {
	t.Helper()
	var rights map[string]string
	if err := json.Unmarshal([]byte(text(t, res, 0)), &rights); err != nil {
		t.Fatalf("content[0] is not the rights object: %v", err)
	}
	for _, f := range []string{"license", "license_url", "attribution", "copyright_notice"} {
		if rights[f] == "" {
			t.Errorf("content[0] lacks %s: %v", f, rights)
		}
	}
	var meta map[string]string
	remarshal(t, res.Meta[mcp.MetaRights], &meta)
	if !maps.Equal(meta, rights) {
		t.Errorf("_meta rights %v, content[0] %v", meta, rights)
	}
}

func TestPaging(t *testing.T) {
	const max = 1024
	env := newEnv(t, withMCP(func(c *mcp.Config) { c.MaxResultBytes = max }))
	cs := connect(t, env.url)

	// A result under the limit is whole.
	small := callTool(t, cs, "big", map[string]any{"n": 5}, nil)
	if small.IsError || small.StructuredContent == nil || small.Meta[mcp.MetaPage] != nil {
		t.Fatalf("small result = %+v", small)
	}

	joined, parts := collect(t, cs, "big", map[string]any{"n": 300}, nil, max)
	if len(parts) < 5 {
		t.Fatalf("only %d parts", len(parts))
	}
	want, _ := json.Marshal(bigValue(300))
	var got, wantV any
	if err := json.Unmarshal([]byte(joined), &got); err != nil {
		t.Fatalf("joined parts are not JSON: %v", err)
	}
	json.Unmarshal(want, &wantV)
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(wantV)
	if string(g) != string(w) {
		t.Error("joined parts differ from the result")
	}

	// A cursor of one result does not apply to another.
	var pg mcp.Page
	remarshal(t, parts[0].Meta[mcp.MetaPage], &pg)
	e := toolError(t, callTool(t, cs, "big", map[string]any{"n": 301, "cursor": pg.NextCursor}, nil))
	if e.Code != "cursor_stale" || e.Field != "cursor" {
		t.Errorf("foreign cursor: %+v", e)
	}
	// Nor does a forged one.
	e = toolError(t, callTool(t, cs, "big", map[string]any{"n": 300, "cursor": pg.NextCursor[:len(pg.NextCursor)-2]}, nil))
	if e.Code != "invalid_input" || e.Field != "cursor" {
		t.Errorf("forged cursor: %+v", e)
	}
}

func TestPagingPaidIsChargedOnce(t *testing.T) {
	const max = 2048
	env := newEnv(t, withMCP(func(c *mcp.Config) { c.MaxResultBytes = max }))
	cs := connect(t, env.url)
	args := map[string]any{"id": "abc"}
	pr := paymentRequired(t, callTool(t, cs, "bigpaid", args, nil))
	p := env.pay(t, pr)
	_, parts := collect(t, cs, "bigpaid", args, sdk.Meta{mcp.MetaPayment: p}, max)
	if len(parts) < 3 {
		t.Fatalf("only %d parts", len(parts))
	}
	tx := receipt(t, parts[0]).Transaction
	for i, res := range parts {
		// Every part starts with the rights of the whole (collect checks
		// their content), though they sort after the items in the text.
		if _, ok := res.Meta[mcp.MetaRights]; !ok {
			t.Errorf("part %d without the rights fields first", i)
		}
		if r := receipt(t, res); !r.Success || r.Transaction != tx {
			t.Errorf("part %d receipt = %+v", i, r)
		}
	}
	if n := env.settlements(t); n != 1 {
		t.Errorf("%d settlements for one paged result", n)
	}
	// Later parts still need the payment.
	var pg mcp.Page
	remarshal(t, parts[0].Meta[mcp.MetaPage], &pg)
	paymentRequired(t, callTool(t, cs, "bigpaid", map[string]any{"id": "abc", "cursor": pg.NextCursor}, nil))
}

func newServer(t *testing.T, h http.Handler) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

type cursorInput struct {
	Cursor string `json:"cursor,omitempty"`
}

// TestNewRefusesBadConfig: configurations that cannot work fail at start.
func TestNewRefusesBadConfig(t *testing.T) {
	clash := registry.New()
	clash.Add(registry.Spec[cursorInput]{Name: "c", Method: http.MethodGet, Path: "/c", Summary: "C.", Tool: &registry.Tool{},
		Handle: func(context.Context, *cursorInput) (*registry.Result, error) { return nil, nil }}.Endpoint())
	tests := map[string]mcp.Config{
		"no registry":        {BaseURL: testBase},
		"relative base":      {Registry: registry.New(), BaseURL: "/api"},
		"tiny result cap":    {Registry: registry.New(), BaseURL: testBase, MaxResultBytes: 10},
		"bad allowed origin": {Registry: registry.New(), BaseURL: testBase, AllowedOrigins: []string{"app.example"}},
	}
	for name, cfg := range tests {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: New did not panic", name)
				}
			}()
			mcp.New(cfg)
		}()
	}
	// The tool list is built once, from the frozen registry, when /mcp
	// first serves: a tool whose input clashes with the paging cursor
	// fails there, before any tool runs.
	for name, frozen := range map[string]bool{"cursor clash": true, "unfrozen registry": false} {
		reg := clash
		if !frozen {
			reg = registry.New()
		} else {
			reg.Freeze()
		}
		h := mcp.New(mcp.Config{Registry: reg, BaseURL: testBase})
		req := httptest.NewRequest(http.MethodPost, testBase+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: serving did not panic", name)
				}
			}()
			h.ServeHTTP(httptest.NewRecorder(), req)
		}()
	}
}

// TestQuietSDKLogs: the SDK's per-request session chatter stays below Info.
func TestQuietSDKLogs(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	env := newEnv(t)
	url := newServer(t, mcp.New(mcp.Config{Registry: env.reg, Core: env.core, BaseURL: testBase, Logger: log}))
	for i := 0; i < 3; i++ {
		if res, body := rawPost(t, url+"/mcp", listBody, nil); res.StatusCode != 200 {
			t.Fatalf("%d %s", res.StatusCode, body)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("logged at Info for plain requests:\n%s", buf.String())
	}
}
