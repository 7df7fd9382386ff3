package crossref

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
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
func (c *collect) Delete(ingest.Deletion) error { return errors.New("crossref never deletes") }
func (c *collect) Problem(p ingest.Problem)     { c.problems = append(c.problems, p) }

func (c *collect) byDOI(t *testing.T, doi string) *ingest.Document {
	t.Helper()
	for _, d := range c.docs {
		if d.DOI == doi {
			return d
		}
	}
	t.Fatalf("no document with DOI %s", doi)
	return nil
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, "crossref", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readBytes(t *testing.T, b []byte) *collect {
	t.Helper()
	c := &collect{}
	if err := Read(context.Background(), bytes.NewReader(b), "test.json", c); err != nil {
		t.Fatalf("Read: %v", err)
	}
	return c
}

type ev struct {
	version, url string
	start        string // 2006-01-02, "" for none
	delay        int
}

func evidenceOf(d *ingest.Document) []ev {
	var out []ev
	for _, e := range d.Licence.Evidence {
		s := ""
		if !e.Start.IsZero() {
			s = e.Start.Format("2006-01-02")
		}
		if e.Kind != licence.KindCrossref || e.Source != licence.SourceCrossref {
			s = "WRONG KIND " + string(e.Kind)
		}
		out = append(out, ev{e.ContentVersion, e.Value, s, e.DelayDays})
	}
	return out
}

func TestReadSingleWork(t *testing.T) {
	raw := fixture(t, "work_10.7554_elife.01567.json")
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		t.Fatal(err)
	}
	// The same work as a bare pretty-printed object (stream mode), as an
	// API response, and as a compact line (line mode) must read the same.
	inputs := map[string][]byte{
		"bare":             raw,
		"api response":     []byte(`{"status":"ok","message-type":"work","message-version":"1.0.0","message":` + string(raw) + "}"),
		"compact line":     compact.Bytes(),
		"compact api":      []byte(`{"status":"ok","message-type":"work","message":` + compact.String() + "}\n"),
		"array of one":     []byte("[\n" + string(raw) + "\n]"),
		"list of one":      []byte(`{"items":[` + compact.String() + `]}`),
		"two concatenated": append(append(slices.Clone(raw), '\n'), raw...),
	}
	var first *ingest.Document
	for name, in := range inputs {
		c := readBytes(t, in)
		want := 1
		if name == "two concatenated" {
			want = 2
		}
		if len(c.docs) != want || len(c.problems) != 0 {
			t.Fatalf("%s: docs %d problems %+v", name, len(c.docs), c.problems)
		}
		if first == nil {
			first = c.docs[0]
		} else if !reflect.DeepEqual(first, c.docs[0]) {
			t.Errorf("%s: differs:\n%+v\n%+v", name, c.docs[0], first)
		}
	}

	d := first
	if d.ID != ingest.DOIID("10.7554/elife.01567") || d.DOI != "10.7554/elife.01567" || len(d.Aliases) != 0 ||
		d.Title != "Automated quantitative histology reveals vascular morphodynamics during Arabidopsis hypocotyl secondary growth" ||
		d.Venue != "eLife" || d.Publisher != "eLife Sciences Publications, Ltd" || d.Date != "2014-02-11" || d.Year != 2014 ||
		d.Type != "research-article" || d.Language != "en" || !slices.Equal(d.Sources, []string{"crossref"}) {
		t.Errorf("metadata: %+v", d)
	}
	if !d.Updated.Equal(time.Date(2022, 9, 8, 23, 27, 28, 0, time.UTC)) {
		t.Errorf("updated = %v", d.Updated)
	}
	if len(d.Authors) != 5 || d.Authors[4].Name != "Christian S Hardtke" || d.Authors[4].Family != "Hardtke" ||
		!slices.Equal(d.Authors[3].Affiliations, []string{"Vital-IT, Swiss Institute of Bioinformatics, Lausanne, Switzerland"}) {
		t.Errorf("authors: %+v", d.Authors)
	}
	if !strings.HasPrefix(d.Abstract, "Among various advantages, their small size makes model organisms preferred subjects") ||
		!strings.HasSuffix(d.Abstract, "for example equidistant phloem pole formation.") || strings.Contains(d.Abstract, "<") {
		t.Errorf("abstract: %q", d.Abstract)
	}
	if len(d.Subjects) != 4 || d.Subjects[0] != "General Immunology and Microbiology" {
		t.Errorf("subjects: %v", d.Subjects)
	}
	wantRef := ingest.Reference{Label: "bib1", Authors: []string{"Bonke"}, Title: "APL regulates vascular tissue identity in Arabidopsis",
		Source: "Nature", Year: "2003", Volume: "426", Pages: "181", DOI: "10.1038/nature02100"}
	if len(d.References) != 27 || !reflect.DeepEqual(d.References[0], wantRef) {
		t.Errorf("references (%d): %+v", len(d.References), d.References[0])
	}
	// Six license[] entries: by/3.0 for vor, am and tdm, each twice.
	wantEv := []ev{
		{"vor", "http://creativecommons.org/licenses/by/3.0/", "2014-02-11", 0},
		{"am", "http://creativecommons.org/licenses/by/3.0/", "2014-02-11", 0},
		{"tdm", "http://creativecommons.org/licenses/by/3.0/", "2014-02-11", 0},
	}
	if got := evidenceOf(d); !slices.Equal(got, wantEv) {
		t.Errorf("evidence %v, want %v", got, wantEv)
	}
}

