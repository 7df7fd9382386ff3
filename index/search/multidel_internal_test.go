package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMostLive: counting the words from the most documents down, and
// stopping at the first that cannot reach the last kept, keeps the same
// words as counting all of them, ties by term and dead words included;
// by selections (mostLiveOf, where it answers) and by a heap.
func TestMostLive(t *testing.T) {
	for _, tc := range []struct {
		name          string
		words, limit  int
		maxDF, maxDel int64
		selects       bool // by mostLiveOf
	}{
		{"fewer than the limit", 40, 256, 50, 10, false},
		{"many words, few deleted", 3000, 256, 5000, 20, true},
		{"many words, many deleted", 3000, 256, 200, 200, false},
		{"ties", 1000, 100, 3, 3, true},
		{"dead words", 500, 100, 2, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mk := func() []*mword {
				rng := rand.New(rand.NewPCG(uint64(tc.words), uint64(tc.maxDF)))
				var ws []*mword
				for i := range tc.words {
					hi := rng.Int64N(tc.maxDF) + 1
					live := max(0, hi-rng.Int64N(tc.maxDel+1))
					ws = append(ws, &mword{term: fmt.Appendf(nil, "w%05d", i), hi: hi, lo: live, live: live})
				}
				return ws
			}
			m := &Multi{}
			want := m.top(mk(), tc.limit)
			name := func(w *mword) string { return string(w.term) }
			for _, got := range [][]*mword{m.mostLive(mk(), tc.limit), m.mostLiveByHeap(mk(), tc.limit)} {
				if !slices.Equal(mapWords(got, name), mapWords(want, name)) {
					t.Fatalf("kept %d words, want %d:\n%v\n%v", len(got), len(want), mapWords(got, name), mapWords(want, name))
				}
			}
			if _, ok := m.mostLiveOf(mk(), tc.limit); ok != tc.selects {
				t.Errorf("selected: %v, want %v", ok, tc.selects)
			}
		})
	}
}

func mapWords(ws []*mword, f func(*mword) string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = f(w)
	}
	return out
}

// TestDeletedBefore: the running count of deleted documents, for any
// document number a skip entry may give, damaged ones included.
func TestDeletedBefore(t *testing.T) {
	deleted := []int32{0, 3, 63, 64, 130}
	g := &mseg{del: make([]uint64, 3)}
	for _, d := range deleted {
		g.del[d>>6] |= 1 << (d & 63)
	}
	g.delRank = delRanks(g.del)
	for _, tc := range []struct {
		d    int32
		want int32
	}{
		{math.MinInt32, 0}, {-1, 0}, {0, 0}, {1, 1}, {4, 2}, {63, 2}, {64, 3}, {65, 4},
		{130, 4}, {131, 5}, {192, 5}, {math.MaxInt32, 5},
	} {
		if got := g.deletedBefore(tc.d); got != tc.want {
			t.Errorf("deletedBefore(%d) = %d, want %d", tc.d, got, tc.want)
		}
	}
}
