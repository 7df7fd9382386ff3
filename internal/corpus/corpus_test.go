package corpus

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/snapshot"
)

var fixtureVocabulary = sync.OnceValues(func() (*Vocabulary, error) {
	dir, err := fixtures.Find()
	if err != nil {
		return nil, err
	}
	return ReadVocabulary(context.Background(), VocabularyConfig{Words: 50_000, Family: 20_000, Given: 5_000, Keywords: 5_000}, dir)
})

func testGenerator(t *testing.T) (*Generator, []index.Topic) {
	t.Helper()
	v, err := fixtureVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	slugs, its, err := DefaultTopics()
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(v, Config{Seed: 7, Topics: slugs})
	if err != nil {
		t.Fatal(err)
	}
	return g, its
}

func TestVocabularyFromFixtures(t *testing.T) {
	v, err := fixtureVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	if v.Records < 100 || v.RealWords < 1000 || v.RealFamily < 100 {
		t.Fatalf("fixture vocabulary too small: %d records, %d words, %d family names", v.Records, v.RealWords, v.RealFamily)
	}
	if len(v.Words) != 50_000 || len(v.Family) != 20_000 || len(v.Given) != 5_000 {
		t.Errorf("extended sizes: %d words, %d family, %d given", len(v.Words), len(v.Family), len(v.Given))
	}
	for name, list := range map[string][]string{"words": v.Words, "family": v.Family, "given": v.Given, "keywords": v.Keywords} {
		seen := map[string]bool{}
		for _, w := range list {
			if w == "" || seen[w] {
				t.Fatalf("%s: empty or duplicate entry %q", name, w)
			}
			seen[w] = true
		}
	}
	// The most frequent English words of titles and abstracts lead.
	if !slices.Contains(v.Words[:10], "the") || !slices.Contains(v.Words[:10], "of") {
		t.Errorf("top words %q", v.Words[:10])
	}
}

func TestVocabularyTooSmall(t *testing.T) {
	_, err := VocabularyFrom(VocabularyConfig{}, []*ingest.Document{{Title: "One title"}})
	if !errors.Is(err, ErrNoVocabulary) {
		t.Fatalf("err = %v, want ErrNoVocabulary", err)
	}
}

func TestGeneratorConfig(t *testing.T) {
	v, err := fixtureVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []Config{{}, {Topics: []string{"x"}, WordExponent: -1}} {
		if _, err := New(v, cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v) = %v, want ErrConfig", cfg, err)
		}
	}
	if _, err := New(nil, Config{Topics: []string{"x"}}); !errors.Is(err, ErrConfig) {
		t.Errorf("New(nil) = %v", err)
	}
	if _, err := Build(context.Background(), BuildConfig{DataDir: t.TempDir(), N: 10, Segments: 7, Generator: &Generator{}}); !errors.Is(err, ErrConfig) {
		t.Errorf("7 segments of 10 documents: %v, want ErrConfig", err)
	}
	if _, err := Build(context.Background(), BuildConfig{DataDir: t.TempDir(), N: 0, Generator: &Generator{}}); !errors.Is(err, ErrConfig) {
		t.Errorf("Build N=0: %v", err)
	}
}

func TestDocsDeterministicAndValid(t *testing.T) {
	g, _ := testGenerator(t)
	prev := ""
	for i := 0; i < 1000; i++ {
		d := g.Doc(i)
		if d.ID != ID(i) || d.ID <= prev {
			t.Fatalf("doc %d: id %q after %q", i, d.ID, prev)
		}
		prev = d.ID
		if !d.Licence.Accepted || d.Licence.URL == "" || len(d.Topics) == 0 || len(d.Authors) == 0 || d.Title == "" {
			t.Fatalf("doc %d incomplete: %+v", i, d)
		}
	}
	if a, b := g.Doc(123), g.Doc(123); !reflect.DeepEqual(a, b) {
		t.Error("Doc(123) differs between calls")
	}
	if reflect.DeepEqual(g.Doc(1).Title, g.Doc(2).Title) {
		t.Error("documents 1 and 2 have the same title")
	}
}