func TestReadWileySingle(t *testing.T) {
	c := readBytes(t, fixture(t, "work_wiley_tdm_plus_vor_bync-nd.json"))
	if len(c.docs) != 1 || len(c.problems) != 0 {
		t.Fatalf("docs %d problems %+v", len(c.docs), c.problems)
	}
	d := c.docs[0]
	if d.DOI != "10.1002/(sici)1097-461x(1998)66:4<261::aid-qua1>3.0.co;2-t" || d.Language != "fr" || d.Date != "1998" ||
		d.Title != "Renormalized perturbation theory by the moment method for degenerate states: Anharmonic oscillators" ||
		d.Venue != "International Journal of Quantum Chemistry" || len(d.References) != 25 {
		t.Errorf("metadata: %+v", d)
	}
	// The fourth author has neither name nor family name.
	if len(d.Authors) != 3 || !slices.Equal(d.Authors[1].Affiliations, []string{"Some University", "Some Department"}) {
		t.Errorf("authors: %+v", d.Authors)
	}
	want := []ev{
		{"tdm", "http://doi.wiley.com/10.1002/tdm_license_1.1", "2015-09-01", 6452},
		{"vor", "http://creativecommons.org/licenses/by-nc-nd/3.0/", "", 0},
	}
	if got := evidenceOf(d); !slices.Equal(got, want) {
		t.Errorf("evidence %v, want %v", got, want)
	}
}

