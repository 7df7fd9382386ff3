package search

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"hash/fnv"
	"math/bits"
	"slices"
	"sync"

	"github.com/openshelf/openshelf/index/tokenize"

	"github.com/openshelf/openshelf/index/search/query"
)

// segment is how a search over segments (multi.go) runs on one of them.
type segment struct {
	st  *stats
	del []uint64 // the deleted documents' bits; nil if none
	// deletedIn counts the deleted documents of term id's list with a
	// field of mask.
	deletedIn func(id int, mask uint8) int64
	citedBy   func(d int32) int32
	// floor, when not nil, is a match (doc floorDoc) that other
	// segments' matches already rank ahead of the page: the top k
	// starts full of it, so that only better matches are scored.
	floor *ranked
}

// floorDoc is the doc of a floor, after every document.
const floorDoc = noMore - 1

// deletedIn counts the documents of set, a bitset of documents base on
// (bit i is document base+i), that del has.
func deletedIn(set, del []uint64, base int32) int64 {
	if del == nil {
		return 0
	}
	var n int64
	sh := uint(base & 63)
	for i, x := range set {
		if x == 0 {
			continue
		}
		w := int(base>>6) + i
		if w >= len(del) {
			break
		}
		y := del[w] >> sh
		if sh != 0 && w+1 < len(del) {
			y |= del[w+1] << (64 - sh)
		}
		n += int64(bits.OnesCount64(x & y))
	}
	return n
}

// allFields is the mask of every field.
const allFields = 1<<NumFields - 1

// liveDF is the number of live documents of term id's list.
func (g *mseg) liveDF(id int) int64 {
	return int64(g.Index.terms[id].DF) - g.deletedIn(id, allFields)
}

// deletedIn is the number of deleted documents of term id's list with a
// field of mask, kept once counted.
func (g *mseg) deletedIn(id int, mask uint8) int64 {
	if g.del == nil {
		return 0
	}
	key := int64(id)<<8 | int64(mask)
	g.mu.Lock()
	n, ok := g.delDF[key]
	g.mu.Unlock()
	if ok {
		return n
	}
	n = g.countDeleted(id, mask)
	g.mu.Lock()
	if len(g.delDF) >= delDFMax {
		clear(g.delDF)
	}
	g.delDF[key] = n
	g.mu.Unlock()
	return n
}

// countDeleted counts the deleted documents of term id's list with a
// field of mask: by advancing the list to each (few deleted documents),
// or by walking it.
func (g *mseg) countDeleted(id int, mask uint8) int64 {
	p := g.Index.open(id, mask)
	var n int64
	if len(g.Deleted)*8 < p.df {
		for _, d := range g.Deleted {
			x := p.advance(d)
			if x == noMore {
				break
			}
			if x == d {
				n++
			}
		}
		return n
	}
	for d := p.nextDoc(); d != noMore; d = p.nextDoc() {
		if g.deleted(d) {
			n++
		}
	}
	return n
}

// multiCache keeps the document frequencies and expansions computed
// over the segments; emptied when it holds dfsMax terms or expsMax
// expansions (each up to MaxExpansions ids a segment).
type multiCache struct {
	mu   sync.Mutex
	dfs  map[string]int64
	exps map[string][][]int // kind and word -> each segment's term ids
}

// The bounds of a multiCache.
const (
	dfsMax  = 1 << 18
	expsMax = 1 << 12
)

func (c *multiCache) df(term string) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.dfs[term]
	return n, ok
}

// put keeps the frequencies dfs and, unless key is "", the expansion
// ids of key.
func (c *multiCache) put(dfs map[string]int64, key string, ids [][]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dfs == nil || len(c.dfs) >= dfsMax || len(c.exps) >= expsMax {
		c.dfs, c.exps = map[string]int64{}, map[string][][]int{}
	}
	for t, n := range dfs {
		c.dfs[t] = n
	}
	if key != "" {
		c.exps[key] = ids
	}
}

func (c *multiCache) expansion(key string) ([][]int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids, ok := c.exps[key]
	return ids, ok
}

// df is the number of live documents with term, over all segments.
func (m *Multi) df(term []byte) int64 {
	if n, ok := m.cache.df(string(term)); ok {
		return n
	}
	var n int64
	for _, g := range m.segs {
		if id := g.Index.lookup(string(term)); id >= 0 {
			n += g.liveDF(id)
		}
	}
	m.cache.put(map[string]int64{string(term): n}, "", nil)
	return n
}

// expansion returns segment seg's term ids of the words of a prefix
// (kind 'p') or a stemmed word ('s'): those one index of the live
// documents would choose (Index.expandPrefix, Index.expandStem).
func (m *Multi) expansion(seg int, kind byte, word string) []int {
	key := string(kind) + word
	ids, ok := m.cache.expansion(key)
	if !ok {
		var words []*mword
		if kind == 'p' {
			words = m.prefixWords(word)
		} else {
			words = m.stemWords(word)
		}
		ids = make([][]int, len(m.segs))
		dfs := make(map[string]int64, len(words))
		for _, w := range words {
			dfs[string(w.term)] = w.live
			for _, p := range w.parts {
				ids[p.seg] = append(ids[p.seg], p.id)
			}
		}
		m.cache.put(dfs, key, ids)
	}
	return ids[seg]
}

