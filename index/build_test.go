package index

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/snapshot"
)

// corpus returns a mixed corpus: licences, topics, a rejected one every
// fifth document, one without any id.
func corpus(n int) (docs []*ingest.Document, rejected []*ingest.Document) {
	lics := []string{"cc-by", "cc0", "cc-by-sa", "pdm"}
	for i := 0; i < n; i++ {
		var d *ingest.Document
		switch {
		case i%5 == 4:
			d = synth(i, []string{"cc-by-nc", ""}[i%2], "genetics")
			rejected = append(rejected, d)
		case i%3 == 0:
			d = synth(i, lics[i%4], "neuroscience", "genetics")
		default:
			d = synth(i, lics[i%4], "neuroscience")
		}
		docs = append(docs, d)
	}
	noID := &ingest.Document{Title: "Orphan without ids", Origin: "orphan.xml", Sources: []string{"jats:publisher"}}
	noID.Licence = testDecide(nil, testNow)
	return append(docs, noID), append(rejected, noID)
}

func TestBuildReadWithDuckDB(t *testing.T) {
	data := t.TempDir()
	docs, rejected := corpus(40)
	man := build(t, testConfig(data), feedDocs(docs...))
	s := open(t, data)
	if s.ID != man.ID || !snapshot.ValidID(s.ID) {
		t.Fatalf("opened %q, built %q", s.ID, man.ID)
	}
	db := duck(t)

	// Licence families as published, against what the corpus says.
	want := map[string]int64{}
	for _, d := range docs {
		if d.Licence.Accepted {
			want[string(d.Licence.Family)]++
		}
	}
	rows, err := db.Query("SELECT license, count(*) FROM " + tbl(s, snapshot.Documents) + " GROUP BY 1")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for rows.Next() {
		var l string
		var n int64
		if err := rows.Scan(&l, &n); err != nil {
			t.Fatal(err)
		}
		got[l] = n
	}
	rows.Close()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("licences %v, want %v", got, want)
	}
	accepted := int64(len(docs) - len(rejected))
	if man.Counts.Accepted != accepted || man.Counts.Rejected != int64(len(rejected)) || man.Counts.Read != int64(len(docs)) {
		t.Errorf("counts %+v", man.Counts)
	}
	if fmt.Sprint(man.Counts.AcceptedByLicence) != fmt.Sprint(want) {
		t.Errorf("accepted_by_licence %v, want %v", man.Counts.AcceptedByLicence, want)
	}
	if man.Counts.RejectedByReason["non-commercial"] != 4 || man.Counts.RejectedByReason["missing"] != 4 ||
		man.Counts.RejectedByReason[ReasonNoID] != 1 {
		t.Errorf("rejected_by_reason %v", man.Counts.RejectedByReason)
	}

	// Sorted by id, types as documented.
	ids := queryStrings(t, db, "SELECT id FROM "+tbl(s, snapshot.Documents))
	if !slices.IsSorted(ids) || int64(len(ids)) != accepted {
		t.Errorf("documents ids not sorted or wrong count: %d", len(ids))
	}
	types := map[string]string{}
	rows, err = db.Query("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM " + tbl(s, snapshot.Documents) + ")")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n, ty string
		rows.Scan(&n, &ty)
		types[n] = ty
	}
	rows.Close()
	for col, ty := range map[string]string{
		"id": "VARCHAR", "aliases": "VARCHAR[]", "year": "INTEGER", "has_fulltext": "BOOLEAN",
		"n_sections": "INTEGER", "keywords": "VARCHAR[]", "licence_evidence": "VARCHAR",
		"authors": "STRUCT(\"name\" VARCHAR, given VARCHAR, \"family\" VARCHAR, orcid VARCHAR, affiliations VARCHAR[])[]",
	} {
		if types[col] != ty {
			t.Errorf("column %s has type %q, want %q", col, types[col], ty)
		}
	}
	if !strings.HasPrefix(types["updated"], "TIMESTAMP") {
		t.Errorf("updated has type %q", types["updated"])
	}

	// One document in detail.
	d := docs[1]
	var title, lic, attribution, evidence, firstAff string
	var year, nsec, nref int32
	var hasFT bool
	err = db.QueryRow(`SELECT title, license, attribution, licence_evidence, year, n_sections, n_references,
		has_fulltext, authors[1].affiliations[1] FROM `+tbl(s, snapshot.Documents)+` WHERE id = ?`, d.ID).
		Scan(&title, &lic, &attribution, &evidence, &year, &nsec, &nref, &hasFT, &firstAff)
	if err != nil {
		t.Fatal(err)
	}
	if title != d.Title || lic != string(d.Licence.Family) || year != int32(d.Year) || nsec != 3 || nref != 2 ||
		!hasFT || firstAff != "Analytical Engines Ltd" || !strings.Contains(evidence, `"jats-href"`) ||
		!strings.Contains(attribution, "Lovelace") {
		t.Errorf("row: %q %q %d %d %d %v %q %q %q", title, lic, year, nsec, nref, hasFT, firstAff, evidence, attribution)
	}

	// Full text flattened depth first; references in order.
	secs := queryStrings(t, db, `SELECT format('{}:{}:{}:{}', ordinal, parent, depth, title) FROM `+
		tbl(s, snapshot.Fulltext)+` WHERE id = ? ORDER BY ordinal`, d.ID)
	if want := []string{"0:-1:0:Introduction", "1:0:1:Background", "2:-1:0:Methods"}; !slices.Equal(secs, want) {
		t.Errorf("sections %q, want %q", secs, want)
	}
	ftIDs := queryStrings(t, db, "SELECT id FROM "+tbl(s, snapshot.Fulltext))
	if !slices.IsSorted(ftIDs) {
		t.Error("fulltext not sorted by id")
	}
	refs := queryStrings(t, db, `SELECT coalesce(nullif(title, ''), raw) FROM `+tbl(s, snapshot.References)+` WHERE id = ? ORDER BY ordinal`, d.ID)
	if want := []string{"A cited work", "Unparsed citation text"}; !slices.Equal(refs, want) {
		t.Errorf("references %q", refs)
	}

	// Topics and bundles agree with the documents.
	for _, topic := range []string{"neuroscience", "genetics", "ecology"} {
		n := queryInt(t, db, "SELECT count(*) FROM "+tbl(s, snapshot.Documents)+" WHERE list_contains(topics, ?)", topic)
		var docsN, bytes int64
		var sum, path string
		if err := db.QueryRow("SELECT documents, bundle_bytes, bundle_sha256, bundle_path FROM "+tbl(s, snapshot.Topics)+
			" WHERE slug = ?", topic).Scan(&docsN, &bytes, &sum, &path); err != nil {
			t.Fatalf("topic %s: %v", topic, err)
		}
		bp, _ := s.BundlePath(topic)
		lines := readBundle(t, bp)
		if docsN != n || int64(len(lines)) != n || filepath.Join(s.Dir, path) != bp || sha256File(t, bp) != sum {
			t.Errorf("topic %s: %d docs, %d in documents, %d bundle lines, path %s", topic, docsN, n, len(lines), path)
		}
		for _, l := range lines {
			for _, key := range []string{"id", "aliases", "title", "authors", "license_url", "attribution", "copyright_notice", "share_alike_notice"} {
				if _, ok := l[key]; !ok {
					t.Errorf("bundle line lacks %q", key)
				}
			}
			if _, ok := l["sections"]; ok {
				t.Error("bundle line carries full text")
			}
		}
	}
	var parent string
	if err := db.QueryRow("SELECT parent FROM " + tbl(s, snapshot.Topics) + " WHERE slug = 'ecology'").Scan(&parent); err != nil || parent != "biology" {
		t.Errorf("ecology parent %q %v", parent, err)
	}
	// The manifest describes every file truthfully.
	for _, f := range man.Files {
		p := filepath.Join(s.Dir, filepath.FromSlash(f.Name))
		if sha256File(t, p) != f.SHA256 {
			t.Errorf("%s: sha256 mismatch", f.Name)
		}
		if strings.HasSuffix(f.Name, ".parquet") {
			if n := queryInt(t, db, "SELECT count(*) FROM '"+p+"'"); n != f.Rows {
				t.Errorf("%s: manifest says %d rows, file has %d", f.Name, f.Rows, n)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(s.Dir, workDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("work directory left in the snapshot: %v", err)
	}
	// CC BY-SA documents carry the share-alike notice, the others do not.
	if n := queryInt(t, db, "SELECT count(*) FROM "+tbl(s, snapshot.Documents)+
		" WHERE (license = 'CC-BY-SA') != (share_alike_notice != '')"); n != 0 {
		t.Errorf("%d documents with a wrong share-alike notice", n)
	}
}

func readBundle(t testing.TB, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var out []map[string]any
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func sha256File(t testing.TB, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil))
}

// TestNoRejectedPublished is the project's most important invariant at this
// level: nothing rejected reaches a published table or bundle.
func TestNoRejectedPublished(t *testing.T) {
	data := t.TempDir()
	docs, rejected := corpus(60)
	// A rejected record merged with an accepted one of another work must not
	// leak either: a PubMed record (no licence) that merges with nothing.
	pub := &ingest.Document{PMID: "999999", Title: "PubMed only", Sources: []string{"pubmed"}, Topics: []string{"genetics"}}
	pub.Licence = testDecide(nil, testNow)
	docs = append(docs, pub)
	rejected = append(rejected, pub)
	build(t, testConfig(data), feedDocs(docs...))
	s := open(t, data)
	db := duck(t)

	var bad []string // every id and title of rejected records
	for _, d := range rejected {
		bad = append(bad, d.IDs()...)
		bad = append(bad, d.Title)
	}
	published := queryStrings(t, db, "SELECT id FROM "+tbl(s, snapshot.Documents))
	checks := map[string]string{
		"documents id":     "SELECT id FROM " + tbl(s, snapshot.Documents),
		"documents alias":  "SELECT unnest(aliases) FROM " + tbl(s, snapshot.Documents),
		"documents title":  "SELECT title FROM " + tbl(s, snapshot.Documents),
		"aliases alias":    "SELECT alias FROM " + tbl(s, snapshot.Aliases),
		"aliases id":       "SELECT id FROM " + tbl(s, snapshot.Aliases),
		"fulltext id":      "SELECT DISTINCT id FROM " + tbl(s, snapshot.Fulltext),
		"references id":    "SELECT DISTINCT id FROM " + tbl(s, snapshot.References),
		"search docs id":   "SELECT id FROM " + tbl(s, snapshot.SearchDocs),
		"postings doc ids": "SELECT DISTINCT d.id FROM " + tbl(s, snapshot.SearchPostings) + " p JOIN " + tbl(s, snapshot.SearchDocs) + " d USING (doc)",
	}
	for name, q := range checks {
		for _, v := range queryStrings(t, db, q) {
			if slices.Contains(bad, v) {
				t.Errorf("%s: rejected %q published", name, v)
			}
		}
	}
	// search/docs numbering is dense and in documents order.
	sd := queryStrings(t, db, "SELECT id FROM "+tbl(s, snapshot.SearchDocs)+" ORDER BY doc")
	if !slices.Equal(sd, published) {
		t.Error("search/docs ids differ from documents order")
	}
	if n := queryInt(t, db, "SELECT count(*) FROM "+tbl(s, snapshot.SearchDocs)+" WHERE doc < 0 OR doc >= ?", len(published)); n != 0 {
		t.Errorf("%d search docs out of range", n)
	}
	// Bundles.
	for _, topic := range []string{"neuroscience", "genetics", "ecology", "biology"} {
		p, _ := s.BundlePath(topic)
		for _, l := range readBundle(t, p) {
			if slices.Contains(bad, l["id"].(string)) || slices.Contains(bad, l["title"].(string)) {
				t.Errorf("bundle %s: rejected %v published", topic, l["id"])
			}
		}
	}
	// And every rejected record is accounted for in rejects.
	n := queryInt(t, db, "SELECT count(*) FROM "+tbl(s, snapshot.Rejects))
	if n != int64(len(rejected)) {
		t.Errorf("rejects has %d rows, want %d", n, len(rejected))
	}
	reasons := queryStrings(t, db, "SELECT DISTINCT reason FROM "+tbl(s, snapshot.Rejects)+" ORDER BY 1")
	if want := []string{"missing", "no-id", "non-commercial"}; !slices.Equal(reasons, want) {
		t.Errorf("reasons %q, want %q", reasons, want)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM "+tbl(s, snapshot.Rejects)+" WHERE reason = 'non-commercial' AND evidence NOT LIKE '%cc-by-nc%'"); n != 0 {
		t.Errorf("%d rejects without their evidence", n)
	}
}

func TestAliasResolution(t *testing.T) {
	data := t.TempDir()
	// Three sources of one work: JATS (pmc + doi), OpenAlex (W + doi + pmid)
	// and PubMed (pmid only, no licence).
	jats := synth(1, "cc-by")
	jats.PMID = ""
	jats.AssignIDs()
	oa := &ingest.Document{OpenAlex: "W42", DOI: jats.DOI, PMID: "777", Title: "OpenAlex title", Sources: []string{"openalex"}}
	oa.Licence = testDecide(nil, testNow)
	pm := &ingest.Document{PMID: "777", Title: "PubMed title", Sources: []string{"pubmed"}}
	build(t, testConfig(data), feedDocs(oa, pm, jats))
	s := open(t, data)
	db := duck(t)
	for _, alias := range []string{"pmc-1001", ingest.DOIID(jats.DOI), "oa-w42", "pmid-777"} {
		var id, title string
		err := db.QueryRow("SELECT a.id, d.title FROM "+tbl(s, snapshot.Aliases)+" a JOIN "+tbl(s, snapshot.Documents)+
			" d ON d.id = a.id WHERE a.alias = ?", alias).Scan(&id, &title)
		if err != nil || id != "pmc-1001" || title != jats.Title {
			t.Errorf("alias %s -> %q %q (%v)", alias, id, title, err)
		}
	}
	aliases := queryStrings(t, db, "SELECT alias FROM "+tbl(s, snapshot.Aliases))
	if !slices.IsSorted(aliases) || len(aliases) != 4 {
		t.Errorf("aliases %q not sorted or wrong count", aliases)
	}
	srcs := queryStrings(t, db, "SELECT array_to_string(sources, ',') FROM "+tbl(s, snapshot.Documents))
	if len(srcs) != 1 || srcs[0] != "jats:pmc,openalex,pubmed" {
		t.Errorf("sources %q", srcs)
	}
}

func TestIncremental(t *testing.T) {
	data := t.TempDir()
	cfg := testConfig(data)
	var first []*ingest.Document
	for i := 0; i < 6; i++ {
		first = append(first, synth(i, "cc-by"))
	}
	m1 := build(t, cfg, feedDocs(first...))

	// Second run: doc 1 updated, doc 2 deleted (PubMed deletion of its
	// pmid), doc 3 retracted, doc 4 now NC, a new doc 10.
	upd := synth(1, "cc-by")
	upd.Title = "Updated title"
	upd.Sections = nil
	retr := &ingest.Document{DOI: first[3].DOI, Retracted: true, Sources: []string{"crossref"}}
	nc := synth(4, "cc-by-nc")
	added := synth(10, "cc-by-sa", "ecology")
	cfg.Now = testNow.Add(24 * time.Hour)
	m2 := build(t, cfg, func(ctx context.Context, sink ingest.Sink) error {
		for _, d := range []*ingest.Document{upd, retr, nc, added} {
			if err := sink.Document(d); err != nil {
				return err
			}
		}
		return sink.Delete(ingest.Deletion{ID: "pmid-5002"})
	})
	if m2.Previous != m1.ID || m2.Counts.Previous != 6 || m2.Counts.Read != 4 || m2.Counts.Deleted != 2 {
		t.Errorf("manifest %+v", m2.Counts)
	}
	s := open(t, data)
	if s.ID != m2.ID {
		t.Fatalf("current is %s, want %s", s.ID, m2.ID)
	}
	db := duck(t)
	got := queryStrings(t, db, "SELECT id || ' ' || title || ' ' || license FROM "+tbl(s, snapshot.Documents))
	want := []string{
		first[0].ID + " " + first[0].Title + " CC-BY",
		first[1].ID + " Updated title CC-BY",
		first[5].ID + " " + first[5].Title + " CC-BY",
		added.ID + " " + added.Title + " CC-BY-SA",
	}
	if !slices.Equal(got, want) {
		t.Errorf("documents\n got %q\nwant %q", got, want)
	}
	// The updated document keeps the carried full text it no longer has?
	// No: the fresh JATS record replaces the carried one entirely.
	if n := queryInt(t, db, "SELECT count(*) FROM "+tbl(s, snapshot.Fulltext)+" WHERE id = ?", first[1].ID); n != 0 {
		t.Errorf("replaced document still has %d sections", n)
	}
	// Carried documents keep their full text and references.
	if n := queryInt(t, db, "SELECT count(*) FROM "+tbl(s, snapshot.Fulltext)+" WHERE id = ?", first[0].ID); n != 3 {
		t.Errorf("carried document has %d sections, want 3", n)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM "+tbl(s, snapshot.References)+" WHERE id = ?", first[0].ID); n != 2 {
		t.Errorf("carried document has %d references, want 2", n)
	}
	// The old snapshot is still there and unchanged.
	old, err := snapshot.OpenDir(filepath.Join(data, snapshot.SnapshotsDir, m1.ID))
	if err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM "+tbl(old, snapshot.Documents)); n != 6 {
		t.Errorf("old snapshot has %d documents", n)
	}
	// A third run with no input carries everything over unchanged.
	cfg.Now = cfg.Now.Add(24 * time.Hour)
	m3 := build(t, cfg, nil)
	s3 := open(t, data)
	for _, name := range []string{snapshot.Documents, snapshot.Fulltext, snapshot.References, snapshot.Aliases} {
		q := "SELECT count(*) FROM (SELECT * FROM " + tbl(s, name) + " EXCEPT ALL SELECT * FROM " + tbl(s3, name) + ")"
		if n := queryInt(t, db, q); n != 0 {
			t.Errorf("%s: %d rows changed by an empty incremental run", name, n)
		}
	}
	if m3.Counts.Accepted != 4 {
		t.Errorf("third run published %d", m3.Counts.Accepted)
	}
}

