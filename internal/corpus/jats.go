package corpus

// JATS input corpora for ingest benchmarks.
//
// The read-server corpus (generate.go) feeds documents straight into the
// index; an ingest benchmark needs the opposite: real XML on disk, so that
// the whole pipeline (detect, parse, licence, merge, Parquet, bundles)
// runs as it does on a nightly input. WriteJATS writes N articles derived
// from the CC-BY and CC0 articles of the fixture corpus: each output
// article is a fixture article byte for byte except for its ids (every
// pmc, pmid and doi article-id of the main article is rewritten to a value
// unique to the document) and a few words appended to its title. The
// fixtures are chosen at run time by reading them with the JATS reader and
// keeping those it accepts as CC-BY or CC0, so non-commercial and
// no-derivatives articles can never end up in a corpus, and nothing is
// copied into the repository.

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/klauspost/compress/gzip"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/jats"
	"github.com/openshelf/openshelf/licence"
)

// JATSLayout is how WriteJATS stores the articles.
type JATSLayout string

// Layouts. Files is the simplest and the default; the other two are closer
// to what a nightly run downloads.
const (
	// LayoutFiles writes one article per .xml file, 1000 files per
	// sub-directory.
	LayoutFiles JATSLayout = "files"
	// LayoutTarGz writes PMC-style gzip-compressed tar packages holding
	// PerFile articles each.
	LayoutTarGz JATSLayout = "tar.gz"
	// LayoutOAI writes OAI-PMH ListRecords responses (as PMC's OAI service
	// returns them) of PerFile records each.
	LayoutOAI JATSLayout = "oai"
)

// JATSLayouts lists the layouts, for flag help and validation.
var JATSLayouts = []JATSLayout{LayoutFiles, LayoutTarGz, LayoutOAI}

// JATSFamilies are the licence families a fixture article must be accepted
// under to serve as a template.
var JATSFamilies = []licence.Family{licence.CCBY, licence.CC0}

// First numbers of the generated ids: document i gets pmc id
// JATSFirstPMC+i and pmid JATSFirstPMID+i (when its template has those
// ids). Eight digits up to MaxDocuments, far above the fixtures' own.
const (
	JATSFirstPMC  = 90_000_000
	JATSFirstPMID = 60_000_000
)

// corpusInfo is the name of the file describing a written corpus. The
// leading dot makes detect.Walk pass over it.
const corpusInfo = ".openshelf-corpus.json"

// JATSTemplate is a fixture article prepared for rewriting: its bytes cut
// at every id and at the end of its title.
type JATSTemplate struct {
	// Name is the fixture path relative to the fixture root.
	Name string
	// Family is the licence family the reader accepts it under.
	Family licence.Family
	// Bytes is the size of the original article.
	Bytes int

	parts []templatePart
	start int // offset of "<article" in the concatenated parts (OAI records start there)
}

// hole kinds in a template.
const (
	holeNone = iota
	holePMC
	holePMID
	holeDOI
	holeTitle
)

// templatePart is literal text followed by a hole (holeNone for the last).
type templatePart struct {
	text   []byte
	hole   int
	prefix string // holePMC: "PMC" or ""; holeDOI: the registrant prefix "10.1371/"
	nth    int    // holeDOI: 0 for the first DOI article-id, 1 for the next...
}

var (
	articleIDRe   = regexp.MustCompile(`(?s)<article-id\b([^>]*)>([^<]*)</article-id>`)
	pubIDTypeRe   = regexp.MustCompile(`pub-id-type\s*=\s*["']([^"']*)["']`)
	articleOpenRe = regexp.MustCompile(`<article[\s>]`)
)

// errTemplate marks a fixture that cannot serve as a template.
var errTemplate = errors.New("not usable as a template")

