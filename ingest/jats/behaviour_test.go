package jats

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/licence"
)

// fixtureArticle returns a fixture without its XML declaration and
// DOCTYPE, ready to embed in an envelope.
func fixtureArticle(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, "jats", rel))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "<article")
	if i < 0 {
		t.Fatalf("%s: no <article>", rel)
	}
	return s[i:]
}

func readString(t *testing.T, rd *Reader, s string) (*collect, error) {
	t.Helper()
	var sink collect
	err := rd.Read(context.Background(), strings.NewReader(s), "test.xml", &sink)
	return &sink, err
}

func TestOAIPMH(t *testing.T) {
	pmc := fixtureArticle(t, "pmc/1471-2180-11-174.nxml")
	elife := fixtureArticle(t, "elife/elife00005.xml")
	header := func(id, status string) string {
		return `<header` + status + `><identifier>` + id + `</identifier><datestamp>2024-01-01</datestamp><setSpec>bmcmicro</setSpec></header>`
	}
	t.Run("GetRecord", func(t *testing.T) {
		doc := `<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">` +
			`<responseDate>2024-01-02T00:00:00Z</responseDate><request verb="GetRecord">https://pmc.ncbi.nlm.nih.gov/api/oai/v1/mh/</request>` +
			`<GetRecord><record>` + header("oai:pubmedcentral.nih.gov:3166277", "") + `<metadata>` + pmc + `</metadata></record></GetRecord></OAI-PMH>`
		sink, err := readString(t, evidenceReader(), doc)
		if err != nil {
			t.Fatal(err)
		}
		if len(sink.docs) != 1 || sink.docs[0].ID != "pmc-3166277" || len(sink.problems) > 0 {
			t.Fatalf("docs %v problems %v", ids(sink.docs), sink.problems)
		}
	})
	t.Run("ListRecords", func(t *testing.T) {
		doc := `<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>` +
			`<record>` + header("oai:pubmedcentral.nih.gov:3166277", "") + `<metadata>` + pmc + `</metadata></record>` +
			`<record>` + header("oai:pubmedcentral.nih.gov:999", ` status="deleted"`) + `</record>` +
			// The eLife file has no pmc article-id: the header supplies it.
			`<record>` + header("oai:pubmedcentral.nih.gov:4242", "") + `<metadata>` + elife + `</metadata></record>` +
			`<resumptionToken cursor="0" completeListSize="3">token</resumptionToken></ListRecords></OAI-PMH>`
		sink, err := readString(t, evidenceReader(), doc)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(sink.docs); got != "pmc-3166277 pmc-4242" {
			t.Errorf("documents %q", got)
		}
		if len(sink.docs) == 2 {
			if d := sink.docs[1]; d.Sources[0] != "jats:pmc" || d.DOI != "10.7554/elife.00005" || d.Licence.Evidence[0].Source != licence.SourcePMC {
				t.Errorf("second record: sources %v doi %q evidence %v", d.Sources, d.DOI, d.Licence.Evidence)
			}
		}
		if len(sink.dels) != 1 || sink.dels[0] != (ingest.Deletion{ID: "pmc-999", Origin: "test.xml"}) {
			t.Errorf("deletions %v", sink.dels)
		}
	})
	t.Run("errors", func(t *testing.T) {
		_, err := readString(t, evidenceReader(), `<OAI-PMH><error code="badArgument">Illegal argument</error></OAI-PMH>`)
		if !errors.Is(err, ErrOAI) || !strings.Contains(err.Error(), "badArgument") {
			t.Errorf("badArgument: %v", err)
		}
		sink, err := readString(t, evidenceReader(), `<OAI-PMH><error code="noRecordsMatch">none</error></OAI-PMH>`)
		if err != nil || len(sink.docs) != 0 {
			t.Errorf("noRecordsMatch: %v, %d documents", err, len(sink.docs))
		}
	})
	t.Run("articleset", func(t *testing.T) {
		sink, err := readString(t, evidenceReader(), `<pmc-articleset>`+pmc+elife+`</pmc-articleset>`)
		if err != nil || ids(sink.docs) != "pmc-3166277 doi-98e351337ad797efd38c" {
			t.Errorf("%v %q", err, ids(sink.docs))
		}
	})
}

func ids(docs []*ingest.Document) string {
	var s []string
	for _, d := range docs {
		s = append(s, d.ID)
	}
	return strings.Join(s, " ")
}

