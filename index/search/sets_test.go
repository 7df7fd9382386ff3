package search_test

import (
	"context"
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
