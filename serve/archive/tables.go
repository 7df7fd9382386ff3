package archive

import (
	"errors"
)

// errIndex reports snapshot tables (catalog, aliases, content) that do not
// have the documented shape. The search index has its own,
// search.ErrMalformed.
var errIndex = errors.New("archive: malformed search index")

// bitset is the catalog store's set of document numbers (index/search has
// its own; the stores are to move next to their writer too, see doc.go).
type bitset []uint64

func newBitset(n int) bitset      { return make(bitset, (n+63)/64) }
func (b bitset) set(i int32)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
