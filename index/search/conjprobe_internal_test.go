package search

import (
	"math/rand/v2"
	"testing"
)

// TestAtLeast: the bitset of the bytes at least q, eight at a time, is
// that of a byte by byte comparison, for every q and lengths that are
// not multiples of eight.
func TestAtLeast(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 65, 100, 127, 128} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(4) == 0 {
				b[i] = []byte{0, 0x7f, 0x80, 0xff}[rng.IntN(4)]
			}
		}
		for q := 0; q <= 256; q++ {
			var want [2]uint64
			for i, x := range b {
				if int(x) >= q {
					want[i>>6] |= 1 << (i & 63)
				}
			}
			if got := atLeast(b, q); got != want {
				t.Fatalf("%d bytes %v, q %d: %x, want %x", n, b, q, got, want)
			}
		}
	}
}
