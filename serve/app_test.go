package serve

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/internal/pgtest"
	"github.com/openshelf/openshelf/internal/testsnap"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) {
	code := m.Run()
	testsnap.Cleanup()
	pgtest.Stop()
	os.Exit(code)
}

const testBase = "https://api.openshelf.test"

// newTestApp serves the fixture snapshot (a private copy when private).
func newTestApp(t *testing.T, dataDir string, mod func(*Config)) *App {
	t.Helper()
	cfg := Config{DataDir: dataDir, BaseURL: testBase, PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}
	if mod != nil {
		mod(&cfg)
	}
	a, err := NewApp(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func getJSON(t *testing.T, h http.Handler, target string) (int, map[string]any) {
	t.Helper()
	res, m := do(t, h, http.MethodGet, target, "", nil)
	return res.StatusCode, m
}

func TestDiscovery(t *testing.T) {
	a := newTestApp(t, testsnap.Copy(t), nil)
	h := a.HTTP

	code, stats := getJSON(t, h, "/api/stats")
	docs := int(stats["documents"].(float64))
	if code != 200 || docs < 40 || stats["snapshot"] == "" {
		t.Fatalf("stats: %d %v", code, stats)
	}
	var byLic float64
	for _, n := range stats["by_license"].(map[string]any) {
		byLic += n.(float64)
	}
	if int(byLic) != docs {
		t.Errorf("by_license sums to %v, want %d", byLic, docs)
	}

	// Paging through the whole catalog visits every document once, in id order.
	seen := map[string]bool{}
	var ids []string
	next := "/api/catalog?limit=7"
	for next != "" {
		code, page := getJSON(t, h, next)
		if code != 200 || int(page["total"].(float64)) != docs {
			t.Fatalf("%s: %d %v", next, code, page)
		}
		for _, it := range page["items"].([]any) {
			e := it.(map[string]any)
			id := e["id"].(string)
			if seen[id] {
				t.Fatalf("%s listed twice", id)
			}
			seen[id] = true
			ids = append(ids, id)
			for _, k := range []string{"title", "license", "license_url", "topics", "prices", "has_fulltext", "has_references"} {
				if _, ok := e[k]; !ok {
					t.Errorf("%s: entry lacks %s", id, k)
				}
			}
			p := e["prices"].(map[string]any)
			if p["document"] != "0.001" || (e["has_fulltext"] == true) != (p["fulltext"] == "0.01") {
				t.Errorf("%s: prices %v", id, p)
			}
		}
		next = ""
		if n, ok := page["next"].(string); ok {
			next = strings.TrimPrefix(n, testBase)
		}
	}
	if len(ids) != docs || !sort.StringsAreSorted(ids) {
		t.Fatalf("catalog listed %d of %d documents, sorted=%v", len(ids), docs, sort.StringsAreSorted(ids))
	}

	// Topics: counts agree with the catalog filtered by topic.
	code, tl := getJSON(t, h, "/api/topics")
	topics := tl["topics"].([]any)
	if code != 200 || len(topics) == 0 {
		t.Fatalf("topics: %d %v", code, tl)
	}
	for _, x := range topics[:3] {
		tp := x.(map[string]any)
		slug := tp["slug"].(string)
		_, page := getJSON(t, h, "/api/catalog?limit=50&topic="+slug)
		if page["total"].(float64) != tp["documents"].(float64) || tp["bundle_price"] != "0.5" || tp["bundle_bytes"].(float64) <= 0 {
			t.Errorf("topic %s: %v vs catalog total %v", slug, tp, page["total"])
		}
		for _, it := range page["items"].([]any) {
			if !contains(it.(map[string]any)["topics"].([]any), slug) {
				t.Errorf("catalog?topic=%s lists %v", slug, it)
			}
		}
	}

	for _, path := range []string{"/api", "/.well-known/ai-data.json", "/.well-known/x402", "/healthz"} {
		if code, m := getJSON(t, h, path); code != 200 || len(m) == 0 {
			t.Errorf("%s: %d %v", path, code, m)
		}
	}
	_, ai := getJSON(t, h, "/.well-known/ai-data.json")
	if ai["schema_version"] != AIDataSchemaVersion || ai["snapshot"].(map[string]any)["id"] != stats["snapshot"] {
		t.Errorf("ai-data: %v", ai)
	}
	res, _ := do(t, h, "GET", "/llms.txt", "", nil)
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.Contains(string(body), "/api/document/{id}") {
		t.Errorf("llms.txt: %d %s", res.StatusCode, body)
	}
	// /metrics is on the operator listener only (--metrics-addr).
	if res, _ := do(t, h, "GET", "/metrics", "", nil); res.StatusCode != 404 {
		t.Errorf("public /metrics: %d, want 404", res.StatusCode)
	}
	res, _ = do(t, a.HTTP.Metrics(), "GET", "/metrics", "", nil)
	body, _ = io.ReadAll(res.Body)
	if !strings.Contains(string(body), `openshelf_http_requests_total{method="GET",route="/api/stats",status="200"} 1`) {
		t.Errorf("metrics lack the stats request:\n%.2000s", body)
	}
}

func contains(xs []any, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func TestSearch(t *testing.T) {
	a := newTestApp(t, testsnap.Fixtures(t), nil)
	h := a.HTTP
	// Pick a title word from the catalog so the test follows the corpus.
	_, page := getJSON(t, h, "/api/catalog?limit=50")
	first := page["items"].([]any)[0].(map[string]any)
	words := tokenize.Terms(first["title"].(string))
	if len(words) < 2 {
		t.Fatalf("title %q too short", first["title"])
	}
	q := strings.ToUpper(words[0]) + " " + words[1]
	code, res := getJSON(t, h, "/api/search?q="+urlQuery(q))
	if code != 200 || res["total"].(float64) < 1 {
		t.Fatalf("search %q: %d %v", q, code, res)
	}
	found := false
	var last = 1e18
	for _, it := range res["items"].([]any) {
		e := it.(map[string]any)
		if e["id"] == first["id"] {
			found = true
		}
		sc := e["score"].(float64)
		if sc > last {
			t.Errorf("scores not descending: %v after %v", sc, last)
		}
		last = sc
		// Every word matches the title, keywords or authors.
		text := fmt.Sprint(e["title"], " ", e["authors"])
		for _, w := range words[:2] {
			if !strings.Contains(strings.Join(tokenize.Tokens(text), " "), w) && !keywordHas(t, h, e["id"].(string), w) {
				t.Errorf("hit %s lacks %q", e["id"], w)
			}
		}
	}
	if !found {
		t.Errorf("search %q did not find %s", q, first["id"])
	}

	// A word nobody uses: nothing, and an empty page rather than an error.
	if code, res := getJSON(t, h, "/api/search?q="+urlQuery(words[0]+" zzqxjv")); code != 200 || res["total"].(float64) != 0 {
		t.Errorf("impossible query: %d %v", code, res)
	}
	// Filters only.
	code, res = getJSON(t, h, "/api/search?license=CC0&fulltext=true&limit=50")
	if code != 200 || res["total"].(float64) < 1 {
		t.Fatalf("filters: %d %v", code, res)
	}
	for _, it := range res["items"].([]any) {
		e := it.(map[string]any)
		if e["license"] != "CC0" || e["has_fulltext"] != true || e["score"] != nil {
			t.Errorf("filter leak: %v", e)
		}
	}
	_, res = getJSON(t, h, "/api/search?year_from=2015&year_to=2016&limit=50")
	for _, it := range res["items"].([]any) {
		y := it.(map[string]any)["year"].(float64)
		if y < 2015 || y > 2016 {
			t.Errorf("year filter leak: %v", y)
		}
	}
	// Undated documents match no year filter, even an open-ended one.
	undated, total := 0, 0.0
	for offset := 0; ; offset += 50 {
		_, page := getJSON(t, h, fmt.Sprintf("/api/catalog?limit=50&offset=%d", offset))
		items := page["items"].([]any)
		for _, it := range items {
			if y, _ := it.(map[string]any)["year"].(float64); y == 0 {
				undated++
			}
		}
		if total = page["total"].(float64); len(items) < 50 {
			break
		}
	}
	_, res = getJSON(t, h, "/api/search?year_to=9999&limit=50")
	if got, want := res["total"].(float64), total-float64(undated); undated == 0 || got != want {
		t.Errorf("year_to=9999: total %v, want %v (%d undated)", got, want, undated)
	}
	// fulltext=false restricts nothing; fulltext=true keeps those with it.
	_, none := getJSON(t, h, "/api/search?limit=1")
	_, f := getJSON(t, h, "/api/search?fulltext=false&limit=1")
	_, tr := getJSON(t, h, "/api/search?fulltext=true&limit=1")
	if f["total"] != none["total"] || tr["total"].(float64) >= none["total"].(float64) || tr["total"].(float64) == 0 {
		t.Errorf("fulltext totals: none %v, false %v, true %v", none["total"], f["total"], tr["total"])
	}
	// Words the search does not use are reported, not silently dropped.
	_, res = getJSON(t, h, "/api/search?q="+urlQuery("the cells of an organism"))
	if got := fmt.Sprint(res["ignored_terms"]); got != "[the of an]" {
		t.Errorf("ignored_terms = %s, want [the of an]", got)
	}
	_, res = getJSON(t, h, "/api/search?q=cells")
	if got, ok := res["ignored_terms"].([]any); !ok || len(got) != 0 {
		t.Errorf("ignored_terms without stop words = %v, want []", res["ignored_terms"])
	}
}

func keywordHas(t *testing.T, h http.Handler, id, w string) bool {
	// Keywords are not in catalog entries; the index is the judge here, so
	// look the document up through a single-word search.
	_, res := getJSON(t, h, "/api/search?limit=50&q="+urlQuery(w))
	for _, it := range res["items"].([]any) {
		if it.(map[string]any)["id"] == id {
			return true
		}
	}
	return false
}

func urlQuery(s string) string { return strings.ReplaceAll(s, " ", "+") }

func TestBadRequests(t *testing.T) {
	a := newTestApp(t, testsnap.Fixtures(t), nil)
	long := strings.Repeat("a", 201)
	tests := []struct {
		target string
		status int
		code   string
	}{
		{"/api/catalog?limit=0", 400, "invalid_input"},
		{"/api/catalog?limit=51", 400, "invalid_input"},
		{"/api/catalog?limit=ten", 400, "invalid_input"},
		{"/api/catalog?offset=-1", 400, "invalid_input"},
		{"/api/catalog?offset=1.5", 400, "invalid_input"},
		{"/api/catalog?topic=Not_A_Slug", 400, "invalid_input"},
		{"/api/catalog?topic=no-such-topic", 400, "unknown_topic"},
		{"/api/catalog?page=2", 400, "unknown_parameter"},
		{"/api/search?q=" + long, 400, "invalid_input"},
		{"/api/search?q=" + long[:200], 200, ""},
		{"/api/search?year_from=2020&year_to=2019", 400, "invalid_input"},
		{"/api/search?year_from=abc", 400, "invalid_input"},
		{"/api/search?license=CC-BY-NC", 400, "invalid_input"},
		{"/api/search?license=cc-by", 400, "invalid_input"},
		{"/api/search?fulltext=yes", 400, "invalid_input"},
		{"/api/search?fulltext=1", 400, "invalid_input"},
		{"/api/search?limit=51", 400, "invalid_input"},
		{"/api/search?topic=bad%20slug", 400, "invalid_input"},
		{"/api/search?topic=no-such-topic&q=cell", 400, "unknown_topic"},
		{"/api/search?q=cell&qq=x", 400, "unknown_parameter"},
		{"/api/document/not-an-id", 400, "invalid_input"},
		{"/api/document/pmc-99999999999", 404, "document_not_found"},
		{"/api/topic/BAD/content", 400, "invalid_input"},
		{"/api/topic/no-such-topic/content", 404, "topic_not_found"},
		{"/api/nope", 404, "not_found"},
		{"/nope", 404, "not_found"}, // / is the page for people (TestHomePageChromium)
	}
	for _, tt := range tests {
		res, m := do(t, a.HTTP, http.MethodGet, tt.target, "", nil)
		if res.StatusCode != tt.status || errCode(m) != tt.code {
			t.Errorf("GET %.60s: %d %q, want %d %q (%v)", tt.target, res.StatusCode, errCode(m), tt.status, tt.code, m)
		}
		if res.StatusCode == 404 && res.Header.Get("PAYMENT-REQUIRED") != "" {
			t.Errorf("GET %s: 404 asks for payment", tt.target)
		}
	}
	for _, target := range []string{"/api/stats", "/api/document/pmc-1", "/openapi.json"} {
		res, m := do(t, a.HTTP, http.MethodPost, target, "", nil)
		if res.StatusCode != 405 || errCode(m) != "method_not_allowed" || !strings.Contains(res.Header.Get("Allow"), "GET") {
			t.Errorf("POST %s: %d %v Allow=%q", target, res.StatusCode, m, res.Header.Get("Allow"))
		}
	}
}

func TestRateLimitApp(t *testing.T) {
	a := newTestApp(t, testsnap.Fixtures(t), func(c *Config) { c.RateLimit = RateLimit{PerSecond: 0.001, Burst: 3} })
	for i := 0; i < 3; i++ {
		if res, _ := do(t, a.HTTP, "GET", "/api/stats", "", nil); res.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, res.StatusCode)
		}
	}
	res, m := do(t, a.HTTP, "GET", "/api/catalog", "", nil)
	if res.StatusCode != 429 || errCode(m) != "rate_limited" || res.Header.Get("Retry-After") == "" ||
		res.Header.Get("RateLimit-Limit") != "3" || res.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("4th request: %d %v %v", res.StatusCode, m, res.Header)
	}
	// Health and metrics are not limited.
	if res, _ := do(t, a.HTTP, "GET", "/healthz", "", nil); res.StatusCode != 200 {
		t.Fatalf("healthz limited: %d", res.StatusCode)
	}
}

