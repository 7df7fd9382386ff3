package detect

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/fixtures"
)

// fixtureFormat is the expected detection of every file in the shared
// corpus, by path relative to it. A file missing here fails the test, so a
// new fixture forces a decision.
func fixtureFormat(rel string) (Info, bool) {
	rel = filepath.ToSlash(rel)
	if filepath.Base(rel) == "SOURCES.md" {
		return Info{}, true // skipped
	}
	if strings.HasPrefix(rel, "jats/") && (strings.HasSuffix(rel, ".xml") || strings.HasSuffix(rel, ".nxml")) {
		return Info{Format: JATS, Variant: VariantArticle}, true
	}
	known := map[string]Info{
		"crossref/work_10.7554_elife.01567.json":               {Format: Crossref, Variant: VariantJSON},
		"crossref/work_wiley_tdm_plus_vor_bync-nd.json":        {Format: Crossref, Variant: VariantMongo},
		"crossref/works_2018-01-21_badsample.mongoexport.json": {Format: Crossref, Variant: VariantMongo},
		"crossref/works_2018-01-21_sample.jsonl":               {Format: Crossref, Variant: VariantJSONLines},
		"crossref/works_api_response.json":                     {Format: Crossref, Variant: VariantEnvelope},
		"crossref/works_list_no_license.json":                  {Format: Crossref, Variant: VariantList},
		"openalex/works_older_versions.jsonl":                  {Format: OpenAlex, Variant: VariantJSONLines},
		"openalex/works_sample.jsonl.gz":                       {Format: OpenAlex, Variant: VariantJSONLines, Compression: Gzip},
		"openalex/works_with_licences.jsonl":                   {Format: OpenAlex, Variant: VariantJSONLines},
		"pubmed/pubmed-29768149.xml":                           {Format: PubMed, Variant: VariantSet},
		"pubmed/pubmed_19129924.xml":                           {Format: PubMed, Variant: VariantFragment},
		"pubmed/pubmed_31393839.xml":                           {Format: PubMed, Variant: VariantFragment},
		"pubmed/pubmedsample_2019.xml":                         {Format: PubMed, Variant: VariantSet},
	}
	i, ok := known[rel]
	return i, ok
}

