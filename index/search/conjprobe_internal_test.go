package search

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
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

// TestFillBlock: the count's windows of every list of an index, for a
// few field masks and window sizes (within a window or across two, of
// lists of one block or many), set the documents a walk of the list
// finds, and count them.
func TestFillBlock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index.bin")
	w, err := NewWriter(path, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	const n = 3000
	for range n {
		if err := w.AddDoc(DocValues{License: "CC0", Len: [NumFields]int{5, 40, 2, 3, 1, 90}}); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for k, every := range []int{1, 2, 3, 7, 40, 300, 2999} {
		for d := range int32(n) {
			if rng.IntN(every) != 0 {
				continue
			}
			for f := range NumFields {
				if rng.IntN(3) == 0 || f == FieldFulltext && k%2 == 0 {
					if err := w.AddPosting(fmt.Appendf(nil, "w%d", k), d, f, []uint32{uint32(rng.IntN(20))}); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err := OpenFile(path, "s", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	lists := 0
	for c, ok := ix.cursor(0); ok; ok = c.next() {
		if isPrefixTerm(string(c.term)) {
			continue
		}
		for _, mask := range []uint8{allFields, anyFields, 1 << FieldTitle, 1 << FieldFulltext} {
			var want []int32
			p := ix.openRec(c.t, c.rec, mask)
			for d := p.nextDoc(); d != noMore; d = p.nextDoc() {
				want = append(want, d)
			}
			for _, win := range []int32{64, 960, 4096, (n + 63) &^ 63} {
				l := &winList{p: ix.openRec(c.t, c.rec, mask)}
				var got []int32
				for base := int32(0); base < n; base += win {
					set := make([]uint64, win/64)
					k, before := l.fill(set, base, win), len(got)
					for d := range setBits(set, 0, win-1) {
						got = append(got, base+d)
					}
					if k != len(got)-before {
						t.Fatalf("%q mask %b window %d from %d: counted %d of %d", c.term, mask, win, base, k, len(got)-before)
					}
				}
				if l.p.bad || !slices.Equal(got, want) {
					t.Fatalf("%q mask %b window %d: %v (bad %v), want %v", c.term, mask, win, got, l.p.bad, want)
				}
				lists++
			}
		}
	}
	if lists < 6*4*4 {
		t.Errorf("%d lists filled", lists)
	}
}