// LoadJATSTemplates reads every JATS file under fixturesDir/jats and
// returns the articles the JATS reader accepts as CC-BY or CC0 (and that are
// not retraction notices), prepared for WriteJATS. It checks that each
// rewritten template still reads as one accepted document of the same
// family with the new ids, so a template that rewriting would break is
// left out rather than producing problems in the benchmark.
func LoadJATSTemplates(ctx context.Context, fixturesDir string) ([]*JATSTemplate, error) {
	root := filepath.Join(fixturesDir, "jats")
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".xml") || strings.HasSuffix(p, ".nxml")) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: fixtures: %v", ErrConfig, err)
	}
	var out []*JATSTemplate
	now := time.Now()
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(fixturesDir, p)
		t, err := newJATSTemplate(ctx, filepath.ToSlash(rel), b, now)
		if errors.Is(err, errTemplate) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no CC-BY or CC0 JATS article under %s", ErrConfig, root)
	}
	return out, nil
}

// readOne reads b with the JATS reader and returns its only document.
func readOne(ctx context.Context, b []byte, now time.Time) (*ingest.Document, error) {
	rd := jats.Reader{Now: func() time.Time { return now }}
	var c collector
	if err := rd.Read(ctx, bytes.NewReader(b), "template.xml", &c); err != nil {
		return nil, fmt.Errorf("%w: %v", errTemplate, err)
	}
	if len(c.docs) != 1 || len(c.problems) > 0 || c.deletions > 0 {
		return nil, fmt.Errorf("%w: %d documents, %d problems", errTemplate, len(c.docs), len(c.problems))
	}
	return c.docs[0], nil
}

func newJATSTemplate(ctx context.Context, name string, b []byte, now time.Time) (*JATSTemplate, error) {
	d, err := readOne(ctx, b, now)
	if err != nil {
		return nil, err
	}
	if !d.Licence.Accepted || !slices.Contains(JATSFamilies, d.Licence.Family) || d.Retracted {
		return nil, errTemplate
	}
	t := &JATSTemplate{Name: name, Family: d.Licence.Family, Bytes: len(b)}
	if err := t.cut(b); err != nil {
		return nil, err
	}
	// Rewrite with a sample number and check the reader agrees.
	const probe = 12_345
	got, err := readOne(ctx, t.Append(nil, probe, 1, "probe words"), now)
	if err != nil {
		return nil, err
	}
	want := t.ids(probe, 1)
	if got.Licence.Family != t.Family || !got.Licence.Accepted || got.Retracted ||
		(want.pmc != "" && got.PMCID != want.pmc) || (want.pmid != "" && got.PMID != want.pmid) ||
		(want.doi != "" && got.DOI != want.doi) || !strings.Contains(got.Title, "probe words") {
		return nil, fmt.Errorf("%w: rewritten article reads as %s %s/%s/%s %q", errTemplate,
			got.Licence.Family, got.PMCID, got.PMID, got.DOI, got.Title)
	}
	return t, nil
}

// cut splits the article at its main article-meta's pmc, pmid and doi
// article-ids and at the end of its first article-title.
func (t *JATSTemplate) cut(b []byte) error {
	loc := articleOpenRe.FindIndex(b)
	if loc == nil {
		return errTemplate
	}
	t.start = loc[0]
	metaStart := bytes.Index(b, []byte("<article-meta"))
	metaLen := bytes.Index(b[max(metaStart, 0):], []byte("</article-meta>"))
	if metaStart < 0 || metaLen < 0 {
		return errTemplate
	}
	meta := b[metaStart : metaStart+metaLen]
	type cutAt struct {
		from, to int
		part     templatePart
	}
	var cuts []cutAt
	ndoi := 0
	for _, m := range articleIDRe.FindAllSubmatchIndex(meta, -1) {
		attrs := meta[m[2]:m[3]]
		value := string(bytes.TrimSpace(meta[m[4]:m[5]]))
		tm := pubIDTypeRe.FindSubmatch(attrs)
		if tm == nil {
			continue
		}
		p := templatePart{}
		switch strings.ToLower(string(tm[1])) {
		case "pmc", "pmcid":
			p.hole = holePMC
			if strings.HasPrefix(strings.ToUpper(value), "PMC") {
				p.prefix = "PMC"
			}
		case "pmid":
			p.hole = holePMID
		case "doi":
			p.hole, p.nth = holeDOI, ndoi
			ndoi++
			if i := strings.IndexByte(value, '/'); i > 0 && !strings.ContainsAny(value[:i], "<&") {
				p.prefix = value[:i+1]
			} else {
				p.prefix = "10.5555/"
			}
		default:
			continue
		}
		cuts = append(cuts, cutAt{metaStart + m[4], metaStart + m[5], p})
	}
	if len(cuts) == 0 {
		return errTemplate
	}
	ts := bytes.Index(meta, []byte("<article-title"))
	if ts < 0 {
		return errTemplate
	}
	te := bytes.Index(meta[ts:], []byte("</article-title>"))
	if te < 0 {
		return errTemplate
	}
	at := metaStart + ts + te
	cuts = append(cuts, cutAt{at, at, templatePart{hole: holeTitle}})
	slices.SortFunc(cuts, func(a, b cutAt) int { return a.from - b.from })
	last := 0
	for _, c := range cuts {
		c.part.text = b[last:c.from]
		t.parts = append(t.parts, c.part)
		last = c.to
	}
	t.parts = append(t.parts, templatePart{text: b[last:]})
	return nil
}