func TestFixtures(t *testing.T) {
	dir := fixtures.Dir(t)
	var files []string
	if err := Walk(context.Background(), fixtures.Corpus(t), func(f File) error {
		files = append(files, f.Path)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(files) < 70 {
		t.Fatalf("walked %d files, the corpus has more than 70", len(files))
	}
	formats := map[Format]int{}
	for _, path := range files {
		rel, _ := filepath.Rel(dir, path)
		want, ok := fixtureFormat(rel)
		if !ok {
			t.Errorf("%s: no expectation; add it to fixtureFormat", rel)
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, rc, err := Sniff(f)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			f.Close()
			continue
		}
		rc.Close()
		f.Close()
		formats[got.Format]++
		if want.Format == "" {
			if got.Format != "" || got.Reason == "" {
				t.Errorf("%s: got %v, want skipped with a reason", rel, got)
			}
			continue
		}
		if got.Format != want.Format || got.Variant != want.Variant || got.Compression != want.Compression {
			t.Errorf("%s: got %v, want %v", rel, got, want)
		}
	}
	// 55 JATS files according to the corpus index.
	if formats[JATS] != 55 {
		t.Errorf("detected %d JATS files, want 55", formats[JATS])
	}
}

func gz(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zst(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func tarball(t testing.TB, files map[string]string) []byte {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for _, name := range []string{"PMC1/PMC1.nxml", "PMC1/fig1.jpg"} {
		body, ok := files[name]
		if !ok {
			continue
		}
		w.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		w.Write([]byte(body))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const (
	jatsDoc   = `<?xml version="1.0"?><!DOCTYPE article PUBLIC "-//NLM//DTD JATS" "x.dtd"><article article-type="research-article"><front/></article>`
	pubmedSet = "<?xml version=\"1.0\"?>\n<!DOCTYPE PubmedArticleSet>\n<PubmedArticleSet><PubmedArticle/></PubmedArticleSet>"
)

func TestDetect(t *testing.T) {
	pkg := tarball(t, map[string]string{"PMC1/PMC1.nxml": jatsDoc, "PMC1/fig1.jpg": "\xff\xd8\xff\xe0"})
	tests := []struct {
		name string
		in   []byte
		want Info
	}{
		{"jats", []byte(jatsDoc), Info{Format: JATS, Variant: VariantArticle}},
		{"jats with BOM and comment", []byte("\xef\xbb\xbf<!-- c --><?pi x?>\n<article/>"), Info{Format: JATS, Variant: VariantArticle}},
		{"jats namespaced", []byte(`<j:article xmlns:j="https://jats.nlm.nih.gov/ns/archiving/1.3/"/>`), Info{Format: JATS, Variant: VariantArticle}},
		{"jats latin-1", []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><article>\xe9</article>"), Info{Format: JATS, Variant: VariantArticle}},
		{"jats gzip", gz(t, []byte(jatsDoc)), Info{Format: JATS, Variant: VariantArticle, Compression: Gzip}},
		{"pmc articleset", []byte(`<pmc-articleset><article/></pmc-articleset>`), Info{Format: JATS, Variant: VariantArticleSet}},
		{"oai-pmh", []byte(`<?xml version="1.0"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><GetRecord/></OAI-PMH>`), Info{Format: OAIPMH, Variant: VariantOAIResponse}},
		{"pubmed set zstd", zst(t, []byte(pubmedSet)), Info{Format: PubMed, Variant: VariantSet, Compression: Zstd}},
		{"pubmed book fragment", []byte(`<PubmedBookArticle/>`), Info{Format: PubMed, Variant: VariantFragment}},
		{"package tar.gz", gz(t, pkg), Info{Format: JATSPackage, Variant: VariantTar, Compression: Gzip}},
		{"package tar", pkg, Info{Format: JATSPackage, Variant: VariantTar}},
		{"crossref envelope", []byte(`{"status":"ok","message-type":"work","message-version":"1.0.0","message":{"DOI":"10.1/x","title":["T"]}}`), Info{Format: Crossref, Variant: VariantEnvelope}},
		{"crossref work-list envelope", []byte(`{"status":"ok","message-type":"work-list","message":{"items":[{"DOI":"10.1/x"}]}}`), Info{Format: Crossref, Variant: VariantEnvelope}},
		{"crossref jsonl", []byte("{\"DOI\":\"10.1/a\",\"reference-count\":0}\n{\"DOI\":\"10.1/b\"}\n"), Info{Format: Crossref, Variant: VariantJSONLines}},
		{"crossref one-line file", []byte("{\"DOI\":\"10.1/a\",\"container-title\":[]}\n"), Info{Format: Crossref, Variant: VariantJSONLines}},
		{"crossref pretty", []byte("{\n  \"DOI\": \"10.1/a\",\n  \"publisher\": \"P\"\n}\n"), Info{Format: Crossref, Variant: VariantJSON}},
		{"crossref array", []byte(`[{"DOI":"10.1/a"},{"DOI":"10.1/b"}]`), Info{Format: Crossref, Variant: VariantArray}},
		{"crossref mongo", []byte(`{ "_id" : { "$oid" : "5a5" }, "DOI" : "10.1/a", "indexed" : { "timestamp" : { "$numberLong" : "1" } } }`), Info{Format: Crossref, Variant: VariantMongo}},
		{"openalex jsonl", []byte("{\"id\":\"https://openalex.org/W1\",\"doi\":null}\n{\"id\":\"https://openalex.org/W2\"}\n"), Info{Format: OpenAlex, Variant: VariantJSONLines}},
		{"openalex api page", []byte(`{"meta":{"count":1},"results":[{"id":"https://openalex.org/W1","publication_year":2020}]}`), Info{Format: OpenAlex, Variant: VariantAPIPage}},
		{"openalex cut mid-line", []byte(`{"id":"https://openalex.org/W1","abstract_inverted_index":{"a":[0],"b":[`), Info{Format: OpenAlex, Variant: VariantJSONLines}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Detect(tt.in)
			if got != tt.want {
				t.Errorf("Detect = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDetectSkips(t *testing.T) {
	tests := []struct {
		name   string
		in     []byte
		reason string // substring of the reason
	}{
		{"empty", nil, "empty"},
		{"blank", []byte(" \n\t"), "white space"},
		{"markdown", []byte("# Fixtures\n\nReal data."), "Markdown"},
		{"csv", []byte("slug,name,parent\na,b,c\n"), "CSV"},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00"), "image/png"},
		{"jpeg in gzip", gz(t, []byte("\xff\xd8\xff\xe0")), "image/jpeg"},
		{"pdf", []byte("%PDF-1.7\n"), "application/pdf"},
		{"zip", []byte("PK\x03\x04rest"), "zip"},
		{"html", []byte("<!DOCTYPE html><html><body/></html>"), "HTML"},
		{"other xml", []byte(`<?xml version="1.0"?><rss/>`), "root <rss>"},
		{"broken xml", []byte(`<<<`), "not XML"},
		{"crossref member", []byte(`{"status":"ok","message-type":"member","message":{}}`), "message-type member"},
		{"unknown json", []byte(`{"name":"x","version":"1"}`), "without the keys"},
		{"not json", []byte(`{oops`), "not"},
		{"binary", []byte{0, 1, 2, 3, 4}, "binary"},
		{"double gzip", gz(t, gz(t, []byte(jatsDoc))), "compressed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Detect(tt.in)
			if got.Format != "" {
				t.Fatalf("Detect = %v, want skipped", got)
			}
			if !strings.Contains(got.Reason, tt.reason) {
				t.Errorf("reason %q does not mention %q", got.Reason, tt.reason)
			}
		})
	}
}

func TestSniffCorrupt(t *testing.T) {
	_, _, err := Sniff(bytes.NewReader([]byte{0x1f, 0x8b, 0xff, 0xff, 0, 0, 0, 0, 0, 0}))
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Sniff(bad gzip) = %v, want ErrCorrupt", err)
	}
	// A truncated gzip stream still classifies by what it yields.
	noise := make([]byte, 100_000)
	for i := range noise {
		noise[i] = 'a' + byte((i*7919)%26) ^ byte(i>>9)&7
	}
	full := gz(t, append([]byte(jatsDoc), noise...))
	if got := Detect(full[:len(full)/2]); got.Format != JATS {
		t.Errorf("truncated gzip: %v, want jats", got)
	}
}

// TestSniffReusesBuffers sniffs streams one after another, plain and
// compressed, each longer than the sniffed prefix: the buffers Close hands
// back to the next Sniff never mix one stream's bytes into another's, and
// a closed stream reads as empty.
func TestSniffReusesBuffers(t *testing.T) {
	body := func(i int) []byte {
		b := []byte(jatsDoc)
		for len(b) < 3*SniffSize {
			b = append(b, fmt.Sprintf("<!-- stream %d, byte %d -->\n", i, len(b))...)
		}
		return b
	}
	var closed []io.ReadCloser
	for i := range 12 {
		want := body(i)
		in := want
		switch i % 3 {
		case 1:
			in = gz(t, want)
		case 2:
			in = zst(t, want)
		}
		info, rc, err := Sniff(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if info.Format != JATS {
			t.Errorf("stream %d: %v, want jats", i, info)
		}
		got, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("stream %d: read %d bytes that differ from its %d", i, len(got), len(want))
		}
		if err := rc.Close(); err != nil {
			t.Fatal(err)
		}
		if err := rc.Close(); err != nil { // twice is harmless
			t.Fatal(err)
		}
		closed = append(closed, rc)
	}
	for i, rc := range closed {
		if n, err := rc.Read(make([]byte, 16)); n != 0 || err != io.EOF {
			t.Errorf("stream %d read after Close: %d, %v; want 0, EOF", i, n, err)
		}
	}
}

// recorder is a Sink (and ReaderFunc) that remembers what it was given.
type recorder struct {
	origin string
	body   []byte
	probs  []ingest.Problem
}

func (r *recorder) read(ctx context.Context, in io.Reader, origin string, sink ingest.Sink) error {
	r.origin = origin
	b, err := io.ReadAll(in)
	r.body = b
	return err
}

func (r *recorder) Document(*ingest.Document) error { return nil }
func (r *recorder) Delete(ingest.Deletion) error    { return nil }
func (r *recorder) Problem(p ingest.Problem)        { r.probs = append(r.probs, p) }

func TestReadDispatch(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var jats, pubmed recorder
	rs := Readers{JATS: jats.read, PubMed: pubmed.read}
	ctx := context.Background()

	// Named like JSON, compressed, still JATS: content decides.
	p := write("misleading.json", zst(t, []byte(jatsDoc)))
	info, err := rs.ReadFile(ctx, p, &jats)
	if err != nil {
		t.Fatal(err)
	}
	if info.Format != JATS || jats.origin != p || string(jats.body) != jatsDoc {
		t.Errorf("jats: info %v origin %q body %q", info, jats.origin, jats.body)
	}
	if pubmed.body != nil {
		t.Error("pubmed reader called for a JATS file")
	}

	p = write("README.md", []byte("# hello\n"))
	err = rs.Read(ctx, p, &jats)
	var skip *SkipError
	if !errors.Is(err, ErrSkipped) || !errors.As(err, &skip) || skip.Path != p || skip.Reason == "" {
		t.Errorf("README: err = %v, want a SkipError with path and reason", err)
	}

	p = write("x.jsonl", []byte("{\"DOI\":\"10.1/a\",\"reference-count\":1}\n"))
	if _, err := rs.ReadFile(ctx, p, &jats); !errors.Is(err, ErrNoReader) || !errors.Is(err, ErrSkipped) {
		t.Errorf("crossref without reader: err = %v, want ErrNoReader", err)
	}

	if _, err := rs.ReadFile(ctx, filepath.Join(dir, "missing"), &jats); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := rs.ReadFile(cancelled, p, &jats); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestOpenAlexToLines(t *testing.T) {
	w1 := `{"id":"https://openalex.org/W1","title":"a\nb","publication_year":2020}`
	w2 := `{"id":"https://openalex.org/W2","authorships":[]}`
	tests := []struct {
		name, in string
		want     Info
	}{
		{"api page", `{"meta":{"count":2,"page":1},"results":[` + w1 + `,` + w2 + `],"group_by":[]}`, Info{Format: OpenAlex, Variant: VariantAPIPage}},
		{"array", "[\n " + w1 + ",\n " + w2 + "\n]", Info{Format: OpenAlex, Variant: VariantArray}},
		{"pretty", "{\n  \"id\": \"https://openalex.org/W1\",\n  \"title\": \"a\\nb\",\n  \"publication_year\": 2020\n}\n" + w2, Info{Format: OpenAlex, Variant: VariantJSON}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got recorder
			rs := Readers{OpenAlex: got.read}
			info, err := rs.ReadFrom(context.Background(), strings.NewReader(tt.in), "x", &got)
			if err != nil {
				t.Fatal(err)
			}
			if info != tt.want {
				t.Fatalf("info %v, want %v", info, tt.want)
			}
			lines := strings.Split(strings.TrimSuffix(string(got.body), "\n"), "\n")
			if len(lines) != 2 {
				t.Fatalf("%d lines: %q", len(lines), got.body)
			}
			for i, want := range []string{w1, w2} {
				if lines[i] != want {
					t.Errorf("line %d = %s, want %s", i+1, lines[i], want)
				}
			}
		})
	}
	// Broken JSON reaches the reader as a read error, not a hang.
	var got recorder
	rs := Readers{OpenAlex: got.read}
	_, err := rs.ReadFrom(context.Background(), strings.NewReader(`[`+w1+`, {"id": "https://openalex.org/W3", oops`), "x", &got)
	if err == nil {
		t.Error("broken array: no error")
	}
}

// A reader that stops early must not leave the converter blocked.
func TestToLinesEarlyStop(t *testing.T) {
	stop := errors.New("stop")
	rs := Readers{OpenAlex: func(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error {
		r.Read(make([]byte, 10))
		return stop
	}}
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < 5000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"id":"https://openalex.org/W1","publication_year":2020}`)
	}
	b.WriteString("]")
	_, err := rs.ReadFrom(context.Background(), strings.NewReader(b.String()), "x", &recorder{})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v", err)
	}
}

// countSink counts what the real readers produce.
type countSink struct{ docs, dels, probs int }

func (c *countSink) Document(*ingest.Document) error { c.docs++; return nil }
func (c *countSink) Delete(ingest.Deletion) error    { c.dels++; return nil }
func (c *countSink) Problem(ingest.Problem)          { c.probs++ }

// Every data fixture, read through Default, yields documents; every other
// file is skipped with a reason.
func TestDefaultReadersOnFixtures(t *testing.T) {
	dir := fixtures.Dir(t)
	rs := Default()
	err := Walk(context.Background(), fixtures.Corpus(t), func(f File) error {
		rel, _ := filepath.Rel(dir, f.Path)
		var c countSink
		info, err := rs.ReadFile(context.Background(), f.Path, &c)
		want, _ := fixtureFormat(rel)
		switch {
		case want.Format == "":
			if !errors.Is(err, ErrSkipped) {
				t.Errorf("%s: err = %v, want skipped", rel, err)
			}
		case err != nil:
			t.Errorf("%s (%v): %v", rel, info, err)
		case c.docs == 0:
			t.Errorf("%s (%v): no documents (%d problems)", rel, info, c.probs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestWalk(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"b/2.xml", "b/1.xml", "a.json", ".hidden/x.xml", "b/.DS_Store", "c/d/e.gz"} {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(filepath.Join(dir, "a.json"), filepath.Join(dir, "c", "link.json"))
	os.Symlink(filepath.Join(dir, "b"), filepath.Join(dir, "c", "linkdir"))
	var got []string
	err := Walk(context.Background(), []string{filepath.Join(dir, "c"), dir, filepath.Join(dir, "b", "1.xml")}, func(f File) error {
		rel, _ := filepath.Rel(dir, f.Path)
		got = append(got, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "c/d/e.gz c/link.json b/1.xml b/2.xml" // a.json is c/link.json
	if g := strings.Join(got, " "); g != want {
		t.Errorf("Walk order:\n got %s\nwant %s", g, want)
	}

	if err := Walk(context.Background(), []string{filepath.Join(dir, "nope")}, func(File) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing input: %v", err)
	}
	stop := errors.New("stop")
	n := 0
	if err := Walk(context.Background(), []string{dir}, func(File) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("fn error: %v after %d calls", err, n)
	}
}

// A root reached through a link to a directory: its files are the same
// as those of the directory's own path, and each is visited once.
func TestWalkLinkedRoot(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"r/s/1.xml", "r/s/t/2.xml", "r/3.xml"} {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "r"), filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	var got []string
	roots := []string{filepath.Join(dir, "l", "s"), filepath.Join(dir, "r"), filepath.Join(dir, "l", "s", "t", "2.xml")}
	err := Walk(context.Background(), roots, func(f File) error {
		rel, _ := filepath.Rel(dir, f.Path)
		got = append(got, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "l/s/1.xml l/s/t/2.xml r/3.xml"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("Walk order:\n got %s\nwant %s", g, want)
	}
}

// Wrappers built at test time around a real article reach the JATS reader
// through the default dispatch: a PMC tar.gz package, an OAI-PMH response
// and a <pmc-articleset>.
func TestDefaultReadersWrappers(t *testing.T) {
	raw, err := os.ReadFile(fixtures.Path(t, "jats", "pmc", "PMC6398430.nxml"))
	if err != nil {
		t.Fatal(err)
	}
	article := string(raw)
	if i := strings.Index(article, "<article"); i >= 0 {
		article = article[i:] // drop the DOCTYPE: it cannot sit inside another element
	}
	pkg := tarball(t, map[string]string{"PMC1/PMC1.nxml": string(raw), "PMC1/fig1.jpg": "\xff\xd8\xff\xe0"})
	tests := []struct {
		name   string
		in     []byte
		format Format
		origin string
	}{
		{"package", gz(t, pkg), JATSPackage, "pkg.tar.gz!PMC1/PMC1.nxml"},
		{"oai-pmh", []byte(`<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-01-01T00:00:00Z</responseDate><request verb="GetRecord">https://pmc.ncbi.nlm.nih.gov/api/oai/v1/mh/</request><GetRecord><record><header><identifier>oai:pubmedcentral.nih.gov:6398430</identifier><datestamp>2019-03-04</datestamp></header><metadata>` + article + `</metadata></record></GetRecord></OAI-PMH>`), OAIPMH, "pkg.tar.gz"},
		{"articleset", []byte(`<pmc-articleset>` + article + `</pmc-articleset>`), JATS, "pkg.tar.gz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got docSink
			info, err := Default().ReadFrom(context.Background(), bytes.NewReader(tt.in), "pkg.tar.gz", &got)
			if err != nil {
				t.Fatal(err)
			}
			if info.Format != tt.format {
				t.Errorf("format %v, want %s", info, tt.format)
			}
			if len(got.docs) != 1 || got.docs[0].PMCID != "6398430" || !strings.HasPrefix(got.docs[0].Origin, tt.origin) {
				t.Errorf("documents %d, first %+v", len(got.docs), got.first())
			}
		})
	}
}

type docSink struct{ docs []*ingest.Document }

func (s *docSink) Document(d *ingest.Document) error {
	c := *d
	s.docs = append(s.docs, &c)
	return nil
}
func (s *docSink) Delete(ingest.Deletion) error { return nil }
func (s *docSink) Problem(p ingest.Problem)     {}
func (s *docSink) first() string {
	if len(s.docs) == 0 {
		return "none"
	}
	return s.docs[0].PMCID + " " + s.docs[0].Origin
}
