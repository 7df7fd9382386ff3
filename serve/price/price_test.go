package price

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = error
		usd  string
	}{
		{"0.001", "1000", "0.001"},
		{"0.01", "10000", "0.01"},
		{"1", "1000000", "1"},
		{"1.5", "1500000", "1.5"},
		{"0.000001", "1", "0.000001"},
		{"0", "0", "0"},
		{"0.0", "0", "0"},
		{"12.345678", "12345678", "12.345678"},
		{"007", "7000000", "7"},
		{"18446744073709.551615", "18446744073709551615", "18446744073709.551615"},
		{"18446744073709.551616", "", ""},
		{"0.0000001", "", ""},
		{"-0.001", "", ""},
		{"+1", "", ""},
		{".5", "", ""},
		{"1.", "", ""},
		{"", "", ""},
		{"1e-3", "", ""},
		{"0,001", "", ""},
		{" 1", "", ""},
		{"1.2.3", "", ""},
		{"NaN", "", ""},
		{"١", "", ""},
		{"1" + strings.Repeat("0", 76), "", ""},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if tt.want == "" {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("Parse(%q) = %v, %v; want ErrInvalid", tt.in, got, err)
			}
			continue
		}
		if err != nil || got.String() != tt.want || got.USD() != tt.usd {
			t.Errorf("Parse(%q) = %v (%s), %v; want %s (%s)", tt.in, got, got.USD(), err, tt.want, tt.usd)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0.001", "1.", ".5", "12.345678", "0.0000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if err != nil {
			return
		}
		// Round trip: the canonical form parses to the same amount.
		b, err := Parse(a.USD())
		if err != nil || a != b {
			t.Fatalf("Parse(%q) = %d; Parse(%q) = %d, %v", s, a, a.USD(), b, err)
		}
	})
}