// mword is a term of the segments' dictionaries, with the segments that
// have it and bounds of its live documents: hi counts the deleted ones
// too, lo counts every deleted document of a segment as if the term's.
type mword struct {
	term   []byte
	parts  []mpart
	hi, lo int64
	live   int64 // exact once known; -1 before
}

type mpart struct{ seg, id int }

// exact returns the term's live documents.
func (m *Multi) exact(w *mword) int64 {
	if w.live < 0 {
		if w.hi == w.lo {
			w.live = w.hi
		} else {
			w.live = 0
			for _, p := range w.parts {
				w.live += m.segs[p.seg].liveDF(p.id)
			}
		}
	}
	return w.live
}

// words walks the terms starting with p over all segments in byte order,
// each once, until visit returns false.
func (m *Multi) words(p string, visit func(*mword) bool) {
	type cur struct{ at, hi int }
	cs := make([]cur, len(m.segs))
	for s, g := range m.segs {
		cs[s].at, cs[s].hi = g.Index.prefixRange(p)
	}
	for {
		var min []byte
		for s, c := range cs {
			if c.at < c.hi {
				if t := m.segs[s].Index.term(c.at); min == nil || bytes.Compare(t, min) < 0 {
					min = t
				}
			}
		}
		if min == nil {
			return
		}
		w := &mword{term: min, live: -1}
		for s := range cs {
			c := &cs[s]
			g := m.segs[s]
			if c.at < c.hi && bytes.Equal(g.Index.term(c.at), min) {
				df := int64(g.Index.terms[c.at].DF)
				w.parts = append(w.parts, mpart{s, c.at})
				w.hi += df
				w.lo += max(0, df-int64(len(g.Deleted)))
				c.at++
			}
		}
		if !visit(w) {
			return
		}
	}
}

// prefixWords are the words of prefix p: its at most MaxExpansions most
// frequent live terms (ties by term), in term order. A term is kept
// exactly when fewer than MaxExpansions terms surely have more live
// documents; only such terms with deleted documents count them.
func (m *Multi) prefixWords(p string) []*mword {
	if p == "" || isPairTerm(p) {
		return nil
	}
	var all []*mword
	m.words(p, func(w *mword) bool { all = append(all, w); return true })
	if len(all) > query.MaxExpansions {
		los := make([]int64, len(all))
		for i, w := range all {
			los[i] = w.lo
		}
		slices.Sort(los)
		tau := los[len(los)-query.MaxExpansions]
		all = slices.DeleteFunc(all, func(w *mword) bool { return w.hi < tau })
	}
	return m.top(all, query.MaxExpansions)
}

// top drops the dead terms of ws and keeps the limit with the most live
// documents (ties by term), in term order.
func (m *Multi) top(ws []*mword, limit int) []*mword {
	ws = slices.DeleteFunc(ws, func(w *mword) bool { return m.exact(w) == 0 })
	if len(ws) > limit {
		slices.SortFunc(ws, func(a, b *mword) int { return cmp.Or(cmp.Compare(b.live, a.live), bytes.Compare(a.term, b.term)) })
		ws = ws[:limit]
		slices.SortFunc(ws, func(a, b *mword) int { return bytes.Compare(a.term, b.term) })
	}
	return ws
}

// stemWords are the words of w's stem, as Index.expandStem chooses them
// from the live terms.
func (m *Multi) stemWords(w string) []*mword {
	s := tokenize.Stem(w)
	p := s
	if len(p) > 2 {
		p = p[:len(p)-1]
	}
	var ws []*mword
	seen, self := 0, false
	m.words(p, func(t *mword) bool {
		if t.lo == 0 && m.exact(t) == 0 {
			return true // in no live document: not a term of the merged index
		}
		if seen++; seen > stemScan {
			return false
		}
		if term := string(t.term); term == w || tokenize.Stem(term) == s {
			ws = append(ws, t)
			self = self || term == w
		}
		return true
	})
	if !self {
		if t := m.lookup(w); t != nil && m.exact(t) > 0 {
			ws = append(ws, t)
			slices.SortFunc(ws, func(a, b *mword) int { return bytes.Compare(a.term, b.term) })
		}
	}
	return m.top(ws, query.MaxExpansions)
}

// lookup returns term over the segments, nil if none has it.
func (m *Multi) lookup(term string) *mword {
	w := &mword{term: []byte(term), live: -1}
	for s, g := range m.segs {
		if id := g.Index.lookup(term); id >= 0 {
			df := int64(g.Index.terms[id].DF)
			w.parts = append(w.parts, mpart{s, id})
			w.hi += df
			w.lo += max(0, df-int64(len(g.Deleted)))
		}
	}
	if w.parts == nil {
		return nil
	}
	return w
}

// idsKey names a set of term ids in a kept set's key.
func idsKey(ids []int) string {
	h := fnv.New64a()
	var b [8]byte
	for _, id := range ids {
		binary.LittleEndian.PutUint64(b[:], uint64(id))
		h.Write(b[:])
	}
	return "#" + string(binary.LittleEndian.AppendUint64(nil, h.Sum64()))
}
