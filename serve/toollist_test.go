package serve

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/pipelines/run"
)

// TestToolListStable: the MCP tool list is the frozen registry's, so it is
// byte for byte the same before and after a new snapshot is switched in
// (fewer documents, fewer topics), as the specification requires of a
// session.
func TestToolListStable(t *testing.T) {
	dir := testsnap.Copy(t)
	a := newTestApp(t, dir, nil)
	list := func() []byte {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		rec := httptest.NewRecorder()
		a.HTTP.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("tools/list: %d %s", rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	before := list()
	_, oldStats := getJSON(t, a.HTTP, "/api/stats")
	if _, err := run.Run(context.Background(), run.Config{DataDir: dir, Fresh: true, Workers: 1,
		Inputs: []run.Input{{Path: fixtures.Path(t, "jats", "elife")}}, Now: testsnap.Now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, stats := getJSON(t, a.HTTP, "/api/stats"); stats["snapshot"] == oldStats["snapshot"] {
		t.Fatalf("the snapshot did not switch: %v", stats["snapshot"])
	}
	if after := list(); !bytes.Equal(before, after) {
		t.Errorf("tools/list changed with the snapshot:\n%s\n%s", before, after)
	}
}
