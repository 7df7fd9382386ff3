package num

import (
	"math"
	"testing"
)

func TestRound(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		n    int
		want float64
	}{
		{3000.123456, 6, 3000.12},
		{0.000123456, 3, 0.000123},
		{-1.23456, 2, -1.2},
		{0, 4, 0},
		{math.Inf(1), 4, 0},
		{math.NaN(), 4, 0},
	} {
		if got := Round(tc.f, tc.n); got != tc.want {
			t.Errorf("Round(%v, %d) = %v, want %v", tc.f, tc.n, got, tc.want)
		}
	}
}