// TestReadMongoExport: the MongoDB export and its plain JSON Lines
// conversion hold the same 14 records and must read identically.
func TestReadMongoExport(t *testing.T) {
	mongo := readBytes(t, fixture(t, "works_2018-01-21_badsample.mongoexport.json"))
	plain := readBytes(t, fixture(t, "works_2018-01-21_sample.jsonl"))
	if len(mongo.docs) != 14 || len(plain.docs) != 14 || len(mongo.problems)+len(plain.problems) != 0 {
		t.Fatalf("mongo %d docs %v; plain %d docs %v", len(mongo.docs), mongo.problems, len(plain.docs), plain.problems)
	}
	for i := range mongo.docs {
		if !reflect.DeepEqual(mongo.docs[i], plain.docs[i]) {
			t.Errorf("record %d differs:\n%+v\n%+v", i+1, mongo.docs[i], plain.docs[i])
		}
	}
	// Lines 12 and 13 are the same Hindawi work, but line 12's ORCID has a
	// wrong check digit: it is dropped, not kept.
	if a, b := plain.docs[11].Authors[0].ORCID, plain.docs[12].Authors[0].ORCID; a != "" || b != "0000-0002-4447-5978" {
		t.Errorf("ORCIDs %q, %q", a, b)
	}

	for _, tc := range []struct {
		doi  string
		want []ev
	}{
		{"10.1002/cfg.158", []ev{{"vor", "http://creativecommons.org/licenses/by/3.0/", "2002-01-01", 0}}},
		{"10.1006/mthe.2001.0464", []ev{
			{"tdm", "http://www.elsevier.com/tdm/userlicense/1.0/", "2001-10-01", 0},
			{"vor", "http://creativecommons.org/licenses/by-nc-nd/4.0/", "2016-10-07", 5485},
		}},
		{"10.1067/mjd.2002.110660", []ev{{"tdm", "http://www.elsevier.com/tdm/userlicense/1.0/", "2002-03-01", 0}}},
		{"10.1002/cbf.935", []ev{{"tdm", "http://doi.wiley.com/10.1002/tdm_license_1.1", "2015-09-01", 4991}}},
		{"10.1007/s002560100423", nil},
	} {
		if got := evidenceOf(plain.byDOI(t, tc.doi)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: evidence %v, want %v", tc.doi, got, tc.want)
		}
	}
	d := plain.byDOI(t, "10.1002/cfg.158")
	if d.Abstract != "This brief meeting review summarizes the recommendations of NSF and NPGI funded bioinformaticians concerning the future requirements for plant bioinformatics systems and databases." {
		t.Errorf("abstract %q", d.Abstract)
	}
}

func TestReadLists(t *testing.T) {
	c := readBytes(t, fixture(t, "works_list_no_license.json"))
	if len(c.docs) != 20 || len(c.problems) != 0 {
		t.Fatalf("no-licence list: docs %d problems %+v", len(c.docs), c.problems)
	}
	for _, d := range c.docs {
		if len(d.Licence.Evidence) != 0 || d.Licence.Accepted {
			t.Errorf("%s: %+v", d.DOI, d.Licence)
		}
	}
	// The malformed DOI with an embedded resolver URL is repaired.
	if d := c.byDOI(t, "10.5424/sjar/20110903-330-10"); d.ID != ingest.DOIID("10.5424/sjar/20110903-330-10") {
		t.Errorf("repaired DOI id %s", d.ID)
	}
	if d := c.byDOI(t, "10.1002/mmnd.4800460214"); !strings.Contains(d.Title, "Tarmann, G. M. & W. G.") {
		t.Errorf("entity in title not decoded: %q", d.Title)
	}

	c = readBytes(t, fixture(t, "works_api_response.json"))
	if len(c.docs) != 3 || len(c.problems) != 0 {
		t.Fatalf("API list: docs %d problems %+v", len(c.docs), c.problems)
	}
	if d := c.byDOI(t, "10.1109/infvis.2005.1532150"); d.Date != "" || d.Year != 0 || d.Type != "conference-paper" || len(d.Authors) != 5 {
		t.Errorf("date-parts [[null]]: %+v", d)
	}
	if got := evidenceOf(c.byDOI(t, "10.1007/s10107-009-0306-5")); !slices.Equal(got, []ev{{"tdm", "http://www.springer.com/tdm", "2009-09-23", 0}}) {
		t.Errorf("springer evidence %v", got)
	}
}

// TestLicenceVerdicts checks the "Expected pipeline verdict" column of the
// fixture's SOURCES.md, once the real licence.Decide is in place.
func TestLicenceVerdicts(t *testing.T) {
	all := &collect{}
	for _, name := range []string{"work_10.7554_elife.01567.json", "work_wiley_tdm_plus_vor_bync-nd.json",
		"works_2018-01-21_sample.jsonl", "works_api_response.json", "works_list_no_license.json"} {
		c := readBytes(t, fixture(t, name))
		all.docs = append(all.docs, c.docs...)
	}
	accepted := map[string]licence.Family{"10.7554/elife.01567": licence.CCBY, "10.1002/cfg.158": licence.CCBY}
	reasons := map[string]licence.Reason{
		"10.1067/mjd.2002.110660":                     licence.TDMOnly,
		"10.1007/s10107-009-0306-5":                   licence.TDMOnly,
		"10.1109/mitp.2002.1041177":                   licence.Missing,
		"10.1306/64ed9fd8-1724-11d7-8645000102c1865d": licence.Missing,
	}
	for _, d := range all.docs {
		l := d.Licence
		if fam, ok := accepted[d.DOI]; ok {
			if !l.Accepted || l.Family != fam {
				t.Errorf("%s: want %s, got %+v", d.DOI, fam, l)
			}
			continue
		}
		if l.Accepted {
			t.Errorf("%s: must be rejected, got %+v", d.DOI, l)
		}
		if r, ok := reasons[d.DOI]; ok && l.Reason != r {
			t.Errorf("%s: reason %q, want %q", d.DOI, l.Reason, r)
		}
	}
}

