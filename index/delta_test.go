package index

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index/catalog"
	"github.com/openshelf/openshelf/index/content"
	isearch "github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/snapshot"
)

// deltaRuns are builds of an archive: new documents, revisions, a
// retraction, a licence turned non-commercial, PubMed deletions, new
// topics, and documents citing each other.
func deltaRuns() []Feed {
	revised := synth(3, "cc-by")
	revised.Title, revised.Updated = "A revised title", testNow.Add(time.Hour)
	retracted := synth(7, "cc-by")
	retracted.Retracted, retracted.Updated = true, testNow.Add(time.Hour)
	nc := synth(12, "cc-by-nc")
	nc.Updated = testNow.Add(time.Hour)
	revised2 := synth(31, "cc-by", "genetics")
	revised2.Abstract, revised2.Updated = "A new abstract.", testNow.Add(2*time.Hour)
	citing := func(i int, cites ...int) *ingest.Document {
		d := synth(i, "cc-by", "ecology")
		for _, c := range cites {
			d.References = append(d.References, ingest.Reference{DOI: fmt.Sprintf("10.1234/test.%d", c)},
				ingest.Reference{PMID: fmt.Sprint(5000 + c)})
		}
		return d
	}
	// Licensed CC BY, and CC BY-NC from the third run's day on: a full
	// build rejects it from then, whatever the runs bring.
	embargo := synth(45, "cc-by")
	embargo.Licence.Evidence = append(embargo.Licence.Evidence, licence.Evidence{Kind: licence.KindJATSHref,
		Source: licence.SourceCrossref, Value: "cc-by-nc", Start: testNow.Add(36 * time.Hour)})
	embargo.Licence = datedDecide(embargo.Licence.Evidence, testNow)
	return []Feed{
		func(ctx context.Context, sink ingest.Sink) error {
			if err := feedRange(0, 30)(ctx, sink); err != nil {
				return err
			}
			return feedDocs(citing(40, 3, 7, 12, 20), citing(41, 40, 5), embargo)(ctx, sink)
		},
		func(ctx context.Context, sink ingest.Sink) error {
			if err := feedRange(30, 35)(ctx, sink); err != nil {
				return err
			}
			for _, d := range []*ingest.Document{revised, retracted, nc, citing(42, 41, 3, 33)} {
				if err := sink.Document(d); err != nil {
					return err
				}
			}
			return sink.Delete(ingest.Deletion{ID: "pmid-5010", Origin: "pubmed/deleted.xml"})
		},
		func(ctx context.Context, sink ingest.Sink) error {
			if err := feedRange(35, 38)(ctx, sink); err != nil {
				return err
			}
			if err := sink.Document(revised2); err != nil {
				return err
			}
			if err := sink.Document(citing(43, 42, 36, 20)); err != nil {
				return err
			}
			return sink.Delete(ingest.Deletion{ID: "pmid-5020", Origin: "pubmed/deleted.xml"})
		},
		feedDocs(citing(44, 43, 41), synth(2, "cc-by", "genetics")),
	}
}

// datedDecide is testDecide for the evidence in effect at now.
func datedDecide(ev []licence.Evidence, now time.Time) licence.Decision {
	var live []licence.Evidence
	for _, e := range ev {
		if !e.Start.After(now) {
			live = append(live, e)
		}
	}
	d := testDecide(live, now)
	d.Evidence = ev
	return d
}

// TestDeltaBuildEqualsMergedBuild builds one archive twice through the
// same runs: by delta builds (each run one new segment, the others
// shared) and by full merges. Everything the snapshot answers must be the
// same: catalog, content, analysts' tables, citations, bundles, topics,
// counts and search results.
func TestDeltaBuildEqualsMergedBuild(t *testing.T) {
	for _, tiers := range []Tiers{{}, {PerTier: 2}, {MaxDeleted: 0.01}} {
		t.Run(fmt.Sprintf("%+v", tiers), func(t *testing.T) { testDeltaBuild(t, tiers, false) })
	}
	// Segments keeping their works' records (Config.Records) are carried
	// as records: the same answers.
	for _, tiers := range []Tiers{{}, {PerTier: 2}} {
		t.Run(fmt.Sprintf("records/%+v", tiers), func(t *testing.T) { testDeltaBuild(t, tiers, true) })
	}
}

