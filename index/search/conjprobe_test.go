package search_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/ingest"
)

// TestConjunctionExpansionPages: a prefix next to words ranked word by
// word of its expansion, each word's blocks probed by their impacts
// before they are unpacked (conjprobe.go), gives the totals, pages (scores
// to the bit) and next cursors of the generic path. The corpus has
// prefixes of many words of all frequencies and texts of all lengths, so
// that the words' lists run from one block to many and their documents'
// impacts differ; the count windows cut the lists at 64 documents and at
// the default.
func TestConjunctionExpansionPages(t *testing.T) {
	c := expansionCorpus(t, 4000)
	ctx := context.Background()
	type page struct{ offset, limit int }
	for _, tc := range []struct {
		q        string
		fulltext bool
		stem     bool
	}{
		{q: "re* al"},
		{q: "ma* science"},
		{q: "co* al science"},
		{q: "re* al -science"},
		{q: "title:ma* al"},
		{q: "re* abstract:science"},
		{q: "co* al", fulltext: true},
		{q: "ma* al", stem: true},
		{q: "reb* science"},
	} {
		n, err := query.Parse(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []page{{0, 1}, {0, 10}, {20, 10}, {0, 100}, {0, 500}, {0, 0}} {
			for _, window := range []int32{64, 1 << 16} {
				name := fmt.Sprintf("%s fulltext=%v stem=%v offset=%d limit=%d window=%d", tc.q, tc.fulltext, tc.stem, p.offset, p.limit, window)
				req := search.Request{Query: n, Fulltext: tc.fulltext, Stem: tc.stem, Offset: p.offset, Limit: p.limit}
				got, want, scans := searchBothWays(t, ctx, c.ix, req, window)
				if search.ConjScans(c.ix) == scans {
					t.Errorf("%s: not ranked by the conjunction path", name)
				}
				if want.Total == 0 || p.limit > 0 && len(want.Hits) == 0 {
					t.Errorf("%s: the generic path found nothing to compare", name)
				}
				if !sameResult(got, want) {
					t.Errorf("%s: total %d hits %v next %v, want %d %v %v",
						name, got.Total, got.Hits, got.Next != "", want.Total, want.Hits, want.Next != "")
				}
			}
		}
	}
}

// expansionCorpus has n documents whose texts draw words of the prefixes
// re, ma and co (a hundred each, of Zipf frequencies), the words al (in
// about a tenth of the documents) and science (in about half), of any
// length up to 60 words.
func expansionCorpus(t *testing.T, n int) *corpus {
	rng := rand.New(rand.NewPCG(41, 41))
	syllables := strings.Fields("ba be bi bo bu da de di do du ka ke ki ko ku la le li lo lu na ne ni no nu")
	var words []string
	for _, p := range []string{"re", "ma", "co"} {
		for i := range 100 {
			words = append(words, p+syllables[i%len(syllables)]+syllables[i/len(syllables)])
		}
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1))
	text := func(k int) string {
		w := make([]string, k)
		for i := range w {
			switch r := rng.IntN(20); {
			case r == 0:
				w[i] = "al"
			case r < 4:
				w[i] = "science"
			case r < 8:
				w[i] = vocab[rng.IntN(len(vocab))]
			default:
				w[i] = words[zipf.Uint64()]
			}
		}
		return strings.Join(w, " ")
	}
	var docs []*ingest.Document
	for i := range n {
		d := doc(20000+i, text(1+rng.IntN(8)), text(rng.IntN(60)))
		if rng.IntN(4) == 0 {
			d.Sections = []ingest.Section{{Title: "Methods", Paragraphs: []string{text(10 + rng.IntN(40))}}}
		}
		docs = append(docs, d)
	}
	return buildCorpus(t, docs)
}
