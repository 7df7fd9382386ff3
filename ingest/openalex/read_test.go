package openalex

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/licence"
)

type collect struct {
	docs     []*ingest.Document
	problems []ingest.Problem
	onDoc    func(*ingest.Document) error
}

func (c *collect) Document(d *ingest.Document) error {
	if c.onDoc != nil {
		if err := c.onDoc(d); err != nil {
			return err
		}
	}
	c.docs = append(c.docs, d)
	return nil
}
func (c *collect) Delete(ingest.Deletion) error { return errors.New("openalex never deletes") }
func (c *collect) Problem(p ingest.Problem)     { c.problems = append(c.problems, p) }

func (c *collect) byID(t *testing.T, w string) *ingest.Document {
	t.Helper()
	for _, d := range c.docs {
		if d.OpenAlex == w {
			return d
		}
	}
	t.Fatalf("no document %s", w)
	return nil
}

func readFile(t testing.TB, name string) *collect {
	t.Helper()
	path := fixtures.Path(t, "openalex", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := &collect{}
	if err := Read(context.Background(), f, path, c); err != nil {
		t.Fatalf("Read(%s): %v", name, err)
	}
	return c
}

func readString(t *testing.T, s string) *collect {
	t.Helper()
	c := &collect{}
	if err := Read(context.Background(), strings.NewReader(s), "test.jsonl", c); err != nil {
		t.Fatalf("Read: %v", err)
	}
	return c
}

func TestReadSample(t *testing.T) {
	// The .gz fixture goes straight in: Read recognises gzip by its magic.
	c := readFile(t, "works_sample.jsonl.gz")
	if len(c.problems) != 0 {
		t.Errorf("problems: %+v", c.problems)
	}
	if len(c.docs) != 292 {
		t.Fatalf("documents = %d, want 292", len(c.docs))
	}
	// Expected counts were taken from the file with Python's json module.
	var withDOI, withPMID, withPMC, withAbstract, authors int
	ids := map[string]bool{}
	for _, d := range c.docs {
		if d.DOI != "" {
			withDOI++
		}
		if d.PMID != "" {
			withPMID++
		}
		if d.PMCID != "" {
			withPMC++
		}
		if d.Abstract != "" {
			withAbstract++
		}
		authors += len(d.Authors)
		if ids[d.OpenAlex] {
			t.Errorf("duplicate %s", d.OpenAlex)
		}
		ids[d.OpenAlex] = true
		if !slices.Equal(d.Sources, []string{"openalex"}) || d.Updated.IsZero() || d.Title == "" {
			t.Errorf("%s: sources %v updated %v title %q", d.ID, d.Sources, d.Updated, d.Title)
		}
		if want := "oa-w" + strings.TrimPrefix(d.OpenAlex, "W"); !slices.Contains(append([]string{d.ID}, d.Aliases...), want) {
			t.Errorf("%s: aliases %v lack %s", d.ID, d.Aliases, want)
		}
		for _, ev := range d.Licence.Evidence {
			if ev.Kind != licence.KindOpenAlex || ev.Source != licence.SourceOpenAlex || ev.Value == "" {
				t.Errorf("%s: evidence %+v", d.ID, ev)
			}
		}
		if strings.Contains(d.Title, "<i>") || strings.Contains(d.Title, "<sup>") {
			t.Errorf("%s: markup left in title %q", d.ID, d.Title)
		}
	}
	for name, tc := range map[string]struct{ got, want int }{
		"with DOI":      {withDOI, 229},
		"with PMID":     {withPMID, 24},
		"with PMC id":   {withPMC, 2},
		"with abstract": {withAbstract, 243},
		"authors":       {authors, 695},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d", name, tc.got, tc.want)
		}
	}
	if d := c.byID(t, "W1788105650"); d.PMCID != "1083739" || d.ID != "pmc-1083739" {
		t.Errorf("W1788105650: pmcid %q id %q", d.PMCID, d.ID)
	}
	if d := c.byID(t, "W2331358743"); d.Title != "Looking Ahead to the 5 th World Water Forum — Istanbul 2009" {
		t.Errorf("W2331358743 title %q", d.Title)
	}
}

