package search

// Test hooks of the conjunction path (conj.go).

// SetConj turns the bitset count and block-max ranking of conjunctions
// on or off, and sets the documents of a count window (a multiple of 64;
// 0 keeps it).
func SetConj(ix *Index, on bool, window int32) {
	ix.noConj = !on
	if window > 0 {
		ix.conjWindow = window
	}
}

// ConjScans is how many searches took the conjunction path.
func ConjScans(ix *Index) int64 { return ix.conjScans.Load() }