// docIDs are the ids document n gets.
type docIDs struct{ pmc, pmid, doi string }

func (t *JATSTemplate) ids(n int, seed uint64) docIDs {
	var d docIDs
	for _, p := range t.parts {
		switch p.hole {
		case holePMC:
			d.pmc = strconv.Itoa(JATSFirstPMC + n)
		case holePMID:
			d.pmid = strconv.Itoa(JATSFirstPMID + n)
		case holeDOI:
			if p.nth == 0 {
				d.doi = strings.ToLower(doiFor(p.prefix, seed, n, 0))
			}
		}
	}
	return d
}

func doiFor(prefix string, seed uint64, n, nth int) string {
	s := prefix + "openshelf.bench." + strconv.FormatUint(seed, 10) + "." + strconv.Itoa(n)
	if nth > 0 {
		s += "." + strconv.Itoa(nth)
	}
	return s
}

// Append appends the article for document n (ids from n and seed, words
// appended to the title, XML-escaped here) to dst.
func (t *JATSTemplate) Append(dst []byte, n int, seed uint64, titleWords string) []byte {
	for _, p := range t.parts {
		dst = append(dst, p.text...)
		switch p.hole {
		case holePMC:
			dst = append(dst, p.prefix...)
			dst = strconv.AppendInt(dst, int64(JATSFirstPMC+n), 10)
		case holePMID:
			dst = strconv.AppendInt(dst, int64(JATSFirstPMID+n), 10)
		case holeDOI:
			dst = append(dst, doiFor(p.prefix, seed, n, p.nth)...)
		case holeTitle:
			dst = append(dst, ": "...)
			var buf bytes.Buffer
			xml.EscapeText(&buf, []byte(titleWords))
			dst = append(dst, buf.Bytes()...)
		}
	}
	return dst
}

// collector keeps what the reader sends.
type collector struct {
	docs      []*ingest.Document
	problems  []ingest.Problem
	deletions int
}

func (c *collector) Document(d *ingest.Document) error { c.docs = append(c.docs, d); return nil }
func (c *collector) Delete(ingest.Deletion) error      { c.deletions++; return nil }
func (c *collector) Problem(p ingest.Problem)          { c.problems = append(c.problems, p) }

// JATSConfig configures WriteJATS.
type JATSConfig struct {
	// Dir receives the corpus; it is created, and must be empty or hold
	// a corpus written by WriteJATS (which is replaced).
	Dir string
	// N is the number of articles, 1..MaxDocuments+1.
	N int
	// Seed varies the title words and the DOIs.
	Seed uint64
	// Layout is LayoutFiles when empty.
	Layout JATSLayout
	// PerFile is the number of articles per package or OAI-PMH response;
	// 0 means 1000. Ignored for LayoutFiles.
	PerFile int
	// Templates are the articles to derive from (LoadJATSTemplates).
	Templates []*JATSTemplate
	// Workers write files in parallel; 0 means GOMAXPROCS.
	Workers int
}