func TestBuild(t *testing.T) {
	g, its := testGenerator(t)
	dir := t.TempDir()
	const n = 1000
	m, err := Build(context.Background(), BuildConfig{DataDir: dir, N: n, Generator: g, Topics: its})
	if err != nil {
		t.Fatal(err)
	}
	if m.Counts.Accepted != n || m.Counts.Rejected != 0 {
		t.Fatalf("counts %+v", m.Counts)
	}
	snap, err := snapshot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if snap.ID != m.ID {
		t.Fatalf("current is %s, built %s", snap.ID, m.ID)
	}

	// Term frequencies follow a power law: the commonest title term is
	// in many documents, the median one in very few.
	df := map[string]int{}
	for i := 0; i < n; i++ {
		seen := map[string]bool{}
		for _, term := range tokenize.Terms(g.Doc(i).Title) {
			if !seen[term] {
				seen[term] = true
				df[term]++
			}
		}
	}
	var counts []int
	for _, c := range df {
		counts = append(counts, c)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(counts)))
	if top, median := counts[0], counts[len(counts)/2]; top < 50 || median > 3 || len(counts) < 1000 {
		t.Errorf("title terms: %d distinct, top df %d, median df %d", len(counts), top, median)
	}
}

// TestBuildSegments builds the corpus as segments, as nights of delta
// builds leave an archive: the first holds firstShare of the documents,
// each later one an equal part of the rest, none deleted or merged.
func TestBuildSegments(t *testing.T) {
	g, its := testGenerator(t)
	dir := t.TempDir()
	const n, segs = 1000, 4
	m, err := Build(context.Background(), BuildConfig{DataDir: dir, N: n, Generator: g, Topics: its, Segments: segs})
	if err != nil {
		t.Fatal(err)
	}
	if m.Counts.Accepted != n {
		t.Fatalf("%d documents published, want %d", m.Counts.Accepted, n)
	}
	var got []int64
	for _, s := range m.Segments {
		if s.Deleted != 0 {
			t.Errorf("segment %s: %d deleted", s.ID, s.Deleted)
		}
		got = append(got, s.Documents)
	}
	if want := []int64{550, 150, 150, 150}; !reflect.DeepEqual(got, want) {
		t.Fatalf("segments of %v documents, want %v", got, want)
	}
	snap, err := snapshot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if snap.ID != m.ID {
		t.Fatalf("current is %s, built %s", snap.ID, m.ID)
	}
}

// TestSearchShape checks what the search benchmark relies on: abstracts
// everywhere, full text and references in about the configured shares,
// references into the corpus with a skewed popularity, several sources,
// and recurring multi-word phrases.
func TestSearchShape(t *testing.T) {
	v, err := fixtureVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	const n = 4000
	g, err := New(v, Config{Seed: 5, Topics: []string{"a", "b"}, Documents: n})
	if err != nil {
		t.Fatal(err)
	}
	var ft, refs, inCorpus int
	cited := map[string]int{}
	sources := map[string]int{}
	bigrams := map[string]int{}
	for i := 0; i < n; i++ {
		d := g.Doc(i)
		if d.Abstract == "" {
			t.Fatalf("doc %d has no abstract", i)
		}
		if len(d.Sections) > 0 {
			ft++
		}
		if len(d.References) > 0 {
			refs++
		}
		for _, r := range d.References {
			if strings.HasPrefix(r.DOI, "10.5555/openshelf.bench.") {
				inCorpus++
				cited[r.DOI]++
				if r.DOI == DOI(i) {
					t.Fatalf("doc %d cites itself", i)
				}
			}
		}
		for _, s := range d.Sources {
			sources[s]++
		}
		w := strings.Fields(strings.ToLower(d.Title))
		for k := 1; k < len(w); k++ {
			bigrams[w[k-1]+" "+w[k]]++
		}
	}
	if ft < n/10 || ft > n*3/10 || refs < n/5 || refs > n*4/10 {
		t.Errorf("full text %d, references %d of %d documents", ft, refs, n)
	}
	if inCorpus == 0 || len(cited) == 0 {
		t.Fatal("no reference cites a document of the corpus")
	}
	top := 0
	for _, c := range cited {
		top = max(top, c)
	}
	// A power law: the most cited document gets many times the mean.
	if mean := float64(inCorpus) / float64(len(cited)); float64(top) < 5*mean {
		t.Errorf("most cited document has %d citations, mean %.1f: popularity not skewed", top, mean)
	}
	for _, s := range []string{"jats:pmc", "pubmed", "openalex", "crossref"} {
		if sources[s] == 0 {
			t.Errorf("no document from source %s: %v", s, sources)
		}
	}
	rec := 0
	for _, c := range bigrams {
		if c >= 20 {
			rec++
		}
	}
	if rec < 10 {
		t.Errorf("only %d title bigrams occur 20 times or more in %d titles", rec, n)
	}
}
