package search_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
)

// TestPhraseSets: phrases searched again and again by plain scans, whose
// frequent ones are then counted and ranked from their kept sets
// (phraseset.go), give the totals, pages and next cursors of the generic
// walk every time, at any page size and window.
func TestPhraseSets(t *testing.T) {
	c := randomCorpus(t, 1500, 41)
	search.SetSets(c.ix, search.DefaultSets)
	rng := rand.New(rand.NewPCG(43, 43))
	ctx := context.Background()
	fields := []query.Field{query.Any, query.Any, query.Title, query.Abstract, query.Fulltext}
	before, matched := search.PhraseSetScans(c.ix), 0
	for i := range 150 {
		d := c.docs[rng.IntN(len(c.docs))]
		toks := tokenize.Tokens(d.Abstract)
		if len(toks) < 3 {
			continue
		}
		at := rng.IntN(len(toks) - 2)
		q := &query.Phrase{Field: fields[rng.IntN(len(fields))], Words: toks[at : at+2+rng.IntN(2)]}
		req := search.Request{Query: q, Fulltext: rng.IntN(3) == 0}
		page := []struct{ offset, limit int }{{0, 1}, {0, 10}, {7, 5}, {40, 10}, {0, 0}, {0, 1000}}[rng.IntN(6)]
		req.Offset, req.Limit = page.offset, page.limit
		search.SetConj(c.ix, false, 0)
		want, err := c.ix.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			window := []int32{64, 128, 1 << 16}[rng.IntN(3)]
			search.SetConj(c.ix, true, window)
			got, err := c.ix.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if !sameResult(got, want) {
				t.Fatalf("phrase #%d %s (fulltext %v, offset %d, limit %d, window %d): total %d hits %v next %v, want %d %v %v",
					i, show(q), req.Fulltext, req.Offset, req.Limit, window, got.Total, got.Hits, got.Next != "", want.Total, want.Hits, want.Next != "")
			}
		}
		if want.Total > 0 {
			matched++
		}
	}
	if n := search.PhraseSetScans(c.ix) - before; n < 30 || matched < 100 {
		t.Errorf("%d searches read a phrase's set, %d of 150 phrases matched", n, matched)
	}
}
