package index

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index/catalog"
	"github.com/openshelf/openshelf/index/content"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/snapshot"
)

// served is a snapshot's catalog and content store, opened.
type served struct {
	dir string
	cat *catalog.Reader
	con *content.Reader
}

func openServed(t *testing.T, s *snapshot.Snapshot) served {
	t.Helper()
	cat, err := catalog.Open(filepath.Join(s.Dir, filepath.FromSlash(catalog.File)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	con, err := content.Open(filepath.Join(s.Dir, filepath.FromSlash(content.File)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { con.Close() })
	return served{s.Dir, cat, con}
}

// parts are a document's three content parts, decoded.
func (s served) parts(t *testing.T, doc int32) [3][]byte {
	t.Helper()
	var p [3][]byte
	for k := range p {
		b, err := s.con.Part(int(doc), k)
		if err != nil {
			t.Fatal(err)
		}
		p[k] = b
	}
	return p
}

// TestSegmentsAnswerAsMergedBuild checks the segmented layout's premise on
// files the builder really writes: an archive built in several runs (new
// documents, a revision, a retraction, a PubMed deletion, a licence that
// becomes non-commercial) is split into segments, each the present
// writer's output for the documents its run added or changed, plus the
// deletions of their earlier copies; the catalog and content store read
// over those segments (catalog.Multi, content.Multi) answer every lookup
// and give every document's bytes exactly as the snapshot the merger
// built of the final state.
func TestSegmentsAnswerAsMergedBuild(t *testing.T) {
	data := t.TempDir()
	revised := synth(3, "cc-by")
	revised.Title, revised.Updated = "A revised title", testNow.Add(time.Hour)
	retracted := synth(7, "cc-by")
	retracted.Retracted, retracted.Updated = true, testNow.Add(time.Hour)
	nc := synth(12, "cc-by-nc")
	nc.Updated = testNow.Add(time.Hour)
	revised2 := synth(31, "cc-by")
	revised2.Abstract, revised2.Updated = "A new abstract.", testNow.Add(2*time.Hour)
	runs := []Feed{
		feedRange(0, 30),
		func(ctx context.Context, sink ingest.Sink) error {
			if err := feedRange(30, 35)(ctx, sink); err != nil {
				return err
			}
			for _, d := range []*ingest.Document{revised, retracted, nc} {
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
			return sink.Delete(ingest.Deletion{ID: "pmid-5020", Origin: "pubmed/deleted.xml"})
		},
	}

	var (
		segs    []served
		cats    []*catalog.Reader
		cons    []*content.Reader
		deleted [][]int32
		prev    served
		snap    *snapshot.Snapshot
	)
	for run, feed := range runs {
		cfg := testConfig(data)
		cfg.Now = testNow.Add(time.Duration(run) * 24 * time.Hour)
		cfg.Merge = true // this test makes the segments itself
		build(t, cfg, feed)
		s, err := snapshot.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		cur := openServed(t, s)
		// The run's segment: the documents the merger added or changed.
		changed := map[string]bool{}
		for d := range int32(cur.cat.Len()) {
			id := string(cur.cat.ID(d))
			if run == 0 {
				changed[id] = true
				continue
			}
			if old := prev.cat.Find(id); old < 0 || !sameParts(prev.parts(t, old), cur.parts(t, d)) {
				changed[id] = true
			}
		}
		// Earlier segments lose their copies of changed and removed
		// documents.
		for i, c := range cats {
			for d := range int32(c.Len()) {
				id := string(c.ID(d))
				if (changed[id] || cur.cat.Find(id) < 0) && !slices.Contains(deleted[i], d) {
					deleted[i] = append(deleted[i], d)
				}
			}
			slices.Sort(deleted[i])
		}
		seg := writeSegment(t, s, changed)
		segs, cats, cons, deleted = append(segs, seg), append(cats, seg.cat), append(cons, seg.con), append(deleted, nil)
		prev, snap = cur, s
	}
	if n := len(deleted[0]); n < 5 {
		t.Fatalf("the first segment lost %d documents; the runs revise, retract and delete at least 5", n)
	}

	want := openServed(t, snap)
	cat, err := catalog.NewMulti(cats, deleted)
	if err != nil {
		t.Fatal(err)
	}
	con, err := content.NewMulti(cons, cat.Numbering())
	if err != nil {
		t.Fatal(err)
	}
	if cat.Len() != want.cat.Len() || con.Len() != want.con.Len() {
		t.Fatalf("segments hold %d/%d documents, the merged build %d", cat.Len(), con.Len(), want.cat.Len())
	}
	for d := range int32(want.cat.Len()) {
		w, err1 := want.cat.Record(d)
		g, err2 := cat.Record(d)
		if err1 != nil || err2 != nil || !slices.Equal(g.Authors, w.Authors) || g.ID != w.ID || g.Title != w.Title ||
			g.Year != w.Year || g.License != w.License || g.Flags != w.Flags || !slices.Equal(g.Topics, w.Topics) {
			t.Fatalf("doc %d: %+v (%v), want %+v (%v)", d, g, err2, w, err1)
		}
		for k, wp := range want.parts(t, d) {
			gp, err := con.Part(int(d), k)
			if err != nil || !bytes.Equal(gp, wp) {
				t.Fatalf("doc %d (%s): content part %d differs (%v)", d, w.ID, k, err)
			}
		}
	}
	checkLiveTables(t, segs, deleted, snap)
	for i := range 40 {
		d := synth(i, "cc-by")
		for _, name := range append([]string{d.ID}, d.Aliases...) {
			if g, w := cat.Lookup(name), want.cat.Lookup(name); g != w {
				t.Errorf("Lookup(%s) = %d, want %d", name, g, w)
			}
			if g, w := cat.Find(name), want.cat.Find(name); g != w {
				t.Errorf("Find(%s) = %d, want %d", name, g, w)
			}
			if g, w := cat.After(name), want.cat.After(name); g != w {
				t.Errorf("After(%s) = %d, want %d", name, g, w)
			}
		}
	}
}

func sameParts(a, b [3][]byte) bool {
	return bytes.Equal(a[0], b[0]) && bytes.Equal(a[1], b[1]) && bytes.Equal(a[2], b[2])
}

// feedRange feeds synth(i, "cc-by") for i in [from, to).
func feedRange(from, to int) Feed {
	var docs []*ingest.Document
	for i := from; i < to; i++ {
		docs = append(docs, synth(i, "cc-by"))
	}
	return feedDocs(docs...)
}

// writeSegment writes, with the present builder, the files of a segment
// holding the documents of s whose ids are in ids, and opens its catalog
// and content store.
func writeSegment(t *testing.T, s *snapshot.Snapshot, ids map[string]bool) served {
	t.Helper()
	cfg := testConfig(t.TempDir())
	cfg.Fresh, cfg.Now = true, s.Manifest.Created
	b, err := NewBuilder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	if _, err := readPrevious(context.Background(), s, func(d *ingest.Document) error {
		if !ids[d.ID] {
			return nil
		}
		return b.Add(d)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	seg, err := snapshot.Open(cfg.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	return openServed(t, seg)
}

// checkLiveTables lays the segments' per-document tables out as a
// segmented snapshot does (Hive-style segment directories and the
// deletion table) and checks that the analysts' query (snapshot.LiveSQL)
// gives exactly the rows of the merged build's tables: the same count,
// which is what /api/stats reports for documents, and the same rows.
func checkLiveTables(t *testing.T, segs []served, deleted [][]int32, want *snapshot.Snapshot) {
	t.Helper()
	root := t.TempDir()
	db := duck(t)
	if _, err := db.Exec("CREATE TABLE del (segment VARCHAR, id VARCHAR)"); err != nil {
		t.Fatal(err)
	}
	tables := []string{snapshot.Documents, snapshot.Fulltext, snapshot.References, snapshot.LicenceEvidence,
		snapshot.Aliases, snapshot.Specs}
	for k, seg := range segs {
		name := fmt.Sprintf("%04d", k)
		dir := filepath.Join(root, snapshot.SegmentsDir, "segment="+name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, table := range tables {
			if err := os.Link(filepath.Join(seg.dir, table+".parquet"), filepath.Join(dir, table+".parquet")); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range deleted[k] {
			if _, err := db.Exec("INSERT INTO del VALUES (?, ?)", name, string(seg.cat.ID(d))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := db.Exec("COPY del TO '" + filepath.Join(root, snapshot.DeletionsTable+".parquet") + "' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		live, merged := "("+snapshot.LiveSQL(root, table)+")", "(SELECT * FROM "+tbl(want, table)+")"
		var n, m, extra, missing int64
		err := db.QueryRow("SELECT (SELECT count(*) FROM "+live+"), (SELECT count(*) FROM "+merged+"), "+
			"(SELECT count(*) FROM ("+live+" EXCEPT ALL "+merged+")), (SELECT count(*) FROM ("+merged+" EXCEPT ALL "+live+"))").
			Scan(&n, &m, &extra, &missing)
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if n != m || extra != 0 || missing != 0 || n == 0 && table == snapshot.Documents {
			t.Errorf("%s: %d live rows over segments (%d not in the merged build, %d missing), the merged build %d",
				table, n, extra, missing, m)
		}
	}
}
