package mcp_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/ethereum/go-ethereum/crypto"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/archive"
	"github.com/openshelf/openshelf/serve/mcp"
	"github.com/openshelf/openshelf/serve/x402"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testsnap.Cleanup()
	os.Exit(code)
}

// appEnv is the whole server (serve.NewApp over a private copy of the
// fixture snapshot) on a loopback listener.
type appEnv struct {
	app  *serve.App
	srv  *httptest.Server
	base string
	key  *ecdsa.PrivateKey
}

// newApp starts the app; base "" makes the listener's URL the public URL.
func newApp(t *testing.T, base string) *appEnv {
	t.Helper()
	data := testsnap.Copy(t)
	var h atomic.Pointer[http.Handler]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*h.Load()).ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	if base == "" {
		base = srv.URL
	}
	app, err := serve.NewApp(context.Background(), serve.Config{DataDir: data, BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	var hh http.Handler = app.HTTP
	h.Store(&hh)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return &appEnv{app: app, srv: srv, base: base, key: key}
}

func (a *appEnv) settlements(t *testing.T) int {
	t.Helper()
	n, _, err := a.app.Payments.Core.Config().Ledger.CountSettlements(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (a *appEnv) pay(t *testing.T, pr x402.PaymentRequired) *x402.PaymentPayload {
	t.Helper()
	p, err := x402.NewPayment(a.key, pr, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// httpGet fetches path from the app over HTTP with an optional payment.
func (a *appEnv) httpGet(t *testing.T, path string, p *x402.PaymentPayload) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, a.srv.URL+path, nil)
	if p != nil {
		req.Header.Set(x402.HeaderPaymentSignature, x402.EncodeHeader(p))
	}
	return send(t, req)
}

func httpReceipt(t *testing.T, res *http.Response) x402.SettlementResponse {
	t.Helper()
	r, err := x402.DecodeSettlementHeader(res.Header.Get(x402.HeaderPaymentResponse))
	if err != nil {
		t.Fatalf("PAYMENT-RESPONSE: %v", err)
	}
	return *r
}

// catalog returns the first catalog page over MCP.
func catalog(t *testing.T, cs *sdk.ClientSession) archive.CatalogToolPage {
	t.Helper()
	res := callTool(t, cs, "get_catalog_page", map[string]any{}, nil)
	if res.IsError {
		t.Fatalf("catalog: %+v", res)
	}
	var pg archive.CatalogToolPage
	remarshal(t, res.StructuredContent, &pg)
	if len(pg.Items) < 2 {
		t.Fatalf("catalog has %d items", len(pg.Items))
	}
	return pg
}

// TestCatalogToolNext checks that get_catalog_page's next is a page number
// the same tool accepts (null on the last page), not an HTTP URL.
func TestCatalogToolNext(t *testing.T) {
	a := newApp(t, "https://openshelf.example")
	cs := connect(t, a.srv.URL+"/mcp")
	res := callTool(t, cs, "get_catalog_page", map[string]any{"page": 0}, nil)
	var raw map[string]json.RawMessage
	remarshal(t, res.StructuredContent, &raw)
	next, ok := raw["next"]
	if res.IsError || !ok {
		t.Fatalf("page 0: %+v", res)
	}
	pg := catalog(t, cs)
	if pg.Page != 0 {
		t.Errorf("page %d", pg.Page)
	}
	if string(next) == "null" {
		if pg.Total > archive.ToolPageSize {
			t.Errorf("next null with %d documents", pg.Total)
		}
	} else {
		if pg.Next == nil || *pg.Next != 1 {
			t.Fatalf("next %s", next)
		}
		res := callTool(t, cs, "get_catalog_page", map[string]any{"page": *pg.Next}, nil)
		var p2 archive.CatalogToolPage
		remarshal(t, res.StructuredContent, &p2)
		if res.IsError || p2.Page != 1 || len(p2.Items) == 0 {
			t.Errorf("next page: %+v", res)
		}
	}
	// The last page's next is null and is itself accepted.
	last := int((pg.Total - 1) / archive.ToolPageSize)
	res = callTool(t, cs, "get_catalog_page", map[string]any{"page": last}, nil)
	var pl archive.CatalogToolPage
	remarshal(t, res.StructuredContent, &pl)
	if res.IsError || pl.Next != nil || pl.Page != last {
		t.Errorf("last page %d: %+v", last, res)
	}
}

func TestArchiveTools(t *testing.T) {
	a := newApp(t, "https://openshelf.example") // behind a proxy: public base, loopback listener
	cs := connect(t, a.srv.URL+"/mcp")

	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*sdk.Tool{}
	for _, tl := range lt.Tools {
		tools[tl.Name] = tl
	}
	for name, price := range map[string]string{"search_archive": "", "list_topics": "", "get_catalog_page": "",
		"get_document": archive.PriceDocument, "get_fulltext": archive.PriceFulltext, "get_references": archive.PriceReferences} {
		tl := tools[name]
		if tl == nil {
			t.Errorf("tool %s missing (have %d tools)", name, len(lt.Tools))
			continue
		}
		if price != "" && !strings.Contains(tl.Description, "Price: "+price+" USD") {
			t.Errorf("%s description %q lacks its price", name, tl.Description)
		}
		if a := tl.Annotations; a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s annotations %+v (archive tools are closed-world)", name, a)
		}
	}

	pg := catalog(t, cs)
	doc := pg.Items[0]

	// Free search for a word of a title.
	word := ""
	for _, w := range strings.FieldsFunc(doc.Title, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) > len(word) {
			word = w
		}
	}
	res := callTool(t, cs, "search_archive", map[string]any{"query": word, "limit": 50}, nil)
	var found archive.SearchResult
	remarshal(t, res.StructuredContent, &found)
	if res.IsError || found.Total < 1 {
		t.Errorf("search %q: %+v", word, res)
	}
	hit := false
	for _, it := range found.Items {
		hit = hit || it.ID == doc.ID
	}
	if !hit {
		t.Errorf("search %q does not find %s", word, doc.ID)
	}

	e := toolError(t, callTool(t, cs, "search_archive", map[string]any{"query": word, "limit": 51}, nil))
	if e.Field != "limit" || e.Code != "invalid_input" {
		t.Errorf("limit 51: %+v", e)
	}
	if got := text(t, callTool(t, cs, "search_archive", map[string]any{"query": word, "limit": 51}, nil), 0); got != "invalid_input: limit: must be at most 50" {
		t.Errorf("limit 51 text = %q", got)
	}
	e = toolError(t, callTool(t, cs, "get_document", map[string]any{"id": "pmc-999999999"}, nil))
	if e.Code != "document_not_found" {
		t.Errorf("missing document: %+v", e)
	}
	e = toolError(t, callTool(t, cs, "get_document", map[string]any{"id": "nonsense"}, nil))
	if e.Field != "id" {
		t.Errorf("bad id: %+v", e)
	}
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_bundle"}); err == nil {
		t.Error("unknown tool answered")
	}

	// Paid: PaymentRequired names the HTTP resource of the same document.
	pr := paymentRequired(t, callTool(t, cs, "get_document", map[string]any{"id": doc.ID}, nil))
	if pr.Resource.URL != a.base+"/api/document/"+doc.ID || pr.Accepts[0].Amount != "1000" {
		t.Fatalf("PaymentRequired = %+v", pr)
	}
	p := a.pay(t, pr)
	res = callTool(t, cs, "get_document", map[string]any{"id": doc.ID}, sdk.Meta{mcp.MetaPayment: p})
	if res.IsError {
		t.Fatalf("paid get_document: %+v", res)
	}
	var got archive.Document
	remarshal(t, res.StructuredContent, &got)
	if got.ID != doc.ID {
		t.Errorf("document = %+v", got)
	}
	r1 := receipt(t, res)
	if !r1.Success || a.settlements(t) != 1 {
		t.Fatalf("receipt %+v, %d settlements", r1, a.settlements(t))
	}

	// Replay over MCP: same receipt, nothing charged.
	res = callTool(t, cs, "get_document", map[string]any{"id": doc.ID}, sdk.Meta{mcp.MetaPayment: p})
	if res.IsError || receipt(t, res).Transaction != r1.Transaction {
		t.Errorf("MCP replay: %+v", res)
	}
	// The same payment over HTTP: served, same receipt, still one settlement.
	hres, body := a.httpGet(t, "/api/document/"+doc.ID, p)
	if hres.StatusCode != 200 || httpReceipt(t, hres).Transaction != r1.Transaction || !strings.Contains(body, doc.ID) {
		t.Errorf("HTTP with the MCP payment: %d %s", hres.StatusCode, body)
	}
	if n := a.settlements(t); n != 1 {
		t.Errorf("%d settlements after MCP, MCP replay and HTTP", n)
	}

	// The other way round: paid over HTTP, then sent over MCP.
	doc2 := pg.Items[1]
	hres, _ = a.httpGet(t, "/api/document/"+doc2.ID, nil)
	req2, err := x402.DecodeRequiredHeader(hres.Header.Get(x402.HeaderPaymentRequired))
	if hres.StatusCode != http.StatusPaymentRequired || err != nil {
		t.Fatalf("HTTP 402: %d %v", hres.StatusCode, err)
	}
	p2 := a.pay(t, *req2)
	hres, _ = a.httpGet(t, "/api/document/"+doc2.ID, p2)
	if hres.StatusCode != 200 {
		t.Fatalf("HTTP paid: %d", hres.StatusCode)
	}
	tx2 := httpReceipt(t, hres).Transaction
	res = callTool(t, cs, "get_document", map[string]any{"id": doc2.ID}, sdk.Meta{mcp.MetaPayment: p2})
	if res.IsError || receipt(t, res).Transaction != tx2 {
		t.Errorf("MCP with the HTTP payment: %+v", res)
	}
	if n := a.settlements(t); n != 2 {
		t.Errorf("%d settlements for two payments", n)
	}
	// A payment for one document does not buy another.
	pr3 := paymentRequired(t, callTool(t, cs, "get_document", map[string]any{"id": doc2.ID}, sdk.Meta{mcp.MetaPayment: p}))
	if pr3.Error == "" {
		t.Error("payment for another document accepted")
	}

	// Full text: priced separately, under its own resource.
	for _, it := range pg.Items {
		if !it.HasFulltext {
			continue
		}
		pr := paymentRequired(t, callTool(t, cs, "get_fulltext", map[string]any{"id": it.ID}, nil))
		if pr.Resource.URL != a.base+"/api/document/"+it.ID+"/fulltext" || pr.Accepts[0].Amount != "10000" {
			t.Errorf("fulltext PaymentRequired = %+v", pr)
		}
		res := callTool(t, cs, "get_fulltext", map[string]any{"id": it.ID}, sdk.Meta{mcp.MetaPayment: a.pay(t, pr)})
		if res.IsError || !receipt(t, res).Success || len(text(t, res, 0)) > mcp.DefaultMaxResultBytes {
			t.Errorf("paid fulltext: isError %v, %d bytes", res.IsError, len(text(t, res, 0)))
		}
		break
	}
}

