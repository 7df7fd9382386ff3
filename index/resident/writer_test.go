package resident

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// writesAt records a Writer's writes into a file image.
type writesAt struct {
	file []byte
	bad  int // writes not aligned, or longer than a chunk
}

func (w *writesAt) WriteAt(p []byte, off int64) (int, error) {
	if off%hugePage != 0 || len(p) > hugePage {
		w.bad++
	}
	if end := int(off) + len(p); end > len(w.file) {
		w.file = append(w.file, make([]byte, end-len(w.file))...)
	}
	copy(w.file[off:], p)
	return len(p), nil
}

// TestWriter: whatever the sizes of the writes and where the
// flushes fall, the file holds what was written, and every write to it
// is at most one chunk at a multiple of the chunk size.
func TestWriter(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxWrite   int
		flushEvery int
	}{
		{"small writes", 300, 0},
		{"writes larger than a chunk", 3 * hugePage, 0},
		{"mixed, flushed", hugePage / 3, 7},
		{"flushed after every write", 100_000, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.maxWrite), uint64(tc.flushEvery)))
			var want []byte
			w := &writesAt{}
			c := NewWriter(w)
			for i := 0; len(want) < 5*hugePage+12345; i++ {
				p := make([]byte, rng.IntN(tc.maxWrite)+1)
				for j := range p {
					p[j] = byte(rng.Uint32())
				}
				if n, err := c.Write(p); n != len(p) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
				want = append(want, p...)
				if tc.flushEvery > 0 && i%tc.flushEvery == 0 {
					if err := c.Flush(); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(w.file, want) {
						t.Fatalf("after a flush at %d bytes the file differs", len(want))
					}
				}
			}
			if err := c.Flush(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(w.file, want) {
				t.Errorf("file of %d bytes differs from the %d written", len(w.file), len(want))
			}
			if w.bad > 0 {
				t.Errorf("%d writes not one chunk at most at a multiple of %d", w.bad, hugePage)
			}
		})
	}
}
