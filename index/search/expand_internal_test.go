package search

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortByTop: the order of bounds from the highest, ties in place
// order, as a sort by comparison gives it, for bounds that differ only
// in their lowest bits, equal ones, zeros, infinities and a negative one.
func TestSortByTop(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	near := func(x float64, ulps int) float64 {
		return math.Float64frombits(math.Float64bits(x) + uint64(ulps))
	}
	cases := map[string][]float64{
		"none":     {},
		"one":      {1.5},
		"ties":     {2, 1, 2, 2, 0, 1},
		"low bits": {near(3, 5), near(3, 1), 3, near(3, 5), near(3, 70000), near(3, 2)},
		"inf":      {1, math.Inf(1), 0, math.Inf(1), 7},
		"negative": {1, -1, 3, 3, 0},
	}
	var many []float64
	for range 600 {
		many = append(many, near(float64(rng.IntN(4)), rng.IntN(1<<17)))
	}
	cases["many"] = many
	for name, tops := range cases {
		want := make([]int, len(tops))
		for i := range want {
			want[i] = i
		}
		slices.SortStableFunc(want, func(a, b int) int { return cmp.Compare(tops[b], tops[a]) })
		got := make([]int, len(tops))
		sortByTop(tops, got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
