package pubmed

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
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

// collect is a Sink that keeps everything it is given.
type collect struct {
	docs     []*ingest.Document
	dels     []ingest.Deletion
	problems []ingest.Problem
	// onDoc, when set, runs for every document before it is kept.
	onDoc func(*ingest.Document) error
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
func (c *collect) Delete(d ingest.Deletion) error { c.dels = append(c.dels, d); return nil }
func (c *collect) Problem(p ingest.Problem)       { c.problems = append(c.problems, p) }

func (c *collect) byPMID(t *testing.T, pmid string) *ingest.Document {
	t.Helper()
	for _, d := range c.docs {
		if d.PMID == pmid {
			return d
		}
	}
	t.Fatalf("no document with PMID %s", pmid)
	return nil
}

func readFile(t testing.TB, name string) *collect {
	t.Helper()
	path := fixtures.Path(t, "pubmed", name)
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
	if err := Read(context.Background(), strings.NewReader(s), "test.xml", c); err != nil {
		t.Fatalf("Read: %v", err)
	}
	return c
}

func TestReadSample2019(t *testing.T) {
	c := readFile(t, "pubmedsample_2019.xml")
	if len(c.problems) != 0 {
		t.Errorf("problems: %+v", c.problems)
	}
	// Counts below were taken from the file with an independent parser
	// (Python ElementTree); see the fixture's SOURCES.md.
	if got := len(c.docs); got != 176 {
		t.Errorf("documents = %d, want 176", got)
	}
	wantDels := []string{"pmid-23203860", "pmid-23203861", "pmid-23203892", "pmid-23203893",
		"pmid-23203894", "pmid-23203895", "pmid-23203896"}
	var gotDels []string
	for _, d := range c.dels {
		gotDels = append(gotDels, d.ID)
		if !strings.HasSuffix(d.Origin, "pubmedsample_2019.xml") {
			t.Errorf("deletion origin = %q", d.Origin)
		}
	}
	if !slices.Equal(gotDels, wantDels) {
		t.Errorf("deletions = %v, want %v", gotDels, wantDels)
	}

	var withDOI, withPMC, retracted, notices, copyright, refs, orcids int
	for _, d := range c.docs {
		if d.DOI != "" {
			withDOI++
		}
		if d.PMCID != "" {
			withPMC++
			if d.ID != "pmc-"+d.PMCID {
				t.Errorf("%s: canonical id should be the PMC id %s", d.ID, d.PMCID)
			}
		}
		if d.Retracted {
			retracted++
		}
		if d.Type == "retraction" {
			notices++
		}
		for _, ev := range d.Licence.Evidence {
			if ev.Kind != licence.KindPubMedCopyright || ev.Source != licence.SourcePubMed {
				t.Errorf("%s: unexpected evidence %+v", d.ID, ev)
			}
			copyright++
		}
		refs += len(d.References)
		for _, a := range d.Authors {
			if a.ORCID != "" {
				orcids++
			}
		}
		if !slices.Equal(d.Sources, []string{"pubmed"}) {
			t.Errorf("%s: sources = %v", d.ID, d.Sources)
		}
		if d.ID == "" || d.PMID == "" || !slices.Contains(append([]string{d.ID}, d.Aliases...), "pmid-"+d.PMID) {
			t.Errorf("bad ids: id %q aliases %v pmid %q", d.ID, d.Aliases, d.PMID)
		}
		if d.Licence.Accepted {
			t.Errorf("%s: a PubMed-only record must never be accepted: %+v", d.ID, d.Licence)
		}
		if d.Title == "" || d.Updated.IsZero() {
			t.Errorf("%s: empty title %q or no DateRevised %v", d.ID, d.Title, d.Updated)
		}
	}
	for name, tc := range map[string]struct{ got, want int }{
		"with DOI":            {withDOI, 70},
		"with PMC id":         {withPMC, 20},
		"retracted":           {retracted, 3}, // 3 retracted works; the 2 notices are documents (issue 13)
		"retraction notices":  {notices, 2},
		"copyright evidences": {copyright, 14},
		"references":          {refs, 599},
		"ORCIDs":              {orcids, 4},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d", name, tc.got, tc.want)
		}
	}
}

