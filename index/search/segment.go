package search

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"hash/fnv"
	"math/bits"
	"slices"
	"sync"

	"github.com/openshelf/openshelf/index/tokenize"

	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/ingest"
)

// segment is how a search over segments (multi.go) runs on one of them.
type segment struct {
	st  *stats
	del []uint64 // the deleted documents' bits; nil if none
	// deletedIn counts the deleted documents of term id's list with a
	// field of mask.
	deletedIn func(id int, mask uint8) int64
	// cited gives the cited-by counts of the segment's documents, nil
	// unless the search sorts by them (mseg.citedCounts).
	cited func() []int32
	// g is the segment, which keeps what is the same for every search.
	g *mseg
	// fc, when not nil, is the counter the segment counts the facets
	// into, cleared (multifacets.go).
	fc *facetCounter
	// freqs are the Multi's decoded frequencies that searches reuse
	// (freqPool).
	freqs *sync.Pool
	// unions are the Multi's union iterators that searches reuse
	// (multipool.go).
	unions *sync.Pool
	// slabs are the Multi's lists of expansions that searches reuse
	// (multipool.go).
	slabs *sync.Pool
	// floor, when not nil, is a match (doc floorDoc) that other
	// segments' matches already rank ahead of the page: the top k
	// starts full of it, so that only better matches are scored.
	floor *ranked
}

// A segment's search decodes the frequencies of the blocks it scores
// into a few KiB (freqs) for each list it scores, and the ten segments of
// a search would make ten times the garbage of one index: they reuse
// those of the searches before, from a pool of the Multi. A list takes
// one if the pool has one, and its search puts back those of its lists
// once done (nothing reads them after).

// takeFreqs gives p the frequencies of a finished search, if any.
func (sg *segment) takeFreqs(p *postings) {
	if f, ok := sg.freqs.Get().(*freqs); ok {
		p.freqs = f
	}
}

// putFreqs puts back the frequencies of the search's lists.
func (sg *segment) putFreqs(ps []*postings) {
	for _, p := range ps {
		if p.freqs != nil {
			sg.freqs.Put(p.freqs)
			p.freqs = nil
		}
	}
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

// liveDFRec is the number of live documents of term id's list (record
// rec).
func (g *mseg) liveDFRec(id int, rec termRec) int64 {
	return int64(rec.DF) - g.deletedInRec(id, rec, allFields)
}

// deletedIn is the number of deleted documents of term id's list with a
// field of mask, kept once counted (but for a short list, countShort).
func (g *mseg) deletedIn(id int, mask uint8) int64 {
	if g.del == nil {
		return 0
	}
	return g.deletedInRec(id, g.Index.rec(id), mask)
}

// deletedInRec is deletedIn with the term's record read.
func (g *mseg) deletedInRec(id int, rec termRec, mask uint8) int64 {
	if g.del == nil {
		return 0
	}
	if n, ok := g.firstWordDeleted(id, mask); ok {
		return n
	}
	if n, ok := g.countShort(rec, mask); ok {
		return n // about as cheap as a look-up: not kept
	}
	if n, ok := g.firstDeleted(id, mask); ok {
		return n
	}
	key := int64(id)<<8 | int64(mask)
	g.mu.Lock()
	n, ok := g.delDF[key]
	g.mu.Unlock()
	if ok {
		return n
	}
	n = g.countDeleted(id, rec, mask)
	g.mu.Lock()
	if len(g.delDF) >= delDFMax {
		clear(g.delDF)
	}
	g.delDF[key] = n
	g.mu.Unlock()
	return n
}

// listTotal returns the live documents of term id's list with a field
// of mask, if a scan of the list kept them (keepListTotal).
func (g *mseg) listTotal(id int, mask uint8) (int64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.live[int64(id)<<8|int64(mask)]
	return n, ok
}

// keepListTotal keeps n, the live documents of term id's list with a
// field of mask; emptied when it holds delDFMax terms.
func (g *mseg) keepListTotal(id int, mask uint8, n int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.live == nil || len(g.live) >= delDFMax {
		g.live = map[int64]int64{}
	}
	g.live[int64(id)<<8|int64(mask)] = n
}

// multiCache keeps the terms looked up over the segments (each
// segment's term id and the live documents over all), the expansions,
// and what each segment's plain scans of an expansion found (segExp);
// emptied when it holds termsMax terms, expsMax expansions (each up to
// MaxExpansions ids a segment) or segExpsMax segments' expansions. A
// search looks its words up once for all segments.
type multiCache struct {
	mu      sync.Mutex
	terms   map[string]*mterm
	exps    map[string]*mexp // kind and word -> the expansion over the segments
	segExps map[segExpKey]*segExp
	// floors are the floors requests ended with (multifloor.go).
	floors map[string]ranked
}

// mterm is a term over the segments: its id in each (-1 where absent)
// and record there, and its live documents over all (-1: not counted
// yet; termIDs).
type mterm struct {
	ids  []int32
	recs []termRec
	df   int64
}

// mexp is an expansion over the segments: each segment's term ids of
// its words and their records there, their live documents over all
// segments, and for a prefix whether the segment's prefix term holds
// their documents (mseg.prefixTermHolds), or else how its bitset
// differs from theirs (fixes, from the snapshot's FirstFile; nil where
// not known).
type mexp struct {
	ids   [][]int
	recs  [][]termRec
	dfs   [][]int64
	bits  []bool
	fixes []*bitsFix
	// lazy, when not nil, has recs[s] read on the first ask (recsAt).
	lazy []sync.Once
}

// recsAt returns the records of the expansion's words in segment s.
func (m *Multi) recsAt(x *mexp, s int) []termRec {
	if x.lazy != nil {
		x.lazy[s].Do(func() {
			recs, ok := m.segs[s].Index.recsOf(x.ids[s])
			if !ok {
				// A damaged dictionary: lists of no record, which do not
				// open, so that Search reports it.
				recs = make([]termRec, len(x.ids[s]))
			}
			x.recs[s] = recs
		})
	}
	return x.recs[s]
}

// The bounds of a multiCache.
const (
	termsMax   = 1 << 18
	expsMax    = 1 << 12
	segExpsMax = 1 << 14
)

func (c *multiCache) term(t []byte) *mterm {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.terms[string(t)]
}

func (c *multiCache) putTerm(t string, x *mterm) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terms == nil || len(c.terms) >= termsMax {
		c.terms = map[string]*mterm{}
	}
	c.terms[t] = x
}

