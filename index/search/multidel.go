package search

import (
	"bytes"
	"container/heap"
	"math/bits"
	"slices"

	"github.com/openshelf/openshelf/index/search/query"
)

// A term's live documents in a segment with deletions are its list's
// less those deleted, which only a walk of the list finds: the first
// search of a prefix needs them for each of its words that may be among
// the MaxExpansions with the most live documents, and for the IDF of
// those kept. The walk is a block at a time: a block whose documents
// span no deleted one (the deleted documents' running count tells, from
// the skip table's last documents) is not unpacked, and the others are
// tested against the deleted bits without an iterator call a document.
// Words are counted from the most documents down, deleted ones included
// (mword.hi), and the counting stops at the first word that cannot reach
// the live documents of the last word kept.

// delRanks returns the running count of the deleted bits del: entry w
// is the number of deleted documents before document 64*w.
func delRanks(del []uint64) []int32 {
	r := make([]int32, len(del)+1)
	for w, x := range del {
		r[w+1] = r[w] + int32(bits.OnesCount64(x))
	}
	return r
}

// deletedBefore is the number of the segment's deleted documents below
// d, any d (a damaged skip entry's too).
func (g *mseg) deletedBefore(d int32) int32 {
	if d <= 0 {
		return 0
	}
	w := d >> 6
	if int(w) >= len(g.del) {
		return g.delRank[len(g.del)]
	}
	return g.delRank[w] + int32(bits.OnesCount64(g.del[w]&(1<<(d&63)-1)))
}

// countDeleted counts the deleted documents of term id's list with a
// field of mask.
func (g *mseg) countDeleted(id int, rec termRec, mask uint8) int64 {
	// Reused: a prefix counts hundreds of lists, most of them short.
	c, _ := g.counters.Get().(*delCounter)
	if c == nil {
		c = new(delCounter)
	}
	defer g.counters.Put(c)
	p := &c.p
	k := blockLen(rec)
	g.Index.openInto(p, id, rec, mask, c.docs[:k], c.delta[:k])
	var n int64
	prev := int32(-1)
	for b := 0; b < p.nblocks && !p.bad; b++ {
		last := p.lastDoc(b)
		lo := prev + 1
		prev = last
		if p.maskOr(b)&mask == 0 || g.deletedBefore(last+1) == g.deletedBefore(lo) {
			continue
		}
		if !p.load(b) {
			break
		}
		for i, d := range p.docs[:p.cnt] {
			if g.del[d>>6]&(1<<(d&63)) != 0 && p.wants(i) {
				n++
			}
		}
	}
	return n
}

// delCounter is the list countDeleted opens, and its blocks.
type delCounter struct {
	p     postings
	docs  [blockDocs]int32
	delta [blockDocs]uint32
}

// words walks the terms starting with p over all segments in byte order,
// each once, until visit returns false. A short prefix has thousands of
// words: they are allocated in slabs, and each segment's dictionary is
// read by one cursor, in order.
func (m *Multi) words(p string, visit func(*mword) bool) {
	type cur struct {
		at, hi int
		c      termCursor
	}
	cs := make([]cur, len(m.segs))
	for s, g := range m.segs {
		c := &cs[s]
		if c.at, c.hi = g.Index.prefixRange(p); c.at < c.hi {
			var ok bool
			if c.c, ok = g.Index.cursor(c.at); !ok {
				c.hi = c.at // damaged: its lists would not open either
			}
		}
	}
	var words []mword
	var parts []mpart
	for {
		var min []byte
		for s := range cs {
			if c := &cs[s]; c.at < c.hi && (min == nil || bytes.Compare(c.c.term, min) < 0) {
				min = c.c.term
			}
		}
		if min == nil {
			return
		}
		if len(words) == cap(words) {
			words = make([]mword, 0, 256)
		}
		if cap(parts)-len(parts) < len(cs) {
			parts = make([]mpart, 0, 256*len(cs))
		}
		// A copy: the cursor that holds min overwrites it when it moves.
		words = append(words, mword{term: bytes.Clone(min), live: -1})
		w := &words[len(words)-1]
		start := len(parts)
		for s := range cs {
			c := &cs[s]
			if c.at < c.hi && bytes.Equal(c.c.term, w.term) {
				g := m.segs[s]
				df := int64(c.c.rec.DF)
				parts = append(parts, mpart{s, c.at, c.c.rec})
				w.hi += df
				w.lo += max(0, df-int64(len(g.Deleted)))
				if c.at++; c.at < c.hi && !c.c.next() {
					c.hi = c.at
				}
			}
		}
		w.parts = parts[start:len(parts):len(parts)]
		if !visit(w) {
			return
		}
	}
}