func testDeltaBuild(t *testing.T, tiers Tiers, records bool) {
	deltaDir, mergedDir := t.TempDir(), t.TempDir()
	for run, feed := range deltaRuns() {
		for _, dir := range []string{deltaDir, mergedDir} {
			cfg := testConfig(dir)
			cfg.Now = testNow.Add(time.Duration(run) * 24 * time.Hour)
			cfg.Merge, cfg.Tiers, cfg.Decide, cfg.Records = dir == mergedDir, tiers, datedDecide, records
			build(t, cfg, feed)
		}
		got, want := open(t, deltaDir), open(t, mergedDir)
		segs := len(got.Manifest.Segments)
		switch {
		case run > 0 && segs == 0:
			t.Fatalf("run %d: the delta build wrote no segments", run)
		case tiers == Tiers{} && run == 2 && segs != 3:
			t.Fatalf("run %d: %d segments, want 3", run, segs)
		case tiers.PerTier == 2 && segs > 2:
			t.Fatalf("run %d: %d segments; two a tier at most", run, segs)
		}
		if run == 2 && queryInt(t, duck(t), "SELECT count(*) FROM "+tbl(got, snapshot.Documents)+" WHERE id = 'pmc-1045'") != 0 {
			t.Fatal("a document whose licence became non-commercial is still served")
		}
		compareSnapshots(t, got, want)
		checkJoinedPairs(t, got)
	}
	// Unchanged segments are shared, not copied.
	s := open(t, deltaDir)
	first := s.Manifest.Segments[0]
	fi, err := os.Stat(filepath.Join(s.SegmentDir(first.ID), filepath.FromSlash(content.File)))
	if err != nil {
		t.Fatal(err)
	}
	if n := linkCount(fi); n < 2 {
		t.Errorf("the first segment's content store has %d links; it should be shared with the kept snapshots", n)
	}
	// A full merge of the segmented snapshot gives the merged build again.
	cfg := testConfig(deltaDir)
	cfg.Merge, cfg.Now, cfg.Records = true, testNow.Add(10*24*time.Hour), records
	build(t, cfg, nil)
	merged := open(t, deltaDir)
	if merged.Segmented() {
		t.Fatal("a full merge wrote a segmented snapshot")
	}
	compareSnapshots(t, merged, open(t, mergedDir))
}