func (c *multiCache) putExpansion(key string, x *mexp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exps == nil || len(c.exps) >= expsMax {
		c.exps = map[string]*mexp{}
	}
	c.exps[key] = x
}

func (c *multiCache) expansion(key string) (*mexp, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	x, ok := c.exps[key]
	return x, ok
}

// term returns term over the segments, looked up once, its live
// documents counted once.
func (m *Multi) term(term []byte) *mterm {
	if t := m.cache.term(term); t != nil && t.df >= 0 {
		return t
	} else if t != nil {
		// Looked up by termIDs: its documents are counted now.
		c := &mterm{ids: t.ids, recs: t.recs}
		for s, id := range t.ids {
			if id >= 0 {
				c.df += m.segs[s].liveDFRec(int(id), t.recs[s])
			}
		}
		m.cache.putTerm(string(term), c)
		return c
	}
	t := &mterm{ids: make([]int32, len(m.segs)), recs: make([]termRec, len(m.segs))}
	for s, g := range m.segs {
		id, rec := g.Index.lookupRec(string(term))
		t.ids[s], t.recs[s] = int32(id), rec
		if id >= 0 {
			t.df += g.liveDFRec(id, rec)
		}
	}
	m.cache.putTerm(string(term), t)
	return t
}

// termIDs returns term over the segments, looked up once, its live
// documents left uncounted (df -1) unless a search counted them: a
// phrase's pair term needs only its ids (the phrase's words score it),
// and counting a list's live documents in a segment with deletions walks
// the list.
func (m *Multi) termIDs(term []byte) *mterm {
	if t := m.cache.term(term); t != nil {
		return t
	}
	t := &mterm{ids: make([]int32, len(m.segs)), recs: make([]termRec, len(m.segs)), df: -1}
	for s, g := range m.segs {
		id, rec := g.Index.lookupRec(string(term))
		t.ids[s], t.recs[s] = int32(id), rec
	}
	m.cache.putTerm(string(term), t)
	return t
}

// df is the number of live documents with term, over all segments.
func (m *Multi) df(term []byte) int64 { return m.term(term).df }

// lookup returns the number of term in the index, or -1: in a segment,
// looked up once for all segments.
func (e *evaluator) lookup(term string) int {
	if e.st.m == nil {
		return e.ix.lookup(term)
	}
	return e.known(e.st.m.term([]byte(term)))
}

// known returns t's id in the segment searched, -1 if it has none, and
// notes its record and live documents for the lists the search opens
// (termIter), which would otherwise read its record again, and rebuild
// the term from its id to look up its live documents: a first search
// over ten segments did both for each of its terms in each segment.
func (e *evaluator) known(t *mterm) int {
	id := int(t.ids[e.st.seg])
	if id >= 0 {
		e.terms = append(e.terms, knownTerm{id: id, rec: t.recs[e.st.seg], df: t.df})
	}
	return id
}

