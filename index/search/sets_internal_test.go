package search

import "testing"

// TestSetsAdmission: a set is built on the second ask while it fits; past
// the budget, only when its asks times its postings are more than the
// least recently used set's, which it then pushes out.
func TestSetsAdmission(t *testing.T) {
	ix := &Index{n: 640} // a set is 80 bytes
	c := &sets{budget: 160}
	df := func(term int) int {
		if term == 4 {
			return 1000
		}
		return 100
	}
	list := func(term int) *postings { return &postings{ix: ix, term: term, df: df(term)} }
	ask := func(term int) bool {
		set, build := c.get(list(term))
		if build {
			c.add(listKey(list(term)), make([]uint64, 10), int64(df(term)))
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
		{3, true},              // 4 asks: built, 1 pushed out
		{2, true},              // still kept: 2 asked 3 times
		{1, false},             // 4 asks, not more than 3's, now the oldest
		{1, true},              // 5: built, 3 pushed out; 2 is the oldest
		{4, false},             // ten times the postings: 1 ask is not enough,
		{4, true},              // 2 are (2000 > 3×100): 2 pushed out; 1 is the oldest
		{2, false}, {2, false}, // 5 asks: 500, not more than 1's 5×100
		{2, true}, // 600: 1 pushed out
	}
	for i, s := range steps {
		if got := ask(s.term); got != s.want {
			t.Fatalf("step %d: term %d kept or built %v, want %v", i, s.term, got, s.want)
		}
	}
	if len(c.m) != 2 || c.bytes != 160 {
		t.Errorf("%d sets, %d bytes", len(c.m), c.bytes)
	}
	if c.m[setKey{term: 2}] == nil || c.m[setKey{term: 4}] == nil {
		t.Errorf("kept %v, want 2 and 4", c.m)
	}
	// A list below N/64 documents gets none, however often asked.
	for range 5 {
		if set, build := c.get(&postings{ix: ix, term: 9, df: 9}); set != nil || build {
			t.Fatal("a sparse list got a set")
		}
	}
}
