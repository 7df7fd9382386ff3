package run

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/pipelines"
	"github.com/openshelf/openshelf/snapshot"
)

var testNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func TestFamilyFilter(t *testing.T) {
	sum, err := Run(context.Background(), Config{
		DataDir:  t.TempDir(),
		Inputs:   []Input{{Path: fixtures.Path(t, "jats", "elife")}},
		Families: []licence.Family{licence.CC0},
		Fresh:    true,
		Now:      testNow,
	})
	if err != nil {
		t.Fatal(err)
	}
	// eLife: 12 CC BY and 2 CC0 articles (jats/elife/SOURCES.md).
	if sum.Accepted != 2 || sum.AcceptedByLicence["CC0"] != 2 {
		t.Errorf("accepted %d %v, want the 2 CC0 articles", sum.Accepted, sum.AcceptedByLicence)
	}
	if got := sum.RejectedByReason[string(ReasonExcluded)]; got != 12 {
		t.Errorf("excluded %d, want the 12 CC BY articles (%v)", got, sum.RejectedByReason)
	}
}

func TestRemoteNotImplemented(t *testing.T) {
	p, err := pipelines.Load(filepath.Join(pipelinesDir(t), "nightly.toml"))
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "data")
	_, err = Run(context.Background(), Config{DataDir: data, Pipeline: p})
	if !errors.Is(err, ErrRemoteNotImplemented) {
		t.Fatalf("err = %v, want ErrRemoteNotImplemented", err)
	}
	for _, name := range []string{"pmc-oa", "pubmed-updates", "openalex-works", "crossref-works"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name source %s: %v", name, err)
		}
	}
	if _, serr := os.Stat(data); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("the data directory was touched: %v", serr)
	}
}

func pipelinesDir(t *testing.T) string {
	root, err := fixtures.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "pipelines")
}