// knownTerm is a term the search looked up in its segment: its id and
// record there and its live documents over all (-1 if not counted).
type knownTerm struct {
	id  int
	rec termRec
	df  int64
}

// knownRec returns the record of term id as the search looked it up,
// and its live documents over all (-1 if not counted); false if it did
// not.
func (e *evaluator) knownRec(id int) (termRec, int64, bool) {
	for _, k := range e.terms {
		if k.id == id {
			return k.rec, k.df, true
		}
	}
	return termRec{}, 0, false
}

// expansion returns segment seg's term ids of the words of a prefix
// (kind 'p') or a stemmed word ('s'), those one index of the live
// documents would choose (Index.expandPrefix, Index.expandStem), and
// their records in the segment, each one's live documents over all
// segments, and for a prefix whether the segment's prefix term, if it
// has one, holds their live documents.
func (m *Multi) expansion(seg int, kind byte, word string) ([]int, []termRec, []int64, bool) {
	key := string(kind) + word
	x, ok := m.cache.expansion(key)
	if !ok && kind == 'p' {
		if x, ok = m.firstExpansion(word); ok {
			m.cache.putExpansion(key, x)
		}
	}
	if !ok {
		var words []*mword
		var own *ownWords
		if kind == 'p' {
			// A segment's prefix term, where it has one, may hold the
			// documents of its words: its own choice of them is needed.
			asks, ask := make([]bool, len(m.segs)), false
			for s, g := range m.segs {
				asks[s] = g.Index.lookup(PrefixTerm(word)) >= 0
				ask = ask || asks[s]
			}
			if ask {
				own = newOwnWords(asks, query.MaxExpansions)
			}
			words = m.prefixWords(word, own)
		} else {
			words = m.stemWords(word)
		}
		x = &mexp{ids: make([][]int, len(m.segs)), recs: make([][]termRec, len(m.segs)), dfs: make([][]int64, len(m.segs))}
		size := make([]int, len(m.segs))
		for _, w := range words {
			for _, p := range w.parts {
				size[p.seg]++
			}
		}
		for s, k := range size {
			x.ids[s], x.recs[s], x.dfs[s] = make([]int, 0, k), make([]termRec, 0, k), make([]int64, 0, k)
		}
		for _, w := range words {
			for _, p := range w.parts {
				x.ids[p.seg] = append(x.ids[p.seg], p.id)
				x.recs[p.seg] = append(x.recs[p.seg], p.rec)
				x.dfs[p.seg] = append(x.dfs[p.seg], w.live)
			}
		}
		x.bits = make([]bool, len(m.segs))
		if own != nil {
			for s, g := range m.segs {
				x.bits[s] = own.asks[s] && len(x.ids[s]) >= 2 && g.prefixTermHolds(x.ids[s], own.of(s))
			}
		}
		m.cache.putExpansion(key, x)
	}
	return x.ids[seg], m.recsAt(x, seg), x.dfs[seg], x.bits[seg]
}

// A prefix or a stemmed word alone in a plain scan (expand.go) is
// counted from the expansion's bitset and ranked from the lists of the
// highest bounds, most of its hundreds of lists never unpacked; but each
// of the segments would open every list, read every skip table for its
// bound and count the bitset again, on every search. A segment instead
// keeps, from its first such scan of the expansion, the count of its
// live documents and each list's bound, which are the same for every
// search of its snapshot; a later search opens only the lists whose
// bound can enter the page, none where the floor of the larger
// segments searched before prunes them all.

// segExpKey names an expansion searched in a field mask in a segment.
type segExpKey struct {
	seg  int
	kind byte
	mask uint8
	word string
}

// segExp is a segment's expansion as its plain scans found it: its
// lists (term, fields and IDF over the archive), their bounds, their
// order from the highest bound, and the live documents it matches.
type segExp struct {
	ids   []int
	masks []uint8 // nil: every list in the default fields (anyFields)
	idfs  []float64
	// dfs, when idfs is nil, are the lists' live documents over all
	// segments, of which a list opened takes its IDF: a first search
	// opens few of the hundreds a segment's expansion has.
	dfs   []int64
	tops  []float64
	order []int
	total int64
	// partial reports that order holds the first lists only: the others
	// are opened if the highest of their bounds, restTop, can enter the
	// page. The snapshot's FirstFile keeps the bounds of the first lists
	// only (multifirst.go).
	partial bool
	restTop float64
}

// list returns the field mask and the IDF of list i.
func (x *segExp) list(i int, st *stats) (uint8, float64) {
	mask := uint8(anyFields)
	if x.masks != nil {
		mask = x.masks[i]
	}
	if x.idfs != nil {
		return mask, x.idfs[i]
	}
	return mask, st.idf(float64(x.dfs[i]))
}

