package search_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/ingest"
)

// TestTopKMatchesExhaustive: a small page is scored only where the block
// bounds allow a document to enter it; it must be the head of the
// exhaustive ranking (every match scored, the page larger than the result
// set), scores and order included, at any offset and by cursor.
func TestTopKMatchesExhaustive(t *testing.T) {
	c := randomCorpus(t, 1500, 11)
	rng := rand.New(rand.NewPCG(13, 13))
	ctx := context.Background()
	pruned := 0
	for i := range 300 {
		q := randomQuery(rng, c, 2)
		req := search.Request{Query: q, Stem: rng.IntN(3) == 0, Fulltext: rng.IntN(3) == 0, Limit: 100000}
		if rng.IntN(4) == 0 {
			req.Where = map[string][]string{"topic": {"physics"}}
		}
		all, err := c.ix.Search(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", show(q), err)
		}
		for _, page := range []struct{ offset, limit int }{{0, 1}, {0, 10}, {7, 5}, {40, 10}} {
			r := req
			r.Offset, r.Limit = page.offset, page.limit
			res, err := c.ix.Search(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			want := all.Hits[min(page.offset, len(all.Hits)):min(page.offset+page.limit, len(all.Hits))]
			if res.Total != all.Total || !slices.Equal(res.Hits, want) {
				t.Fatalf("query #%d %s offset %d limit %d: total %d hits %v, want %d %v",
					i, show(q), page.offset, page.limit, res.Total, res.Hits, all.Total, want)
			}
			if all.Total > int64(page.offset+page.limit) {
				pruned++
			}
		}
		// Cursor pages of 4 rebuild the head of the ranking.
		r := req
		r.Limit = 4
		var got []search.Hit
		for range 5 {
			res, err := c.ix.Search(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, res.Hits...)
			if res.Next == "" {
				break
			}
			r.Cursor = res.Next
		}
		if want := all.Hits[:min(len(got), len(all.Hits))]; !slices.Equal(got, want) {
			t.Fatalf("query #%d %s: cursor pages %v, want %v", i, show(q), got, want)
		}
	}
	if pruned < 200 {
		t.Errorf("only %d pages smaller than their result set", pruned)
	}
}

// TestOldFormat: an index of another format version is refused with
// ErrFormat (also ErrMalformed), not read.
func TestOldFormat(t *testing.T) {
	c := fixedCorpus(t)
	b, err := os.ReadFile(filepath.Join(c.snap.Dir, filepath.FromSlash(search.File)))
	if err != nil {
		t.Fatal(err)
	}
	// Formats 1 to 6 had other postings blocks or sections (FORMAT.md).
	for _, old := range []string{"osbsrch1", "osbsrch2", "osbsrch3", "osbsrch4", "osbsrch5", "osbsrch6", "osbsrch7"} {
		copy(b, old)
		copy(b[len(b)-8:], old)
		path := filepath.Join(t.TempDir(), "index.bin")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = search.OpenFile(path, "s", search.Options{})
		if !errors.Is(err, search.ErrFormat) || !errors.Is(err, search.ErrMalformed) {
			t.Fatalf("open %s: %v, want ErrFormat", old, err)
		}
	}
}

// TestCursorPagesThroughTies: a corpus of few distinct documents has long
// runs of equal scores (and years); paging one by cursor, whatever the
// page size, yields the exhaustive ranking exactly once, every page full
// but the last, and no next cursor after the last.
func TestCursorPagesThroughTies(t *testing.T) {
	titles := []string{"river delta", "river delta sediment", "the river", "delta river basin flow"}
	abstracts := []string{"", "river sediment", "a river of many rivers and deltas"}
	var docs []*ingest.Document
	for i := range 2000 {
		d := doc(20000+i, titles[i%len(titles)], abstracts[(i/len(titles))%len(abstracts)])
		d.Year = 2000 + i%3
		docs = append(docs, d)
	}
	c := buildCorpus(t, docs)
	ctx := context.Background()
	for _, q := range []string{"river", "delta", "river delta", "sediment OR basin"} {
		n, err := query.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, sort := range []search.Sort{search.ByRelevance, search.ByYearDesc} {
			all, err := c.ix.Search(ctx, search.Request{Query: n, Sort: sort, Limit: 100000})
			if err != nil {
				t.Fatal(err)
			}
			for _, limit := range []int{1, 7, 10, 64, 500} {
				r := search.Request{Query: n, Sort: sort, Limit: limit}
				var got []search.Hit
				for pages := 0; ; pages++ {
					if pages > len(all.Hits) {
						t.Fatalf("%q sort %d limit %d: the cursor never ends", q, sort, limit)
					}
					res, err := c.ix.Search(ctx, r)
					if err != nil {
						t.Fatal(err)
					}
					if res.Total != all.Total {
						t.Fatalf("%q sort %d limit %d: total %d, want %d", q, sort, limit, res.Total, all.Total)
					}
					got = append(got, res.Hits...)
					if res.Next == "" {
						break
					}
					if len(res.Hits) != limit {
						t.Fatalf("%q sort %d limit %d: a page of %d hits before the last", q, sort, limit, len(res.Hits))
					}
					r.Cursor = res.Next
				}
				if !slices.Equal(got, all.Hits) {
					t.Fatalf("%q sort %d limit %d: cursor pages give %d hits, not the %d of the ranking",
						q, sort, limit, len(got), len(all.Hits))
				}
			}
		}
	}
}
