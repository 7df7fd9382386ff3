package search

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortedMostFrequent is the choice of mostFrequent by a full sort: the
// reference.
func sortedMostFrequent(ids []int, recs []termRec, limit int) ([]int, []termRec) {
	if len(ids) <= limit {
		return ids, recs
	}
	at := make([]int, len(ids))
	for i := range at {
		at[i] = i
	}
	slices.SortFunc(at, func(a, b int) int {
		return cmp.Or(cmp.Compare(recs[b].DF, recs[a].DF), cmp.Compare(a, b))
	})
	at = at[:limit]
	slices.Sort(at)
	var kept []int
	var keptRecs []termRec
	for _, a := range at {
		kept, keptRecs = append(kept, ids[a]), append(keptRecs, recs[a])
	}
	return kept, keptRecs
}

// TestMostFrequent compares the selection with a full sort on lists of
// document counts with few and many distinct values, ties across the cut
// included.
func TestMostFrequent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	var sc expansionScratch // reused, as the pool reuses it
	for _, tc := range []struct {
		n, limit int
		maxDF    uint32
	}{
		{1, 1, 3}, {5, 5, 3}, {6, 5, 1}, {10, 1, 1}, {300, 256, 2}, {1000, 256, 1000}, {20000, 256, 4},
		{20000, 256, 1 << 20}, {513, 512, 7}, {2, 1, 2},
	} {
		for run := range 5 {
			ids := make([]int, tc.n)
			recs := make([]termRec, tc.n)
			for i := range ids {
				ids[i] = 3*i + 7
				recs[i] = termRec{DF: 1 + uint32(rng.Int64N(int64(tc.maxDF)))}
				if run == 4 {
					recs[i].DF = tc.maxDF // all tied
				}
			}
			wantIDs, wantRecs := sortedMostFrequent(ids, recs, tc.limit)
			var gotIDs []int
			var gotRecs []termRec
			for _, a := range mostFrequent(recs, tc.limit, &sc) {
				gotIDs, gotRecs = append(gotIDs, ids[a]), append(gotRecs, recs[a])
			}
			if !slices.Equal(gotIDs, wantIDs) || !slices.Equal(gotRecs, wantRecs) {
				t.Fatalf("n %d limit %d maxDF %d run %d:\n got %v\nwant %v", tc.n, tc.limit, tc.maxDF, run, gotIDs, wantIDs)
			}
		}
	}
}

func TestKthLargest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		v := make([]uint32, 1+rng.IntN(50))
		for i := range v {
			v[i] = uint32(rng.IntN(1 + len(v)/3))
		}
		k := 1 + rng.IntN(len(v))
		sorted := slices.Clone(v)
		slices.Sort(sorted)
		if got, want := kthLargest(v, k), sorted[len(sorted)-k]; got != want {
			t.Fatalf("%v k %d: %d, want %d", sorted, k, got, want)
		}
	}
}