// JATSCorpus describes a written corpus. It is also stored in the corpus
// directory as .openshelf-corpus.json (ReadJATSCorpus), which an ingest of
// the directory does not see.
type JATSCorpus struct {
	Dir       string     `json:"-"`
	Layout    JATSLayout `json:"layout"`
	Docs      int        `json:"docs"`
	Seed      uint64     `json:"seed"`
	PerFile   int        `json:"per_file,omitempty"`
	Files     int        `json:"files"`
	Bytes     int64      `json:"bytes"` // as stored (compressed for tar.gz)
	Templates []string   `json:"templates"`
	// Complete is false while the corpus is being written, and stays so
	// when writing failed.
	Complete bool `json:"complete"`
}

// ReadJATSCorpus returns the description of the corpus WriteJATS wrote in
// dir, or an error wrapping fs.ErrNotExist when there is none. Check
// Complete: a write that failed leaves an incomplete corpus.
func ReadJATSCorpus(dir string) (*JATSCorpus, error) {
	b, err := os.ReadFile(filepath.Join(dir, corpusInfo))
	if err != nil {
		return nil, err
	}
	var c JATSCorpus
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("corpus: %s: %w", filepath.Join(dir, corpusInfo), err)
	}
	c.Dir = dir
	return &c, nil
}

// WriteJATS writes cfg.N articles under cfg.Dir. Article i is derived from
// a template chosen by (Seed, i), so the same configuration writes the same
// bytes; files are written by cfg.Workers goroutines.
func WriteJATS(ctx context.Context, cfg JATSConfig) (*JATSCorpus, error) {
	if cfg.Dir == "" || len(cfg.Templates) == 0 {
		return nil, fmt.Errorf("%w: Dir and Templates are required", ErrConfig)
	}
	if cfg.N < 1 || cfg.N > MaxDocuments+1 {
		return nil, fmt.Errorf("%w: N=%d outside 1..%d", ErrConfig, cfg.N, MaxDocuments+1)
	}
	if cfg.Layout == "" {
		cfg.Layout = LayoutFiles
	}
	if !slices.Contains(JATSLayouts, cfg.Layout) {
		return nil, fmt.Errorf("%w: layout %q, want one of %v", ErrConfig, cfg.Layout, JATSLayouts)
	}
	if cfg.PerFile < 0 {
		return nil, fmt.Errorf("%w: negative PerFile", ErrConfig)
	}
	if cfg.PerFile == 0 {
		cfg.PerFile = 1000
	}
	if cfg.Layout == LayoutFiles {
		cfg.PerFile = 1
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if err := prepareDir(cfg.Dir); err != nil {
		return nil, err
	}
	c := &JATSCorpus{Dir: cfg.Dir, Layout: cfg.Layout, Docs: cfg.N, Seed: cfg.Seed}
	if cfg.Layout != LayoutFiles {
		c.PerFile = cfg.PerFile
	}
	for _, t := range cfg.Templates {
		c.Templates = append(c.Templates, t.Name)
	}
	// The description goes first, marked incomplete, so that a directory
	// left by a failed write is recognised (and replaced) next time.
	if err := c.save(); err != nil {
		return nil, err
	}
	words := titleWords(cfg.Templates)
	nfiles := (cfg.N + cfg.PerFile - 1) / cfg.PerFile
	var (
		bytesOut atomic.Int64
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel() })
	}
	for w := 0; w < min(cfg.Workers, nfiles); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := &jatsWriter{cfg: &cfg, words: words}
			for {
				f := int(next.Add(1) - 1)
				if f >= nfiles || ctx.Err() != nil {
					return
				}
				n, err := g.writeFile(f)
				if err != nil {
					fail(err)
					return
				}
				bytesOut.Add(n)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.Files, c.Bytes, c.Complete = nfiles, bytesOut.Load(), true
	if err := c.save(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *JATSCorpus) save() error {
	js, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.Dir, corpusInfo), append(js, '\n'), 0o644)
}

