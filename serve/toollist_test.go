package serve

import (
	"bytes"
	"context"
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
	list := func() []byte { return toolsList(t, a.HTTP) }
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
