package tokenreport

import "testing"

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		score int
		risk  string
		want  string
	}{{100, "none", "low-risk"}, {80, "low", "low-risk"}, {75, "high", "caution"}, {50, "high", "high-risk"}, {34, "high", "avoid"}, {97, "critical", "avoid"}} {
		if got := verdict(tc.score, tc.risk); got != tc.want {
			t.Errorf("verdict(%d, %s) = %s, want %s", tc.score, tc.risk, got, tc.want)
		}
	}
}
