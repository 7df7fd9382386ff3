package search

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPositionsRoundTrip: positions written as a block's escaped codes
// (appendPositions) read back for each document and field, whatever the
// order the fields and documents are asked in, for lists of one block and
// of several, small gaps, wide ones (escapes) and a mix.
func TestPositionsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 400
	w, path := newDocsWriter(t, n, [NumFields]int{20, 200, 3, 2, 1, 1 << 20})
	// want[term][doc][field] are the positions written.
	terms := []string{"flat", "mixed", "one", "wide"}
	want := map[string]map[int32][NumFields][]uint32{}
	for _, term := range terms {
		want[term] = map[int32][NumFields][]uint32{}
		for d := range int32(n) {
			if term == "one" && d != 77 || term != "one" && rng.IntN(3) == 0 {
				continue
			}
			var fs [NumFields][]uint32
			for _, f := range []int{FieldTitle, FieldAbstract, FieldFulltext} {
				if rng.IntN(2) == 0 && f != FieldFulltext {
					continue
				}
				x := uint32(rng.IntN(4))
				for range 1 + rng.IntN(6) {
					fs[f] = append(fs[f], x)
					switch {
					case term == "wide" || term == "mixed" && rng.IntN(8) == 0:
						x += 1 + uint32(rng.IntN(1<<(4+rng.IntN(16))))
					default:
						x += 1 + uint32(rng.IntN(3))
					}
				}
				if err := w.AddPosting([]byte(term), d, f, fs[f]); err != nil {
					t.Fatal(err)
				}
			}
			want[term][d] = fs
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err := OpenFile(path, "x", Options{Sets: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, term := range terms {
		for pass := range 2 {
			p := ix.open(ix.lookup(term), 1<<NumFields-1)
			seen, escapes := 0, false
			for d := p.nextDoc(); d != noMore; d = p.nextDoc() {
				escapes = escapes || p.meta.posEsc
				fs, ok := want[term][d]
				if !ok {
					t.Fatalf("%s: doc %d not written", term, d)
				}
				seen++
				if pass == 1 && rng.IntN(3) == 0 {
					continue // a document skipped: the next one's positions follow it
				}
				order := []int{FieldFulltext, FieldTitle, FieldAbstract}
				rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
				for _, f := range order {
					got := p.positions(nil, f)
					if !slices.Equal(got, fs[f]) {
						t.Fatalf("%s doc %d field %d: positions %v, want %v", term, d, f, got, fs[f])
					}
				}
			}
			if p.bad || seen != len(want[term]) {
				t.Fatalf("%s: %d documents read of %d (bad %v)", term, seen, len(want[term]), p.bad)
			}
			if term == "mixed" && !escapes {
				t.Fatalf("%s: no block with escapes", term)
			}
		}
	}
}