// prefixTermHolds reports whether the segment's prefix term of p, if it
// has one, holds the live documents of the words ids (the archive's
// choice, increasing): the term has the documents of the segment's own
// choice of words (Index.expandPrefix), which must have all of ids, and
// any other word of its choice no live document in the segment, so that
// the two differ only by deleted documents, which every count subtracts
// and no page ranks. A segment without the prefix term is not asked; a
// word with more documents than the segment deletes is live uncounted.
func (g *mseg) prefixTermHolds(p string, ids []int) bool {
	if len(ids) < 2 || g.Index.lookup(PrefixTerm(p)) < 0 {
		return false
	}
	own := g.ownPrefixWords(p)
	var others []int
	i := 0
	for _, id := range own {
		if i < len(ids) && ids[i] == id {
			i++
			continue
		}
		if int(g.Index.rec(id).DF) > len(g.Deleted) {
			return false
		}
		others = append(others, id)
	}
	if i != len(ids) {
		return false
	}
	for _, id := range others {
		if g.liveDF(id) > 0 {
			return false
		}
	}
	return true
}

// ownPrefixWords is Index.expandPrefix(p, MaxExpansions) of the
// segment: its terms of prefix p with the most documents (ties by id),
// chosen by a heap rather than a sort of all.
func (g *mseg) ownPrefixWords(p string) []int {
	if p == "" || isPairTerm(p) {
		return nil
	}
	ix := g.Index
	lo, hi := ix.prefixRange(p)
	// after reports whether term a ranks after b: fewer documents, ties
	// by the greater id.
	dfs := make([]uint32, 0, hi-lo)
	if !ix.walkRecs(lo, hi, func(r termRec) { dfs = append(dfs, r.DF) }) || len(dfs) != hi-lo {
		return nil // a damaged dictionary: the words' lists report it
	}
	after := func(a, b int) bool {
		return dfs[a-lo] < dfs[b-lo] || dfs[a-lo] == dfs[b-lo] && a > b
	}
	h := &idHeap{after: after}
	for t := lo; t < hi; t++ {
		if len(h.ids) < query.MaxExpansions {
			heap.Push(h, t)
		} else if after(h.ids[0], t) {
			h.ids[0] = t
			heap.Fix(h, 0)
		}
	}
	slices.Sort(h.ids)
	return h.ids
}

// idHeap keeps term ids, the one ranking last by after at the root.
type idHeap struct {
	ids   []int
	after func(a, b int) bool
}

func (h *idHeap) Len() int           { return len(h.ids) }
func (h *idHeap) Less(i, j int) bool { return h.after(h.ids[i], h.ids[j]) }
func (h *idHeap) Swap(i, j int)      { h.ids[i], h.ids[j] = h.ids[j], h.ids[i] }
func (h *idHeap) Push(x any)         { h.ids = append(h.ids, x.(int)) }
func (h *idHeap) Pop() any {
	x := h.ids[len(h.ids)-1]
	h.ids = h.ids[:len(h.ids)-1]
	return x
}

// prefixWords are the words of prefix p: its at most MaxExpansions most
// frequent live terms (ties by term), in term order.
func (m *Multi) prefixWords(p string) []*mword {
	if p == "" || isPairTerm(p) {
		return nil
	}
	var all []*mword
	m.words(p, func(w *mword) bool { all = append(all, w); return true })
	return m.mostLive(all, query.MaxExpansions)
}

// mostLive returns what top does, counting the live documents of the
// words from the most documents down (hi) only until the next cannot
// beat the limit-th most live word found.
func (m *Multi) mostLive(ws []*mword, limit int) []*mword {
	// The words from the most documents down, as a heap: a short prefix
	// has thousands, of which a few hundred are taken.
	byHi := &hiHeap{ws: ws}
	heap.Init(byHi)
	kept := wordHeap(make([]*mword, 0, min(limit, len(ws))))
	for byHi.Len() > 0 {
		w := heap.Pop(byHi).(*mword)
		if len(kept) == limit && w.hi < kept[0].live {
			break // nor can any word after it: its hi is at most w's
		}
		if m.exact(w) == 0 {
			continue
		}
		if len(kept) < limit {
			heap.Push(&kept, w)
		} else if lessLive(kept[0], w) {
			kept[0] = w
			heap.Fix(&kept, 0)
		}
	}
	slices.SortFunc(kept, func(a, b *mword) int { return bytes.Compare(a.term, b.term) })
	return kept
}

// lessLive reports whether a ranks after b among the words: fewer live
// documents, ties by the greater term.
func lessLive(a, b *mword) bool {
	return a.live < b.live || a.live == b.live && bytes.Compare(a.term, b.term) > 0
}

// hiHeap orders words by hi, the most first.
type hiHeap struct{ ws []*mword }

func (h *hiHeap) Len() int           { return len(h.ws) }
func (h *hiHeap) Less(i, j int) bool { return h.ws[i].hi > h.ws[j].hi }
func (h *hiHeap) Swap(i, j int)      { h.ws[i], h.ws[j] = h.ws[j], h.ws[i] }
func (h *hiHeap) Push(x any)         { h.ws = append(h.ws, x.(*mword)) }
func (h *hiHeap) Pop() any {
	x := h.ws[len(h.ws)-1]
	h.ws = h.ws[:len(h.ws)-1]
	return x
}

// wordHeap keeps the words ranking first, the one ranking last at the
// root.
type wordHeap []*mword

func (h wordHeap) Len() int           { return len(h) }
func (h wordHeap) Less(i, j int) bool { return lessLive(h[i], h[j]) }
func (h wordHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *wordHeap) Push(x any)        { *h = append(*h, x.(*mword)) }
func (h *wordHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
