package main

import "testing"

func TestByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"512MiB", 512 << 20, true},
		{"2GiB", 2 << 30, true},
		{"2 gib", 2 << 30, true},
		{"100MB", 100e6, true},
		{"64M", 64 << 20, true},
		{"4096", 4096, true},
		{"0", 0, true},
		{"off", 0, true},
		{"-1MiB", 0, false},
		{"MiB", 0, false},
		{"lots", 0, false},
		{"1.5GiB", 0, false},
		{"9999999999TiB", 0, false},
	} {
		var s byteSize
		err := s.Set(tc.in)
		if (err == nil) != tc.ok || (tc.ok && int64(s) != tc.want) {
			t.Errorf("Set(%q) = %d, %v; want %d, ok %v", tc.in, s, err, tc.want, tc.ok)
		}
	}
	for n, want := range map[int64]string{512 << 20: "512MiB", 2 << 30: "2GiB", 1000: "1000", 0: "0"} {
		s := byteSize(n)
		if got := s.String(); got != want {
			t.Errorf("String(%d) = %q, want %q", n, got, want)
		}
	}
}
