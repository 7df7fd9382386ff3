package search

import (
	"context"
	"slices"
	"sort"
)

// A search sorted by year or by cited-by count visits every match, its
// key read document by document, where a search by relevance skips the
// blocks whose bounds cannot enter the page. Over segments, a segment
// searched after others (or again, from the request's kept floor) has
// a floor: only its matches ranking ahead of the floor can enter the
// page, and when the request is one posting list, unfiltered, those are
// found faster from the other end: the segment's live documents in the
// sort's order, up to the floor, each looked up in the list, while the
// count comes from the list's skip entries less its deleted documents
// (kept per list). The largest segment, searched first, builds the floor
// as one index does; the smaller ones mostly probe a few documents of
// the newest year, or the most cited, instead of walking their lists.
//
// A segment keeps, for each sort once used, the first orderMax of its
// live documents in that order (4 bytes a document, chosen on the first
// search that needs them): a floor beyond them, or more documents ahead
// of it than a quarter of the list's, falls back to the walk.

// orderMax bounds the documents of a segment's order kept for a sort.
const orderMax = 1 << 16

// keyOrder is the head of a segment's live documents in a sort's order
// (key, then doc).
type keyOrder struct {
	docs []int32
	all  bool // every live document is in docs
}

// order returns the segment's order for sort s, made once: the best
// orderMax of its live documents by key, then doc, chosen as a page is.
func (g *mseg) order(s Sort, cited func() []int32) *keyOrder {
	g.orderOnce[s].Do(func() {
		sc := &scan{ix: g.Index, sort: s}
		if s == ByCitedBy {
			sc.cited = cited()
		}
		top := newTopK(orderMax)
		live := 0
		for d := range g.Index.n {
			if !g.deleted(d) {
				top.push(ranked{key: sc.key(0, d), doc: d})
				live++
			}
		}
		o := &keyOrder{all: live <= orderMax}
		for _, h := range top.sorted() {
			o.docs = append(o.docs, h.doc)
		}
		g.orders[s] = o
	})
	return g.orders[s]
}

// probe answers, when it pays, a segment's scan of lister l sorted by
// key against the floor sc starts full of (no filter, facets or cursor):
// the documents ahead of the floor in the segment's order that the list
// has, and the list's count; false if the scan must walk the list.
func (sg *segment) probe(ctx context.Context, sc *scan, l lister) (bool, error) {
	if sg.floor == nil || sc.sort == ByRelevance || sc.scoring || sc.filtering || sc.fc != nil || sc.after != nil {
		return false, nil
	}
	p := l.list()
	if p.bad || p.blk >= 0 {
		return false, nil
	}
	o := sg.g.order(sc.sort, sg.cited)
	f := *sg.floor
	// The documents ranking ahead of the floor: a prefix of the order.
	n := sort.Search(len(o.docs), func(i int) bool {
		d := o.docs[i]
		return !worse(f, ranked{key: sc.key(0, d), doc: d})
	})
	if n == len(o.docs) && !o.all || n*4 > p.df {
		return false, nil
	}
	total, ok := sg.g.listTotal(p.term, p.mask)
	if !ok {
		for b := 0; b < p.nblocks; b++ {
			c, ok := p.countBlock(b)
			if !ok {
				return true, nil // damaged: the search reports it
			}
			total += int64(c)
		}
		total -= sg.deletedIn(p.term, p.mask)
		sg.g.keepListTotal(p.term, p.mask, total)
	}
	sc.total = total
	ahead := slices.Clone(o.docs[:n])
	slices.Sort(ahead)
	for i, d := range ahead {
		if i%checkEvery == checkEvery-1 {
			if err := yield(ctx); err != nil {
				return true, err
			}
		}
		if p.advance(d) == d {
			sc.top.push(ranked{key: sc.key(0, d), doc: d})
		}
	}
	p.cur = noMore
	return true, nil
}