func TestFreshIgnoresPrevious(t *testing.T) {
	data := t.TempDir()
	cfg := testConfig(data)
	first := build(t, cfg, feedDocs(synth(1, "cc-by"), synth(2, "cc-by")))
	cfg.Fresh = true
	m := build(t, cfg, feedDocs(synth(3, "cc-by"))) // same Now: the id must still sort after
	if m.Counts.Accepted != 1 || m.Previous != "" {
		t.Errorf("fresh build: %+v previous %q", m.Counts, m.Previous)
	}
	if m.ID <= first.ID {
		t.Errorf("second id %s does not sort after %s", m.ID, first.ID)
	}
}

func TestRetentionAndLeftovers(t *testing.T) {
	data := t.TempDir()
	cfg := testConfig(data)
	cfg.Keep = 2
	var ids []string
	for i := 0; i < 4; i++ {
		cfg.Now = testNow.Add(time.Duration(i) * time.Hour)
		ids = append(ids, build(t, cfg, feedDocs(synth(i, "cc-by"))).ID)
	}
	if got := snapshotDirs(t, data); !slices.Equal(got, ids[2:]) {
		t.Errorf("snapshots %q, want %q", got, ids[2:])
	}
	// Leftovers of a killed run are removed by the next one.
	junk := filepath.Join(data, snapshot.SnapshotsDir, snapshot.TmpPrefix+"20200101T000000Z-dead")
	os.MkdirAll(filepath.Join(junk, "search"), 0o755)
	os.WriteFile(filepath.Join(junk, "search", "x"), []byte("x"), 0o644)
	os.Symlink("snapshots/nowhere", filepath.Join(data, ".current-"+"junk"))
	cfg.Now = testNow.Add(10 * time.Hour)
	last := build(t, cfg, nil).ID
	if got := snapshotDirs(t, data); !slices.Equal(got, []string{ids[3], last}) {
		t.Errorf("after cleanup: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(data, ".current-"+"junk")); !errors.Is(err, os.ErrNotExist) {
		t.Error("temporary link left behind")
	}
}

func TestRetentionKeepsCurrent(t *testing.T) {
	data := t.TempDir()
	cfg := testConfig(data)
	m := build(t, cfg, feedDocs(synth(1, "cc-by")))
	// A newer, complete but unpublished snapshot (a crash between rename and
	// switch) must not push current out.
	cfg.Now = testNow.Add(time.Hour)
	orphan, _ := snapshot.NextID(data, cfg.Now)
	os.MkdirAll(filepath.Join(data, snapshot.SnapshotsDir, orphan), 0o755)
	removed, err := snapshot.Prune(data, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 0 {
		t.Errorf("pruned %q", removed)
	}
	if cur, _ := snapshot.Current(data); cur != m.ID {
		t.Errorf("current %s", cur)
	}
}

func TestLocked(t *testing.T) {
	data := t.TempDir()
	b, err := NewBuilder(testConfig(data))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewBuilder(testConfig(data)); !errors.Is(err, ErrLocked) {
		t.Errorf("second builder: %v, want ErrLocked", err)
	}
	tmp := b.tmp
	if err := b.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Abort left %s", tmp)
	}
	if _, err := snapshot.Current(data); !errors.Is(err, snapshot.ErrNoSnapshot) {
		t.Errorf("aborted build published something: %v", err)
	}
	b2, err := NewBuilder(testConfig(data))
	if err != nil {
		t.Fatalf("after Abort: %v", err)
	}
	b2.Abort()
}

func TestAddErrors(t *testing.T) {
	data := t.TempDir()
	b, err := NewBuilder(testConfig(data))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	d2, d1 := synth(2, "cc-by"), synth(1, "cc-by")
	d2.Aliases = append(d2.Aliases, d2.ID, d2.Aliases[0]) // repeats are dropped
	if err := b.Add(d2); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(d1); !errors.Is(err, ErrUnsorted) {
		t.Errorf("unsorted: %v", err)
	}
	if err := b.Add(d2); !errors.Is(err, ErrUnsorted) {
		t.Errorf("duplicate: %v", err)
	}
	noTopic := synth(3, "cc-by")
	noTopic.Topics = nil
	if err := b.Add(noTopic); !errors.Is(err, ErrNoTopic) {
		t.Errorf("no topic: %v", err)
	}
	badSlug := synth(4, "cc-by", "../etc")
	if err := b.Add(badSlug); !errors.Is(err, ErrInvalidDocument) {
		t.Errorf("bad slug: %v", err)
	}
	badID := synth(5, "cc-by")
	badID.ID = "pmc-12x"
	if err := b.Add(badID); !errors.Is(err, ErrInvalidDocument) {
		t.Errorf("bad id: %v", err)
	}
	noURL := synth(6, "cc-by")
	noURL.Licence.URL = ""
	if err := b.Add(noURL); !errors.Is(err, ErrInvalidDocument) {
		t.Errorf("no licence URL: %v", err)
	}
	// Invalid UTF-8 is repaired, not fatal (DuckDB would refuse the file).
	bad := synth(7, "cc-by")
	bad.Title = "broken \xff title"
	// Its sections too, where no reader has vouched for them.
	bad.Sections = []ingest.Section{{Title: "sec \xfe", Paragraphs: []string{"para \xc3"}}}
	bad.SectionsUTF8 = false
	bad.References = []ingest.Reference{{Title: "ref \xfe", Authors: []string{"A \xff"}, Raw: "raw \xc3"}}
	bad.ReferencesUTF8 = false
	if err := b.Add(bad); err != nil {
		t.Fatal(err)
	}
	m, err := b.Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if m.Counts.Accepted != 2 || m.Counts.RejectedByReason[ReasonInvalid] != 4 {
		t.Errorf("counts %+v", m.Counts)
	}
	if err := b.Add(d1); !errors.Is(err, ErrFinished) {
		t.Errorf("Add after Finish: %v", err)
	}
	db := duck(t)
	s := open(t, data)
	if n := queryInt(t, db, "SELECT count(*) - count(DISTINCT alias) FROM "+tbl(s, snapshot.Aliases)); n != 0 {
		t.Errorf("%d repeated aliases", n)
	}
	if n := queryInt(t, db, "SELECT max(len(aliases)) FROM "+tbl(s, snapshot.Documents)); n != 2 {
		t.Errorf("documents.aliases has up to %d entries, want 2", n)
	}
	titles := queryStrings(t, db, "SELECT title FROM "+tbl(s, snapshot.Documents)+" ORDER BY id")
	if len(titles) != 2 || titles[1] != "broken \uFFFD title" {
		t.Errorf("titles %q", titles)
	}
	secs := queryStrings(t, db, "SELECT title || '|' || paragraphs[1] FROM "+tbl(s, snapshot.Fulltext)+" WHERE id = '"+bad.ID+"'")
	if len(secs) != 1 || secs[0] != "sec \uFFFD|para \uFFFD" {
		t.Errorf("sections %q", secs)
	}
	refs := queryStrings(t, db, "SELECT title || '|' || authors[1] || '|' || raw FROM "+tbl(s, snapshot.References)+" WHERE id = '"+bad.ID+"'")
	if len(refs) != 1 || refs[0] != "ref \uFFFD|A \uFFFD|raw \uFFFD" {
		t.Errorf("references %q", refs)
	}
}

func TestBuildCancelled(t *testing.T) {
	data := t.TempDir()
	build(t, testConfig(data), feedDocs(synth(1, "cc-by")))
	before, _ := snapshot.Current(data)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Build(ctx, testConfig(data), func(ctx context.Context, sink ingest.Sink) error {
		sink.Document(synth(2, "cc-by"))
		cancel()
		return ctx.Err()
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	if after, _ := snapshot.Current(data); after != before {
		t.Errorf("current moved to %s", after)
	}
	if got := snapshotDirs(t, data); len(got) != 1 {
		t.Errorf("snapshots after a cancelled build: %q", got)
	}
}

func TestPrepareAssignsTopics(t *testing.T) {
	data := t.TempDir()
	cfg := testConfig(data)
	cfg.Prepare = func(d *ingest.Document) error {
		d.Topics = []string{"biology"}
		return nil
	}
	d := synth(1, "cc-by")
	d.Topics = nil
	m := build(t, cfg, feedDocs(d))
	if m.Counts.Accepted != 1 || m.Counts.Topics != 1 {
		t.Errorf("counts %+v", m.Counts)
	}
}

func TestPreviousRoundTrip(t *testing.T) {
	data := t.TempDir()
	d := synth(1, "cc-by")
	d.Sections = []ingest.Section{
		{Title: "A", Paragraphs: []string{"a"}, Children: []ingest.Section{
			{Title: "A.1", Children: []ingest.Section{{Title: "A.1.a", Paragraphs: []string{"deep"}}}},
			{Title: "A.2"},
		}},
		{Title: "B"},
	}
	build(t, testConfig(data), feedDocs(d))
	var got []*ingest.Document
	if _, err := readPrevious(context.Background(), open(t, data), func(x *ingest.Document) error {
		got = append(got, x)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("read %d documents", len(got))
	}
	g := got[0]
	d.Authors[1].Name = "Émile Durkheim" // documents.parquet fills name from given and family
	if fmt.Sprint(g.Sections) != fmt.Sprint(d.Sections) || fmt.Sprint(g.References) != fmt.Sprint(d.References) ||
		fmt.Sprint(g.Authors) != fmt.Sprint(d.Authors) || g.Title != d.Title || !g.Updated.Equal(d.Updated) ||
		fmt.Sprint(g.Licence.Evidence) != fmt.Sprint(d.Licence.Evidence) || !slices.Equal(g.Aliases, d.Aliases) {
		t.Errorf("round trip\n got %+v\nwant %+v", g, d)
	}
}

func TestSortRuns(t *testing.T) {
	s := newSorter(t.TempDir(), 1000) // forces many runs
	var want []string
	for i := 0; i < 3000; i++ {
		r := fmt.Sprintf("%x-%d", (i*7919)%3001, i)
		switch i % 4 {
		case 1: // a prefix longer than the sort key
			r = "common-prefix-" + r
		case 2: // short records and zero bytes, which the key pads with
			r = strings.Repeat("\x00", i%9) + r[:i%3]
		}
		want = append(want, r)
		if err := s.add([]byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.runs) < 10 {
		t.Fatalf("only %d runs", len(s.runs))
	}
	runs := slices.Clone(s.runs)
	slices.Sort(want)
	var got []string
	if err := s.iterate(func(rec []byte) error { got = append(got, string(rec)); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Error("external sort output differs")
	}
	for _, r := range runs {
		if _, err := os.Stat(r.name); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("run %s not removed", r.name)
		}
	}
}

// TestBuildKeepsGoingPastBadDocument: an accepted document that cannot be
// published is listed in rejects and reported, and the rest is published.
func TestBuildKeepsGoingPastBadDocument(t *testing.T) {
	dir := t.TempDir()
	bad := synth(2, "cc-by")
	bad.Topics = []string{"Not A Slug"}
	var problems []ingest.Problem
	cfg := testConfig(dir)
	cfg.Problem = func(p ingest.Problem) { problems = append(problems, p) }
	m := build(t, cfg, feedDocs(synth(1, "cc-by"), bad, synth(3, "cc-by")))
	if m.Counts.Accepted != 2 || m.Counts.RejectedByReason[ReasonInvalid] != 1 {
		t.Fatalf("counts = %+v", m.Counts)
	}
	if len(problems) != 1 || problems[0].Record != bad.ID {
		t.Fatalf("problems = %+v", problems)
	}
}
