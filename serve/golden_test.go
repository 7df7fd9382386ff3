package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve/x402"
)

// TestGoldenDocuments keeps every document the server generates from its
// registry in testdata/*.golden.*, so a change to any of them shows in
// review: run go test ./serve -run 'TestGolden|TestOpenAPI' -update and
// read the diff. (/openapi.json has its own test, TestOpenAPI.)
func TestGoldenDocuments(t *testing.T) {
	a := newTestApp(t, testsnap.Fixtures(t), nil)
	// The snapshot id ends in a random suffix: the goldens hold a marker.
	_, stats := getJSON(t, a.HTTP, "/api/stats")
	snap, _ := stats["snapshot"].(string)
	if snap == "" {
		t.Fatalf("stats without a snapshot id: %v", stats)
	}
	get := func(target string) []byte {
		rec := httptest.NewRecorder()
		a.HTTP.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body)
		}
		return bytes.ReplaceAll(rec.Body.Bytes(), []byte(snap), []byte("SNAPSHOT_ID"))
	}
	checkGolden(t, "ai-data.golden.json", indentJSON(t, get("/.well-known/ai-data.json")))
	checkGolden(t, "x402.golden.json", indentJSON(t, get("/.well-known/x402")))
	checkGolden(t, "llms.golden.txt", get("/llms.txt"))

	checkGolden(t, "mcp-tools.golden.json", indentJSON(t, toolsList(t, a.HTTP)))

	// The 402 challenge of each paid archive route, decoded from its
	// PAYMENT-REQUIRED header (the live tools' challenges are tested with
	// their inputs in serve/tools/web/e2e_test.go; their requirements are in
	// x402.golden.json).
	id := firstDocumentID(t, a.HTTP)
	challenges := map[string]any{}
	for name, target := range map[string]string{
		"get_document":   "/api/document/" + id,
		"get_fulltext":   "/api/document/" + id + "/fulltext",
		"get_references": "/api/document/" + id + "/references",
		"topic_bundle":   "/api/topic/genetics-genomics/content",
	} {
		rec := httptest.NewRecorder()
		a.HTTP.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		if rec.Code != http.StatusPaymentRequired {
			t.Fatalf("GET %s: %d, want 402", target, rec.Code)
		}
		pr, err := x402.DecodeRequiredHeader(rec.Header().Get(x402.HeaderPaymentRequired))
		if err != nil {
			t.Fatalf("GET %s: %v", target, err)
		}
		challenges[name] = pr
	}
	b, err := json.MarshalIndent(challenges, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "payment-required.golden.json", append(b, '\n'))
}

func firstDocumentID(t *testing.T, h http.Handler) string {
	t.Helper()
	_, m := getJSON(t, h, "/api/catalog?limit=1")
	items, _ := m["items"].([]any)
	if len(items) == 0 {
		t.Fatalf("empty catalog: %v", m)
	}
	id, _ := items[0].(map[string]any)["id"].(string)
	return id
}

func indentJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(b), "", "  "); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./serve -run TestGolden -update)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the generated document; run go test ./serve -run TestGolden -update and review the diff", path)
	}
}
