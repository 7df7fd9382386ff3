package search

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

func checkPack(t *testing.T, vals []uint32) {
	b := bitWidth(vals)
	packed := appendPacked([]byte{0xAA}, vals, b)
	if len(packed) != 1+packedLen(len(vals), b) || packed[0] != 0xAA {
		t.Fatalf("width %d, %d values: %d bytes packed", b, len(vals), len(packed)-1)
	}
	got := make([]uint32, len(vals))
	for i := range got {
		got[i] = 12345 // unpack must overwrite
	}
	unpack(got, packed[1:], b)
	if !slices.Equal(got, vals) {
		t.Fatalf("width %d: unpacked %v, want %v", b, got, vals)
	}
}

// TestBitPackRoundTrip packs and unpacks blocks of every width and length.
func TestBitPackRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for b := 0; b <= 32; b++ {
		for _, n := range []int{0, 1, 2, 7, 8, 9, 63, 127, blockDocs} {
			vals := make([]uint32, n)
			for i := range vals {
				if b > 0 {
					vals[i] = uint32(rng.Uint64() & (1<<b - 1))
				}
			}
			if n > 0 && b > 0 {
				vals[rng.IntN(n)] = uint32(1<<b - 1) // the width is b
			}
			checkPack(t, vals)
		}
	}
}

func FuzzBitPack(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 255, 255, 255, 255})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		vals := make([]uint32, 0, len(raw)/4)
		for i := 0; i+4 <= len(raw) && len(vals) < blockDocs; i += 4 {
			vals = append(vals, binary.LittleEndian.Uint32(raw[i:])>>(raw[0]%32))
		}
		checkPack(t, vals)
	})
}

// TestCountMasked: counting eight mask bytes at a time gives the count
// of the byte-by-byte loop, for every mask and lengths around a word.
func TestCountMasked(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 127, 128} {
		b := make([]byte, n)
		for trial := range 20 {
			for i := range b {
				switch trial % 3 {
				case 0:
					b[i] = byte(rng.IntN(256))
				case 1:
					b[i] = byte(1 << rng.IntN(8)) // one field
				default:
					b[i] = []byte{0, 0x80, 0x7f, 0xff}[rng.IntN(4)] // the SWAR edge values
				}
			}
			for mask := range 256 {
				want := 0
				for _, c := range b {
					if c&byte(mask) != 0 {
						want++
					}
				}
				if got := countMasked(b, byte(mask)); got != want {
					t.Fatalf("len %d mask %#x %x: %d, want %d", n, mask, b, got, want)
				}
			}
		}
	}
}
