package search_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
)

// TestExpansionScore: a prefix is one word of the query, so a document
// holding several of its words scores by the best of them, on the plain
// path (expand.go) and on the generic one alike.
func TestExpansionScore(t *testing.T) {
	c := fixedCorpus(t)
	ctx := context.Background()
	scoreOf := func(q query.Node, doc int32) float64 {
		t.Helper()
		res, err := c.ix.Search(ctx, search.Request{Query: q, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if h.Doc == doc {
				return h.Score
			}
		}
		t.Fatalf("%s does not find doc %d", show(q), doc)
		return 0
	}
	const doc = 4 // doc(5, "Cardiology and cardiomyopathy", "Cardiovascular risk.")
	best, sum := 0.0, 0.0
	for _, w := range []string{"cardiology", "cardiomyopathy", "cardiovascular"} {
		s := scoreOf(&query.Term{Word: w}, doc)
		best, sum = max(best, s), sum+s
	}
	for _, plain := range []bool{true, false} {
		search.SetConj(c.ix, plain, 0)
		if got := scoreOf(&query.Term{Word: "cardi", Prefix: true}, doc); got != best {
			t.Errorf("plain path %v: cardi* scores doc %d %v, want its best word's %v (the sum is %v)", plain, doc, got, best, sum)
		}
	}
	search.SetConj(c.ix, true, 0)
}

// TestExpansionSets: a prefix or a stemmed word searched twice keeps the
// set of its expansion (expand.go, sets.go), and with those sets kept
// prefixes and stemmed words, alone or inside other queries, give the
// answers of an index without sets.
func TestExpansionSets(t *testing.T) {
	ctx := context.Background()
	with, without := withAndWithoutSets(t, randomCorpus(t, 1500, 47))
	var reqs []search.Request
	seen := map[query.Term]bool{}
	add := func(t query.Term, stem bool) {
		if !seen[t] {
			seen[t] = true
			reqs = append(reqs, search.Request{Query: &t, Stem: stem})
		}
	}
	for _, w := range vocab {
		for _, f := range []query.Field{query.Any, query.Title} {
			add(query.Term{Field: f, Word: w[:1], Prefix: true}, false)
			add(query.Term{Field: f, Word: w[:2], Prefix: true}, false)
			add(query.Term{Field: f, Word: w}, true)
		}
	}
	for ask := range 2 {
		for _, req := range reqs {
			req.Limit = 1
			if _, err := with.Search(ctx, req); err != nil {
				t.Fatal(err)
			}
		}
		if n, _ := search.SetsKept(with); ask == 0 && n != 0 || ask == 1 && n < 20 {
			t.Fatalf("after %d asks: %d sets kept", ask+1, n)
		}
	}
	rng := rand.New(rand.NewPCG(49, 49))
	for i := range 400 {
		req := reqs[rng.IntN(len(reqs))]
		switch rng.IntN(3) {
		case 1:
			req.Query = &query.And{Children: []query.Node{req.Query, &query.Term{Word: vocab[rng.IntN(len(vocab))]}}}
		case 2:
			req.Query = &query.Or{Children: []query.Node{req.Query, &query.Term{Word: vocab[rng.IntN(len(vocab))]}}}
		}
		page := []struct{ offset, limit int }{{0, 1}, {0, 10}, {7, 5}, {40, 10}, {0, 0}, {0, 1000}}[rng.IntN(6)]
		req.Offset, req.Limit = page.offset, page.limit
		sameAnswer(t, i, with, without, req)
	}
}

// TestExpansionProbation: the second ask of a prefix keeps its set from
// the first ask's count, without unpacking its lists again; a prefix
// counted in between takes the probation over, so the next one counts
// again. Every answer equals an index's without sets.
func TestExpansionProbation(t *testing.T) {
	with, without := withAndWithoutSets(t, randomCorpus(t, 1500, 47))
	for i, step := range []struct {
		prefix      string
		fills, sets int64 // after the step
	}{
		{"c", 1, 0}, // counted, on probation
		{"c", 1, 1}, // its set, from the probation
		{"c", 1, 1}, // its set
		{"m", 2, 1}, // counted, on probation
		{"g", 3, 1}, // counted, on probation instead of m*
		{"m", 4, 2}, // counted again for its set
		{"g", 4, 3}, // its set, from the probation
	} {
		sameAnswer(t, i, with, without, search.Request{Query: &query.Term{Word: step.prefix, Prefix: true}, Limit: 10})
		kept, _ := search.SetsKept(with)
		if fills := search.ExpansionFills(with); fills != step.fills || int64(kept) != step.sets {
			t.Fatalf("step %d (%s*): %d counts by the lists and %d sets, want %d and %d", i, step.prefix, fills, kept, step.fills, step.sets)
		}
	}
}

// withAndWithoutSets opens c's index twice: with the default sets, and
// without any.
func withAndWithoutSets(t *testing.T, c *corpus) (with, without *search.Index) {
	t.Helper()
	with, err := search.Open(c.snap, nil, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { with.Close() })
	without, err = search.Open(c.snap, nil, search.Options{Sets: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { without.Close() })
	return with, without
}
