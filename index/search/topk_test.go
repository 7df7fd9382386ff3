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
	copy(b, "osbsrch1")
	copy(b[len(b)-8:], "osbsrch1")
	path := filepath.Join(t.TempDir(), "index.bin")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = search.OpenFile(path, "s", search.Options{})
	if !errors.Is(err, search.ErrFormat) || !errors.Is(err, search.ErrMalformed) {
		t.Fatalf("open format 1: %v, want ErrFormat", err)
	}
}
