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