func TestReadSampleRecords(t *testing.T) {
	c := readFile(t, "pubmedsample_2019.xml")

	d := c.byPMID(t, "973217")
	if d.Title != "Hospital debt management and cost reimbursement." ||
		d.Venue != "Topics in health care financing" || d.Year != 1976 || d.Date != "1976" ||
		d.Language != "en" || d.Type != "research-article" || d.ID != "pmid-973217" {
		t.Errorf("973217: %+v", d)
	}
	if len(d.Authors) != 1 || d.Authors[0].Name != "F R Blume" || d.Authors[0].Family != "Blume" {
		t.Errorf("973217 authors: %+v", d.Authors)
	}
	if !slices.Contains(d.Subjects, "Economics, Hospital") || !slices.Contains(d.Subjects, "United States") {
		t.Errorf("973217 subjects: %v", d.Subjects)
	}

	// A retraction notice; one of its seven authors is flagged ValidYN="N".
	d = c.byPMID(t, "9634358")
	if d.Type != "retraction" || d.Retracted || len(d.Authors) != 6 {
		t.Errorf("9634358: type %q retracted %v authors %d", d.Type, d.Retracted, len(d.Authors))
	}
	// Retracted works keep their own type.
	d = c.byPMID(t, "8655018")
	if !d.Retracted || d.Type != "review" {
		t.Errorf("8655018: type %q retracted %v", d.Type, d.Retracted)
	}

	// Group authorship and a DOI from the ArticleIdList.
	d = c.byPMID(t, "11237011")
	if len(d.Authors) != 257 || d.DOI != "10.1038/35057062" || d.ID != ingest.DOIID("10.1038/35057062") {
		t.Errorf("11237011: authors %d doi %q id %q", len(d.Authors), d.DOI, d.ID)
	}
	if !slices.ContainsFunc(d.Authors, func(a ingest.Author) bool {
		return a.Name == "International Human Genome Sequencing Consortium" && a.Family == ""
	}) {
		t.Errorf("11237011: collective author missing")
	}

	// ORCIDs in URL form, and copyright evidence.
	d = c.byPMID(t, "25031417")
	orcids := map[string]string{}
	for _, a := range d.Authors {
		orcids[a.Family] = a.ORCID
	}
	if orcids["Tobari"] != "0000-0003-0572-4123" || orcids["Ubuka"] != "0000-0002-4731-8118" {
		t.Errorf("25031417 ORCIDs: %v", orcids)
	}
	if !slices.Equal(d.Keywords, []string{"bird", "monoamine", "neurochemical pathway", "neuropeptide", "social signal", "visual stimuli"}) {
		t.Errorf("25031417 keywords: %v", d.Keywords)
	}
	if len(d.Licence.Evidence) != 1 || d.Licence.Evidence[0].Value != "Copyright © 2014 the authors 0270-6474/14/349803-09$15.00/0." {
		t.Errorf("25031417 evidence: %+v", d.Licence.Evidence)
	}
	// Bare 16-digit ORCID.
	d = c.byPMID(t, "23685357")
	if !slices.ContainsFunc(d.Authors, func(a ingest.Author) bool { return a.ORCID == "0000-0001-7984-1889" }) {
		t.Errorf("23685357: ORCID 0000000179841889 not normalised: %+v", d.Authors)
	}

	// MedlineDate only.
	d = c.byPMID(t, "10188493")
	if d.Date != "1998-12" || d.Year != 1998 {
		t.Errorf("10188493 date = %q/%d, want 1998-12", d.Date, d.Year)
	}
	// ArticleDate wins over the issue date.
	d = c.byPMID(t, "29635139")
	if !strings.HasPrefix(d.Date, "2018-") || len(d.Date) != 10 {
		t.Errorf("29635139 date = %q", d.Date)
	}
}

