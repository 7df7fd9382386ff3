package servetest_test

import (
	"net/http"
	"testing"

	"github.com/openshelf/openshelf/serve/servetest"
)

// A paid archive document through the harness: 402 first, then served
// with one settlement; a missing document is a 404 nobody pays for.
func TestPaidCall(t *testing.T) {
	e := servetest.New(t, nil)
	res, m := e.Call(t, http.MethodGet, "/api/document/pmc-999999999", nil, "")
	if res.StatusCode != http.StatusNotFound || servetest.ErrCode(m) == "" {
		t.Fatalf("missing document: %d %v", res.StatusCode, m)
	}
	_, cat := e.Call(t, http.MethodGet, "/api/catalog", map[string]any{"limit": 1}, "")
	items, _ := cat["items"].([]any)
	if len(items) == 0 {
		t.Fatalf("catalog: %v", cat)
	}
	id, _ := items[0].(map[string]any)["id"].(string)
	doc := e.PaidCall(t, http.MethodGet, "/api/document/"+id, nil)
	if doc["license"] == nil || doc["attribution"] == nil {
		t.Fatalf("document without rights fields: %v", doc)
	}
}
