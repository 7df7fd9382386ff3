package search_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
)

// lazyQueries are prefixes alone and beside words, whose first search in
// a segment opens only the lists its page needs (multilazy.go), and
// plans around them that open every list.
var lazyQueries = []string{"zq*", "zq0*", "zq1*", "zq00*", "zq* zq001", "zq0* zq002 zq003", "zq* heart", "zq00* OR zq5*", "zq* -zq001", "title:zq*",
	"zq001* zq0*", "zq0* zq001*", "zq0* zq1*", "zq0* zq00*", "zq0* \"zq001 zq002\"", "zq0* zq001 -zq002*", "zq00* zq001 heart*"}

// TestMultiFirstLists: each request searched first on a Multi of its
// own, without a FirstFile, answers as the merged index does: a
// segment's first scan of a prefix, alone or in a conjunction, counts
// and bounds its lists unopened and opens those its page ranks.
func TestMultiFirstLists(t *testing.T) {
	sg := buildSegmented(t, 900, 6, 4, zqTitleDoc)
	for i, q := range lazyQueries {
		n, err := query.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{0, 1, 3, 50} {
			for _, fulltext := range []bool{false, true} {
				r := search.Request{Query: n, Limit: limit, Offset: min(limit, 2), Fulltext: fulltext}
				m, err := search.NewMulti(sg.merged.snap.ID, sg.ss, sg.cites)
				if err != nil {
					t.Fatal(err)
				}
				first := *sg
				first.multi = m
				label := fmt.Sprintf("#%d %s limit %d fulltext %v", i, q, limit, fulltext)
				comparePages(t, &first, r, label+", first")
				comparePages(t, &first, r, label+", again")
			}
		}
	}
}

// TestMultiCorruptSegment: a segment's damaged index fails a first
// search of a prefix cleanly (ErrMalformed) or answers it, never panics.
func TestMultiCorruptSegment(t *testing.T) {
	sg := buildSegmented(t, 300, 3, 6, zqTitleDoc)
	last := len(sg.segs) - 1
	good, err := os.ReadFile(filepath.Join(sg.segs[last].snap.Dir, filepath.FromSlash(search.File)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "index.bin")
	rng := rand.New(rand.NewPCG(7, 7))
	ctx := context.Background()
	for range 200 {
		b := slices.Clone(good)
		for range 1 + rng.IntN(8) {
			b[16+rng.IntN(len(b)-16-40)] ^= byte(1 + rng.IntN(255)) // leave the header and footer
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := search.OpenFile(path, "s", search.Options{})
		if err != nil {
			continue // refused at Open
		}
		ss := slices.Clone(sg.ss)
		ss[last].Index = ix
		m, err := search.NewMulti(sg.merged.snap.ID, ss, sg.cites)
		if err != nil {
			ix.Close()
			continue
		}
		for _, q := range lazyQueries {
			n, err := query.Parse(q)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Search(ctx, search.Request{Query: n, Limit: 5}); err != nil && !errors.Is(err, search.ErrMalformed) {
				t.Fatalf("%q: %v", q, err)
			}
		}
		ix.Close()
	}
}
