package search

// The end-to-end check of this package is the SQL oracle test in
// serve/archive (searchindex_test.go): it builds snapshots, loads them
// through the server and compares every page with the former DuckDB
// query. These are the unit tests of the pieces.

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTopK(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, k := range []int{0, 1, 3, 10, 100} {
		var all []Hit
		top := newTopK(k)
		for i := 0; i < 500; i++ {
			h := Hit{Doc: int32(i), Score: float64(rng.IntN(20))} // many ties
			all = append(all, h)
			top.push(h)
		}
		slices.SortFunc(all, func(a, b Hit) int {
			if a.Score != b.Score {
				if a.Score > b.Score {
					return -1
				}
				return 1
			}
			return int(a.Doc - b.Doc)
		})
		if got := top.sorted(); !slices.Equal(got, all[:k]) && !(k == 0 && len(got) == 0) {
			t.Errorf("k=%d: %v, want %v", k, got, all[:k])
		}
	}
}

func TestGallop(t *testing.T) {
	docs := []int32{1, 3, 5, 7, 9, 11, 13, 100, 200}
	for pos := 0; pos <= len(docs); pos++ {
		for target := int32(0); target <= 201; target++ {
			want := pos
			for want < len(docs) && docs[want] < target {
				want++
			}
			if got := gallop(docs, pos, target); got != want {
				t.Fatalf("gallop(pos %d, %d) = %d, want %d", pos, target, got, want)
			}
		}
	}
}