// TestAppRoutes checks the wiring in serve.NewApp: /mcp is POST only. The
// router's 405 comes from httprouter, whose Allow always adds OPTIONS.
func TestAppRoutes(t *testing.T) {
	a := newApp(t, "")
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(m, a.srv.URL+"/mcp", nil)
		res, _ := send(t, req)
		allow := res.Header.Get("Allow")
		if res.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(allow, "POST") ||
			strings.Contains(allow, "GET") || strings.Contains(allow, "DELETE") {
			t.Errorf("%s /mcp: %d Allow %q", m, res.StatusCode, res.Header.Get("Allow"))
		}
	}
	res, body := rawPost(t, a.srv.URL+"/mcp", initBody, nil)
	if res.StatusCode != 200 || !strings.Contains(body, `"protocolVersion":"2025-06-18"`) || res.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("initialize: %d %s", res.StatusCode, body)
	}
	res, _ = rawPost(t, a.srv.URL+"/mcp", listBody, map[string]string{"Origin": "https://evil.example"})
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Origin: %d", res.StatusCode)
	}
	res, _ = rawPost(t, a.srv.URL+"/mcp", listBody, map[string]string{"Origin": a.srv.URL})
	if res.StatusCode != 200 {
		t.Errorf("same Origin: %d", res.StatusCode)
	}
}