// prepareDir creates dir, or empties it when it holds a previous corpus. A
// non-empty directory that is not a corpus is refused: it may be anything.
func prepareDir(dir string) error {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return err
	case len(ents) == 0:
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, corpusInfo)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s is not empty and holds no corpus (%s)", ErrConfig, dir, corpusInfo)
		}
		return err
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// titleWords collects the distinct words of the templates' titles, the
// vocabulary of the title perturbations.
func titleWords(ts []*JATSTemplate) []string {
	seen := map[string]bool{}
	var words []string
	for _, t := range ts {
		for _, p := range t.parts {
			if p.hole != holeTitle {
				continue
			}
			// The text before the title hole ends with the title itself
			// (markup included); take its words after the last '>'.
			s := string(p.text)
			if i := strings.LastIndex(s, "<article-title"); i >= 0 {
				s = s[i:]
			}
			for _, w := range strings.FieldsFunc(stripTags(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
				w = strings.ToLower(w)
				if len([]rune(w)) >= 4 && !seen[w] {
					seen[w] = true
					words = append(words, w)
				}
			}
		}
	}
	if len(words) == 0 {
		words = []string{"variant"}
	}
	slices.Sort(words)
	return words
}

func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// jatsWriter writes corpus files; one per goroutine.
type jatsWriter struct {
	cfg   *JATSConfig
	words []string
	buf   []byte
}

// article returns the bytes of article i.
func (g *jatsWriter) article(i int) ([]byte, *JATSTemplate) {
	rng := rand.New(rand.NewPCG(g.cfg.Seed, uint64(i)))
	t := g.cfg.Templates[rng.IntN(len(g.cfg.Templates))]
	w := g.words
	title := w[rng.IntN(len(w))] + " " + w[rng.IntN(len(w))] + " " + strconv.Itoa(i)
	g.buf = t.Append(g.buf[:0], i, g.cfg.Seed, title)
	return g.buf, t
}

// writeFile writes corpus file f and returns its size.
func (g *jatsWriter) writeFile(f int) (int64, error) {
	cfg := g.cfg
	first, last := f*cfg.PerFile, min((f+1)*cfg.PerFile, cfg.N)
	sub := filepath.Join(cfg.Dir, fmt.Sprintf("%04d", first/(1000*cfg.PerFile)))
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return 0, err
	}
	var name string
	switch cfg.Layout {
	case LayoutFiles:
		name = fmt.Sprintf("article-%08d.xml", first)
	case LayoutTarGz:
		name = fmt.Sprintf("package-%06d.tar.gz", f)
	case LayoutOAI:
		name = fmt.Sprintf("listrecords-%06d.xml", f)
	}
	path := filepath.Join(sub, name)
	out, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	cw := &countWriter{w: out}
	bw := bufio.NewWriterSize(cw, 256<<10)
	switch cfg.Layout {
	case LayoutFiles:
		b, _ := g.article(first)
		_, err = bw.Write(b)
	case LayoutTarGz:
		err = g.writeTarGz(bw, first, last)
	case LayoutOAI:
		err = g.writeOAI(bw, first, last)
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("corpus: write %s: %w", path, err)
	}
	return cw.n, nil
}

func (g *jatsWriter) writeTarGz(w io.Writer, first, last int) error {
	zw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	mtime := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := first; i < last; i++ {
		b, _ := g.article(i)
		h := &tar.Header{Name: fmt.Sprintf("PMC%d/article-%08d.nxml", JATSFirstPMC+i, i), Mode: 0o644,
			Size: int64(len(b)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func (g *jatsWriter) writeOAI(w io.Writer, first, last int) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-01-01T00:00:00Z</responseDate>` +
		`<request verb="ListRecords" metadataPrefix="pmc">https://pmc.ncbi.nlm.nih.gov/api/oai/v1/mh/</request><ListRecords>` + "\n")
	for i := first; i < last; i++ {
		b, t := g.article(i)
		fmt.Fprintf(bw, `<record><header><identifier>oai:pubmedcentral.nih.gov:%d</identifier><datestamp>2026-01-01</datestamp><setSpec>bench</setSpec></header><metadata>`, JATSFirstPMC+i)
		bw.Write(b[t.start:]) // no XML declaration or DOCTYPE inside a record
		bw.WriteString("</metadata></record>\n")
	}
	fmt.Fprintf(bw, `<resumptionToken cursor="%d" completeListSize="%d"></resumptionToken></ListRecords></OAI-PMH>`+"\n", first, g.cfg.N)
	return bw.Flush()
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
