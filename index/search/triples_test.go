package search_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/ingest"
)

// tripleText is n words mixing common three-word phrases (planted), stop
// words and a tail of rarer words, so that the sample's frequent triples
// are the planted ones and some of their words also meet elsewhere.
func tripleText(rng *rand.Rand, planted [][]string, n int) string {
	var w []string
	for len(w) < n {
		switch rng.IntN(4) {
		case 0:
			w = append(w, planted[rng.IntN(len(planted))]...)
		case 1:
			w = append(w, []string{"of", "the", "and", "in"}[rng.IntN(4)])
		default:
			p := planted[rng.IntN(len(planted))]
			w = append(w, p[rng.IntN(len(p))], fmt.Sprintf("w%d", rng.IntN(400)))
		}
	}
	return strings.Join(w, " ")
}

// TestPhraseTriples builds a corpus with frequent triples and checks that
// the index records them, that a phrase of a recorded triple walks one
// list, and that every phrase of two to four words of the titles and
// abstracts, and random phrases of their words, give the same totals,
// pages (scores to the bit), facets and second pages as an index without
// pairs or triples.
func TestPhraseTriples(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 33))
	planted := [][]string{{"natural", "resource", "economics"}, {"heart", "failure", "outcomes"},
		{"resource", "economics", "of"}, {"in", "the", "heart"}}
	var docs []*ingest.Document
	for i := range 500 {
		d := doc(70000+i, tripleText(rng, planted, 4+rng.IntN(8)), tripleText(rng, planted, rng.IntN(50)))
		d.Keywords = []string{tripleText(rng, planted, 1+rng.IntN(4))}
		d.Topics = []string{[]string{"biology", "physics"}[rng.IntN(2)]}
		d.Year = 2000 + rng.IntN(20)
		docs = append(docs, d)
	}
	words := buildCorpusConfig(t, docs, index.Config{NoPhrasePairs: true})
	c := buildCorpusConfig(t, docs, index.Config{PairSample: 200})
	triples := c.ix.Pairs().Triples()
	for _, p := range planted {
		if !slices.Contains(triples, search.TripleTerm(p[0], p[1], p[2])) {
			t.Errorf("planted triple %q not recorded among %d", p, len(triples))
		}
		if n := search.PhraseParts(c.ix, p); n != 1 {
			t.Errorf("phrase %q walks %d lists, want its triple's", p, n)
		}
	}
	if n := search.PhraseParts(c.ix, []string{"natural", "resource", "economics", "of"}); n != 2 {
		t.Errorf("a phrase of two overlapping triples walks %d lists, want 2", n)
	}

	phrases := windows(docs, 4)
	vocab := slices.Concat(planted...)
	for range 300 {
		ws := make([]string, 2+rng.IntN(3))
		for i := range ws {
			ws[i] = vocab[rng.IntN(len(vocab))]
		}
		phrases = append(phrases, ws)
	}

	samePhraseAnswers(t, words, []*corpus{c}, phrases)
}

// TestTriplesEntry reads the TOC's triples: after the minimum of
// documents (1 allowed only when flags follow) and the flag, a non-empty
// sorted list of triple terms of indexed pairs; anything else is
// ErrMalformed. The
// writer takes them after SetPairs and before the postings.
func TestTriplesEntry(t *testing.T) {
	c := buildCorpusConfig(t, []*ingest.Document{doc(60002, "heart of the matter", "the cell")}, index.Config{PairMinDF: 1})
	if got := c.ix.Pairs().Triples(); len(got) != 0 {
		t.Fatalf("a document of one occurrence each records triples %q", got)
	}
	b, err := os.ReadFile(filepath.Join(c.snap.Dir, filepath.FromSlash(search.File)))
	if err != nil {
		t.Fatal(err)
	}
	list := func(terms ...string) []byte {
		out := []byte{byte(len(terms))}
		for _, s := range terms {
			out = append(out, byte(len(s)))
			out = append(out, s...)
		}
		return out
	}
	good := search.TripleTerm("heart", "of", "the")
	for _, tc := range []struct {
		name string
		tail []byte
		want []string // nil: ErrMalformed
	}{
		{"minimum 1 and a triple", append([]byte{1, 1}, list(good)...), []string{good}},
		{"minimum 32 and two triples", append([]byte{32, 1}, list(good, search.TripleTerm("of", "the", "matter"))...),
			[]string{good, search.TripleTerm("of", "the", "matter")}},
		{"minimum 1 alone", []byte{1}, nil},
		{"no flag", append([]byte{1, 0}, list(good)...), nil},
		{"an unknown flag", append([]byte{1, 3}, list(good)...), nil},
		{"the flag without triples", []byte{1, 1}, nil},
		{"no triple", append([]byte{1, 1}, list()...), nil},
		{"unsorted", append([]byte{1, 1}, list(search.TripleTerm("of", "the", "matter"), good)...), nil},
		{"a pair not indexed", append([]byte{1, 1}, list(search.TripleTerm("heart", "cell", "matter"))...), nil},
		{"a pair term", append([]byte{1, 1}, list(search.PairTerm("heart", "of"))...), nil},
		{"bytes after", append(append([]byte{1, 1}, list(good)...), 0), nil},
	} {
		ix, err := openWithTOCTail(t, b, tc.tail)
		if tc.want == nil {
			if !errors.Is(err, search.ErrMalformed) {
				t.Errorf("%s: %v, want ErrMalformed", tc.name, err)
			}
			if err == nil {
				ix.Close()
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := ix.Pairs().Triples(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: triples %q, want %q", tc.name, got, tc.want)
		}
		ix.Close()
	}

	dir := t.TempDir()
	w, err := search.NewWriter(filepath.Join(dir, "index.bin"), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.SetTriples([]string{good}); !errors.Is(err, search.ErrWriteOrder) {
		t.Errorf("SetTriples before SetPairs: %v", err)
	}
	if err := w.SetPairs([]string{"of", "the"}, nil, search.PairFields); err != nil {
		t.Fatal(err)
	}
	if err := w.SetTriples([]string{search.TripleTerm("heart", "cell", "matter")}); !errors.Is(err, search.ErrWriteOrder) {
		t.Errorf("SetTriples of a pair the rule does not index: %v", err)
	}
	if err := w.SetTriples([]string{good}); err != nil {
		t.Errorf("SetTriples: %v", err)
	}
	if err := w.AddDoc(search.DocValues{License: "CC0"}); err != nil {
		t.Fatal(err)
	}
	if err := w.AddPosting([]byte("of"), 0, search.FieldTitle, []uint32{0}); err != nil {
		t.Fatal(err)
	}
	if err := w.SetTriples([]string{good}); !errors.Is(err, search.ErrWriteOrder) {
		t.Errorf("SetTriples after a posting: %v", err)
	}
}
