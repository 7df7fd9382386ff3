package archive

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
)

// TestSwitchKeepsSegments switches a store between snapshots of a growing
// segmented archive: each switch opens only the new segment, the
// documents of every snapshot are served, and the segments of a retired
// snapshot that the next one no longer names are closed.
func TestSwitchKeepsSegments(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	build := func(run, from, to int, merge bool) {
		t.Helper()
		feed := func(ctx context.Context, sink ingest.Sink) error {
			for i := from; i < to; i++ {
				d := &ingest.Document{PMCID: fmt.Sprint(7000 + i), Title: fmt.Sprintf("Segment test %d", i),
					Topics: []string{"genetics"}, Sources: []string{"jats:pmc"}}
				d.Licence = accept([]licence.Evidence{{Kind: licence.KindJATSHref, Source: licence.SourcePMC,
					Value: "https://creativecommons.org/licenses/by/4.0/"}}, time.Time{})
				d.AssignIDs()
				if err := sink.Document(d); err != nil {
					return err
				}
			}
			return nil
		}
		_, err := index.Build(ctx, index.Config{DataDir: dir, Decide: accept, Merge: merge,
			Now: time.Date(2026, 1, 1+run, 0, 0, 0, 0, time.UTC), Topics: []index.Topic{{Slug: "genetics", Name: "Genetics"}}}, feed)
		if err != nil {
			t.Fatal(err)
		}
	}
	build(0, 0, 10, false)
	build(1, 10, 12, false)
	st, err := OpenStore(ctx, StoreConfig{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	check := func(docs int64, opened, open int) {
		t.Helper()
		g, err := st.acquire()
		if err != nil {
			t.Fatal(err)
		}
		defer g.release()
		if g.stats.Documents != docs || int64(g.catalog.Len()) != docs {
			t.Errorf("serving %d documents (catalog %d), want %d", g.stats.Documents, g.catalog.Len(), docs)
		}
		st.segments.mu.Lock()
		defer st.segments.mu.Unlock()
		if st.segments.opened != opened || len(st.segments.segs) != open {
			t.Errorf("%d segments opened in all, %d open; want %d and %d", st.segments.opened, len(st.segments.segs), opened, open)
		}
	}
	check(12, 2, 2)
	build(2, 12, 15, false)
	if err := st.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	check(15, 3, 3) // one new segment opened, the two others kept
	build(3, 15, 16, true)
	if err := st.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	check(16, 3, 0) // a merged snapshot: no segments left open
}

// TestSegmentWithoutDocuments: a nightly delta whose works were all
// rejected keeps their records in a segment without documents; the server
// serves the snapshot as before.
func TestSegmentWithoutDocuments(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	build := func(run int, licensed bool) {
		t.Helper()
		feed := func(ctx context.Context, sink ingest.Sink) error {
			d := &ingest.Document{PMCID: fmt.Sprint(7100 + run), Title: fmt.Sprintf("Segment test %d", run),
				Topics: []string{"genetics"}, Sources: []string{"jats:pmc"}}
			if licensed {
				d.Licence = accept([]licence.Evidence{{Kind: licence.KindJATSHref, Source: licence.SourcePMC,
					Value: "https://creativecommons.org/licenses/by/4.0/"}}, time.Time{})
			} else {
				d.Licence = licence.Decision{Reason: licence.Missing}
			}
			d.AssignIDs()
			return sink.Document(d)
		}
		_, err := index.Build(ctx, index.Config{DataDir: dir, Records: true, Decide: func(ev []licence.Evidence, now time.Time) licence.Decision {
			if len(ev) == 0 {
				return licence.Decision{Reason: licence.Missing}
			}
			return accept(ev, now)
		}, Now: time.Date(2026, 1, 1+run, 0, 0, 0, 0, time.UTC), Topics: []index.Topic{{Slug: "genetics", Name: "Genetics"}}}, feed)
		if err != nil {
			t.Fatal(err)
		}
	}
	build(0, true)
	build(1, false)
	st, err := OpenStore(ctx, StoreConfig{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g, err := st.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer g.release()
	if g.stats.Documents != 1 || g.catalog.Len() != 1 || len(g.snap.Manifest.Segments) != 2 {
		t.Fatalf("serving %d documents (catalog %d) in %d segments; want 1 in 2", g.stats.Documents, g.catalog.Len(), len(g.snap.Manifest.Segments))
	}
	hits, total, err := g.searchPage(ctx, "segment", search.Filters{}, 10, 0)
	if err != nil || total != 1 || len(hits) != 1 {
		t.Fatalf("search: %d hits of %d, %v", len(hits), total, err)
	}
}
