package simulate

import (
	"bytes"
	"testing"
)

func TestCompactU16(t *testing.T) {
	for _, tc := range []struct {
		b    []byte
		v, n int
	}{{[]byte{0x05}, 5, 1}, {[]byte{0x80, 0x01}, 128, 2}, {[]byte{0xff, 0xff, 0x03}, 65535, 3}, {[]byte{0x80}, 0, 0}} {
		if v, n := compactU16(tc.b); v != tc.v || n != tc.n {
			t.Errorf("%x: %d,%d want %d,%d", tc.b, v, n, tc.v, tc.n)
		}
	}
}

func TestDecodeUintArraysHostile(t *testing.T) {
	w := func(v byte) []byte { b := make([]byte, 32); b[31] = v; return b }
	huge := bytes.Repeat([]byte{0xff}, 32)
	good := append(append(append(append(append(w(64), w(128)...), w(1)...), w(7)...), w(1)...), w(9)...)
	ids, vals := decodeUintArrays(good)
	if len(ids) != 1 || ids[0].Int64() != 7 || len(vals) != 1 || vals[0].Int64() != 9 {
		t.Errorf("ids %v vals %v", ids, vals)
	}
	for _, bad := range [][]byte{append(huge, huge...), append(w(64), huge...), append(append(w(64), w(96)...), huge...), {1, 2}} {
		decodeUintArrays(bad) // must not panic
	}
}