func TestOpenAPI(t *testing.T) {
	a := newTestApp(t, testsnap.Fixtures(t), nil)
	rec := httptest.NewRecorder()
	a.HTTP.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.json", nil))
	body := rec.Body.Bytes()
	var pretty map[string]any
	if err := json.Unmarshal(body, &pretty); err != nil {
		t.Fatal(err)
	}
	got, _ := json.MarshalIndent(pretty, "", "  ")
	golden := filepath.Join("testdata", "openapi.golden.json")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./serve -run TestOpenAPI -update)", err)
	}
	if string(want) != string(got)+"\n" {
		t.Errorf("openapi.json differs from %s; run with -update and review the diff", golden)
	}

	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(body)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Info.Version != "1.0.0" {
		t.Errorf("openapi %s version %s", doc.OpenAPI, doc.Info.Version)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("validate: %v", err)
	}

	// Every route the router serves is documented, and nothing else.
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	served := map[string]bool{}
	for _, e := range a.Registry.Endpoints() {
		served[e.Method+" "+e.OpenAPIPath()] = true
		rec := httptest.NewRecorder()
		a.HTTP.ServeHTTP(rec, httptest.NewRequest(e.Method, strings.NewReplacer("{id}", "pmc-1", "{slug}", "x").Replace(e.OpenAPIPath()), nil))
		if rec.Code == 404 && errCodeBytes(rec.Body.Bytes()) == "not_found" {
			t.Errorf("%s %s is documented but the router does not serve it", e.Method, e.OpenAPIPath())
		}
	}
	for k := range documented {
		if !served[k] {
			t.Errorf("%s documented but not registered", k)
		}
	}
	for k := range served {
		if !documented[k] {
			t.Errorf("%s served but not documented", k)
		}
	}
	op := doc.Paths.Find("/api/document/{id}").Get
	if op.Extensions["x-payment-info"] == nil || op.Responses.Status(402) == nil {
		t.Errorf("paid operation lacks x-payment-info or 402: %v", op.Extensions)
	}
}

func errCodeBytes(b []byte) string {
	var m map[string]any
	json.Unmarshal(b, &m)
	return errCode(m)
}
