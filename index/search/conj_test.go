package search_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
)

// TestConjunctions: conjunctions of terms and of a prefix or a stemmed
// word, with excluded terms, counted in bitsets and ranked block by block
// (or word by word of the expansion) give the totals, pages (scores to
// the bit) and next cursors of the generic path, over windows of 64 documents (so that
// lists cross many windows) and of the default size, at any offset and
// page size, and with a page of none; without the sets of dense terms
// (sets.go), with room for three (so that they come and go), and with
// the default budget.
func TestConjunctions(t *testing.T) {
	c := randomCorpus(t, 1500, 21)
	setSize := int64((1500 + 63) / 64 * 8)
	for _, tc := range []struct {
		name   string
		budget int64
	}{{"no sets", 0}, {"three sets", 3 * setSize}, {"default", search.DefaultSets}} {
		t.Run(tc.name, func(t *testing.T) {
			search.SetSets(c.ix, tc.budget)
			testConjunctions(t, c)
			n, bytes := search.SetsKept(c.ix)
			if tc.budget == 0 && n != 0 || tc.budget > 0 && n == 0 || bytes > tc.budget {
				t.Errorf("%d sets kept, %d bytes, in a budget of %d", n, bytes, tc.budget)
			}
			if tc.budget == 3*setSize && n != 3 {
				t.Errorf("%d sets kept in a budget of 3", n)
			}
		})
	}
}

func testConjunctions(t *testing.T, c *corpus) {
	rng := rand.New(rand.NewPCG(23, 23))
	ctx := context.Background()
	fields := []query.Field{query.Any, query.Any, query.Any, query.Title, query.Abstract, query.Author, query.Fulltext}
	term := func() *query.Term {
		return &query.Term{Field: fields[rng.IntN(len(fields))], Word: vocab[rng.IntN(len(vocab))]}
	}
	before := search.ConjScans(c.ix)
	nonEmpty, expanded := 0, 0
	for i := range 400 {
		q := &query.And{}
		for range 1 + rng.IntN(3) {
			q.Children = append(q.Children, term())
		}
		prefix := rng.IntN(3) == 0
		if prefix {
			t := term()
			t.Word, t.Prefix = t.Word[:min(len(t.Word), 1+rng.IntN(3))], true
			q.Children = append(q.Children, t)
		}
		for range rng.IntN(3) {
			q.Children = append(q.Children, &query.Not{Child: term()})
		}
		if len(q.Children) == 1 {
			q.Children = append(q.Children, term())
		}
		req := search.Request{Query: q, Fulltext: rng.IntN(3) == 0, Stem: rng.IntN(4) == 0}
		page := []struct{ offset, limit int }{{0, 1}, {0, 10}, {7, 5}, {40, 10}, {0, 0}, {0, 1000}}[rng.IntN(6)]
		req.Offset, req.Limit = page.offset, page.limit
		window := []int32{64, 128, 1 << 16}[rng.IntN(3)]
		got, want, scans := searchBothWays(t, ctx, c.ix, req, window)
		if !sameResult(got, want) {
			t.Fatalf("query #%d %s (stem %v, fulltext %v, offset %d, limit %d, window %d): total %d hits %v next %v, want %d %v %v",
				i, show(q), req.Stem, req.Fulltext, req.Offset, req.Limit, window, got.Total, got.Hits, got.Next != "", want.Total, want.Hits, want.Next != "")
		}
		if want.Total > 0 {
			nonEmpty++
			if prefix && search.ConjScans(c.ix) > scans {
				expanded++
			}
		}
	}
	if n := search.ConjScans(c.ix) - before; n < 200 || nonEmpty < 150 || expanded < 40 {
		t.Errorf("%d of 400 searches took the conjunction path, %d matched something, %d with a prefix in the path", n, nonEmpty, expanded)
	}
}

// searchBothWays runs req by the generic path (want) and by the
// conjunction path with count windows of window documents (got), and
// returns ConjScans as it was before the second search.
func searchBothWays(t *testing.T, ctx context.Context, ix *search.Index, req search.Request, window int32) (got, want search.Result, scans int64) {
	t.Helper()
	search.SetConj(ix, false, 0)
	want, err := ix.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	search.SetConj(ix, true, window)
	scans = search.ConjScans(ix)
	if got, err = ix.Search(ctx, req); err != nil {
		t.Fatal(err)
	}
	return got, want, scans
}

// sameResult reports whether two results have the same total, the same
// hits (scores to the bit) and both a next page or neither.
func sameResult(a, b search.Result) bool {
	return a.Total == b.Total && slices.Equal(a.Hits, b.Hits) && (a.Next == "") == (b.Next == "")
}

// TestUnions: unions (ORs of terms and of groups, prefixes, stemmed
// words) scanned a window at a time give the totals, pages and next
// cursors of the generic path, at any offset and page size, and with a
// page of none.
func TestUnions(t *testing.T) {
	c := randomCorpus(t, 4500, 29) // three union windows
	rng := rand.New(rand.NewPCG(31, 31))
	ctx := context.Background()
	fields := []query.Field{query.Any, query.Any, query.Title, query.Abstract, query.Fulltext}
	node := func() query.Node {
		w := vocab[rng.IntN(len(vocab))]
		f := fields[rng.IntN(len(fields))]
		switch rng.IntN(4) {
		case 0:
			return &query.Term{Field: f, Word: w[:min(len(w), 1+rng.IntN(3))], Prefix: true}
		case 1:
			return &query.And{Children: []query.Node{&query.Term{Field: f, Word: w},
				&query.Term{Word: vocab[rng.IntN(len(vocab))]}}}
		}
		return &query.Term{Field: f, Word: w}
	}
	nonEmpty := 0
	for i := range 300 {
		var q query.Node = node()
		if _, prefix := q.(*query.Term); !prefix || rng.IntN(2) == 0 {
			or := &query.Or{}
			for range 2 + rng.IntN(3) {
				or.Children = append(or.Children, node())
			}
			q = or
		}
		req := search.Request{Query: q, Stem: rng.IntN(3) == 0, Fulltext: rng.IntN(3) == 0}
		page := []struct{ offset, limit int }{{0, 1}, {0, 10}, {7, 5}, {40, 10}, {0, 0}, {0, 1000}}[rng.IntN(6)]
		req.Offset, req.Limit = page.offset, page.limit
		search.SetConj(c.ix, false, 0)
		want, err := c.ix.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		search.SetConj(c.ix, true, 0)
		got, err := c.ix.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if !sameResult(got, want) {
			t.Fatalf("query #%d %s (stem %v, fulltext %v, offset %d, limit %d): total %d hits %v next %v, want %d %v %v",
				i, show(q), req.Stem, req.Fulltext, req.Offset, req.Limit, got.Total, got.Hits, got.Next != "", want.Total, want.Hits, want.Next != "")
		}
		if want.Total > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < 200 {
		t.Errorf("only %d of 300 unions matched something", nonEmpty)
	}
}
