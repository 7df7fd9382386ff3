package swaproute

import "testing"

func TestParseUnits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		dec  uint8
		want string
	}{{"1.5", 6, "1500000"}, {"250.5", 6, "250500000"}, {"0.0000001", 6, "0"}, {"3", 18, "3000000000000000000"}} {
		if got := parseUnits(tc.in, tc.dec).String(); got != tc.want {
			t.Errorf("%s@%d = %s, want %s", tc.in, tc.dec, got, tc.want)
		}
	}
}