func TestReadFragment(t *testing.T) {
	c := readFile(t, "pubmed_19129924.xml")
	if len(c.docs) != 1 || len(c.problems) != 0 || len(c.dels) != 0 {
		t.Fatalf("docs %d problems %v dels %d", len(c.docs), c.problems, len(c.dels))
	}
	d := c.docs[0]
	want := &ingest.Document{
		ID:       "pmc-2614320",
		Aliases:  []string{ingest.DOIID("10.3389/neuro.11.006.2008"), "pmid-19129924"},
		DOI:      "10.3389/neuro.11.006.2008",
		PMID:     "19129924",
		PMCID:    "2614320",
		Title:    "PyMOOSE: Interoperable Scripting in Python for MOOSE.",
		Venue:    "Frontiers in neuroinformatics",
		Year:     2008,
		Date:     "2008-12-19",
		Type:     "research-article",
		Language: "en",
	}
	if d.ID != want.ID || !slices.Equal(d.Aliases, want.Aliases) || d.DOI != want.DOI || d.PMID != want.PMID ||
		d.PMCID != want.PMCID || d.Title != want.Title || d.Venue != want.Venue || d.Year != want.Year ||
		d.Date != want.Date || d.Type != want.Type || d.Language != want.Language {
		t.Errorf("got %+v\nwant %+v", d, want)
	}
	if len(d.Authors) != 2 || d.Authors[0].Name != "Subhasis Ray" ||
		!slices.Equal(d.Authors[0].Affiliations, []string{"National Centre for Biological Sciences Bangalore, India."}) ||
		d.Authors[1].Given != "Upinder S" {
		t.Errorf("authors: %+v", d.Authors)
	}
	if !d.Updated.Equal(time.Date(2020, 3, 6, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("updated (DateRevised) = %v", d.Updated)
	}
	if len(d.Keywords) != 8 || d.Keywords[0] != "GENESIS" {
		t.Errorf("keywords: %v", d.Keywords)
	}
	if !strings.HasPrefix(d.Abstract, "Python is emerging as a common scripting language") {
		t.Errorf("abstract: %.80q", d.Abstract)
	}
	if len(d.References) != 11 || d.References[0].Raw != "Eur J Neurosci. 2004 Nov;20(10):2671-80" || d.References[0].PMID != "15548210" {
		t.Errorf("references: %+v", d.References)
	}
	if len(d.Licence.Evidence) != 0 || d.Licence.Accepted {
		t.Errorf("licence: %+v", d.Licence)
	}
}

func TestReadMedlineDateAndStructuredAbstract(t *testing.T) {
	c := readFile(t, "pubmed_31393839.xml")
	if len(c.docs) != 1 || c.docs[0].Date != "2019" || c.docs[0].Year != 2019 || c.docs[0].DOI != "" {
		t.Fatalf("31393839: %+v", c.docs)
	}

	c = readFile(t, "pubmed-29768149.xml")
	if len(c.docs) != 1 {
		t.Fatalf("29768149: %d docs", len(c.docs))
	}
	d := c.docs[0]
	parts := strings.Split(d.Abstract, "\n")
	var labels []string
	for _, p := range parts {
		labels = append(labels, p[:strings.Index(p, ":")])
	}
	if !slices.Equal(labels, []string{"BACKGROUND", "METHODS", "RESULTS", "CONCLUSIONS"}) {
		t.Errorf("abstract labels = %v", labels)
	}
	// Inline <sub> and numeric character references are flattened.
	if !strings.HasPrefix(parts[0], "BACKGROUND: In patients with mild asthma, as-needed use of an inhaled glucocorticoid plus a fast-acting β 2-agonist may be") {
		t.Errorf("abstract[0] = %q", parts[0])
	}
	if d.DOI != "10.1056/nejmoa1715274" || d.Date != "2018-05-17" {
		t.Errorf("doi %q date %q", d.DOI, d.Date)
	}
}

func TestReadGzip(t *testing.T) {
	raw, err := os.ReadFile(fixtures.Path(t, "pubmed", "pubmed_19129924.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(raw)
	zw.Close()
	c := &collect{}
	if err := Read(context.Background(), &buf, "x.xml.gz", c); err != nil {
		t.Fatal(err)
	}
	if len(c.docs) != 1 || c.docs[0].ID != "pmc-2614320" {
		t.Errorf("gzip: %+v %+v", c.docs, c.problems)
	}
}

const bookArticle = `<?xml version="1.0"?>
<PubmedArticleSet>
<PubmedBookArticle>
  <BookDocument>
    <PMID Version="1">20301295</PMID>
    <ArticleIdList><ArticleId IdType="bookaccession">NBK1116</ArticleId></ArticleIdList>
    <Book>
      <Publisher><PublisherName>University of Washington, Seattle</PublisherName></Publisher>
      <BookTitle book="gene">GeneReviews<sup>®</sup></BookTitle>
      <PubDate><Year>1993</Year></PubDate>
      <AuthorList Type="editors"><Author><LastName>Adam</LastName><ForeName>Margaret P</ForeName></Author></AuthorList>
    </Book>
    <ArticleTitle book="gene" part="cf">Cystic Fibrosis</ArticleTitle>
    <Language>eng</Language>
    <AuthorList Type="authors">
      <Author><LastName>Cutting</LastName><ForeName>Garry R</ForeName><Identifier Source="ORCID">0000-0002-1825-0097</Identifier></Author>
    </AuthorList>
    <PublicationType UI="D016454">Review</PublicationType>
    <Abstract><AbstractText Label="CLINICAL CHARACTERISTICS">Cystic fibrosis affects the lungs.</AbstractText>
      <CopyrightInformation>Copyright © 1993-2024, University of Washington, Seattle.</CopyrightInformation></Abstract>
  </BookDocument>
  <PubmedBookData><ArticleIdList><ArticleId IdType="pubmed">20301295</ArticleId></ArticleIdList></PubmedBookData>
</PubmedBookArticle>
</PubmedArticleSet>`

func TestReadBookArticle(t *testing.T) {
	c := readString(t, bookArticle)
	if len(c.docs) != 1 || len(c.problems) != 0 {
		t.Fatalf("docs %d problems %v", len(c.docs), c.problems)
	}
	d := c.docs[0]
	if d.ID != "pmid-20301295" || d.Title != "Cystic Fibrosis" || d.Venue != "GeneReviews ®" && d.Venue != "GeneReviews®" ||
		d.Publisher != "University of Washington, Seattle" || d.Year != 1993 || d.Type != "review" || d.Language != "en" {
		t.Errorf("book: %+v", d)
	}
	if len(d.Authors) != 1 || d.Authors[0].Name != "Garry R Cutting" || d.Authors[0].ORCID != "0000-0002-1825-0097" {
		t.Errorf("book authors (editors must not count): %+v", d.Authors)
	}
	if d.Abstract != "CLINICAL CHARACTERISTICS: Cystic fibrosis affects the lungs." {
		t.Errorf("abstract %q", d.Abstract)
	}
	if len(d.Licence.Evidence) != 1 || d.Licence.Evidence[0].Kind != licence.KindPubMedCopyright {
		t.Errorf("evidence %+v", d.Licence.Evidence)
	}
}

func TestReadProblems(t *testing.T) {
	sample, err := os.ReadFile(fixtures.Path(t, "pubmed", "pubmedsample_2019.xml"))
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(sample, []byte("<PMID Version=\"1\">11237011</PMID>"))
	tests := []struct {
		name         string
		in           string
		docs, probs  int
		dels         int
		reasonSubstr string
	}{
		{"not pubmed", `<?xml version="1.0"?><article><front/></article>`, 0, 1, 0, "not PubMed XML"},
		{"empty input", ``, 0, 0, 0, ""},
		{"empty set", `<PubmedArticleSet></PubmedArticleSet>`, 0, 0, 0, ""},
		{"no pmid", `<PubmedArticle><MedlineCitation><Article><ArticleTitle>x</ArticleTitle></Article></MedlineCitation></PubmedArticle>`, 0, 1, 0, "no usable PMID"},
		{"bad delete", `<PubmedArticleSet><DeleteCitation><PMID>12</PMID><PMID>abc</PMID></DeleteCitation></PubmedArticleSet>`, 0, 1, 1, "bad PMID"},
		{"unknown charset", `<?xml version="1.0" encoding="EBCDIC"?><PubmedArticleSet/>`, 0, 1, 0, "malformed XML"},
		{"truncated", string(sample[:cut]), 0, 1, 0, "malformed XML"},
		{"unknown child skipped", `<PubmedArticleSet><Foo><Bar/></Foo><DeleteCitation><PMID>7</PMID></DeleteCitation></PubmedArticleSet>`, 0, 0, 1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := readString(t, tc.in)
			if tc.name == "truncated" {
				// Everything before the cut is read; the broken record is not.
				tc.docs = bytes.Count(sample[:cut], []byte("<PubmedArticle>")) - 1
				if slices.ContainsFunc(c.docs, func(d *ingest.Document) bool { return d.PMID == "11237011" }) {
					t.Errorf("truncated record was emitted")
				}
			}
			if len(c.docs) != tc.docs || len(c.problems) != tc.probs || len(c.dels) != tc.dels {
				t.Fatalf("docs %d problems %+v dels %d; want %d/%d/%d", len(c.docs), c.problems, len(c.dels), tc.docs, tc.probs, tc.dels)
			}
			for _, p := range c.problems {
				if !strings.Contains(p.Reason, tc.reasonSubstr) || p.Path != "test.xml" || !strings.HasPrefix(p.Record, "line ") {
					t.Errorf("problem %+v, want reason containing %q", p, tc.reasonSubstr)
				}
			}
		})
	}
}

func TestReadLatin1(t *testing.T) {
	in := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><PubmedArticle><MedlineCitation><PMID>5</PMID><Article><ArticleTitle>Caf\xe9</ArticleTitle></Article></MedlineCitation></PubmedArticle>"
	c := readString(t, in)
	if len(c.docs) != 1 || c.docs[0].Title != "Café" {
		t.Fatalf("latin1: %+v %+v", c.docs, c.problems)
	}
}

// articles generates a PubmedArticleSet of n small records lazily and
// counts how much of it has been read.
type articles struct {
	n, i int
	buf  bytes.Buffer
	read int
	size int
}

func newArticles(n int) *articles {
	a := &articles{n: n}
	a.size = len(a.header()) + len(a.footer())
	for i := range n {
		a.size += len(a.record(i))
	}
	a.buf.WriteString(a.header())
	return a
}

func (a *articles) header() string { return "<PubmedArticleSet>\n" }
func (a *articles) footer() string { return "</PubmedArticleSet>\n" }
func (a *articles) record(i int) string {
	return fmt.Sprintf("<PubmedArticle><MedlineCitation><PMID>%d</PMID><Article><ArticleTitle>Title %d</ArticleTitle></Article></MedlineCitation></PubmedArticle>\n", i+1, i+1)
}

func (a *articles) Read(p []byte) (int, error) {
	for a.buf.Len() < len(p) && a.i <= a.n {
		if a.i == a.n {
			a.buf.WriteString(a.footer())
		} else {
			a.buf.WriteString(a.record(a.i))
		}
		a.i++
	}
	if a.buf.Len() == 0 {
		return 0, io.EOF
	}
	n, _ := a.buf.Read(p)
	a.read += n
	return n, nil
}

func TestReadStreams(t *testing.T) {
	src := newArticles(20000)
	first := -1
	c := &collect{onDoc: func(d *ingest.Document) error {
		if first < 0 {
			first = src.read
		}
		return nil
	}}
	if err := Read(context.Background(), src, "gen.xml", c); err != nil {
		t.Fatal(err)
	}
	if len(c.docs) != 20000 || c.docs[19999].Title != "Title 20000" {
		t.Fatalf("docs %d", len(c.docs))
	}
	if first < 0 || first > src.size/10 {
		t.Errorf("first document arrived after reading %d of %d bytes: not streaming", first, src.size)
	}
}

func TestReadStops(t *testing.T) {
	errSink := errors.New("sink full")
	c := &collect{onDoc: func(*ingest.Document) error { return errSink }}
	err := Read(context.Background(), newArticles(10), "gen.xml", c)
	if !errors.Is(err, errSink) {
		t.Errorf("sink error: got %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	c = &collect{onDoc: func(*ingest.Document) error { cancel(); return nil }}
	err = Read(ctx, newArticles(10), "gen.xml", c)
	if !errors.Is(err, context.Canceled) || len(c.docs) != 1 {
		t.Errorf("cancel: got %v after %d docs", err, len(c.docs))
	}

	errDisk := errors.New("disk on fire")
	c = &collect{}
	err = Read(context.Background(), io.MultiReader(strings.NewReader("<PubmedArticleSet><PubmedArticle>"), iotestErr{errDisk}), "x", c)
	if !errors.Is(err, errDisk) || len(c.problems) != 0 {
		t.Errorf("I/O error: got %v, problems %v", err, c.problems)
	}
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }

// TestLicenceVerdicts checks the fixture's expected verdict: PubMed records
// carry no licence, so every one is rejected as missing or unknown.
func TestLicenceVerdicts(t *testing.T) {
	c := readFile(t, "pubmedsample_2019.xml")
	for _, d := range c.docs {
		if d.Licence.Accepted || (d.Licence.Reason != licence.Missing && d.Licence.Reason != licence.Unknown &&
			d.Licence.Reason != licence.CustomTerms) {
			t.Errorf("%s: %+v", d.ID, d.Licence)
		}
	}
}

func TestMedlineDate(t *testing.T) {
	for in, want := range map[string]string{
		"1998 Dec-1999 Jan": "1998-12",
		"2018 May - Jun":    "2018-05",
		"1947-1948":         "1947",
		"2008":              "2008",
		"1976 Fall":         "1976",
		"Spring 2001":       "2001",
		"19999":             "",
		"":                  "",
	} {
		if got, _ := medlineDate(in); got != want {
			t.Errorf("medlineDate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLanguage(t *testing.T) {
	for in, want := range map[string]string{"eng": "en", "fre": "fr", "GER": "de", "und": "", "xyz": "xyz"} {
		if got := language(in); got != want {
			t.Errorf("language(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkRead(b *testing.B) {
	raw, err := os.ReadFile(fixtures.Path(b, "pubmed", "pubmedsample_2019.xml"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		c := &discard{}
		if err := Read(context.Background(), bytes.NewReader(raw), "bench", c); err != nil || c.docs != 176 {
			b.Fatalf("err %v docs %d", err, c.docs)
		}
	}
}

type discard struct{ docs int }

func (d *discard) Document(*ingest.Document) error { d.docs++; return nil }
func (d *discard) Delete(ingest.Deletion) error    { return nil }
func (d *discard) Problem(ingest.Problem)          {}
