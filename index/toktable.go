package index

import "hash/maphash"

// tokTable numbers the distinct tokens of a field for tokGroups
// (searchbuild.go): an open addressing table of strings, emptied for the
// next field by clearing only the slots it used. A field's full text asks
// it once per token, and a map's lookups cost a tenth of a build.
type tokTable struct {
	slots []tokSlot // a power of two of them
	used  []uint32  // the slots in use
	seed  maphash.Seed
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
	for i := maphash.String(t.seed, tok) & mask; ; i = (i + 1) & mask {
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
		i := maphash.String(t.seed, s.tok) & mask
		for t.slots[i].full {
			i = (i + 1) & mask
		}
		t.slots[i] = s
		t.used[k] = uint32(i)
	}
}