// A pipeline source that declares a format reads only files of that
// format; the others are skipped with a reason.
func TestPipelineDeclaredFormat(t *testing.T) {
	toml := fmt.Sprintf("name = \"t\"\n[[source]]\nname = \"pm\"\nkind = \"local\"\nformat = \"pubmed\"\npaths = [%q, %q]\n",
		fixtures.Path(t, "pubmed"), fixtures.Path(t, "jats", "f1000"))
	p, err := pipelines.Parse([]byte(toml), filepath.Join(t.TempDir(), "t.toml"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Config{DataDir: t.TempDir(), Pipeline: p, Fresh: true, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Formats["pubmed/set"] != 2 || sum.Formats["pubmed/fragment"] != 2 || len(sum.Formats) != 2 {
		t.Errorf("formats %v, want the 4 PubMed files only", sum.Formats)
	}
	n := 0
	for _, s := range sum.SkippedFiles {
		if strings.Contains(s.Path, "f1000research") {
			n++
			if !strings.Contains(s.Reason, "jats") {
				t.Errorf("skip reason %q does not say what the file is", s.Reason)
			}
		}
	}
	if n != 2 {
		t.Errorf("skipped %d F1000 files, want 2: %v", n, sum.SkippedFiles)
	}
	// PubMed alone licenses nothing.
	if sum.Accepted != 0 {
		t.Errorf("accepted %d PubMed records", sum.Accepted)
	}
}

// Bad files are reported and the run goes on.
func TestBadInputsAreReported(t *testing.T) {
	in := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(in, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.txt", "hello\n")
	write("figure.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	write("broken.xml", "<article><front><article-meta><title-group>")
	write("broken.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff\xff\xff")
	write("bad.jsonl", "{\"id\":\"https://openalex.org/W1\",\"publication_year\":2020}\n{not json\n")
	good := fixtures.Path(t, "jats", "elife", "elife00005.xml")
	sum, err := Run(context.Background(), Config{DataDir: t.TempDir(), Inputs: []Input{{Path: in}, {Path: good}}, Fresh: true, Now: testNow})
	if err != nil {
		t.Fatalf("Run failed on bad input: %v", err)
	}
	if sum.Files != 6 || sum.Skipped != 2 {
		t.Errorf("files %d skipped %d (%v), want 6 and 2", sum.Files, sum.Skipped, sum.SkippedFiles)
	}
	paths := map[string]bool{}
	for _, p := range sum.ProblemList {
		paths[filepath.Base(p.Path)] = true
		if p.Reason == "" {
			t.Errorf("problem without a reason: %+v", p)
		}
	}
	for _, name := range []string{"broken.xml", "broken.gz", "bad.jsonl"} {
		if !paths[name] {
			t.Errorf("no problem reported for %s: %v", name, sum.ProblemList)
		}
	}
	if sum.Accepted != 1 {
		t.Errorf("accepted %d, want the one good eLife article", sum.Accepted)
	}
	var b strings.Builder
	if err := sum.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"figure.png: image/png", "broken.xml", "accepted   1: CC-BY 1", "problems   3"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}

func TestRunFailures(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	good := fixtures.Path(t, "jats", "elife", "elife00005.xml")
	tests := []struct {
		name string
		cfg  Config
		want error
	}{
		{"no data dir", Config{Inputs: []Input{{Path: good}}}, ErrConfig},
		{"no inputs", Config{DataDir: t.TempDir()}, ErrConfig},
		{"bad family", Config{DataDir: t.TempDir(), Inputs: []Input{{Path: good}}, Families: []licence.Family{"CC-BY-NC"}}, ErrConfig},
		{"missing input", Config{DataDir: t.TempDir(), Inputs: []Input{{Path: filepath.Join(t.TempDir(), "nope")}}}, ErrInput},
		{"data under a file", Config{DataDir: filepath.Join(file, "data"), Inputs: []Input{{Path: good}}}, ErrData},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), tt.cfg)
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Config{DataDir: t.TempDir(), Inputs: []Input{{Path: good}}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: err = %v", err)
	}
}

// Two runs over the same inputs, with several readers at once, publish
// byte-identical tables: the sequencer hands records to the merger in
// input order whatever the reader that finishes first.
func TestDeterministic(t *testing.T) {
	inputs := []Input{{Path: fixtures.Path(t, "openalex")}, {Path: fixtures.Path(t, "crossref")}, {Path: fixtures.Path(t, "jats", "plos")}}
	digests := make([]map[string]string, 2)
	for i := range digests {
		data := t.TempDir()
		sum, err := Run(context.Background(), Config{DataDir: data, Inputs: inputs, Fresh: true, Now: testNow, Workers: 4, BufferBytes: 4096})
		if err != nil {
			t.Fatal(err)
		}
		s, err := snapshot.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		digests[i] = map[string]string{}
		for _, f := range s.Manifest.Files {
			digests[i][f.Name] = f.SHA256
		}
		if sum.Accepted == 0 {
			t.Fatal("nothing published")
		}
	}
	for name, d := range digests[0] {
		if digests[1][name] != d {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

// recordSink records the order of what the sequencer delivers.
type recordSink struct {
	mu   sync.Mutex
	got  []string
	fail int // fail on this delivery (1-based), 0 never
}

func (r *recordSink) Document(d *ingest.Document) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, d.Title)
	if len(r.got) == r.fail {
		return errors.New("disk full")
	}
	return nil
}

func (r *recordSink) Delete(d ingest.Deletion) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, "del "+d.ID)
	return nil
}

func (r *recordSink) Problem(ingest.Problem) {}

func TestSequencerOrder(t *testing.T) {
	const files, per = 12, 40
	for _, buffer := range []int{1, 1 << 20} {
		out := &recordSink{}
		seq := newSequencer(context.Background(), out, buffer)
		var wg sync.WaitGroup
		next := make(chan int)
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					s := seq.sink(i, func(ingest.Problem) {})
					doc := &ingest.Document{}
					for k := 0; k < per; k++ {
						// The reader reuses its Document: the sequencer must copy.
						doc.Title = fmt.Sprintf("%02d-%02d", i, k)
						if err := s.Document(doc); err != nil {
							t.Error(err)
						}
						if k == per/2 {
							s.Delete(ingest.Deletion{ID: fmt.Sprintf("pmid-%d", i)})
						}
						if rand.IntN(8) == 0 {
							time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
						}
					}
					if err := s.finish(); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		for i := 0; i < files; i++ {
			next <- i
		}
		close(next)
		wg.Wait()
		var want []string
		for i := 0; i < files; i++ {
			for k := 0; k < per; k++ {
				want = append(want, fmt.Sprintf("%02d-%02d", i, k))
				if k == per/2 {
					want = append(want, fmt.Sprintf("del pmid-%d", i))
				}
			}
		}
		if strings.Join(out.got, " ") != strings.Join(want, " ") {
			t.Errorf("buffer %d: delivered out of order:\n%v", buffer, out.got)
		}
	}
}

// A failing sink stops every reader, including those waiting their turn.
func TestSequencerSinkFailure(t *testing.T) {
	out := &recordSink{fail: 3}
	seq := newSequencer(context.Background(), out, 1)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := 2; i >= 0; i-- { // later files start first and must wait
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := seq.sink(i, func(ingest.Problem) {})
			for k := 0; k < 5; k++ {
				if err := s.Document(&ingest.Document{Title: fmt.Sprint(i, k)}); err != nil {
					errs[i] = err
					break
				}
			}
			if err := s.finish(); err != nil && errs[i] == nil {
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("file %d: err = %v, want the sink's error", i, err)
		}
	}
}

func TestClone(t *testing.T) {
	d := &ingest.Document{
		Title:    "T",
		Authors:  []ingest.Author{{Name: "A", Affiliations: []string{"X"}}},
		Sections: []ingest.Section{{Title: "S", Children: []ingest.Section{{Paragraphs: []string{"p"}}}}},
		Licence:  licence.Decision{Evidence: []licence.Evidence{{Value: "v", Start: testNow}}},
		Updated:  testNow,
		Tables:   []ingest.Table{{Rows: [][]string{{"a", "1"}, nil}}},
		Records:  [][]byte{[]byte("rec")},
	}
	c, n := clone(d)
	if n <= 0 {
		t.Errorf("size %d", n)
	}
	d.Tables[0].Rows[0][1] = "changed"
	d.Records[0][0] = 'X'
	if c.Tables[0].Rows[0][1] != "1" || c.Tables[0].Rows[1] != nil || string(c.Records[0]) != "rec" {
		t.Errorf("clone shares a table or a record with the original: %+v", c)
	}
	d.Authors[0].Affiliations[0] = "changed"
	d.Sections[0].Children[0].Paragraphs[0] = "changed"
	d.Licence.Evidence[0].Value = "changed"
	d.Title = "changed"
	if c.Authors[0].Affiliations[0] != "X" || c.Sections[0].Children[0].Paragraphs[0] != "p" ||
		c.Licence.Evidence[0].Value != "v" || c.Title != "T" || !c.Updated.Equal(testNow) || !c.Licence.Evidence[0].Start.Equal(testNow) {
		t.Errorf("clone shares memory with the original: %+v", c)
	}
}