func TestEvidenceStartFromDelay(t *testing.T) {
	in := `{"DOI":"10.1/x","issued":{"date-parts":[[2001,10]]},"license":[` +
		`{"URL":"http://creativecommons.org/licenses/by/4.0/","content-version":"vor","delay-in-days":30},` +
		`{"URL":"http://creativecommons.org/licenses/by/4.0/","content-version":"am","delay-in-days":{"$numberLong":"0"},"start":{"date-parts":[[2001,10,5]]}},` +
		`{"URL":"http://example.org/l","content-version":"unspecified","start":{"date-time":{"$date":"2020-01-02T03:04:05Z"}}},` +
		`{"URL":"","content-version":"vor"}]}`
	c := readBytes(t, []byte(in))
	if len(c.docs) != 1 {
		t.Fatalf("docs %d problems %v", len(c.docs), c.problems)
	}
	want := []ev{
		// Issued 2001-10 is taken as 2001-10-31 so the embargo never ends early.
		{"vor", "http://creativecommons.org/licenses/by/4.0/", "2001-11-30", 30},
		{"am", "http://creativecommons.org/licenses/by/4.0/", "2001-10-05", 0},
		{"unspecified", "http://example.org/l", "2020-01-02", 0},
	}
	if got := evidenceOf(c.docs[0]); !slices.Equal(got, want) {
		t.Errorf("evidence %v, want %v", got, want)
	}
}

func TestRetractionsAndCorrections(t *testing.T) {
	for _, tc := range []struct {
		name, in  string
		typ       string
		retracted bool
	}{
		{"notice", `{"DOI":"10.1/n","type":"journal-article","update-to":[{"DOI":"10.1/orig","type":"retraction","label":"Retraction"}]}`, "retraction", false}, // issue 13: a notice is a document
		{"withdrawal", `{"DOI":"10.1/w","type":"journal-article","update-to":[{"DOI":"10.1/orig","type":"withdrawal"}]}`, "retraction", false},
		{"retracted work", `{"DOI":"10.1/r","type":"journal-article","updated-by":[{"DOI":"10.1/n","type":"retraction","source":"retraction-watch"}]}`, "research-article", true},
		{"correction", `{"DOI":"10.1/c","type":"journal-article","update-to":[{"DOI":"10.1/orig","type":"correction"}]}`, "correction", false},
		{"corrected work", `{"DOI":"10.1/k","type":"journal-article","updated-by":[{"DOI":"10.1/c","type":"erratum"}]}`, "research-article", false},
		{"preprint", `{"DOI":"10.1/p","type":"posted-content","subtype":"preprint"}`, "preprint", false},
	} {
		c := readBytes(t, []byte(tc.in))
		if len(c.docs) != 1 || c.docs[0].Type != tc.typ || c.docs[0].Retracted != tc.retracted {
			t.Errorf("%s: %+v %v", tc.name, c.docs, c.problems)
		}
	}
}