// rest returns the lists that a partial order leaves out, in list order.
func (x *segExp) rest() []int {
	var rest []int
	for i := range x.ids {
		if !slices.Contains(x.order, i) {
			rest = append(rest, i)
		}
	}
	return rest
}

func (c *multiCache) segExp(k segExpKey) *segExp {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.segExps[k]
}

func (c *multiCache) putSegExp(k segExpKey, x *segExp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.segExps == nil || len(c.segExps) >= segExpsMax {
		c.segExps = map[segExpKey]*segExp{}
	}
	c.segExps[k] = x
}

// keepExpansion returns what keeps the segment's expansion named k
// from a plain scan of it (scan.expansion): its lists ts, their bounds
// tops and order (byTopBound), and its count.
func (e *evaluator) keepExpansion(k segExpKey) func(total int64, ts []*termIter, tops []float64, order []int) {
	return func(total int64, ts []*termIter, tops []float64, order []int) {
		x := &segExp{total: total, ids: make([]int, len(ts)), masks: make([]uint8, len(ts)), idfs: make([]float64, len(ts))}
		for i, t := range ts {
			if t.p.bad {
				return // Search reports the damage
			}
			x.ids[i], x.masks[i], x.idfs[i] = t.p.term, t.p.mask, t.idf
		}
		x.tops, x.order = tops, order
		e.st.m.cache.putSegExp(k, x)
	}
}

// segExpKey returns the key of the segment's expansion that query q is,
// when it is a prefix or a stemmed word alone; false if not.
func (e *evaluator) segExpKey(q query.Node) (segExpKey, bool) {
	t, ok := q.(*query.Term)
	if !ok || e.st.m == nil {
		return segExpKey{}, false
	}
	word := t.Word
	if t.Field == query.DOI {
		if n := ingest.NormaliseDOI(word); n != "" {
			word = n
		}
	}
	k := segExpKey{seg: e.st.seg, mask: e.maskOf(t.Field), word: word}
	switch {
	case t.Prefix:
		k.kind = 'p'
	case e.stem && t.Field != query.DOI && t.Field != query.Author:
		k.kind = 's'
	default:
		return segExpKey{}, false
	}
	return k, true
}

// keptExpansion returns the segment's kept expansion that query q is,
// nil if q is none or its first plain scan is still to come.
func (sg *segment) keptExpansion(e *evaluator, q query.Node) *segExp {
	k, ok := e.segExpKey(q)
	if !ok {
		return nil
	}
	x := e.st.m.cache.segExp(k)
	if x == nil && k.kind == 'p' && e.st.m.firstExps != nil {
		// The expansion from the FirstFile keeps the segments' scans.
		e.st.m.expansion(k.seg, k.kind, k.word)
		x = e.st.m.cache.segExp(k)
	}
	return x
}

// keptExpansion answers a plain scan of the segment's expansion x: its
// count, and its page from the lists whose bound can enter it, opened
// now.
func (s *scan) keptExpansion(ctx context.Context, e *evaluator, x *segExp) error {
	s.total = x.total
	if s.top.k > 0 {
		open := func(i int) *termIter {
			mask, idf := x.list(i, e.st)
			return e.termIterIDF(x.ids[i], mask, idf)
		}
		offered := map[int32]bool{}
		pruned, err := s.bestListsOf(ctx, x.tops, x.order, open, offered)
		if err != nil {
			return err
		}
		if !pruned && x.partial && !s.prunable(x.restTop) {
			// The lists after those whose bounds are kept, in the same
			// order from the highest bound as all.
			rest := x.rest()
			ts := make([]*termIter, len(rest))
			for j, i := range rest {
				ts[j] = open(i)
			}
			tops, order := byTopBound(ts)
			if _, err := s.bestListsOf(ctx, tops, order, func(j int) *termIter { return ts[j] }, offered); err != nil {
				return err
			}
		}
	}
	s.beyond = s.total - int64(len(s.top.heap))
	return nil
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

// mpart is a term in one segment: its id and record there.
type mpart struct {
	seg, id int
	rec     termRec
}

// exact returns the term's live documents.
func (m *Multi) exact(w *mword) int64 {
	if w.live < 0 {
		if w.hi == w.lo {
			w.live = w.hi
		} else {
			w.live = 0
			for _, p := range w.parts {
				w.live += m.segs[p.seg].liveDFRec(p.id, p.rec)
			}
		}
	}
	return w.live
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
		if id, rec := g.Index.lookupRec(term); id >= 0 {
			df := int64(rec.DF)
			w.parts = append(w.parts, mpart{s, id, rec})
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
