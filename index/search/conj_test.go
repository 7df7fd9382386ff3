package search_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
)

// TestConjunctions: conjunctions of terms, with excluded terms, counted
// in bitsets and ranked block by block give the totals, pages and next
// cursors of the generic path, over windows of 64 documents (so that
// lists cross many windows) and of the default size, at any offset and
// page size, and with a page of none.
func TestConjunctions(t *testing.T) {
	c := randomCorpus(t, 1500, 21)
	rng := rand.New(rand.NewPCG(23, 23))
	ctx := context.Background()
	fields := []query.Field{query.Any, query.Any, query.Any, query.Title, query.Abstract, query.Author, query.Fulltext}
	term := func() *query.Term {
		return &query.Term{Field: fields[rng.IntN(len(fields))], Word: vocab[rng.IntN(len(vocab))]}
	}
	before := search.ConjScans(c.ix)
	nonEmpty := 0
	for i := range 400 {
		q := &query.And{}
		for range 1 + rng.IntN(3) {
			q.Children = append(q.Children, term())
		}
		for range rng.IntN(3) {
			q.Children = append(q.Children, &query.Not{Child: term()})
		}
		if len(q.Children) == 1 {
			q.Children = append(q.Children, term())
		}
		req := search.Request{Query: q, Fulltext: rng.IntN(3) == 0}
		page := []struct{ offset, limit int }{{0, 1}, {0, 10}, {7, 5}, {40, 10}, {0, 0}, {0, 1000}}[rng.IntN(6)]
		req.Offset, req.Limit = page.offset, page.limit
		window := []int32{64, 128, 1 << 16}[rng.IntN(3)]
		search.SetConj(c.ix, false, 0)
		want, err := c.ix.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		search.SetConj(c.ix, true, window)
		got, err := c.ix.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if got.Total != want.Total || !slices.Equal(got.Hits, want.Hits) || (got.Next == "") != (want.Next == "") {
			t.Fatalf("query #%d %s (fulltext %v, offset %d, limit %d, window %d): total %d hits %v next %v, want %d %v %v",
				i, show(q), req.Fulltext, req.Offset, req.Limit, window, got.Total, got.Hits, got.Next != "", want.Total, want.Hits, want.Next != "")
		}
		if want.Total > 0 {
			nonEmpty++
		}
	}
	if n := search.ConjScans(c.ix) - before; n < 200 || nonEmpty < 150 {
		t.Errorf("%d of 400 searches took the conjunction path, %d matched something", n, nonEmpty)
	}
}
