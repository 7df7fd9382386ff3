package search

import "testing"

// TestSetsAdmission: a set is built on the second ask while it fits; past
// the budget, only when asked for more often than the least recently used
// set, which it then pushes out.
func TestSetsAdmission(t *testing.T) {
	ix := &Index{n: 640} // a set is 80 bytes
	c := &sets{budget: 160}
	list := func(term int) *postings { return &postings{ix: ix, term: term, df: 100} }
	ask := func(term int) bool {
		set, build := c.get(list(term))
		if build {
			c.add(listKey(list(term)), make([]uint64, 10))
		}
		return set != nil || build
	}
	steps := []struct {
		term int
		want bool // kept or built
	}{
		{1, false}, {1, true}, {1, true}, // the second ask builds; 1 asked 3 times
		{2, false}, {2, true}, // it fits
		{3, false}, {3, false}, {3, false}, // 3 asks, not more than 1's, the oldest
		{3, true},  // 4 asks: built, 1 pushed out
		{2, true},  // still kept
		{1, false}, // 4 asks, not more than 3's, now the oldest
		{1, true},  // 5: built, 3 pushed out
	}
	for i, s := range steps {
		if got := ask(s.term); got != s.want {
			t.Fatalf("step %d: term %d kept or built %v, want %v", i, s.term, got, s.want)
		}
	}
	if len(c.m) != 2 || c.bytes != 160 {
		t.Errorf("%d sets, %d bytes", len(c.m), c.bytes)
	}
	if c.m[setKey{term: 2}] == nil || c.m[setKey{term: 1}] == nil {
		t.Errorf("kept %v, want 1 and 2", c.m)
	}
	// A list below N/64 documents gets none, however often asked.
	for range 5 {
		if set, build := c.get(&postings{ix: ix, term: 9, df: 9}); set != nil || build {
			t.Fatal("a sparse list got a set")
		}
	}
}