func TestReadWork(t *testing.T) {
	c := readFile(t, "works_with_licences.jsonl")
	if len(c.docs) != 30 || len(c.problems) != 0 {
		t.Fatalf("docs %d problems %v", len(c.docs), c.problems)
	}
	d := c.byID(t, "W2120048887")
	if d.ID != ingest.DOIID("10.1186/1750-0680-4-11") || d.DOI != "10.1186/1750-0680-4-11" || d.PMID != "19943927" ||
		!slices.Equal(d.Aliases, []string{"oa-w2120048887", "pmid-19943927"}) {
		t.Errorf("ids: %s %v doi %q pmid %q", d.ID, d.Aliases, d.DOI, d.PMID)
	}
	if d.Title != "On fair, effective and efficient REDD mechanism design" || d.Date != "2009-11-27" || d.Year != 2009 ||
		d.Venue != "Carbon Balance and Management" || d.Publisher != "Springer Science+Business Media" ||
		d.Type != "research-article" || d.Language != "en" || d.Retracted {
		t.Errorf("metadata: %+v", d)
	}
	if len(d.Authors) != 12 {
		t.Fatalf("authors = %d, want 12", len(d.Authors))
	}
	a := d.Authors[0]
	if a.Name != "Michael Obersteiner" || a.ORCID != "0000-0001-6981-2769" || !slices.Equal(a.Affiliations, []string{
		"International Institute for Applied Systems Analysis, Schlossplatz 1, Laxenburg, Austria. oberstei@iiasa.ac.at",
		"International Institute for Applied Systems Analysis Laxenburg Austria"}) {
		t.Errorf("first author: %+v", a)
	}
	for _, s := range []string{"Conservation, Biodiversity, and Resource Management", "Economic and Environmental Valuation",
		"Environmental Science", "Reducing emissions from deforestation and forest degradation", "Greenhouse gas"} {
		if !slices.Contains(d.Subjects, s) {
			t.Errorf("subjects lack %q: %v", s, d.Subjects)
		}
	}
	if len(d.Keywords) != 11 || d.Keywords[0] != "Reducing emissions from deforestation and forest degradation" {
		t.Errorf("keywords: %v", d.Keywords)
	}
	if want := time.Date(2026, 1, 13, 1, 12, 25, 745995000, time.UTC); !c.byID(t, "W1481692236").Updated.Equal(want) {
		t.Errorf("updated = %v, want %v", c.byID(t, "W1481692236").Updated, want)
	}
}

func TestAbstract(t *testing.T) {
	c := readFile(t, "works_with_licences.jsonl")
	d := c.byID(t, "W1481692236")
	words := strings.Fields(d.Abstract)
	if len(words) != 477 {
		t.Errorf("abstract has %d words, want 477", len(words))
	}
	if !strings.HasPrefix(d.Abstract, "A decision model for the efficient management of a conservation fund over time.— An important task of conservation biology is to assist policy makers") {
		t.Errorf("abstract start: %.160q", d.Abstract)
	}
	if !strings.HasSuffix(d.Abstract, "or through a decline in donations for private organisations that finance conservation funds....") {
		t.Errorf("abstract end: %q", d.Abstract[len(d.Abstract)-120:])
	}

	for _, tc := range []struct{ name, index, want string }{
		{"plain", `{"world":[1],"Hello":[0],"again":[3],"hello":[2]}`, "Hello world hello again"},
		{"gap and tie", `{"b":[0],"a":[0],"c":[5]}`, "a c"},
		{"huge position", `{"x":[2000000000],"y":[0]}`, "y x"},
		{"negative", `{"x":[-1],"y":[0]}`, "y"},
		{"string form", `"{\"b\":[1],\"a\":[0]}"`, "a b"},
		{"MAG form", `{"IndexLength":2,"InvertedIndex":{"b":[1],"a":[0]}}`, "a b"},
		{"markup", `{"<i>Homo":[0],"sapiens</i>":[1]}`, "Homo sapiens"},
		{"not an index", `[1,2]`, ""},
	} {
		if got := abstract(rawJSON(tc.index)); got != tc.want {
			t.Errorf("%s: abstract(%s) = %q, want %q", tc.name, tc.index, got, tc.want)
		}
	}
}

