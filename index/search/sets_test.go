package search_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
)

// TestSetsOption: Options.Sets keeps the sets of dense terms a
// conjunction asks for twice (0: the default budget), or none (negative);
// a term asked for once gets none.
func TestSetsOption(t *testing.T) {
	c := randomCorpus(t, 1500, 37)
	q := &query.And{Children: []query.Node{&query.Term{Word: "the"}, &query.Term{Word: "of"}}}
	ctx := context.Background()
	for _, tc := range []struct {
		budget int64
		asks   int
		want   int
	}{{0, 1, 0}, {0, 2, 2}, {0, 3, 2}, {-1, 3, 0}, {1, 3, 0}} {
		ix, err := search.Open(c.snap, nil, search.Options{Sets: tc.budget})
		if err != nil {
			t.Fatal(err)
		}
		var total int64
		for range tc.asks {
			res, err := ix.Search(ctx, search.Request{Query: q, Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			total = res.Total
		}
		ix.Close()
		if n, _ := search.SetsKept(ix); n != tc.want || total == 0 {
			t.Errorf("budget %d, %d asks: %d sets kept, want %d (total %d)", tc.budget, tc.asks, n, tc.want, total)
		}
	}
}

// TestSetsAgree: with the sets of every dense term kept (asked for twice
// by conjunctions first), random queries, filters, sorts and pages give
// the answers of an index without sets: the generic conjunctions, which
// read a set instead of advancing a list, included.
func TestSetsAgree(t *testing.T) {
	c := randomCorpus(t, 1500, 41)
	ctx := context.Background()
	with, err := search.Open(c.snap, nil, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer with.Close()
	for range 2 {
		for _, w := range vocab {
			for _, f := range []query.Field{query.Any, query.Title, query.Abstract} {
				q := &query.And{Children: []query.Node{&query.Term{Field: f, Word: w}, &query.Term{Word: "the"}}}
				if _, err := with.Search(ctx, search.Request{Query: q, Limit: 1}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if n, _ := search.SetsKept(with); n < 40 {
		t.Fatalf("%d sets kept", n)
	}
	without, err := search.Open(c.snap, nil, search.Options{Sets: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer without.Close()
	rng := rand.New(rand.NewPCG(43, 43))
	for i := range 400 {
		req := search.Request{Query: randomQuery(rng, c, 3), Limit: 1 + rng.IntN(12), Fulltext: rng.IntN(3) == 0}
		switch rng.IntN(4) {
		case 0:
			req.Sort = search.ByYearDesc
		case 1:
			req.Where = map[string][]string{search.FacetLicense: {"CC-BY"}}
		}
		sameAnswer(t, i, with, without, req)
	}
}

// sameAnswer fails t unless the index with sets kept answers request #i
// as the one without: the total, the page and whether a next one exists.
func sameAnswer(t *testing.T, i int, with, without *search.Index, req search.Request) {
	t.Helper()
	ctx := context.Background()
	got, err := with.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want, err := without.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !sameResult(got, want) {
		t.Fatalf("query #%d %s (stem %v, offset %d, limit %d): total %d hits %v, want %d %v",
			i, show(req.Query), req.Stem, req.Offset, req.Limit, got.Total, got.Hits, want.Total, want.Hits)
	}
}