// checkJoinedPairs checks that the segments of a snapshot built by delta
// builds index the same word pairs (the frequent pair words of the
// first build) and that its newest segment, written beside older ones,
// joined them (search.Writer.JoinPairs).
func checkJoinedPairs(t *testing.T, s *snapshot.Snapshot) {
	t.Helper()
	dirs := segmentDirs(s)
	var frequent []string
	for i, dir := range dirs {
		ix, err := isearch.OpenFile(filepath.Join(dir, filepath.FromSlash(isearch.File)), s.ID, isearch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p := ix.Pairs()
		ix.Close()
		if i == 0 {
			frequent = p.Frequent()
			if len(frequent) == 0 {
				t.Fatal("the first segment has no frequent pair words to test")
			}
		} else if !slices.Equal(p.Frequent(), frequent) {
			t.Errorf("segment %d of %d: frequent pair words %q, the first's %q", i, len(dirs), p.Frequent(), frequent)
		}
		if newest := i > 0 && i == len(dirs)-1; newest && !p.Joined() || p.MinDF() != isearch.DefaultPairMinDF {
			t.Errorf("segment %d of %d: joined %v, minimum %d", i, len(dirs), p.Joined(), p.MinDF())
		}
	}
}

// compareSnapshots checks that got (segmented or not) answers as want (one
// merged build).
func compareSnapshots(t *testing.T, got, want *snapshot.Snapshot) {
	t.Helper()
	w := openServed(t, want)
	cat, con, segs, deleted := openSegmented(t, got)
	if cat.Len() != w.cat.Len() {
		t.Fatalf("%d documents, want %d", cat.Len(), w.cat.Len())
	}
	for d := range int32(w.cat.Len()) {
		wr, _ := w.cat.Record(d)
		gr, err := cat.Record(d)
		if err != nil || !reflect.DeepEqual(gr, wr) {
			t.Fatalf("doc %d: %+v (%v), want %+v", d, gr, err, wr)
		}
		for k, wp := range w.parts(t, d) {
			gp, err := con.Part(int(d), k)
			if err != nil || !bytes.Equal(gp, wp) {
				t.Fatalf("doc %d (%s): content part %d differs (%v)", d, wr.ID, k, err)
			}
		}
	}
	if got.Segmented() {
		checkLiveTables(t, segs, deleted, want)
	}
	db := duck(t)
	// A bundle kept in packs is described by its frames list
	// (bundle_path); its bytes are compared below.
	for table, cols := range map[string]string{snapshot.Citations: "*", snapshot.Topics: "* EXCLUDE (bundle_path)"} {
		g := queryStrings(t, db, "SELECT CAST(to_json(t) AS VARCHAR) FROM (SELECT "+cols+" FROM "+tbl(got, table)+") t")
		wt := queryStrings(t, db, "SELECT CAST(to_json(t) AS VARCHAR) FROM (SELECT "+cols+" FROM "+tbl(want, table)+") t")
		if !slices.Equal(g, wt) {
			t.Errorf("%s:\n got %q\nwant %q", table, g, wt)
		}
	}
	if table := snapshot.Citations; queryInt(t, db, "SELECT count(*) FROM "+tbl(want, table)+"") == 0 {
		t.Errorf("the runs cite archive documents; %s is empty", table)
	}
	for _, f := range want.Manifest.Files {
		dir, file := filepath.Split(f.Name)
		slug, ok := strings.CutSuffix(file, snapshot.BundleExt)
		if dir != snapshot.BundlesDir+"/" || !ok {
			continue
		}
		if gb, wb := servedBundle(t, got.Dir, slug), servedBundle(t, want.Dir, slug); !bytes.Equal(gb, wb) {
			t.Errorf("bundle %s differs", slug)
		}
		gf, err1 := readFrames(filepath.Join(got.Dir, f.Name), f.Name)
		wf, err2 := readFrames(filepath.Join(want.Dir, f.Name), f.Name)
		if err1 != nil || err2 != nil || !slices.EqualFunc(gf, wf, sameFrame) {
			t.Errorf("the frames of bundle %s differ (%v, %v)", slug, err1, err2)
		}
	}
	gc, wc := got.Manifest.Counts, want.Manifest.Counts
	if gc.Accepted != wc.Accepted || gc.Topics != wc.Topics || !reflect.DeepEqual(gc.AcceptedByLicence, wc.AcceptedByLicence) {
		t.Errorf("counts %+v, want %+v", gc, wc)
	}
	compareSearch(t, got, want, cat)
}

// openSegmented opens the catalog and content store of a snapshot of
// either layout over its segments.
func openSegmented(t *testing.T, s *snapshot.Snapshot) (*catalog.Multi, *content.Multi, []served, [][]int32) {
	t.Helper()
	var (
		segs    []served
		cats    []*catalog.Reader
		cons    []*content.Reader
		deleted [][]int32
	)
	for i, dir := range segmentDirs(s) {
		seg := openServed(t, &snapshot.Snapshot{Dir: dir})
		var del []int32
		if s.Segmented() && s.Manifest.Segments[i].Deleted > 0 {
			var err error
			if del, err = snapshot.ReadDeletions(s.DeletionsPath(s.Manifest.Segments[i].ID), int32(seg.cat.Len())); err != nil {
				t.Fatal(err)
			}
		}
		segs, cats, cons, deleted = append(segs, seg), append(cats, seg.cat), append(cons, seg.con), append(deleted, del)
	}
	cat, err := catalog.NewMulti(cats, deleted)
	if err != nil {
		t.Fatal(err)
	}
	con, err := content.NewMulti(cons, cat.Numbering())
	if err != nil {
		t.Fatal(err)
	}
	return cat, con, segs, deleted
}

// compareSearch checks requests of every class over the segments against
// the merged build's index.
func compareSearch(t *testing.T, got, want *snapshot.Snapshot, cat *catalog.Multi) {
	t.Helper()
	wix, err := isearch.OpenFile(filepath.Join(want.Dir, filepath.FromSlash(isearch.File)), "x", isearch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer wix.Close()
	var segs []isearch.Segment
	for i, dir := range segmentDirs(got) {
		ix, err := isearch.OpenFile(filepath.Join(dir, filepath.FromSlash(isearch.File)), "x", isearch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		num := cat.Numbering()
		segs = append(segs, isearch.Segment{Index: ix, Deleted: num.Deleted(i), Docs: num.Docs(i)})
	}
	var cites isearch.Citations
	if got.Segmented() {
		ct, err := isearch.ReadCitations(filepath.Join(got.Dir, isearch.CitationsFile), int32(cat.Len()))
		if err != nil {
			t.Fatal(err)
		}
		cites = ct
	}
	m, err := isearch.NewMulti("x", segs, cites)
	if err != nil {
		t.Fatal(err)
	}
	multis := []*isearch.Multi{m}
	if got.Segmented() {
		// The newest segment's build wrote what first searches need
		// (search.FirstFile), for these segments: a Multi using it
		// answers the same.
		ids := make([]string, len(got.Manifest.Segments))
		for i, g := range got.Manifest.Segments {
			ids[i] = g.ID
		}
		f, err := isearch.ReadFirst(filepath.Join(got.SegmentDir(ids[len(ids)-1]), filepath.FromSlash(isearch.FirstFile)))
		if err != nil {
			t.Fatal(err)
		}
		mf, err := isearch.NewMulti("x", segs, cites)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) > 1 && !mf.UseFirst(f, ids) {
			t.Fatalf("the newest segment's %s does not match the snapshot's %d segments", isearch.FirstFile, len(ids))
		}
		multis = append(multis, mf)
	}
	ctx := context.Background()
	for _, m := range multis {
		compareMulti(ctx, t, m, wix, cat)
	}
}

// compareMulti checks requests of every class and the cited-by lists over
// the segments, m, against the merged build's index, wix.
func compareMulti(ctx context.Context, t *testing.T, m *isearch.Multi, wix *isearch.Index, cat *catalog.Multi) {
	t.Helper()
	for _, q := range []string{"", "zebrafish", "zebra*", "number3*", `"neural circuits"`, "revised OR synapses",
		"zebrafish -number1", "title:circuits", "author:lovelace"} {
		var n query.Node
		if q != "" {
			var err error
			if n, err = query.Parse(q); err != nil {
				t.Fatal(err)
			}
		}
		for _, sort := range []isearch.Sort{isearch.ByRelevance, isearch.ByYear, isearch.ByCitedBy} {
			r := isearch.Request{Query: n, Sort: sort, Limit: 7, Facets: []string{isearch.FacetLicense, isearch.FacetTopic, isearch.FacetYear}}
			for page := 0; page < 4; page++ {
				g, err1 := m.Search(ctx, r)
				w, err2 := wix.Search(ctx, r)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(g, w) {
					t.Fatalf("%q sort %d page %d:\n got %+v (%v)\nwant %+v (%v)", q, sort, page, g, err1, w, err2)
				}
				if w.Next == "" {
					break
				}
				r.Cursor = w.Next
			}
		}
	}
	for d := range int32(cat.Len()) {
		g, gn, _, err1 := m.CitedBy(ctx, d, 100, "")
		w, wn, _, err2 := wix.CitedBy(ctx, d, 100, "")
		if err1 != nil || err2 != nil || !slices.Equal(g, w) || gn != wn {
			t.Fatalf("cited-by of %d: %v %d (%v), want %v %d (%v)", d, g, gn, err1, w, wn, err2)
		}
	}
}

func linkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}

// TestPolicyChangeMergesAll: a build under another publication policy
// (licence rules, filters) decides every document again, so it is a full
// merge, not a delta that would leave untouched documents as they were.
func TestPolicyChangeMergesAll(t *testing.T) {
	data := t.TempDir()
	cfg := testConfig(data)
	cfg.Policy = "rules 1"
	build(t, cfg, feedRange(0, 10))
	cfg.Now = testNow.Add(time.Hour)
	build(t, cfg, feedRange(10, 12))
	if s := open(t, data); len(s.Manifest.Segments) != 2 || s.Manifest.Policy != "rules 1" {
		t.Fatalf("same policy: segments %+v, policy %q", s.Manifest.Segments, s.Manifest.Policy)
	}
	cfg.Policy, cfg.Now = "rules 2", testNow.Add(2*time.Hour)
	// Rules 2 rejects what was accepted: every carried document is
	// decided again (the new record keeps its reader's decision).
	cfg.Decide = func(ev []licence.Evidence, now time.Time) licence.Decision {
		return licence.Decision{Reason: licence.NonCommercial, Evidence: ev}
	}
	m := build(t, cfg, feedRange(12, 13))
	if s := open(t, data); s.Segmented() || m.Counts.Accepted != 1 {
		t.Fatalf("new policy: segmented %v, %d documents published", s.Segmented(), m.Counts.Accepted)
	}
}

// TestEmptyDelta: a run that changes nothing adds no segment.
func TestEmptyDelta(t *testing.T) {
	data := t.TempDir()
	cfg := testConfig(data)
	build(t, cfg, feedRange(0, 10))
	cfg.Now = testNow.Add(time.Hour)
	build(t, cfg, feedRange(10, 12))
	cfg.Now = testNow.Add(2 * time.Hour)
	m := build(t, cfg, nil)
	s := open(t, data)
	if len(s.Manifest.Segments) != 2 || m.Counts.Accepted != 12 {
		t.Fatalf("after an empty run: %d segments, %d documents; want 2 and 12", len(s.Manifest.Segments), m.Counts.Accepted)
	}
	if _, err := os.Stat(s.SegmentDir(s.ID)); !os.IsNotExist(err) {
		t.Errorf("the empty segment's directory: %v", err)
	}
	if cat, _, _, _ := openSegmented(t, s); cat.Len() != 12 {
		t.Errorf("the segments serve %d documents", cat.Len())
	}
}

// TestOlderSnapshotMergedFully: a snapshot written before delta builds (no
// citation keys, content records without the merge fields) is carried over
// whole from its Parquet tables; the next build is a delta.
func TestOlderSnapshotMergedFully(t *testing.T) {
	data := t.TempDir()
	cfg := testConfig(data)
	build(t, cfg, feedRange(0, 10))
	old := open(t, data)
	if err := os.Remove(filepath.Join(old.Dir, filepath.FromSlash(citeKeysFile))); err != nil {
		t.Fatal(err)
	}
	cfg.Now = testNow.Add(time.Hour)
	m := build(t, cfg, feedRange(10, 12))
	if s := open(t, data); s.Segmented() || m.Counts.Accepted != 12 {
		t.Fatalf("after an older snapshot: segmented %v, %d documents; want a full build of 12", s.Segmented(), m.Counts.Accepted)
	}
	cfg.Now = testNow.Add(2 * time.Hour)
	build(t, cfg, feedRange(12, 13))
	if s := open(t, data); len(s.Manifest.Segments) != 2 {
		t.Fatalf("the build after it has %d segments, want 2", len(s.Manifest.Segments))
	}
}

// TestOlderSearchFormatMergedFully: a segment whose search index is of an
// older format (the server refuses it) makes the next build a full merge,
// which writes every document in the current format.
func TestOlderSearchFormatMergedFully(t *testing.T) {
	data := t.TempDir()
	cfg := testConfig(data)
	build(t, cfg, feedRange(0, 10))
	cfg.Now = testNow.Add(time.Hour)
	build(t, cfg, feedRange(10, 12))
	s := open(t, data)
	if !s.Segmented() {
		t.Fatal("the second build is not a delta build")
	}
	f, err := os.OpenFile(filepath.Join(s.SegmentDir(s.Manifest.Segments[0].ID), filepath.FromSlash(isearch.File)), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("osbsrch3"), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cfg.Now = testNow.Add(2 * time.Hour)
	m := build(t, cfg, feedRange(12, 13))
	s = open(t, data)
	if s.Segmented() || m.Counts.Accepted != 13 {
		t.Fatalf("after an older search format: segmented %v, %d documents; want a full merge of 13", s.Segmented(), m.Counts.Accepted)
	}
	if ok, err := isearch.CurrentFormat(filepath.Join(s.Dir, filepath.FromSlash(isearch.File))); err != nil || !ok {
		t.Fatalf("the merge's search index: current format %v, %v", ok, err)
	}
}