func TestRepairDOI(t *testing.T) {
	for in, want := range map[string]string{
		"10.5424/http://dx.doi.org/10.5424/sjar/20110903-330-10":     "10.5424/sjar/20110903-330-10",
		"https://doi.org/10.7554/eLife.01567":                        "10.7554/elife.01567",
		"10.1002/(SICI)1097-461X(1998)66:4<261::AID-QUA1>3.0.CO;2-T": "10.1002/(sici)1097-461x(1998)66:4<261::aid-qua1>3.0.co;2-t",
		"not a doi": "",
	} {
		if got := repairDOI(in); got != want {
			t.Errorf("repairDOI(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReadProblemsLines damages the real JSON Lines sample: each bad line
// is a Problem naming its line, and every good line is still read.
func TestReadProblemsLines(t *testing.T) {
	lines := strings.Split(strings.TrimRight(string(fixture(t, "works_2018-01-21_sample.jsonl")), "\n"), "\n")
	if len(lines) != 14 {
		t.Fatalf("sample has %d lines", len(lines))
	}
	damaged := []string{
		lines[0],
		"",
		lines[1][:len(lines[1])/2], // line 3: truncated
		lines[2],
		"{not json",                          // line 5
		`{"DOI":"10.1/x","author":"nobody"}`, // line 6: wrong type
		`{"title":["no DOI"]}`,               // line 7
		`{"status":"error","message-type":"validation-failure","message":[{"type":"bad-filter"}]}`, // line 8
		`42`, // line 9
	}
	damaged = append(damaged, lines[4:]...)
	c := readBytes(t, []byte(strings.Join(damaged, "\n")))
	var records []string
	for _, p := range c.problems {
		records = append(records, p.Record)
	}
	want := []string{"line 3", "line 5", "line 6", "line 7", "line 8", "line 9"}
	if !slices.Equal(records, want) {
		t.Errorf("problem records %q, want %q (%+v)", records, want, c.problems)
	}
	if len(c.docs) != 12 { // 14 records less the truncated one and lines[3], left out
		t.Errorf("docs = %d, want 12", len(c.docs))
	}
}

func TestReadProblemsStream(t *testing.T) {
	// Pretty-printed, so stream mode: a work of the wrong shape inside a
	// list is skipped, the rest of the list is read.
	list := "{\n \"status\": \"ok\",\n \"message\": {\n  \"items\": [\n" +
		"   {\"DOI\": \"10.1/a\"},\n   {\"DOI\": 5},\n   {\"DOI\": \"10.1/b\", \"issued\": {\"date-parts\": \"2001\"}},\n" +
		"   [],\n   {\"title\": [\"no doi\"]},\n   {\"DOI\": \"10.1/c\"}\n  ]\n }\n}\n"
	c := readBytes(t, []byte(list))
	var dois, records []string
	for _, d := range c.docs {
		dois = append(dois, d.DOI)
	}
	for _, p := range c.problems {
		records = append(records, p.Record)
	}
	if !slices.Equal(dois, []string{"10.1/a", "10.1/c"}) ||
		!slices.Equal(records, []string{"value 1 item 2", "value 1 item 3", "value 1 item 4", "value 1 item 5"}) {
		t.Errorf("docs %v problems %q", dois, records)
	}

	// A syntax error ends the stream with one Problem; what came before it
	// is kept.
	broken := "[\n {\"DOI\": \"10.1/a\"},\n {\"DOI\": \"10.1/b\",, }\n, {\"DOI\": \"10.1/c\"}]"
	c = readBytes(t, []byte(broken))
	if len(c.docs) != 1 || len(c.problems) != 1 || !strings.Contains(c.problems[0].Reason, "stopped") {
		t.Errorf("broken: docs %d problems %+v", len(c.docs), c.problems)
	}

	// An API error response says so.
	c = readBytes(t, []byte("{\n \"status\": \"error\",\n \"message-type\": \"validation-failure\",\n \"message\": [{\"type\": \"x\"}]\n}"))
	if len(c.docs) != 0 || len(c.problems) != 1 || !strings.Contains(c.problems[0].Reason, "no work") {
		t.Errorf("error response: %+v", c.problems)
	}
}

func TestReadLongLine(t *testing.T) {
	in := `{"DOI":"10.1/a"}` + "\n" + `{"DOI":"10.1/b","title":["` + strings.Repeat("x", 5000) + `"]}` + "\n" + `{"DOI":"10.1/c"}`
	c := &collect{}
	if err := read(context.Background(), strings.NewReader(in), "t", c, 1024); err != nil {
		t.Fatal(err)
	}
	if len(c.docs) != 2 || len(c.problems) != 1 || c.problems[0].Record != "line 2" {
		t.Errorf("docs %d problems %+v", len(c.docs), c.problems)
	}
}

// listResponse generates a one-line API list response of n works lazily,
// larger than sniffSize so it is read in stream mode, and counts the bytes
// read so far.
type listResponse struct {
	n, i       int
	buf        bytes.Buffer
	read, size int
}

const listHead = `{"status":"ok","message-type":"work-list","message":{"total-results":99,"items":[`
const listTail = `],"items-per-page":20}}`

func listItem(i int) string {
	return fmt.Sprintf(`%s{"DOI":"10.1234/gen.%d","title":["Work %d"],"license":[{"URL":"http://creativecommons.org/licenses/by/4.0/","content-version":"vor","delay-in-days":0}],"reference":[{"key":"r1","unstructured":"%s"}]}`,
		map[bool]string{true: "", false: ","}[i == 0], i, i, strings.Repeat("x", 200))
}

func newListResponse(n int) *listResponse {
	l := &listResponse{n: n, size: len(listHead) + len(listTail)}
	for i := range n {
		l.size += len(listItem(i))
	}
	l.buf.WriteString(listHead)
	return l
}

func (l *listResponse) Read(p []byte) (int, error) {
	for l.buf.Len() < len(p) && l.i <= l.n {
		if l.i == l.n {
			l.buf.WriteString(listTail)
		} else {
			l.buf.WriteString(listItem(l.i))
		}
		l.i++
	}
	if l.buf.Len() == 0 {
		return 0, io.EOF
	}
	n, _ := l.buf.Read(p)
	l.read += n
	return n, nil
}

func TestReadStreams(t *testing.T) {
	src := newListResponse(40000) // about 14 MB on one line
	first := -1
	c := &collect{onDoc: func(*ingest.Document) error {
		if first < 0 {
			first = src.read
		}
		return nil
	}}
	if err := Read(context.Background(), src, "list.json", c); err != nil {
		t.Fatal(err)
	}
	if len(c.docs) != 40000 || len(c.problems) != 0 || c.docs[39999].DOI != "10.1234/gen.39999" {
		t.Fatalf("docs %d problems %v", len(c.docs), c.problems)
	}
	if first < 0 || first > src.size/5 {
		t.Errorf("first work arrived after %d of %d bytes: the list was not streamed", first, src.size)
	}
}

func TestReadStops(t *testing.T) {
	lines := []byte(strings.Repeat(`{"DOI":"10.1/a"}`+"\n", 10))
	errSink := errors.New("sink full")
	c := &collect{onDoc: func(*ingest.Document) error { return errSink }}
	if err := Read(context.Background(), bytes.NewReader(lines), "x", c); !errors.Is(err, errSink) {
		t.Errorf("sink error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c = &collect{onDoc: func(*ingest.Document) error { cancel(); return nil }}
	if err := Read(ctx, newListResponse(100), "x", c); !errors.Is(err, context.Canceled) || len(c.docs) != 1 {
		t.Errorf("cancel: %v after %d docs", err, len(c.docs))
	}
	errDisk := errors.New("disk on fire")
	for _, mode := range []string{"lines", "stream"} {
		var head io.Reader = bytes.NewReader(lines)
		if mode == "stream" {
			head = strings.NewReader("[\n{\"DOI\": \"10.1/a\"},\n")
		}
		c = &collect{}
		if err := Read(context.Background(), io.MultiReader(head, failing{errDisk}), "x", c); !errors.Is(err, errDisk) {
			t.Errorf("%s: I/O error: %v", mode, err)
		}
	}
}

type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }

func BenchmarkRead(b *testing.B) {
	for _, name := range []string{"works_2018-01-21_sample.jsonl", "works_list_no_license.json", "work_10.7554_elife.01567.json"} {
		raw := fixture(b, name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				c := &collect{}
				if err := Read(context.Background(), bytes.NewReader(raw), "bench", c); err != nil || len(c.docs) == 0 {
					b.Fatalf("err %v docs %d", err, len(c.docs))
				}
			}
		})
	}
}
