package x402

import (
	"errors"
	"strings"
	"testing"
)

func TestPriceToAtomic(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = error
	}{
		{"0.001", "1000"},
		{"0.01", "10000"},
		{"1", "1000000"},
		{"1.5", "1500000"},
		{"0.000001", "1"},
		{"0", "0"},
		{"0.0", "0"},
		{"12.345678", "12345678"},
		{"007", "7000000"},
		{"0.0000001", ""},
		{"-0.001", ""},
		{"+1", ""},
		{".5", ""},
		{"1.", ""},
		{"", ""},
		{"1e-3", ""},
		{"0,001", ""},
		{" 1", ""},
		{"1.2.3", ""},
		{"NaN", ""},
		{"١", ""},                           // Arabic-Indic digit one
		{"1" + strings.Repeat("0", 76), ""}, // > uint256
	}
	for _, tt := range tests {
		got, err := PriceToAtomic(tt.in)
		if tt.want == "" {
			if err == nil || !errors.Is(err, ErrInvalidPrice) {
				t.Errorf("PriceToAtomic(%q) = %q, %v; want ErrInvalidPrice", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("PriceToAtomic(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestParseUint256(t *testing.T) {
	max := "115792089237316195423570985008687907853269984665640564039457584007913129639935"
	over := "115792089237316195423570985008687907853269984665640564039457584007913129639936"
	for in, ok := range map[string]bool{"0": true, "1000": true, max: true, over: false, "01": false, "-1": false, "": false, "1.0": false, "0x10": false} {
		if _, got := parseUint256(in); got != ok {
			t.Errorf("parseUint256(%q) ok = %v, want %v", in, got, ok)
		}
	}
}
