package search

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/openshelf/openshelf/index/search/query"
)

// The first segment a search ranks in has no floor: it fills its page
// from its own matches, where one index fills it from all, and it
// decodes and scores more of its blocks, as do later segments whose
// floor comes from fewer matches than the archive's. The floor that a
// search ends with, the (k+1)th best match of all, is the same for every
// search of the same request in the snapshot: a Multi keeps it, and a
// request searched again starts every segment from it. Every match
// ranking ahead of it, the k best and itself, is still found, so the
// page and whether another follows are the same, and the totals and
// facets are counted apart from the ranking.

// floorKey names a request for its kept floor: everything that decides
// its matches and their order (not the facets counted), and the page's
// end; false for a request with a cursor (whose matches start after it)
// or a query the key does not spell.
func floorKey(r *Request, after *cursorPos) (string, bool) {
	if after != nil {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %d %t %t ", r.Sort, r.Offset+r.Limit, r.Stem, r.Fulltext)
	if r.YearFrom != nil {
		fmt.Fprintf(&b, "from %d ", *r.YearFrom)
	}
	if r.YearTo != nil {
		fmt.Fprintf(&b, "to %d ", *r.YearTo)
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for name := range r.Where {
			if !yield(name) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, "%q %q ", name, r.Where[name])
	}
	if !spell(&b, r.Query) {
		return "", false
	}
	return b.String(), true
}

// spell writes query node n into b, unambiguously; false if n is of an
// unknown kind.
func spell(b *strings.Builder, n query.Node) bool {
	switch n := n.(type) {
	case nil:
		b.WriteString("_")
	case *query.Term:
		fmt.Fprintf(b, "t%d,%t,%q", n.Field, n.Prefix, n.Word)
	case *query.Phrase:
		fmt.Fprintf(b, "p%d,%q", n.Field, n.Words)
	case *query.Not:
		b.WriteString("n(")
		if !spell(b, n.Child) {
			return false
		}
		b.WriteString(")")
	case *query.And, *query.Or:
		kids := []query.Node(nil)
		if a, ok := n.(*query.And); ok {
			b.WriteString("a(")
			kids = a.Children
		} else {
			b.WriteString("o(")
			kids = n.(*query.Or).Children
		}
		for _, c := range kids {
			if !spell(b, c) {
				return false
			}
			b.WriteString(" ")
		}
		b.WriteString(")")
	default:
		return false
	}
	return true
}

// floorsMax bounds the floors a Multi keeps; it forgets them all past it.
const floorsMax = 1 << 14

func (c *multiCache) floor(key string) (ranked, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.floors[key]
	return f, ok
}

func (c *multiCache) putFloor(key string, f ranked) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.floors == nil || len(c.floors) >= floorsMax {
		c.floors = map[string]ranked{}
	}
	c.floors[key] = f
}

// higher returns the floor of a and b that prunes more (ranks first);
// nil if both are.
func higher(a, b *ranked) *ranked {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.doc, b.doc)) <= 0:
		return a
	}
	return b
}
