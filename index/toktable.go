package index

import (
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
)

// tokTable numbers the distinct tokens of a field for tokGroups
// (searchbuild.go): an open addressing table of strings, emptied for the
// next field by clearing only the slots it used. A field's full text asks
// it once per token, and a map's lookups cost a tenth of a build.
type tokTable struct {
	slots []tokSlot // a power of two of them
	used  []uint32  // the slots in use
	seed  maphash.Seed
	k0    uint64 // random keys of hash, for tokens of up to 16 bytes
	k1    uint64
}

// tokSlot is a slot of the table.
type tokSlot struct {
	tok  string
	id   int32
	full bool
}

// reset empties the table. The slots' strings are cleared: they are
// substrings of a document's text, which they would keep alive.
func (t *tokTable) reset() {
	if t.slots == nil {
		t.seed = maphash.MakeSeed()
		t.k0, t.k1 = rand.Uint64()|1, rand.Uint64()|1
		t.slots = make([]tokSlot, 256)
	}
	for _, i := range t.used {
		t.slots[i] = tokSlot{}
	}
	t.used = t.used[:0]
}

// id returns tok's number, giving it next when it has none yet.
func (t *tokTable) id(tok string, next int32) int32 {
	if 2*(len(t.used)+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.hash(tok) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if !s.full {
			*s = tokSlot{tok: tok, id: next, full: true}
			t.used = append(t.used, uint32(i))
			return next
		}
		if s.tok == tok {
			return s.id
		}
	}
}

// grow doubles the table, keeping its tokens.
func (t *tokTable) grow() {
	old := t.slots
	t.slots = make([]tokSlot, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for k, j := range t.used {
		s := old[j]
		i := t.hash(s.tok) & mask
		for t.slots[i].full {
			i = (i + 1) & mask
		}
		t.slots[i] = s
		t.used[k] = uint32(i)
	}
}

// hash hashes a token for the table. Most tokens are words of a few
// letters: their bytes are mixed inline by one 128-bit multiplication
// under random keys (as wyhash does), which costs less than a call to
// maphash, the hash of longer ones.
func (t *tokTable) hash(s string) uint64 {
	var a, b uint64
	switch n := len(s); {
	case n > 16:
		return maphash.String(t.seed, s)
	case n >= 8:
		a, b = load64(s, 0), load64(s, n-8)
	case n >= 4:
		a, b = load32(s, 0), load32(s, n-4)
	case n > 0:
		a = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	}
	hi, lo := bits.Mul64(a^t.k0, b^t.k1^uint64(len(s)))
	return hi ^ lo
}

func load64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

func load32(s string, i int) uint64 {
	_ = s[i+3]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24
}