// TestEvidence checks which location licences count (package doc; sources.md
// section 7.5 and the fixture's SOURCES.md).
func TestEvidence(t *testing.T) {
	c := readFile(t, "works_with_licences.jsonl")
	type ev struct{ value, version string }
	for _, tc := range []struct {
		id   string
		want []ev
		why  string
	}{
		// Every location is evidence (issue 13); Decide picks the version.
		{"W1481692236", []ev{{"cc-by", "publishedVersion"}, {"cc-by-sa", "submittedVersion"}, {"cc-by", "submittedVersion"}}, "SHILAP copies recorded, ignored by Decide"},
		{"W2144516619", []ev{{"cc-by", "publishedVersion"}, {"cc-by-sa", "submittedVersion"}, {"cc-by", "submittedVersion"}}, "SHILAP and PMC submittedVersion copies recorded"},
		{"W2122299184", []ev{{"cc-by", "publishedVersion"}, {"cc-by-sa", "submittedVersion"}}, "SHILAP recorded"},
		{"W220978818", []ev{{"cc-by", "publishedVersion"}, {"other-oa", "publishedVersion"}}, "a repository's other-oa on the published version"},
		{"W2012599372", []ev{{"other-oa", "publishedVersion"}, {"null", "publishedVersion"}}, "repeated value recorded once; open PMC copy without licence"},
		{"W1621318800", []ev{{"public-domain", "publishedVersion"}}, "Nature 1992 labelled public-domain: passed on for Decide to doubt"},
		{"W2123181255", []ev{{"cc-by-nc-nd", ""}}, "primary without a version still counts"},
		{"W1603314123", []ev{{"cc-by-sa", "submittedVersion"}}, "primary location is a submitted version"},
		{"W1540100396", []ev{{"cc-by", "submittedVersion"}}, "only a repository preprint is cc-by"},
		{"W2011555605", []ev{{"cc-by-nc-nd", "submittedVersion"}}, "cc-by-nc-nd only on a submittedVersion"},
		{"W2098498233", []ev{{"null", "publishedVersion"}, {"cc-by", "submittedVersion"}}, "open published copy without licence"},
	} {
		d := c.byID(t, tc.id)
		var got []ev
		for _, e := range d.Licence.Evidence {
			got = append(got, ev{e.Value, e.ContentVersion})
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s (%s): evidence %v, want %v", tc.id, tc.why, got, tc.want)
		}
	}
}

// TestLicenceVerdicts checks the verdicts the fixture notes imply, once the
// real licence.Decide is in place.
func TestLicenceVerdicts(t *testing.T) {
	c := readFile(t, "works_with_licences.jsonl")
	for _, tc := range []struct {
		id     string
		family licence.Family // "" = rejected
	}{
		{"W1481692236", licence.CCBY},
		{"W2144516619", licence.CCBY}, // not BY-SA from the stray SHILAP copy
		{"W2122299184", licence.CCBY},
		{"W2120048887", licence.CCBY},
		{"W1621318800", ""},           // Nature 1992 "public-domain" is not proven
		{"W2123181255", ""},           // cc-by-nc-nd
		{"W2012599372", ""},           // other-oa
		{"W1540100396", licence.CCBY}, // its only open copy is a CC BY preprint (issue 13)
		{"W1603314123", licence.CCBYSA},
		{"W2011555605", ""}, // NC on the only open copy
		{"W2098498233", ""}, // the published copy is open without a licence
		{"W220978818", ""},  // other-oa on a published copy
	} {
		d := c.byID(t, tc.id).Licence
		if d.Accepted != (tc.family != "") || d.Family != tc.family {
			t.Errorf("%s: accepted %v family %q reason %q (%s), want family %q", tc.id, d.Accepted, d.Family, d.Reason, d.Detail, tc.family)
		}
	}
}

// TestNewestWins merges the older copies with the current sample the way
// the merge step does (keep the Newer one per id) and checks the sample's
// copy wins whatever the reading order.
func TestNewestWins(t *testing.T) {
	older := readFile(t, "works_older_versions.jsonl")
	current := readFile(t, "works_sample.jsonl.gz")
	if len(older.docs) != 83 || len(older.problems) != 0 {
		t.Fatalf("older: %d docs, problems %v", len(older.docs), older.problems)
	}
	// Key by OpenAlex id: the canonical id can change between versions
	// (the older copies of W2011193578, W2120048887 and W2144516619 have
	// PMC ids the newer ones lack).
	byID := map[string]*ingest.Document{}
	for _, d := range current.docs {
		byID[d.OpenAlex] = d
	}
	for _, o := range older.docs {
		n := byID[o.OpenAlex]
		if n == nil {
			t.Fatalf("%s: older copy of a work missing from the sample", o.ID)
		}
		if !Newer(n, o) || Newer(o, n) {
			t.Errorf("%s: sample %v should be newer than %v", o.ID, n.Updated, o.Updated)
		}
	}
	for _, order := range [][]*ingest.Document{
		append(slices.Clone(older.docs), current.docs...),
		append(slices.Clone(current.docs), older.docs...),
	} {
		kept := map[string]*ingest.Document{}
		for _, d := range order {
			if Newer(d, kept[d.OpenAlex]) {
				kept[d.OpenAlex] = d
			}
		}
		if len(kept) != 292 {
			t.Errorf("kept %d works, want 292", len(kept))
		}
		for id, d := range kept {
			if d != byID[id] {
				t.Errorf("%s: kept the copy from %v", id, d.Updated)
			}
		}
	}
	if Newer(nil, older.docs[0]) || !Newer(older.docs[0], nil) || Newer(older.docs[0], older.docs[0]) {
		t.Error("Newer: nil and equal cases")
	}
}

