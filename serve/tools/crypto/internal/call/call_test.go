package call

import (
	"slices"
	"testing"
)

func TestList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"ethereum", []string{"ethereum"}},
		{" ethereum , ,solana,", []string{"ethereum", "solana"}},
	} {
		if got := List(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("List(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