// tarball builds a tar.gz from name/content pairs.
func tarball(t *testing.T, members ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for i := 0; i < len(members); i += 2 {
		body := members[i+1]
		if err := tw.WriteHeader(&tar.Header{Name: members[i], Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadTarGz(t *testing.T) {
	nxml, err := os.ReadFile(fixtures.Path(t, "jats", "pmc", "PMC7417471.nxml"))
	if err != nil {
		t.Fatal(err)
	}
	pkg := tarball(t,
		"PMC7417471/PMC7417471.nxml", string(nxml),
		"PMC7417471/40580_2020_237_Fig1_HTML.jpg", "\xff\xd8\xff\xe0 not xml",
		"PMC7417471/notes.XML", "# not xml",
		"PMC7417471/broken.xml", "<article><front><article-meta>",
		"PMC7417471/second.xml", fixtureArticle(t, "elife/elife00240.xml"),
	)
	var sink collect
	rd := evidenceReader()
	if err := rd.ReadTarGz(context.Background(), bytes.NewReader(pkg), "pkg.tar.gz", &sink); err != nil {
		t.Fatal(err)
	}
	if got := ids(sink.docs); got != "pmc-7417471 doi-7cf5370ac52cf3f2e6db" {
		t.Errorf("documents %q", got)
	}
	if len(sink.docs) > 0 && sink.docs[0].Origin != "pkg.tar.gz!PMC7417471/PMC7417471.nxml" {
		t.Errorf("origin %q", sink.docs[0].Origin)
	}
	if len(sink.problems) != 2 ||
		sink.problems[0].Path != "pkg.tar.gz!PMC7417471/notes.XML" || !strings.Contains(sink.problems[0].Reason, "not XML") ||
		sink.problems[1].Path != "pkg.tar.gz!PMC7417471/broken.xml" || !strings.Contains(sink.problems[1].Reason, "malformed") {
		t.Errorf("problems %+v", sink.problems)
	}

	t.Run("no article member", func(t *testing.T) {
		err := rd.ReadTarGz(context.Background(), bytes.NewReader(tarball(t, "a.pdf", "%PDF")), "p.tar.gz", &collect{})
		if !errors.Is(err, ErrNotJATS) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("truncated archive", func(t *testing.T) {
		var sink collect
		err := rd.ReadTarGz(context.Background(), bytes.NewReader(pkg[:len(pkg)/2]), "p.tar.gz", &sink)
		if err == nil || isContentError(err) {
			t.Errorf("got %v, want a read error", err)
		}
	})
	t.Run("sink error stops", func(t *testing.T) {
		stop := errors.New("disk full")
		err := rd.ReadTarGz(context.Background(), bytes.NewReader(pkg), "p.tar.gz", &collect{err: stop})
		if !errors.Is(err, stop) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("not gzip", func(t *testing.T) {
		if err := rd.ReadTarGz(context.Background(), strings.NewReader("plain"), "p.tar.gz", &collect{}); err == nil {
			t.Error("no error")
		}
	})
}

func TestInputErrors(t *testing.T) {
	sources, err := os.ReadFile(fixtures.Path(t, "jats", "pmc", "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in string
		want     error
	}{
		{"markdown", string(sources), ErrNotXML},
		{"empty", "", ErrNotXML},
		{"blank", " \n\t ", ErrNotXML},
		{"json", `{"id": 1}`, ErrNotXML},
		{"only a comment", `<!-- nothing -->`, ErrNotXML},
		{"html", `<html><body><p>hi</p></body></html>`, ErrNotJATS},
		{"truncated", `<article><front><article-meta>`, ErrSyntax},
		{"unterminated tag", `<article><front`, ErrSyntax},
		{"unterminated comment", `<article><!-- </article>`, ErrSyntax},
		{"too deep", strings.Repeat("<a>", 300) + strings.Repeat("</a>", 300), ErrLimit},
		{"encoding", `<?xml version="1.0" encoding="x-nonsense"?><article/>`, ErrEncoding},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readString(t, evidenceReader(), tt.in)
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "test.xml: ") {
				t.Errorf("error %q does not name the input", err)
			}
		})
	}
}

func TestProblems(t *testing.T) {
	t.Run("no id", func(t *testing.T) {
		sink, err := readString(t, evidenceReader(), `<article><front><article-meta><article-id pub-id-type="publisher-id">7</article-id>`+
			`<title-group><article-title>T</article-title></title-group></article-meta></front></article>`)
		if err != nil || len(sink.docs) != 0 || len(sink.problems) != 1 || !strings.Contains(sink.problems[0].Reason, "article-id") {
			t.Errorf("%v %d %+v", err, len(sink.docs), sink.problems)
		}
	})
	t.Run("capture limit skips one article", func(t *testing.T) {
		big := `<article><front><article-meta><article-id pub-id-type="pmc">1</article-id></article-meta></front>` +
			`<body><p>` + strings.Repeat("word ", 5000) + `</p></body></article>`
		small := `<article><front><article-meta><article-id pub-id-type="pmc">2</article-id></article-meta></front><body><p>ok</p></body></article>`
		rd := evidenceReader()
		rd.MaxCaptureBytes = 10000
		sink, err := readString(t, rd, `<pmc-articleset>`+big+small+`</pmc-articleset>`)
		if err != nil || ids(sink.docs) != "pmc-2" || len(sink.problems) != 1 || !strings.Contains(sink.problems[0].Reason, "limit") {
			t.Errorf("%v %q %+v", err, ids(sink.docs), sink.problems)
		}
	})
	t.Run("sink error", func(t *testing.T) {
		stop := errors.New("stop")
		var sink collect
		sink.err = stop
		err := Read(context.Background(), strings.NewReader(fixtureArticle(t, "elife/elife00240.xml")), "x", &sink)
		if !errors.Is(err, stop) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := Read(ctx, strings.NewReader(fixtureArticle(t, "elife/elife00240.xml")), "x", &collect{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v", err)
		}
	})
}

const minimal = `<front><article-meta><article-id pub-id-type="doi">10.1234/x</article-id>` +
	`<title-group><article-title>Caf&#233; &eacute;t&eacute; <italic>in vivo</italic><xref ref-type="fn" rid="f1">*</xref></article-title></title-group>` +
	`</article-meta></front>`

func TestEncodingsAndNamespaces(t *testing.T) {
	latin1 := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><article>" +
		strings.Replace(minimal, "Caf&#233;", "Caf\xe9", 1) + "</article>"
	u16 := []byte{0xff, 0xfe}
	for _, r := range utf16.Encode([]rune(`<?xml version="1.0" encoding="UTF-16"?><article>` + minimal + `</article>`)) {
		u16 = append(u16, byte(r), byte(r>>8))
	}
	tests := map[string]string{
		"utf-8 with BOM": "\xef\xbb\xbf<article>" + minimal + "</article>",
		"latin-1":        latin1,
		"utf-16":         string(u16),
		"default namespace": `<article xmlns="https://jats.nlm.nih.gov/ns/archiving/1.3/" xmlns:xlink="http://www.w3.org/1999/xlink">` +
			minimal + `</article>`,
		"prefixed": `<j:article xmlns:j="https://jats.nlm.nih.gov/ns/archiving/1.3/">` +
			strings.NewReplacer("</", "</j:", "<", "<j:").Replace(minimal) + `</j:article>`,
		"doctype with internal subset": `<!DOCTYPE article PUBLIC "-//NLM//DTD JATS" "JATS.dtd" [ <!ENTITY x "y"> ]>` +
			`<?properties open_access?><article>` + minimal + `</article>`,
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			sink, err := readString(t, evidenceReader(), in)
			if err != nil || len(sink.docs) != 1 {
				t.Fatalf("%v, %d documents", err, len(sink.docs))
			}
			if d := sink.docs[0]; d.Title != "Café été in vivo" || d.DOI != "10.1234/x" {
				t.Errorf("title %q doi %q", d.Title, d.DOI)
			}
		})
	}
}

func TestLicenceScope(t *testing.T) {
	// Article-meta and sub-article permissions are read (a sub-article's
	// as its own), figure permissions are not; sub-article text is not
	// served.
	in := `<article xmlns:ali="http://www.niso.org/schemas/ali/1.0/" xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta>` +
		`<article-id pub-id-type="pmcid">PMC77</article-id>` +
		`<permissions><copyright-statement>© 2030 A</copyright-statement>` +
		`<license license-type="cc-by" xlink:href="https://creativecommons.org/licenses/by/4.0/" xml:lang="en">` +
		`<ali:license_ref start_date="2030-02-01">https://creativecommons.org/licenses/by/4.0/</ali:license_ref>` +
		`<license-p>See <uri>https://creativecommons.org/licenses/by/4.0/</uri> or creativecommons.org/licenses/by/4.0/legalcode.</license-p>` +
		`</license><ali:license_ref>http://example.org/direct</ali:license_ref></permissions>` +
		`</article-meta></front><body><sec><title>S</title><p>Text.</p>` +
		`<fig id="f1"><caption><p>FIGURE CAPTION</p></caption><permissions><license xlink:href="http://all-rights-reserved"/></permissions></fig></sec></body>` +
		`<sub-article article-type="ref-report"><front-stub><permissions><license xlink:href="http://sub-article"/></permissions></front-stub>` +
		`<body><p>REPORT TEXT</p></body></sub-article></article>`
	sink, err := readString(t, evidenceReader(), in)
	if err != nil || len(sink.docs) != 1 {
		t.Fatalf("%v, %d docs", err, len(sink.docs))
	}
	d := sink.docs[0]
	checkEvidence(t, d.Licence.Evidence, []ev{
		{lCopy, "© 2030 A", ""},
		{lType, "cc-by", "en"},
		{lHref, "https://creativecommons.org/licenses/by/4.0/", "en"},
		{lALI, "https://creativecommons.org/licenses/by/4.0/", "en"},
		{lP, "https://creativecommons.org/licenses/by/4.0/", "en"},
		{lP, "creativecommons.org/licenses/by/4.0/legalcode", "en"},
		{lP, "See https://creativecommons.org/licenses/by/4.0/ or creativecommons.org/licenses/by/4.0/legalcode.", "en"},
		{lALI, "http://example.org/direct", ""},
		{lHref, "http://sub-article", ""},
	}, licence.SourcePMC)
	if p := d.Licence.Evidence[len(d.Licence.Evidence)-1].Path; p != "sub-article[1]/front-stub[1]/permissions[1]/license[1]/@xlink:href" {
		t.Errorf("sub-article evidence path %q", p)
	}
	if p := d.Licence.Evidence[2].Path; p != "front/article-meta[1]/permissions[1]/license[1]/@xlink:href" {
		t.Errorf("href path %q", p)
	}
	if ali := d.Licence.Evidence[3]; !ali.Start.Equal(time.Date(2030, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("ali start %v", ali.Start)
	}
	text := allText(d)
	if strings.Contains(text, "FIGURE CAPTION") || strings.Contains(text, "REPORT TEXT") || !strings.Contains(text, "Text.") {
		t.Errorf("text %q", text)
	}
}

// allText joins every section title and paragraph.
func allText(d *ingest.Document) string {
	var b strings.Builder
	var walk func([]ingest.Section)
	walk = func(ss []ingest.Section) {
		for _, s := range ss {
			b.WriteString(s.Title + "\n")
			for _, p := range s.Paragraphs {
				b.WriteString(p + "\n")
			}
			walk(s.Children)
		}
	}
	walk(d.Sections)
	return b.String()
}

func TestContent(t *testing.T) {
	rd := evidenceReader()
	t.Run("eLife structure", func(t *testing.T) {
		d := readFile(t, rd, "elife/elife-30274-v1.xml")
		if d.Sections[0].Title != "Introduction" || d.Sections[1].Title != "Results and discussion" || len(d.Sections[1].Children) != 4 {
			t.Errorf("sections %q %q", d.Sections[0].Title, d.Sections[1].Title)
		}
		if !strings.HasPrefix(d.Abstract, "As part of the Reproducibility Project: Cancer Biology, we published") {
			t.Errorf("abstract %q", d.Abstract[:80])
		}
		if got := d.Authors[0].Affiliations; len(got) != 1 || got[0] != "University of Georgia, Bioexpression and Fermentation Facility, Georgia, United States" {
			t.Errorf("affiliations %q", got)
		}
		if a := d.Authors[3]; a.Name != "C Conover Talbot Jr" || a.Family != "Talbot" || a.ORCID != "0000-0002-3758-2425" {
			t.Errorf("author %+v", a)
		}
		if a := d.Authors[6]; a.Name != "Reproducibility Project: Cancer Biology" || a.Family != "" {
			t.Errorf("collab %+v", a)
		}
		if strings.Contains(allText(d), "Induction of c-Myc in P493-6 cells and impact on total RNA levels") {
			t.Error("figure caption in the text")
		}
		r := d.References[0]
		if r.Title != "The cost of dichotomising continuous variables" || len(r.Authors) != 2 || r.Authors[0] != "Altman DG" ||
			r.Source != "BMJ" || r.Year != "2006" || r.Volume != "332" || r.Pages != "1080" || r.DOI != "10.1136/bmj.332.7549.1080" || r.PMID != "16675816" {
			t.Errorf("reference %+v", r)
		}
		if d.Subjects[0] != "Cancer Biology" || len(d.Subjects) != 1 {
			t.Errorf("subjects %q (the display channel is not a subject)", d.Subjects)
		}
		if d.Keywords[len(d.Keywords)-1] != "Human" {
			t.Errorf("keywords %q", d.Keywords)
		}
	})
	t.Run("title markup", func(t *testing.T) {
		d := readFile(t, rd, "elife/elife_poa_e06828.xml")
		if want := "Cis and trans RET signaling control the survival and central projection growth of rapidly adapting mechanoreceptors"; d.Title != want {
			t.Errorf("title %q", d.Title)
		}
		if d.Date != "" || len(d.Sections) != 0 {
			t.Errorf("PoA: date %q, %d sections", d.Date, len(d.Sections))
		}
	})
	t.Run("structured abstract, NLM 2.3 citations", func(t *testing.T) {
		d := readFile(t, rd, "pmc/pone.0000217.nxml")
		paras := strings.Split(d.Abstract, "\n\n")
		if len(paras) != 3 || !strings.HasPrefix(paras[0], "Background: Various definitions") || !strings.HasPrefix(paras[2], "Conclusions/Significance: Because") {
			t.Errorf("abstract %q", paras)
		}
		if r := d.References[1]; r.PMID != "11360989" || len(r.Authors) != 3 || r.Authors[2] != "Pal C" {
			t.Errorf("reference %+v", r)
		}
	})
	t.Run("leading section, mixed citations", func(t *testing.T) {
		d := readFile(t, rd, "scielo/abc-20210807-MNHpJQpnjvSX6pkKCg37yTJ.xml")
		if s := d.Sections[0]; s.Title != "" || s.Paragraphs[0] != "Caro Editor," {
			t.Errorf("first section %q %q", s.Title, s.Paragraphs)
		}
		if strings.Contains(allText(d), "Agradecemos aos autores") {
			t.Error("the reply sub-article leaked into the text")
		}
		r := d.References[0]
		if !strings.HasPrefix(r.Raw, "1. Paiva KM, Hillesheim D,") || r.DOI != "10.36660/abc.20200955" || r.Pages != "968-975" || r.Label != "1" {
			t.Errorf("reference %+v", r)
		}
		if a := d.Authors[0].Affiliations; len(a) != 1 || a[0] != "Universidade do Sul de Santa Catarina, Tubarão, SC – Brasil" {
			t.Errorf("affiliation %q", a)
		}
	})
	t.Run("affiliation without label and ids", func(t *testing.T) {
		d := readFile(t, rd, "pmc/PMC7417471.nxml")
		want := "Department of Fundamental & Applied Sciences, Universiti Teknologi PETRONAS, 32610 Seri Iskandar, Perak Darul Ridzuan Malaysia"
		if a := d.Authors[0].Affiliations; len(a) != 2 || a[0] != want {
			t.Errorf("affiliations %q", a)
		}
		if d.Date != "2020-08-10" || d.Venue != "Nano Convergence" || d.Publisher != "Springer Singapore" {
			t.Errorf("date %q venue %q publisher %q", d.Date, d.Venue, d.Publisher)
		}
	})
	t.Run("referee reports are not text", func(t *testing.T) {
		d := readFile(t, rd, "f1000/f1000research-7-1655-v1.xml")
		if strings.Contains(allText(d), "I have been a vocal advocate of publishing review reports") {
			t.Error("referee report in the text")
		}
	})
	t.Run("retracted work", func(t *testing.T) {
		in := `<article article-type="research-article"><front><article-meta><article-id pub-id-type="doi">10.1/r</article-id>` +
			`<related-article related-article-type="retraction-forward" xlink:href="10.1/n" xmlns:xlink="http://www.w3.org/1999/xlink"/>` +
			`<permissions><license xlink:href="http://creativecommons.org/licenses/by/4.0/" xmlns:xlink="http://www.w3.org/1999/xlink"/></permissions>` +
			`</article-meta></front></article>`
		sink, err := readString(t, rd, in)
		if err != nil || len(sink.docs) != 1 || !sink.docs[0].Retracted {
			t.Fatalf("%v %+v", err, sink.docs)
		}
	})
	t.Run("retraction notice", func(t *testing.T) {
		// A notice is a document in its own right (issue 13).
		d := readFile(t, rd, "plos/journal.pcbi.0030158.xml")
		if d.Retracted || d.Type != "retraction" {
			t.Errorf("retracted %v type %q", d.Retracted, d.Type)
		}
		d = readFile(t, rd, "elife/elife07586.xml")
		if d.Retracted || d.Type != "correction" {
			t.Errorf("a correction is not a retraction: %v %q", d.Retracted, d.Type)
		}
	})
}

func TestPubDate(t *testing.T) {
	date := func(attrs, ymd string) string {
		parts := strings.Split(ymd, "-")
		s := `<pub-date ` + attrs + `><year>` + parts[0] + `</year>`
		if len(parts) > 1 {
			s += `<month>` + parts[1] + `</month>`
		}
		if len(parts) > 2 {
			s += `<day>` + parts[2] + `</day>`
		}
		return s + `</pub-date>`
	}
	tests := []struct {
		name, dates, want string
	}{
		{"electronic beats earlier print", date(`pub-type="ppub"`, "2019-01-01") + date(`pub-type="epub"`, "2019-02-03"), "2019-02-03"},
		{"earliest electronic", date(`date-type="pub" publication-format="electronic"`, "2019-05-05") + date(`pub-type="epub"`, "2019-02-03"), "2019-02-03"},
		{"full print beats partial electronic", date(`pub-type="epub"`, "2019") + date(`pub-type="ppub"`, "2019-03-04"), "2019-03-04"},
		{"month names", date(`pub-type="epub-ppub"`, "2014-Apr"), "2014-04"},
		{"collection when alone", date(`pub-type="collection"`, "2018-04"), "2018-04"},
		{"pmc-release last", date(`pub-type="pmc-release"`, "2021-01-01") + date(`pub-type="collection"`, "2020"), "2020"},
		{"pmc-release when alone", date(`pub-type="pmc-release"`, "2021-01-01"), "2021-01-01"},
		{"invalid day dropped", date(`pub-type="epub"`, "2019-02-30"), "2019-02"},
		{"received ignored", date(`date-type="received"`, "2018-01-01"), ""},
		{"iso attribute", `<pub-date pub-type="epub" iso-8601-date="2017-07-10"/>`, "2017-07-10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sink, err := readString(t, evidenceReader(), `<article><front><article-meta><article-id pub-id-type="pmid">1</article-id>`+tt.dates+`</article-meta></front></article>`)
			if err != nil || len(sink.docs) != 1 {
				t.Fatal(err)
			}
			if d := sink.docs[0]; d.Date != tt.want {
				t.Errorf("date %q, want %q", d.Date, tt.want)
			}
		})
	}
}

func TestHelpers(t *testing.T) {
	for in, want := range map[string]string{"Timothy M": "TM", "KM": "KM", "R.V.S.": "RVS", "Jean-Pierre": "JP", "J. -P.": "JP", "adel": "A"} {
		if got := initials(in); got != want {
			t.Errorf("initials(%q) = %q, want %q", in, got, want)
		}
	}
	if got := bareURLs("under CC BY (http://creativecommons.org/licenses/by/2.0), see www.plos.org/oa/."); len(got) != 2 ||
		got[0] != "http://creativecommons.org/licenses/by/2.0" || got[1] != "www.plos.org/oa/" {
		t.Errorf("bareURLs: %q", got)
	}
	for in, want := range map[string]string{
		"Cell. 2021; 9: 1. doi: 10.1016/j.cell.2021.01.001.": "10.1016/j.cell.2021.01.001",
		"https://doi.org/10.7554/eLife.00005)":               "10.7554/elife.00005",
		"Vol 10.2 page 3":                                    "",
		"ISBN 978-10.1234":                                   "",
	} {
		if got := doiInText(in); got != want {
			t.Errorf("doiInText(%q) = %q, want %q", in, got, want)
		}
	}
}
