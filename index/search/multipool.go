package search

// A union iterator carries a window of its documents' bounds (17 KiB),
// and a search over ten segments makes ten of each union of its query
// where one index makes one: the garbage, collected on the searching
// thread's time as often as it is made, cost a search over segments more
// than the windows cost to clear. A segment's search takes its unions
// from a pool of the Multi and puts them back once done; nothing reads
// them after (the scan keeps only its page, count and facets).

// union returns a union iterator to set up, from the pool if it has one.
func (sg *segment) union() *unionIter {
	if u, ok := sg.unions.Get().(*unionIter); ok {
		return u
	}
	return new(unionIter)
}

// putUnions puts back the unions of a finished search (union's caller
// sets every field again).
func (sg *segment) putUnions(us []*unionIter) {
	for _, u := range us {
		sg.unions.Put(u)
	}
}

// The lists of a prefix's expansion, hundreds in each segment, are
// allocated together (listSlab), up to 256 KiB of blocks' documents and
// gaps a segment: made for each search in each of ten segments, they
// cost a first search over segments more to allocate and clear than to
// open. A segment's search takes them from a pool of the Multi too;
// nothing reads them once it is done (openInto and termIterOn set each
// list and iterator anew, and a block is read into them before use).

// slabBuf is the memory of listSlabs, reused.
type slabBuf struct {
	ps    []postings
	ts    []termIter
	docs  []int32
	delta []uint32
}

// listSlab is newListSlab from the pool, the buffer recorded in e for
// putSlabs.
func (sg *segment) listSlab(e *evaluator, recs []termRec) *listSlab {
	if len(recs) < 2 {
		return nil
	}
	n := 0
	for _, r := range recs {
		n += blockLen(r)
	}
	b, _ := sg.slabs.Get().(*slabBuf)
	if b == nil {
		b = new(slabBuf)
	}
	if cap(b.ps) < len(recs) {
		b.ps, b.ts = make([]postings, len(recs)), make([]termIter, len(recs))
	}
	if cap(b.docs) < n {
		b.docs, b.delta = make([]int32, n), make([]uint32, n)
	}
	e.slabs = append(e.slabs, b)
	return &listSlab{ps: b.ps[:len(recs)], ts: b.ts[:len(recs)], docs: b.docs[:n], delta: b.delta[:n]}
}

// putSlabs puts back the lists of a finished search.
func (sg *segment) putSlabs(bs []*slabBuf) {
	for _, b := range bs {
		sg.slabs.Put(b)
	}
}