func TestReadProblems(t *testing.T) {
	good := `{"id":"https://openalex.org/W1","title":"One","updated_date":"2024-01-02"}`
	in := strings.Join([]string{
		good,
		``,
		`   `,
		`{"id":"https://openalex.org/W2","title":"Two"`, // truncated
		`not json`,
		`{"id":"https://openalex.org/W3","title":["wrong","type"]}`,
		`{"title":"no id"}`,
		`null`,
		`{"id":"https://openalex.org/W4","ids":{"pmid":19943927},"title":"Four"}`,
		"\r",
	}, "\n")
	c := readString(t, in)
	if len(c.docs) != 2 || c.docs[0].OpenAlex != "W1" || c.docs[1].PMID != "19943927" {
		t.Fatalf("docs: %+v", c.docs)
	}
	if !c.docs[0].Updated.Equal(time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("date-only updated_date: %v", c.docs[0].Updated)
	}
	var records []string
	for _, p := range c.problems {
		records = append(records, p.Record)
		if p.Path != "test.jsonl" || p.Reason == "" {
			t.Errorf("problem %+v", p)
		}
	}
	want := []string{"line 4", "line 5", "line 6 (https://openalex.org/W3)", "line 7", "line 8"}
	if !slices.Equal(records, want) {
		t.Errorf("problem records %q, want %q", records, want)
	}
}

func TestReadLongLine(t *testing.T) {
	in := `{"id":"W1","title":"` + strings.Repeat("x", 5000) + `"}` + "\n" + `{"id":"W2","title":"short"}`
	c := &collect{}
	if err := read(context.Background(), strings.NewReader(in), "t", c, 1024); err != nil {
		t.Fatal(err)
	}
	if len(c.docs) != 1 || c.docs[0].OpenAlex != "W2" || len(c.problems) != 1 || c.problems[0].Record != "line 1" {
		t.Errorf("docs %+v problems %+v", c.docs, c.problems)
	}
}

func TestReadBadGzip(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(strings.Repeat(`{"id":"W1","title":"t"}`+"\n", 1000)))
	zw.Close()
	b := buf.Bytes()
	b[len(b)/2] ^= 0xff // corrupt the deflate stream
	c := &collect{}
	if err := Read(context.Background(), bytes.NewReader(b), "x.gz", c); err != nil {
		t.Fatalf("corrupt gzip must be a Problem, got %v", err)
	}
	if len(c.problems) != 1 {
		t.Errorf("problems %+v", c.problems)
	}
}

func TestReadStops(t *testing.T) {
	lines := strings.Repeat(`{"id":"W1","title":"t"}`+"\n", 10)
	errSink := errors.New("sink full")
	c := &collect{onDoc: func(*ingest.Document) error { return errSink }}
	if err := Read(context.Background(), strings.NewReader(lines), "x", c); !errors.Is(err, errSink) {
		t.Errorf("sink error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c = &collect{onDoc: func(*ingest.Document) error { cancel(); return nil }}
	if err := Read(ctx, strings.NewReader(lines), "x", c); !errors.Is(err, context.Canceled) || len(c.docs) != 1 {
		t.Errorf("cancel: %v after %d docs", err, len(c.docs))
	}
	errDisk := errors.New("disk on fire")
	c = &collect{}
	r := io.MultiReader(strings.NewReader(lines), failing{errDisk})
	if err := Read(context.Background(), r, "x", c); !errors.Is(err, errDisk) {
		t.Errorf("I/O error: %v", err)
	}
}

type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }

func BenchmarkRead(b *testing.B) {
	f, err := os.Open(fixtures.Path(b, "openalex", "works_sample.jsonl.gz"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		d := &discard{}
		if err := Read(context.Background(), bytes.NewReader(raw), "bench", d); err != nil || d.docs != 292 {
			b.Fatalf("err %v docs %d", err, d.docs)
		}
	}
}

type discard struct{ docs int }

func (d *discard) Document(*ingest.Document) error { d.docs++; return nil }
func (d *discard) Delete(ingest.Deletion) error    { return nil }
func (d *discard) Problem(ingest.Problem)          {}
