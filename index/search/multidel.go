package search

import (
	"bytes"
	"cmp"
	"container/heap"
	"encoding/binary"
	"math"
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
// tested against the deleted bits without an iterator call a document,
// from their gaps alone where every document counts (no masks, no
// frequencies read). A list of one block (most words of a prefix in a
// small segment) is counted from its short entry and its gaps, without
// opening it, each time (about what keeping its count would cost),
// unless the snapshot's FirstFile lists it: a look-up there is cheaper
// still, and a first prefix search counts hundreds (multifirst.go).
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
		if p.maskOr(b)&^mask == 0 {
			// Every document of the block is wanted: its gaps alone
			// count (a list of one block had them unpacked when opened).
			at, cnt, ok := p.unpackGaps(b)
			if !ok {
				break
			}
			for _, gap := range p.delta[:cnt] {
				at += int64(gap) + 1
				d := int32(at)
				n += int64(g.del[d>>6] >> (d & 63) & 1)
			}
			if at != int64(last) {
				break // damaged: Search reports it
			}
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

// countShort is countDeleted of a list of one block whose documents all
// have a field of mask or none has, read from its short entry
// (FORMAT.md) and its gaps alone, without opening it: most words of a
// prefix have such lists in a small segment. false if the list is of
// another kind, or does not read back, which countDeleted then opens.
func (g *mseg) countShort(rec termRec, mask uint8) (int64, bool) {
	var docs [blockDocs]uint32
	n, short, ok := g.Index.shortDocs(rec, mask, &docs)
	if !short || !ok {
		return 0, false
	}
	var c int64
	for _, d := range docs[:n] {
		c += int64(g.del[d>>6] >> (d & 63) & 1)
	}
	return c, true
}

// shortList reports whether countShort counts the list of rec in the
// fields of mask, as far as its short entry tells (not whether its
// blocks read back).
func (g *mseg) shortList(rec termRec, mask uint8) bool {
	ix := g.Index
	off, df := rec.SkipOff, int(rec.DF)
	if df < 1 || df > blockDocs || off < ix.postLo || off >= ix.postHi {
		return false
	}
	maskOr := ix.mm[off]
	return maskOr&mask == 0 || maskOr&^mask == 0
}

// delCounter is the list countDeleted opens, and its blocks.
type delCounter struct {
	p     postings
	docs  [blockDocs]int32
	delta [blockDocs]uint32
}

// words walks the terms starting with p over all segments in byte order,
// each once, until visit returns false. A short prefix has thousands of
// words: they are allocated in slabs, their bytes too, and each
// segment's dictionary is read by one cursor, in order, from its first
// term of p (one search of the dictionary) to its first term of another
// prefix. The cursors are compared by the first 8 bytes of their terms
// (termKey), their bytes only where those are equal.
func (m *Multi) words(p string, visit func(*mword) bool) {
	cs := make([]wordCursor, 0, len(m.segs))
	for s, g := range m.segs {
		// Not found, or a damaged dictionary, whose lists would not open
		// either: none of p.
		if c, ok := g.Index.seek(p); ok && hasPrefix(c.term, p) {
			cs = append(cs, wordCursor{seg: s, c: c, key: termKey(c.term)})
		}
	}
	var words []mword
	var parts []mpart
	var buf []byte
	for len(cs) > 0 {
		min := 0
		for i := 1; i < len(cs); i++ {
			if a, b := &cs[i], &cs[min]; a.key < b.key || a.key == b.key && bytes.Compare(a.c.term, b.c.term) < 0 {
				min = i
			}
		}
		if len(words) == cap(words) {
			words = make([]mword, 0, 256)
		}
		if cap(parts)-len(parts) < len(cs) {
			parts = make([]mpart, 0, 256*len(m.segs))
		}
		term := cs[min].c.term
		if cap(buf)-len(buf) < len(term) {
			buf = make([]byte, 0, max(4096, len(term)))
		}
		// A copy: the cursor that holds the term overwrites it when it
		// moves.
		at := len(buf)
		buf = append(buf, term...)
		words = append(words, mword{term: buf[at:len(buf):len(buf)], live: -1})
		w := &words[len(words)-1]
		start, key, ended := len(parts), cs[min].key, false
		// The cursors at w, in segment order from min (none before it
		// has w); a cursor past p's terms leaves.
		for i := min; i < len(cs); i++ {
			c := &cs[i]
			if c.key != key || string(c.c.term) != string(w.term) {
				continue
			}
			g := m.segs[c.seg]
			df := int64(c.c.rec.DF)
			parts = append(parts, mpart{c.seg, c.c.t, c.c.rec})
			w.hi += df
			w.lo += max(0, df-int64(len(g.Deleted)))
			if c.c.next() && hasPrefix(c.c.term, p) {
				c.key = termKey(c.c.term)
			} else {
				c.done, ended = true, true
			}
		}
		if ended {
			cs = slices.DeleteFunc(cs, func(c wordCursor) bool { return c.done })
		}
		w.parts = parts[start:len(parts):len(parts)]
		if !visit(w) {
			return
		}
	}
}

// hasPrefix reports whether term starts with p.
func hasPrefix(term []byte, p string) bool {
	return len(term) >= len(p) && string(term[:len(p)]) == p
}

// wordCursor reads a segment's terms of a prefix.
type wordCursor struct {
	seg  int
	c    termCursor
	key  uint64 // termKey of the term
	done bool   // past the prefix's terms
}

// termKey is the first 8 bytes of t, big-endian, zero-padded: keys
// that differ order their terms, and equal keys leave it to the bytes.
func termKey(t []byte) uint64 {
	var b [8]byte
	copy(b[:], t)
	return binary.BigEndian.Uint64(b[:])
}

// prefixTermHolds reports whether the segment's prefix term of a prefix
// holds the live documents of the words ids (the archive's choice,
// increasing): the term has the documents of the segment's own choice
// of words (Index.expandPrefix), own in term order, which must have all
// of ids, and any other word of its choice no live document in the
// segment, so that the two differ only by deleted documents, which every
// count subtracts and no page ranks. A segment without the prefix term
// is not asked; a word with more documents than the segment deletes is
// live uncounted.
func (g *mseg) prefixTermHolds(ids []int, own []mpart) bool {
	var others []mpart
	i := 0
	for _, w := range own {
		if i < len(ids) && ids[i] == w.id {
			i++
			continue
		}
		if int(w.rec.DF) > len(g.Deleted) {
			return false
		}
		others = append(others, w)
	}
	if i != len(ids) {
		return false
	}
	for _, w := range others {
		if g.liveDFRec(w.id, w.rec) > 0 {
			return false
		}
	}
	return true
}

// ownWords chooses, for each segment that asks, its
// Index.expandPrefix(p, limit) from the terms of prefix p as the walk
// over the segments finds them, in term order (add): its words with the
// most documents (ties by id). Each is chosen by a heap of limit words
// rather than a sort of all.
type ownWords struct {
	asks  []bool
	limit int
	heaps []ownHeap
}

func newOwnWords(asks []bool, limit int) *ownWords {
	return &ownWords{asks: asks, limit: limit, heaps: make([]ownHeap, len(asks))}
}

// add offers the next term's parts.
func (o *ownWords) add(w *mword) {
	for _, p := range w.parts {
		h := &o.heaps[p.seg]
		switch {
		case !o.asks[p.seg]:
		case len(*h) < o.limit:
			if *h = append(*h, p); len(*h) == o.limit {
				h.init()
			}
		case p.rec.DF > (*h)[0].rec.DF:
			// A later word (a greater id) enters only with more
			// documents than the one ranking last.
			(*h)[0] = p
			h.down(0)
		}
	}
}

// of returns segment s's choice, in term order.
func (o *ownWords) of(s int) []mpart {
	h := o.heaps[s]
	slices.SortFunc(h, func(a, b mpart) int { return a.id - b.id })
	return h
}

// ownHeap is a min-heap of a segment's words, the one ranking last (the
// fewest documents, ties by the greater id) at the root.
type ownHeap []mpart

func (h ownHeap) after(i, j int) bool {
	return h[i].rec.DF < h[j].rec.DF || h[i].rec.DF == h[j].rec.DF && h[i].id > h[j].id
}

func (h ownHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h ownHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		j := l
		if r := l + 1; r < len(h) && h.after(r, l) {
			j = r
		}
		if !h.after(j, i) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// prefixWords are the words of prefix p: its at most MaxExpansions most
// frequent live terms (ties by term), in term order. own, if not nil,
// is offered every term of p on the way.
func (m *Multi) prefixWords(p string, own *ownWords) []*mword {
	if p == "" || isPairTerm(p) {
		return nil
	}
	var all []*mword
	m.words(p, func(w *mword) bool {
		all = append(all, w)
		if own != nil {
			own.add(w)
		}
		return true
	})
	return m.mostLive(all, query.MaxExpansions)
}

// mostLive returns what top does, counting the live documents of only
// the words that may be among the limit most live: by selections
// (mostLiveOf), or where those do not answer by a heap (mostLiveByHeap).
func (m *Multi) mostLive(ws []*mword, limit int) []*mword {
	if kept, ok := m.mostLiveOf(ws, limit); ok {
		return kept
	}
	return m.mostLiveByHeap(ws, limit)
}

// mostLiveOf is mostLive by selections rather than a heap of all the
// words (a short prefix has thousands): the limit words of the most
// documents, deleted ones included, are counted, the limit-th most live
// of them is a floor that at least limit words reach, and the words of
// at least as many documents are counted and sorted. false if fewer than
// limit of the first are live.
func (m *Multi) mostLiveOf(ws []*mword, limit int) ([]*mword, bool) {
	if len(ws) <= limit {
		return nil, false
	}
	his := make([]uint32, len(ws))
	for i, w := range ws {
		his[i] = uint32(min(w.hi, math.MaxUint32))
	}
	most := int64(kthLargest(his, limit))
	lives := his[:0]
	for _, w := range ws {
		if w.hi >= most && m.exact(w) > 0 {
			lives = append(lives, uint32(w.live))
		}
	}
	if len(lives) < limit {
		return nil, false
	}
	// No word of fewer documents than floor is among the most live.
	floor := int64(kthLargest(lives, limit))
	var kept []*mword
	for _, w := range ws {
		if w.hi >= floor && m.exact(w) > 0 {
			kept = append(kept, w)
		}
	}
	slices.SortFunc(kept, func(a, b *mword) int { return cmp.Or(cmp.Compare(b.live, a.live), bytes.Compare(a.term, b.term)) })
	kept = kept[:limit]
	slices.SortFunc(kept, func(a, b *mword) int { return bytes.Compare(a.term, b.term) })
	return kept, true
}

// mostLiveByHeap is mostLive by a heap of the words from the most
// documents down (hi), counted only until the next cannot beat the
// limit-th most live word found.
func (m *Multi) mostLiveByHeap(ws []*mword, limit int) []*mword {
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
