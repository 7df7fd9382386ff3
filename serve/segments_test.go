package serve_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/servetest"
	"github.com/openshelf/openshelf/snapshot"

	_ "github.com/duckdb/duckdb-go/v2"
)

// segmentRuns are the builds of TestSegmentedSnapshotServesAsMerged: new
// documents citing each other, a revision, a retraction, a licence turned
// non-commercial and a PubMed deletion.
func segmentRuns() [][]any {
	doc := func(i int, lic string, cites ...int) *ingest.Document {
		d := &ingest.Document{PMCID: fmt.Sprint(2000 + i), DOI: fmt.Sprintf("10.77/seg.%d", i), PMID: fmt.Sprint(9000 + i),
			Title:    fmt.Sprintf("Zebrafish heart regeneration study %d", i),
			Abstract: fmt.Sprintf("Cardiomyocytes proliferate after injury in experiment %d.", i),
			Authors:  []ingest.Author{{Name: "Ada Lovelace", Given: "Ada", Family: "Lovelace"}},
			Year:     2001 + i%9, Keywords: []string{"zebrafish", "regeneration"},
			Topics:   []string{[]string{"neuroscience", "genetics", "cell-biology"}[i%3]},
			Sections: []ingest.Section{{Title: "Results", Paragraphs: []string{fmt.Sprintf("Finding %d holds.", i)}}},
			Sources:  []string{"jats:pmc"}, Updated: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)}
		for _, c := range cites {
			d.References = append(d.References, ingest.Reference{DOI: fmt.Sprintf("10.77/seg.%d", c)})
		}
		d.Licence = licence.Decide([]licence.Evidence{{Kind: licence.KindJATSHref, Source: licence.SourcePMC,
			Value: "https://creativecommons.org/licenses/" + lic + "/4.0/"}}, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
		d.AssignIDs()
		return d
	}
	var first []any
	for i := range 24 {
		first = append(first, doc(i, "by", (i+5)%24, (i+11)%24))
	}
	revised := doc(3, "by", 1)
	revised.Title, revised.Updated = "Zebrafish heart regeneration revisited", time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	retracted := doc(5, "by")
	retracted.Retracted, retracted.Updated = true, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	nc := doc(8, "by-nc")
	nc.Updated = time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	return [][]any{
		first,
		{revised, retracted, nc, doc(30, "by", 3, 4), ingest.Deletion{ID: "pmid-9010"}},
		{doc(31, "by-sa", 30, 2), doc(32, "by", 31), ingest.Deletion{ID: "pmid-9015"}},
	}
}

// TestSegmentedSnapshotServesAsMerged serves an archive built by delta
// builds (a snapshot of three segments) and the same archive built by
// full merges, and checks that every free and paid archive endpoint
// answers the same.
func TestSegmentedSnapshotServesAsMerged(t *testing.T) {
	delta, merged := t.TempDir(), t.TempDir()
	for run, items := range segmentRuns() {
		for _, dir := range []string{delta, merged} {
			cfg := index.Config{DataDir: dir, Now: time.Date(2026, 3, 1+run, 0, 0, 0, 0, time.UTC), Merge: dir == merged,
				Topics: []index.Topic{{Slug: "neuroscience", Name: "Neuroscience"}, {Slug: "genetics", Name: "Genetics"},
					{Slug: "cell-biology", Name: "Cell biology"}}}
			_, err := index.Build(context.Background(), cfg, func(ctx context.Context, sink ingest.Sink) error {
				for _, it := range items {
					var err error
					switch v := it.(type) {
					case *ingest.Document:
						err = sink.Document(v)
					case ingest.Deletion:
						err = sink.Delete(v)
					}
					if err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	got := servetest.New(t, func(c *serve.Config) { c.DataDir = delta })
	want := servetest.New(t, func(c *serve.Config) { c.DataDir = merged })
	var ids []string
	for _, req := range []struct {
		path string
		in   map[string]any
	}{
		{"/api/stats", nil},
		{"/api/topics", nil},
		{"/api/catalog", map[string]any{"limit": 50}},
		{"/api/catalog", map[string]any{"topic": "genetics", "limit": 3}},
		{"/api/catalog", map[string]any{"topic": "neuroscience", "limit": 2, "offset": 2}},
		{"/api/search", map[string]any{"q": "zebrafish", "limit": 5}},
		{"/api/search", map[string]any{"q": "regenera*", "sort": "cited_by", "limit": 50}},
		{"/api/search", map[string]any{"q": `"heart regeneration"`, "license": "CC-BY-SA", "limit": 50}},
		{"/api/search", map[string]any{"q": "revisited OR finding", "topic": "genetics", "limit": 50}},
	} {
		w := call(t, want, req.path, req.in, false)
		if g := call(t, got, req.path, req.in, false); !reflect.DeepEqual(g, w) {
			t.Errorf("%s %v:\n got %v\nwant %v", req.path, req.in, g, w)
		}
		if req.path == "/api/catalog" && req.in["limit"] == 50 && req.in["topic"] == nil {
			for _, e := range w["items"].([]any) {
				ids = append(ids, e.(map[string]any)["id"].(string))
			}
		}
	}
	if len(ids) < 20 {
		t.Fatalf("the catalog lists %d documents", len(ids))
	}
	// The analysts' query of the live rows counts what /api/stats does.
	snap, err := snapshot.Open(delta)
	if err != nil || !snap.Segmented() {
		t.Fatalf("the delta builds' snapshot is not segmented (%v)", err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var live float64
	if err := db.QueryRow("SELECT count(*) FROM (" + snapshot.LiveSQL(snap.Dir, snapshot.Documents) + ")").Scan(&live); err != nil {
		t.Fatal(err)
	}
	if stats := call(t, got, "/api/stats", nil, false); stats["documents"] != live {
		t.Errorf("/api/stats counts %v documents, the analysts' query %v", stats["documents"], live)
	}
	for _, id := range ids {
		for _, path := range []string{"/api/document/" + id + "/cited-by"} {
			if g, w := call(t, got, path, nil, false), call(t, want, path, nil, false); !reflect.DeepEqual(g, w) {
				t.Errorf("%s:\n got %v\nwant %v", path, g, w)
			}
		}
		for _, path := range []string{"/api/document/" + id, "/api/document/" + id + "/fulltext", "/api/document/" + id + "/references"} {
			if g, w := call(t, got, path, nil, true), call(t, want, path, nil, true); !reflect.DeepEqual(g, w) {
				t.Errorf("%s:\n got %v\nwant %v", path, g, w)
			}
		}
	}
}

// call gets path (paying when paid) and returns its answer without what
// names the snapshot (its id, cursors), which differs between two builds.
func call(t *testing.T, e *servetest.Env, path string, in map[string]any, paid bool) map[string]any {
	t.Helper()
	var m map[string]any
	if paid {
		m = e.PaidCall(t, http.MethodGet, path, in)
	} else {
		resp, body := e.Call(t, http.MethodGet, path, in, "")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, body)
		}
		m = body
	}
	strip(m)
	return m
}

func strip(v any) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range []string{"snapshot", "next", "next_cursor", "cursor", "built_at", "snapshot_id", "created"} {
			delete(v, k)
		}
		for _, x := range v {
			strip(x)
		}
	case []any:
		for _, x := range v {
			strip(x)
		}
	}
}
