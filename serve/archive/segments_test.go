package archive

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
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
		buildGenetics(t, dir, run, merge, geneticsFeed(from, to, "Segment test"))
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

// TestBundleInPacks serves the bundle of a topic that delta builds keep as
// frames in packs, and the same topic's bundle file of a full build of
// the same documents: the same bytes, the same size.
func TestBundleInPacks(t *testing.T) {
	runs := []index.Feed{geneticsFeed(0, 2000, "Bundle test"), geneticsFeed(500, 510, "Revised bundle test")}
	bundles := map[bool][]byte{}
	for _, merge := range []bool{false, true} {
		dir := t.TempDir()
		for run, f := range runs {
			buildGenetics(t, dir, run, merge, f)
		}
		g := acquireGeneration(t, dir)
		bp, _ := g.snap.BundlePath("genetics")
		if _, err := os.Stat(bp); merge == (err != nil) {
			t.Fatalf("merge %v: the bundle file: %v", merge, err)
		}
		r, err := g.openBundle("genetics")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := r.(interface{ Stat() (os.FileInfo, error) }).Stat()
		if err != nil || fi.Size() != int64(len(b)) || !fi.Mode().IsRegular() {
			t.Errorf("merge %v: the bundle reports %v (%v), read %d bytes", merge, fi, err, len(b))
		}
		bundles[merge] = b
	}
	if len(bundles[true]) == 0 || !bytes.Equal(bundles[false], bundles[true]) {
		t.Errorf("the bundle in packs is %d bytes, the full build's %d, or they differ", len(bundles[false]), len(bundles[true]))
	}
}

// geneticsFeed feeds documents from to to (excluded) of the topic
// genetics, titled title and their number.
func geneticsFeed(from, to int, title string) index.Feed {
	return func(ctx context.Context, sink ingest.Sink) error {
		for i := from; i < to; i++ {
			d := &ingest.Document{PMCID: fmt.Sprint(7000 + i), Title: fmt.Sprintf("%s %d", title, i),
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
}

// buildGenetics runs the build of day run of an archive of the topic
// genetics in dir: a delta build, or a full merge.
func buildGenetics(t *testing.T, dir string, run int, merge bool, feed index.Feed) {
	t.Helper()
	_, err := index.Build(context.Background(), index.Config{DataDir: dir, Decide: accept, Merge: merge,
		Now: time.Date(2026, 1, 1+run, 0, 0, 0, 0, time.UTC), Topics: []index.Topic{{Slug: "genetics", Name: "Genetics"}}}, feed)
	if err != nil {
		t.Fatal(err)
	}
}

// acquireGeneration opens a store of dir and acquires its generation, both
// released when the test ends.
func acquireGeneration(t *testing.T, dir string) *generation {
	t.Helper()
	st, err := OpenStore(context.Background(), StoreConfig{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	g, err := st.acquire()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.release)
	return g
}
