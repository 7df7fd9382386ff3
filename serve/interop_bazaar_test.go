package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve/x402"
)

// TestInteropBazaar checks that the 402 challenge of every paid endpoint
// carries the x402 Bazaar discovery extension and that the official
// @x402/extensions package validates it and extracts the resource from it.
// Each endpoint is called without payment with the example input of its
// own extension; where that example does not reach the challenge (the
// fixture snapshot has no such document, say), the challenge the endpoint
// would send is built by the same code path (HTTPPayments.Required).
// resolvesUpstream names the paid endpoints whose check before payment
// calls an upstream.
var resolvesUpstream = map[string]bool{"finance_snapshot": true, "company_snapshot": true}

func TestInteropBazaar(t *testing.T) {
	node, dir := x402Interop(t)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@x402", "extensions", "package.json")); err != nil {
		t.Fatal("@x402/extensions is not installed in interop/; run scripts/setup.sh")
	}
	a := newTestApp(t, testsnap.Fixtures(t), nil)
	type item struct {
		Name            string                `json:"name"`
		PaymentRequired *x402.PaymentRequired `json:"paymentRequired"`
	}
	var items []item
	live := 0
	for _, e := range a.Registry.Paid() {
		in := e.Bazaar()["info"].(map[string]any)["input"].(map[string]any)
		path := e.Path
		if pp, ok := in["pathParams"].(map[string]any); ok {
			for k, v := range pp {
				path = strings.Replace(path, ":"+k, url.PathEscape(v.(string)), 1)
			}
		}
		if qp, ok := in["queryParams"].(map[string]any); ok && len(qp) > 0 {
			q := url.Values{}
			for k, v := range qp {
				b, _ := json.Marshal(v)
				q.Set(k, strings.Trim(string(b), `"`))
			}
			path += "?" + q.Encode()
		}
		var body *bytes.Reader
		if b, ok := in["body"]; ok {
			raw, _ := json.Marshal(b)
			body = bytes.NewReader(raw)
		} else {
			body = bytes.NewReader(nil)
		}
		req := httptest.NewRequest(e.Method, path, body)
		if in["body"] != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		// The finance tools resolve the ticker upstream before payment:
		// tests have no network, so their challenge is built directly.
		if !resolvesUpstream[e.Name] {
			a.HTTP.ServeHTTP(rec, req)
		}
		var pr *x402.PaymentRequired
		if rec.Code == 402 {
			var err error
			if pr, err = x402.DecodeRequiredHeader(rec.Header().Get(x402.HeaderPaymentRequired)); err != nil {
				t.Fatalf("%s: %v", e.Name, err)
			}
			live++
		} else {
			if !resolvesUpstream[e.Name] {
				t.Logf("%s %s: %d without payment; using the challenge it would send", e.Method, path, rec.Code)
			}
			r := a.Payments.Required(e, testBase+path)
			pr = &r
		}
		items = append(items, item{e.Name, pr})
	}
	if live == 0 {
		t.Fatal("no paid endpoint answered 402 with its example input")
	}
	// The same over MCP: a paid tool called without payment answers an
	// isError result whose structuredContent is the PaymentRequired.
	mcpLive := 0
	for _, e := range a.Registry.Paid() {
		if e.Tool == nil || resolvesUpstream[e.Name] {
			continue
		}
		args := e.BazaarMCP()["info"].(map[string]any)["input"].(map[string]any)["example"]
		call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
			"params": map[string]any{"name": e.ToolName(), "arguments": args}})
		req := httptest.NewRequest("POST", "/mcp", bytes.NewReader(call))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		rec := httptest.NewRecorder()
		a.HTTP.ServeHTTP(rec, req)
		var rpc struct {
			Result struct {
				IsError           bool                  `json:"isError"`
				StructuredContent *x402.PaymentRequired `json:"structuredContent"`
			} `json:"result"`
		}
		json.Unmarshal(rec.Body.Bytes(), &rpc)
		pr := rpc.Result.StructuredContent
		if !rpc.Result.IsError || pr == nil || len(pr.Accepts) == 0 {
			t.Logf("MCP %s: no challenge with its example input (%d %.200s)", e.ToolName(), rec.Code, rec.Body.Bytes())
			continue
		}
		mcpLive++
		items = append(items, item{"mcp:" + e.Name, pr})
	}
	if mcpLive == 0 {
		t.Fatal("no paid MCP tool answered a payment challenge with its example input")
	}
	raw, _ := json.Marshal(items)
	file := filepath.Join(t.TempDir(), "challenges.json")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, "bazaar-validate.mjs", file)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bazaar-validate.mjs: %v\n%s", err, stderr.Bytes())
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			Name       string
			Present    bool
			Validation struct {
				Valid  bool
				Errors []string
			}
			Spec struct {
				Valid  bool
				Errors []string
			}
			Discovered *struct {
				ResourceURL string `json:"resourceUrl"`
				Method      string `json:"method"`
				ToolName    string `json:"toolName"`
			}
			ExtractError string
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		n++
		name, isMCP := strings.CutPrefix(r.Name, "mcp:")
		e := a.Registry.Lookup(name)
		switch {
		case !r.Present:
			t.Errorf("%s: no extensions.bazaar in the 402", r.Name)
		case !r.Validation.Valid:
			t.Errorf("%s: validateDiscoveryExtension: %v", r.Name, r.Validation.Errors)
		case !r.Spec.Valid:
			t.Errorf("%s: validateDiscoveryExtensionSpec: %v", r.Name, r.Spec.Errors)
		case r.Discovered == nil:
			t.Errorf("%s: extractDiscoveryInfo found nothing (%s)", r.Name, r.ExtractError)
		case isMCP && r.Discovered.ToolName != e.ToolName():
			t.Errorf("%s: discovered tool %q", r.Name, r.Discovered.ToolName)
		case !isMCP && r.Discovered.Method != e.Method || !strings.HasPrefix(r.Discovered.ResourceURL, testBase):
			t.Errorf("%s: discovered %+v", r.Name, *r.Discovered)
		}
	}
	if n != len(items) {
		t.Fatalf("validated %d of %d challenges", n, len(items))
	}
}
