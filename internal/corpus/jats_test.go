package corpus

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/detect"
	"github.com/openshelf/openshelf/ingest/jats"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/licence"
)

var fixtureTemplates = sync.OnceValues(func() ([]*JATSTemplate, error) {
	dir, err := fixtures.Find()
	if err != nil {
		return nil, err
	}
	return LoadJATSTemplates(context.Background(), dir)
})

func templates(t *testing.T) []*JATSTemplate {
	t.Helper()
	ts, err := fixtureTemplates()
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestJATSTemplatesAreOpen checks the templates against an independent read
// of each fixture: only CC-BY and CC0 articles, never a rejected one (the
// NC and ND fixtures), and most of the accepted ones.
func TestJATSTemplatesAreOpen(t *testing.T) {
	ts := templates(t)
	names := map[string]bool{}
	for _, tp := range ts {
		names[tp.Name] = true
	}
	fix := fixtures.Dir(t)
	paths, _ := filepath.Glob(filepath.Join(fix, "jats", "*", "*.*ml"))
	accepted := 0
	for _, p := range paths {
		rel, _ := filepath.Rel(fix, p)
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		var c collector
		err = jats.Read(context.Background(), f, p, &c)
		f.Close()
		open := err == nil && len(c.docs) == 1 && c.docs[0].Licence.Accepted &&
			slices.Contains(JATSFamilies, c.docs[0].Licence.Family) && !c.docs[0].Retracted
		if open {
			accepted++
		}
		if names[filepath.ToSlash(rel)] && !open {
			t.Errorf("template %s is not an accepted CC-BY/CC0 article: %v %+v", rel, err, c.docs)
		}
	}
	if len(ts) < 30 || len(ts) != accepted {
		t.Errorf("%d templates of %d accepted CC-BY/CC0 fixture articles", len(ts), accepted)
	}
	for _, tp := range ts {
		for _, bad := range []string{"ceramica", "rsp-48-2-0322", "mds526", "ehp-116-1694", ".front-only."} {
			if strings.Contains(tp.Name, bad) {
				t.Errorf("template %s should have been refused", tp.Name)
			}
		}
	}
}

// readCorpus reads every file of a corpus with the ingest readers.
func readCorpus(t *testing.T, dir string) (*collector, int) {
	t.Helper()
	var c collector
	files := 0
	err := detect.Walk(context.Background(), []string{dir}, func(f detect.File) error {
		files++
		_, err := detect.Default().ReadFile(context.Background(), f.Path, &c)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return &c, files
}

func TestWriteJATS(t *testing.T) {
	ts := templates(t)
	const n = 90
	for _, layout := range JATSLayouts {
		t.Run(string(layout), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "corpus")
			cfg := JATSConfig{Dir: dir, N: n, Seed: 7, Layout: layout, PerFile: 40, Templates: ts, Workers: 3}
			c, err := WriteJATS(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			wantFiles := 3
			if layout == LayoutFiles {
				wantFiles = n
			}
			got, files := readCorpus(t, dir)
			if c.Docs != n || c.Files != wantFiles || files != wantFiles {
				t.Errorf("corpus %+v, %d files on disk, want %d", c, files, wantFiles)
			}
			if len(got.docs) != n || len(got.problems) > 0 || got.deletions > 0 {
				t.Fatalf("read %d documents, problems %v", len(got.docs), got.problems)
			}
			ids := map[string]bool{}
			titles := map[string]bool{}
			for _, d := range got.docs {
				if !d.Licence.Accepted || !slices.Contains(JATSFamilies, d.Licence.Family) {
					t.Errorf("%s (%s): licence %+v", d.ID, d.Origin, d.Licence)
				}
				for _, id := range d.IDs() {
					if ids[id] {
						t.Errorf("id %s twice", id)
					}
					ids[id] = true
				}
				titles[d.Title] = true
			}
			if len(titles) != n {
				t.Errorf("%d distinct titles among %d documents", len(titles), n)
			}
			var size int64
			filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode().IsRegular() && !strings.HasPrefix(fi.Name(), ".") {
					size += fi.Size()
				}
				return nil
			})
			if size != c.Bytes {
				t.Errorf("corpus says %d bytes, files hold %d", c.Bytes, size)
			}
			stored, err := ReadJATSCorpus(dir)
			if err != nil || stored.Docs != n || stored.Layout != layout || stored.Bytes != c.Bytes || !stored.Complete {
				t.Errorf("ReadJATSCorpus: %+v, %v", stored, err)
			}

			// The same configuration writes the same corpus, replacing the
			// previous one.
			before := readAll(t, dir)
			if _, err := WriteJATS(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			if after := readAll(t, dir); !mapsEqual(before, after) {
				t.Error("a second write with the same seed differs")
			}
		})
	}
}

func readAll(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().IsRegular() && !strings.HasPrefix(fi.Name(), ".") {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = b
		}
		return nil
	})
	return out
}

func mapsEqual(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestJATSRewrite checks one rewritten article field by field.
func TestJATSRewrite(t *testing.T) {
	for _, tp := range templates(t) {
		if !strings.HasSuffix(tp.Name, "1471-2180-11-174.nxml") {
			continue
		}
		var c collector
		b := tp.Append(nil, 5, 3, "Zebra & <fish> 5")
		if err := jats.Read(context.Background(), bytes.NewReader(b), "x.xml", &c); err != nil || len(c.docs) != 1 {
			t.Fatalf("%v %v", err, c.problems)
		}
		d := c.docs[0]
		want := ingest.Document{PMCID: "90000005", PMID: "60000005", DOI: "10.1186/openshelf.bench.3.5"}
		if d.PMCID != want.PMCID || d.PMID != want.PMID || d.DOI != want.DOI || d.ID != "pmc-90000005" {
			t.Errorf("ids %s %s %s %s", d.ID, d.PMCID, d.PMID, d.DOI)
		}
		if !strings.HasSuffix(d.Title, ": Zebra & <fish> 5") || d.Licence.Family != licence.CCBY {
			t.Errorf("title %q licence %s", d.Title, d.Licence.Family)
		}
		if len(d.Sections) == 0 || len(d.References) == 0 {
			t.Errorf("lost the body: %d sections, %d references", len(d.Sections), len(d.References))
		}
		return
	}
	t.Fatal("template pmc/1471-2180-11-174.nxml not found")
}

func TestWriteJATSErrors(t *testing.T) {
	ts := templates(t)
	notCorpus := t.TempDir()
	os.WriteFile(filepath.Join(notCorpus, "precious.txt"), []byte("x"), 0o644)
	for name, cfg := range map[string]JATSConfig{
		"no dir":       {N: 1, Templates: ts},
		"no templates": {Dir: t.TempDir(), N: 1},
		"zero":         {Dir: t.TempDir(), N: 0, Templates: ts},
		"layout":       {Dir: t.TempDir(), N: 1, Templates: ts, Layout: "zip"},
		"per file":     {Dir: t.TempDir(), N: 1, Templates: ts, PerFile: -1},
		"not a corpus": {Dir: notCorpus, N: 1, Templates: ts},
	} {
		if _, err := WriteJATS(context.Background(), cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(notCorpus, "precious.txt")); err != nil {
		t.Errorf("a directory that is not a corpus was touched: %v", err)
	}
	if _, err := LoadJATSTemplates(context.Background(), t.TempDir()); !errors.Is(err, ErrConfig) {
		t.Errorf("no fixtures: %v", err)
	}
}
