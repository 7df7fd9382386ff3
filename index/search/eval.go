package search

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/openshelf/openshelf/index/tokenize"

	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/ingest"
)

// iterator walks the documents matching one node of a query in doc order.
type iterator interface {
	docID() int32 // -1 before the first nextDoc, noMore at the end
	nextDoc() int32
	advance(target int32) int32 // first doc >= target (stays if already there)
	score() float64             // BM25F score of the current doc
	// bound is an upper bound of score() on the current doc from the
	// skip tables' block bounds, without decoding frequencies.
	bound() float64
	cost() int64 // an upper bound of the matches, to order conjunctions
}

// The fields an unscoped term searches; full text only on request.
const (
	anyFields         = 1<<FieldTitle | 1<<FieldAbstract | 1<<FieldAuthor | 1<<FieldKeyword | 1<<FieldDOI
	anyFieldsFulltext = anyFields | 1<<FieldFulltext
)

// evaluator compiles a query for one request.
type evaluator struct {
	ix       *Index
	st       *stats   // what scores are computed against (stats.go)
	del      []uint64 // documents deleted by a later segment, not counted (multi.go); nil: none
	stem     bool
	anyMask  uint8
	scoring  bool
	postings []*postings // every opened list, to report corruption
	sg       *segment    // the segment searched (multi.go); nil: the index alone
	lists    []*listIter
	unions   []*unionIter // a segment's unions, reused once it is searched (multipool.go)
	slabs    []*slabBuf   // a segment's lists of expansions, likewise
	terms    []knownTerm  // a segment's terms looked up (segment.go)
	// pending, in a segment's plain scan, leaves the lists of a prefix's
	// words unopened until read (multilazy.go); pendings are those left.
	pending  bool
	pendings []*termIter
}

func (e *evaluator) maskOf(f query.Field) uint8 {
	if f == query.Any {
		return e.anyMask
	}
	return 1 << fieldOf(f)
}

// compile returns the iterator of a node; nil means no document matches.
func (e *evaluator) compile(n query.Node) (iterator, error) {
	switch n := n.(type) {
	case *query.Term:
		return e.term(n), nil
	case *query.Phrase:
		return e.phrase(n), nil
	case *query.Or:
		var its, scorers []iterator
		for _, c := range n.Children {
			if _, ok := c.(*query.Not); ok {
				return nil, fmt.Errorf("%w: NOT inside OR", ErrQuery)
			}
			it, err := e.compile(c)
			if err != nil {
				return nil, err
			}
			if it != nil {
				its = append(its, it)
				if len(n.Children) > 1 && e.scoring {
					sc, _ := e.compile(c) // compiled once already
					scorers = append(scorers, sc)
				}
			}
		}
		return e.union(its, scorers), nil
	case *query.And:
		var pos, neg []iterator
		for _, c := range n.Children {
			if not, ok := c.(*query.Not); ok {
				it, err := e.compile(not.Child)
				if err != nil {
					return nil, err
				}
				if it != nil {
					neg = append(neg, it)
				}
				continue
			}
			it, err := e.compile(c)
			if err != nil {
				return nil, err
			}
			if it == nil {
				return nil, nil // a required part matches nothing
			}
			pos = append(pos, it)
		}
		if len(pos) == 0 {
			return nil, fmt.Errorf("%w: a query needs a positive part", ErrQuery)
		}
		if len(pos) == 1 && len(neg) == 0 {
			return pos[0], nil
		}
		for _, it := range append(slices.Clip(pos), neg...) {
			e.setOf(it)
		}
		return newAnd(pos, neg), nil
	case *query.Not:
		return nil, fmt.Errorf("%w: a query needs a positive part", ErrQuery)
	case nil:
		return nil, fmt.Errorf("%w: empty query", ErrQuery)
	}
	return nil, fmt.Errorf("%w: unknown node %T", ErrQuery, n)
}

// ErrQuery reports a query tree the evaluator cannot run (the parser
// never makes one).
var ErrQuery = fmt.Errorf("search: invalid query")

// term compiles a word, a prefix or a stemmed word: one posting list or
// the union of several.
func (e *evaluator) term(t *query.Term) iterator {
	mask := e.maskOf(t.Field)
	word := t.Word
	if t.Field == query.DOI {
		if n := ingest.NormaliseDOI(word); n != "" {
			word = n
		}
	}
	var ids []int
	var recs []termRec // the words' records, when the expansion read them
	var dfs []int64    // over segments: the words' live documents
	bits := e.st.m == nil
	switch {
	case t.Prefix && e.st.m != nil:
		ids, recs, dfs, bits = e.st.m.expansion(e.st.seg, 'p', word)
	case t.Prefix:
		ids, recs = e.ix.expandPrefix(word, query.MaxExpansions)
	case e.stem && t.Field != query.DOI && t.Field != query.Author && e.st.m != nil:
		ids, recs, dfs, _ = e.st.m.expansion(e.st.seg, 's', word)
	case e.stem && t.Field != query.DOI && t.Field != query.Author:
		ids, recs = e.ix.expandStem(word, query.MaxExpansions)
	default:
		if id := e.lookup(word); id >= 0 {
			ids = []int{id}
		}
	}
	its := make([]iterator, 0, len(ids))
	exact := -1
	if !t.Prefix {
		exact = e.lookup(word)
	}
	var slab *listSlab
	if e.sg != nil {
		slab = e.sg.listSlab(e, recs) // reused (multipool.go)
	} else {
		slab = newListSlab(recs)
	}
	for i, id := range ids {
		m := mask
		if id != exact && !t.Prefix {
			m &^= 1<<FieldAuthor | 1<<FieldDOI // names and DOIs are never stemmed
		}
		if m == 0 {
			continue
		}
		switch {
		case dfs != nil && e.pending && t.Prefix && mask == anyFields:
			its = append(its, e.pendingSlab(slab, id, recs[i], m, e.st.idf(float64(dfs[i]))))
		case dfs != nil:
			its = append(its, e.termIterSlab(slab, id, recs[i], m, e.st.idf(float64(dfs[i]))))
		case recs != nil:
			its = append(its, e.termIterSlab(slab, id, recs[i], m, e.st.idf(e.st.df(e.ix, id, int(recs[i].DF)))))
		default:
			its = append(its, e.termIter(id, m))
		}
	}
	u := e.union(its, nil)
	if u, ok := u.(*unionIter); ok {
		// One word of the query: a document scores by its best word.
		u.best = true
		u.key = expansionKey(t, word, mask)
		if e.st.m != nil {
			// The words are chosen over all segments, and that choice
			// changes from snapshot to snapshot: the kept set is of these.
			u.key.words += idsKey(ids)
			if k, ok := e.segExpKey(t); ok {
				u.keep = e.keepExpansion(k)
			}
		}
		if t.Prefix && bits {
			// The index's prefix term, where it holds these words'
			// (live) documents.
			u.prefixBits = e.ix.prefixBits(word, ids, mask, true)
		} else if t.Prefix && mask == anyFields {
			// A segment's prefix term of other words, and how its bitset
			// differs from these words' documents (multifirst.go).
			if fix := e.st.m.prefixFix(e.st.seg, word); fix != nil {
				if u.prefixBits = e.ix.prefixBits(word, ids, mask, true); u.prefixBits != nil {
					u.prefixFix = fix
				}
			}
		}
		if e.scoring {
			// Its scorers are made on the first score: a plain scan
			// (expand.go) scores the lists themselves, and a prefix has
			// hundreds of them.
			u.copies = func() []iterator {
				cs := make([]iterator, len(its))
				for i, it := range its {
					t := it.(*termIter)
					cs[i] = e.termIterRec(t.p.term, t.p.rec(), t.p.mask, t.idf)
				}
				return cs
			}
		}
	}
	return u
}

// expansionKey names the expansion of a prefix or a stemmed word in a
// field mask, as sets.go keeps its documents.
func expansionKey(t *query.Term, word string, mask uint8) setKey {
	kind := "s"
	if t.Prefix {
		kind = "p"
	}
	return setKey{term: -1, mask: mask, words: kind + ":" + word}
}

// union returns the union of its, nil when there is none: a window union
// (scorers, the same iterators compiled again, score it).
func (e *evaluator) union(its, scorers []iterator) iterator {
	switch len(its) {
	case 0:
		return nil
	case 1:
		return its[0]
	}
	var u *unionIter
	if e.sg != nil {
		u = e.sg.union() // reused (multipool.go)
		*u = unionIter{its: its, cur: -1, end: -1, scoring: e.scoring}
		e.unions = append(e.unions, u)
	} else {
		u = &unionIter{its: its, cur: -1, end: -1, scoring: e.scoring}
	}
	if e.scoring {
		u.scorers = scorers
	}
	for _, it := range its {
		u.cst += it.cost()
	}
	return u
}

func (e *evaluator) termIter(id int, mask uint8) *termIter {
	if rec, df, ok := e.knownRec(id); ok && df >= 0 {
		return e.termIterRec(id, rec, mask, e.st.idf(float64(df))) // segment.go
	}
	return e.termIterOf(id, e.ix.rec(id), mask)
}

// termIterOf is termIter with the term's record read.
func (e *evaluator) termIterOf(id int, rec termRec, mask uint8) *termIter {
	return e.termIterRec(id, rec, mask, e.st.idf(e.st.df(e.ix, id, int(rec.DF))))
}

// termIterIDF is termIter with the term's IDF known.
func (e *evaluator) termIterIDF(id int, mask uint8, idf float64) *termIter {
	if rec, _, ok := e.knownRec(id); ok {
		return e.termIterRec(id, rec, mask, idf) // segment.go
	}
	return e.termIterRec(id, e.ix.rec(id), mask, idf)
}

// termIterRec is termIter with the term's record and IDF known.
func (e *evaluator) termIterRec(id int, rec termRec, mask uint8, idf float64) *termIter {
	return e.termIterOn(e.ix.openRec(id, rec, mask), new(termIter), idf)
}

// termIterOn makes t the iterator of list p, whose term's IDF is idf.
func (e *evaluator) termIterOn(p *postings, t *termIter, idf float64) *termIter {
	e.postings = append(e.postings, p)
	if e.sg != nil {
		e.sg.takeFreqs(p)
	}
	scale := e.st.scale(p.mask)
	*t = termIter{p: p, ix: e.ix, st: e.st, idf: idf, bBlk: -1, useAll: p.mask&^anyFields != 0,
		impScale: idf * (1 + 1e-9) * scale, bscale: scale}
	return t
}

// listSlab holds the lists of an expansion, allocated together: a prefix
// opens hundreds of lists, most of them short, and one allocation each
// cost more than opening them.
type listSlab struct {
	ps    []postings
	ts    []termIter
	docs  []int32
	delta []uint32
}

// newListSlab makes room for the lists of recs, nil if there is at most
// one.
func newListSlab(recs []termRec) *listSlab {
	if len(recs) < 2 {
		return nil
	}
	n := 0
	for _, r := range recs {
		n += blockLen(r)
	}
	return &listSlab{ps: make([]postings, len(recs)), ts: make([]termIter, len(recs)),
		docs: make([]int32, n), delta: make([]uint32, n)}
}

// termIterSlab is termIterRec, the list made in s if not nil (one of the
// records s was made for).
func (e *evaluator) termIterSlab(s *listSlab, id int, rec termRec, mask uint8, idf float64) *termIter {
	if s == nil || len(s.ps) == 0 {
		return e.termIterRec(id, rec, mask, idf)
	}
	n := blockLen(rec)
	p, t := &s.ps[0], &s.ts[0]
	e.ix.openInto(p, id, rec, mask, s.docs[:n:n], s.delta[:n:n])
	s.ps, s.ts, s.docs, s.delta = s.ps[1:], s.ts[1:], s.docs[n:], s.delta[n:]
	return e.termIterOn(p, t, idf)
}

// setOf gives a term of a conjunction its list's kept set (sets.go).
func (e *evaluator) setOf(it iterator) {
	if t, ok := it.(*termIter); ok {
		t.set = e.ix.sets.kept(t.p)
	}
}

// termIter scores one posting list by BM25F over its fields.
type termIter struct {
	p      *postings
	ix     *Index
	st     *stats
	idf    float64
	useAll bool // the mask has fields outside anyFields: bound by WAll
	// pending is set while the list is not opened: p holds its term,
	// record, fields and blocks' memory only (multilazy.go).
	pending bool
	bBlk    int // the block of b
	b       float64
	// impScale turns an impact times its block's unit (postings.impUnit)
	// into a score bound: idf with a margin for rounding, and bscale.
	impScale float64
	// bscale scales the bounds written for the stats searched (stats.scale).
	bscale float64
	// set is the list's kept set (sets.go), nil if none: a conjunction
	// reads in it whether the list has a document without advancing it.
	set []uint64
}

// lacks reports whether the term's kept set says it does not match d;
// false without a set.
func (t *termIter) lacks(d int32) bool {
	return t.set != nil && t.set[d>>6]&(1<<(d&63)) == 0
}

func (t *termIter) docID() int32          { return t.p.cur }
func (t *termIter) nextDoc() int32        { return t.p.nextDoc() }
func (t *termIter) advance(d int32) int32 { return t.p.advance(d) }
func (t *termIter) cost() int64           { return int64(t.p.df) }
func (t *termIter) score() float64 {
	return t.st.bm25f(t.ix, t.p, t.idf, t.p.fieldMasks()[t.p.i]&t.p.mask)
}

// bound is idf·W/(K1+W) for the block's W bound, with a margin for the
// rounding of the two computations.
func (t *termIter) bound() float64 {
	if !t.useAll {
		// The document's own impact: idf·q/impactMax of its block's
		// bound's saturated weight.
		return t.impScale * t.p.impUnit * float64(t.p.impact(t.p.i))
	}
	if t.bBlk != t.p.blk {
		t.b, t.bBlk = t.blockBound(t.p.blk), t.p.blk
	}
	return t.b
}

// blockBound is the bound of block b's documents, read in the skip table.
func (t *termIter) blockBound(b int) float64 {
	at := b*skipEntrySize + skipWAnyAt
	if t.useAll {
		at += 4
	}
	w := float64(math.Float32frombits(binary.LittleEndian.Uint32(t.p.skips[at:]))) * t.bscale
	return t.idf * w / (K1 + w) * (1 + 1e-9)
}
func (t *termIter) positions(dst []uint32, f int) []uint32 { return t.p.positions(dst, f) }
func (t *termIter) list() *postings                        { return t.p }

// bm25f is the score of the current document of p over the fields of
// mask: the field frequencies, each weighted and length-normalised, are
// summed before the saturation.
func (st *stats) bm25f(ix *Index, p *postings, idf float64, mask uint8) float64 {
	// The lengths are read before tf, which ends a damaged list.
	if n := ix.lens.narrow; n != nil {
		lens := &n[p.cur].Len
		return bm25fOf(st, lens, p.tf(), idf, mask)
	}
	lens := &ix.lens.wide[p.cur].Len
	return bm25fOf(st, lens, p.tf(), idf, mask)
}

// bm25fOf is bm25f of a document of field lengths lens and frequencies
// tfs.
func bm25fOf[T uint16 | uint32](st *stats, lens *[NumFields]T, tfs *[NumFields]uint32, idf float64, mask uint8) float64 {
	w := 0.0
	for m := mask; m != 0; m &= m - 1 {
		f := bits.TrailingZeros8(m)
		norm := st.norm0[f] + st.normK[f]*float64(lens[f])
		w += FieldParams[f].Weight * float64(tfs[f]) / max(norm, 1e-9)
	}
	return idf * w / (K1 + w)
}

// expandPrefix returns up to max terms starting with p, the most
// frequent, and their records.
func (ix *Index) expandPrefix(p string, limit int) ([]int, []termRec) {
	if p == "" || isPairTerm(p) {
		return nil, nil
	}
	lo, hi := ix.prefixRange(p)
	sc := expandScratch.Get().(*expansionScratch)
	defer expandScratch.Put(sc)
	recs := sc.recs[:0]
	ix.walkRecs(lo, hi, func(rec termRec) { recs = append(recs, rec) })
	sc.recs = recs
	at := mostFrequent(recs, limit, sc)
	ids, kept := make([]int, len(at)), make([]termRec, len(at))
	for i, a := range at {
		ids[i], kept[i] = lo+a, recs[a]
	}
	return ids, kept
}

// expansionScratch is the memory of one expansion's choice of words,
// reused: a prefix of two letters has tens of thousands of words, and
// their records allocated afresh at each first search kept the garbage
// collector busy.
type expansionScratch struct {
	recs []termRec
	dfs  []uint32
	at   []int
}

var expandScratch = sync.Pool{New: func() any { return new(expansionScratch) }}

// mostFrequent returns the indexes, increasing, of the limit records of
// most documents, ties to the earlier, or all of them; the slice is sc's.
// A prefix of two letters has tens of thousands of words: the limit-th
// document count is selected in linear time rather than sorting them
// all, which was a fifth of a first prefix search's CPU.
func mostFrequent(recs []termRec, limit int, sc *expansionScratch) []int {
	at := sc.at[:0]
	defer func() { sc.at = at }()
	if len(recs) <= limit {
		for i := range recs {
			at = append(at, i)
		}
		return at
	}
	dfs := sc.dfs[:0]
	for _, r := range recs {
		dfs = append(dfs, r.DF)
	}
	sc.dfs = dfs
	t := kthLargest(dfs, limit)
	ties := limit // of count t, kept from the first
	for _, r := range recs {
		if r.DF > t {
			ties--
		}
	}
	for i, r := range recs {
		if r.DF > t || r.DF == t && ties > 0 {
			if r.DF == t {
				ties--
			}
			at = append(at, i)
		}
	}
	return at
}

// kthLargest returns the k-th largest of v (1 ≤ k ≤ len(v)), reordering
// v: a selection with three-way partitions, so that the many words of
// one or two documents cost one pass.
func kthLargest(v []uint32, k int) uint32 {
	lo, hi := 0, len(v) // the answer is in v[lo:hi], the k-th largest of it
	for {
		if hi-lo == 1 {
			return v[lo]
		}
		a, b, c := v[lo], v[lo+(hi-lo)/2], v[hi-1]
		pivot := max(min(a, b), min(max(a, b), c)) // median of three
		// v[lo:gt] > pivot, v[gt:i] == pivot, v[lt:hi] < pivot.
		gt, i, lt := lo, lo, hi
		for i < lt {
			switch x := v[i]; {
			case x > pivot:
				v[gt], v[i] = v[i], v[gt]
				gt++
				i++
			case x < pivot:
				lt--
				v[lt], v[i] = v[i], v[lt]
			default:
				i++
			}
		}
		switch {
		case k <= gt-lo:
			hi = gt
		case k <= lt-lo:
			return pivot
		default:
			k -= lt - lo
			lo = lt
		}
	}
}

// stemScan bounds the terms examined to expand one stem.
const stemScan = 20000

// expandStem returns the terms with the English (Snowball) stem of w: the
// terms starting with the stem minus its last letter (Snowball stems are
// prefixes of their words but for a final y/i, "study" → "studi"), kept
// when they stem the same, the most frequent first if more than max. The
// word itself is always included.
func (ix *Index) expandStem(w string, limit int) ([]int, []termRec) {
	s := tokenize.Stem(w)
	p := s
	if len(p) > 2 {
		p = p[:len(p)-1]
	}
	var ids []int
	var recs []termRec
	lo, hi := ix.prefixRange(p)
	ix.walk(lo, min(hi, lo+stemScan), func(t int, term []byte, rec termRec) bool {
		if string(term) == w || tokenize.Stem(string(term)) == s {
			ids, recs = append(ids, t), append(recs, rec)
		}
		return true
	})
	if id := ix.lookup(w); id >= 0 && !slices.Contains(ids, id) {
		at, _ := slices.BinarySearch(ids, id)
		ids, recs = slices.Insert(ids, at, id), slices.Insert(recs, at, ix.rec(id))
	}
	if len(ids) <= limit {
		return ids, recs
	}
	var sc expansionScratch
	at := mostFrequent(recs, limit, &sc)
	kept, keptRecs := make([]int, len(at)), make([]termRec, len(at))
	for i, a := range at {
		kept[i], keptRecs[i] = ids[a], recs[a]
	}
	return kept, keptRecs
}

// yieldChecks is how many phrase candidates find checks between two
// yields: about a millisecond of position checks.
const yieldChecks = 2048

// phrase compiles adjacent words: a conjunction of posting lists checked
// position by position within each field. The lists are the index's
// triple terms for the triples it has (triples.go), its pair terms for
// the other pairs it has (pairs.go), the words' for the words neither
// covers; the score is the words' either way.
func (e *evaluator) phrase(ph *query.Phrase) iterator {
	if len(ph.Words) == 0 {
		return nil
	}
	if len(ph.Words) == 1 {
		return e.term(&query.Term{Field: ph.Field, Word: ph.Words[0]})
	}
	mask := e.maskOf(ph.Field)
	ids := make([]int, len(ph.Words))
	for i, w := range ph.Words {
		if ids[i] = e.lookup(w); ids[i] < 0 {
			return nil
		}
	}
	p := &phraseIter{mask: mask, key: setKey{term: -1, mask: mask, words: "q:" + strings.Join(ph.Words, " ")}}
	covered := make([]bool, len(ph.Words))
	// Pairs and triples only where every field searched has them.
	pairs := mask&^e.ix.pairFields == 0
	// inTriple marks the pairs (i, i+1) a triple of the parts holds.
	inTriple := make([]bool, len(ph.Words))
	for i := range len(ph.Words) - 2 {
		a, b, c := ph.Words[i], ph.Words[i+1], ph.Words[i+2]
		if !pairs || !e.ix.pairs.Triple(a, b, c) {
			continue
		}
		id := e.lookupPair(TripleTerm(a, b, c))
		if id < 0 {
			return nil // the index has every occurrence of this triple: none
		}
		// A triple scores nothing: the words score the phrase (p.words).
		p.parts = append(p.parts, e.termIterIDF(id, mask, 0))
		p.offs = append(p.offs, uint32(i))
		covered[i], covered[i+1], covered[i+2] = true, true, true
		inTriple[i], inTriple[i+1] = true, true
	}
	for i := range len(ph.Words) - 1 {
		a, b := ph.Words[i], ph.Words[i+1]
		if !pairs || inTriple[i] || !e.ix.pairs.Indexed(a, b) {
			continue
		}
		t := PairTerm(a, b)
		id := e.lookupPair(t)
		if id < 0 {
			if e.ix.pairs.Complete(a, b) || e.pairAbsent(t) {
				return nil // the index has every occurrence of this pair: none
			}
			continue // left out as rare: its words are checked
		}
		// A pair scores nothing: the words score the phrase (p.words).
		p.parts = append(p.parts, e.termIterIDF(id, mask, 0))
		p.offs = append(p.offs, uint32(i))
		covered[i], covered[i+1] = true, true
	}
	for i, id := range ids {
		if !covered[i] {
			p.parts = append(p.parts, e.termIter(id, mask))
			p.offs = append(p.offs, uint32(i))
		}
	}
	its := make([]iterator, len(p.parts))
	for i, t := range p.parts {
		its[i] = t
	}
	p.and = newAnd(its, nil)
	if slices.Contains(covered, true) {
		// Score by the words, advanced to the matches only, summed in the
		// order a conjunction of the words sums them (the query's).
		for _, id := range ids {
			p.words = append(p.words, e.termIter(id, mask))
		}
	}
	return p
}

// phraseIter matches the documents where the words are adjacent, in
// order, within one field: positions never continue from one field into
// the next, so a phrase cannot span a title and an abstract.
type phraseIter struct {
	and *andIter
	key setKey // names its matches' set (phraseset.go)
	// parts are the lists the conjunction walks, words or pairs, offs
	// their offsets in the phrase: a part at position x means a phrase
	// starting at x-off.
	parts []*termIter
	offs  []uint32
	// words score the phrase when parts has pairs; nil when parts are
	// the words (and scores them).
	words []*termIter
	// wblk is each word's first block that may hold the documents of the
	// next block of a pair that covers the phrase (blockBound).
	wblk []int
	// wdoc is each word's block that holds the last document bounded.
	wdoc   []int
	mask   uint8
	order  []int // part indexes, the rarest first
	buf    []uint32
	starts []uint32 // candidate positions of the phrase's first word
	// checked counts the candidates whose positions were checked: a
	// phrase of frequent words may check hundreds of thousands for a few
	// matches, so find yields the processor now and then (see yield).
	checked int
}

func (p *phraseIter) docID() int32 { return p.and.docID() }
func (p *phraseIter) cost() int64  { return p.and.cost() }

func (p *phraseIter) score() float64 {
	if p.words == nil {
		return p.and.score()
	}
	s := 0.0
	d := p.doc()
	for _, w := range p.words {
		// A word is on every match, but on a damaged index: skip it.
		if w.p.advance(d) == d {
			s += w.score()
		}
	}
	return s
}

func (p *phraseIter) bound() float64 {
	if p.words == nil {
		return p.and.bound()
	}
	// The bound of each word's block that holds the match, read in its
	// skip table: the words' lists are unpacked (tightBound) only for
	// the matches it does not prune.
	if p.wdoc == nil {
		p.wdoc = make([]int, len(p.words))
	}
	s := 0.0
	d := p.doc()
	for i, w := range p.words {
		s += w.boundAt(&p.wdoc[i], d)
	}
	return s
}

// tightBound is the sum of the words' bounds on the match itself (their
// impacts), their lists advanced to it.
func (p *phraseIter) tightBound() float64 {
	if p.words == nil {
		return math.Inf(1) // bound was the words' own
	}
	s := 0.0
	d := p.doc()
	for _, w := range p.words {
		// A word is on every match, but on a damaged index: skip it.
		if w.p.advance(d) == d {
			s += w.bound()
		}
	}
	return s
}

// doc is the document scored: the conjunction's, where every part is;
// scan.list moves the one part of a pair or triple phrase without the
// conjunction.
func (p *phraseIter) doc() int32 { return p.parts[0].p.cur }

// list is the pair or triple term that covers the phrase, when
// len(p.parts) is 1.
func (p *phraseIter) list() *postings { return p.parts[0].p }

// blockBound bounds the phrase's score on block b of its one pair or
// triple term: the sum of each word's largest block bound over the
// block's documents.
func (p *phraseIter) blockBound(b int) float64 {
	if p.wblk == nil {
		p.wblk = make([]int, len(p.words))
	}
	l := p.list()
	lo := int32(0)
	if b > 0 {
		lo = l.lastDoc(b-1) + 1
	}
	s := 0.0
	for i, w := range p.words {
		s += w.rangeBound(&p.wblk[i], lo, l.lastDoc(b))
	}
	return s
}

func (p *phraseIter) nextDoc() int32 { return p.find(p.and.nextDoc()) }
func (p *phraseIter) advance(t int32) int32 {
	if p.and.docID() >= t {
		return p.and.docID()
	}
	return p.find(p.and.advance(t))
}

func (p *phraseIter) find(d int32) int32 {
	if len(p.parts) == 1 {
		// One pair or triple is the whole phrase: each of its documents
		// with a wanted field has it there.
		return d
	}
	for d != noMore && !p.matches() {
		if p.checked++; p.checked%yieldChecks == 0 {
			runtime.Gosched()
		}
		d = p.and.nextDoc()
	}
	return d
}

// matches checks the current document's positions, field by field: the
// rarest part's positions give the candidate starts, which each other
// part, rarer first, filters; a field stops at the first part that leaves
// no start, without decoding the others' positions.
func (p *phraseIter) matches() bool {
	if p.order == nil {
		p.order = make([]int, len(p.parts))
		for i := range p.order {
			p.order[i] = i
		}
		slices.SortStableFunc(p.order, func(a, b int) int { return cmp.Compare(p.parts[a].p.df, p.parts[b].p.df) })
	}
	for f := range NumFields {
		fb := uint8(1 << f)
		if p.mask&fb == 0 {
			continue
		}
		in := true
		for _, w := range p.parts {
			if w.p.fieldMasks()[w.p.i]&fb == 0 {
				in = false
				break
			}
		}
		if !in {
			continue
		}
		r := p.order[0]
		p.buf = p.parts[r].positions(p.buf[:0], f)
		p.starts = p.starts[:0]
		for _, x := range p.buf {
			if x >= p.offs[r] {
				p.starts = append(p.starts, x-p.offs[r])
			}
		}
		for _, k := range p.order[1:] {
			if len(p.starts) == 0 {
				break
			}
			p.buf = p.parts[k].positions(p.buf[:0], f)
			p.starts = keepStarts(p.starts, p.buf, p.offs[k])
		}
		if len(p.starts) > 0 {
			return true
		}
	}
	return false
}

// keepStarts keeps the starts s with s+k in pos (both increasing).
func keepStarts(starts, pos []uint32, k uint32) []uint32 {
	out := starts[:0]
	j := 0
	for _, s := range starts {
		want := s + k
		for j < len(pos) && pos[j] < want {
			j++
		}
		if j == len(pos) {
			break
		}
		if pos[j] == want {
			out = append(out, s)
		}
	}
	return out
}

// andIter is a conjunction: the cheapest child leads, the others are
// advanced to its documents (galloping over their skip tables), and
// documents of an excluded child are dropped.
type andIter struct {
	its []iterator // by cost, cheapest first
	// query is its in the query's order, in which score sums: a sum
	// in the order of the lists' lengths would depend on the corpus, and
	// a snapshot in segments would score otherwise than merged.
	query []iterator
	// terms are its when every child is a term: aligned, bounded and
	// scored without an interface call per document.
	terms []*termIter
	neg   []iterator
	cur   int32
	cst   int64
}

func newAnd(pos, neg []iterator) *andIter {
	its := slices.Clone(pos)
	slices.SortStableFunc(its, func(a, b iterator) int { return cmp.Compare(a.cost(), b.cost()) })
	a := &andIter{its: its, query: pos, neg: neg, cur: -1, cst: its[0].cost()}
	for _, it := range its {
		t, ok := it.(*termIter)
		if !ok {
			a.terms = nil
			break
		}
		a.terms = append(a.terms, t)
	}
	return a
}

func (a *andIter) docID() int32 { return a.cur }
func (a *andIter) cost() int64  { return a.cst }
func (a *andIter) nextDoc() int32 {
	return a.align(a.its[0].nextDoc())
}
func (a *andIter) advance(t int32) int32 {
	if a.cur >= t {
		return a.cur
	}
	return a.align(a.its[0].advance(t))
}

func (a *andIter) align(d int32) int32 {
	if a.terms != nil && a.neg == nil {
		return a.alignTerms(d)
	}
	lead := a.its[0]
outer:
	for d != noMore {
		for _, c := range a.its[1:] {
			if t, ok := c.(*termIter); ok && t.lacks(d) {
				d = lead.nextDoc()
				continue outer
			}
			if x := c.advance(d); x > d {
				d = lead.advance(x)
				continue outer
			}
		}
		for _, c := range a.neg {
			if t, ok := c.(*termIter); ok && t.set != nil {
				if !t.lacks(d) {
					d = lead.nextDoc()
					continue outer
				}
				continue
			}
			if c.advance(d) == d {
				d = lead.nextDoc()
				continue outer
			}
		}
		break
	}
	a.cur = d
	return d
}

// alignTerms is align for terms without exclusions.
func (a *andIter) alignTerms(d int32) int32 {
	lead := a.terms[0].p
outer:
	for d != noMore {
		for _, c := range a.terms[1:] {
			if c.lacks(d) {
				d = lead.nextDoc()
				continue outer
			}
			if x := c.p.advance(d); x > d {
				d = lead.advance(x)
				continue outer
			}
		}
		break
	}
	a.cur = d
	return d
}

func (a *andIter) bound() float64 {
	s := 0.0
	if a.terms != nil {
		for _, t := range a.terms {
			s += t.bound()
		}
		return s
	}
	for _, c := range a.its {
		s += c.bound()
	}
	return s
}

func (a *andIter) score() float64 {
	s := 0.0
	for _, c := range a.query {
		s += c.score()
	}
	return s
}

// listIter walks a doc list (a topic's documents) or all documents.
type listIter struct {
	docs []int32 // nil: 0..n-1
	n    int32
	i    int
	cur  int32
	bad  bool // the list is not increasing or names a doc >= n
}

func (l *listIter) docID() int32   { return l.cur }
func (l *listIter) score() float64 { return 0 }
func (l *listIter) bound() float64 { return 0 }
func (l *listIter) cost() int64 {
	if l.docs != nil {
		return int64(len(l.docs))
	}
	return int64(l.n)
}
func (l *listIter) nextDoc() int32 {
	if l.cur == noMore {
		return noMore
	}
	return l.advance(l.cur + 1)
}
func (l *listIter) advance(t int32) int32 {
	if l.cur >= t {
		return l.cur
	}
	if l.docs == nil {
		l.cur = t
		if t >= l.n {
			l.cur = noMore
		}
		return l.cur
	}
	l.i += gallop(l.docs[l.i:], t)
	switch {
	case l.i >= len(l.docs):
		l.cur = noMore
	case l.docs[l.i] >= l.n || l.docs[l.i] <= l.cur:
		l.cur, l.bad = noMore, true
	default:
		l.cur = l.docs[l.i]
	}
	return l.cur
}

// gallop returns the first index i with docs[i] >= target.
func gallop(docs []int32, target int32) int {
	hi := 1
	for hi < len(docs) && docs[hi-1] < target {
		hi <<= 1
	}
	lo := hi >> 1
	hi = min(hi, len(docs))
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if docs[m] < target {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// unionWindow is the number of documents a window union collects at once
// when walking on, unionJump after a jump.
const (
	unionWindow = 2048
	unionJump   = 64
)

// unionIter is a union that walks its children a window of documents at
// a time, each child in turn over the window, marking a bitset and adding
// the child's block bound to its documents: a document costs a bit and an
// addition per child matching it instead of a heap operation. Scores come
// from scorers, a second copy of the children advanced only to the
// documents scored, summed in child order so that a document's score does
// not depend on which others were scored. The expansion of a prefix or a
// stemmed word (best) is one word of the query: a document scores by its
// best-scoring child, and bounds by the highest of their bounds.
type unionIter struct {
	its     []iterator
	scorers []iterator
	scoring bool
	best    bool
	key     setKey // an expansion's, for its set (expand.go)
	// prefixBits are a prefix's documents as its prefix term's set in
	// the index (prefixes.go), nil if none: its count copies them.
	prefixBits *prefixSet
	// prefixFix, in a segment, makes prefixBits those of the expansion's
	// words, which its prefix term's are not (multifirst.go); nil if
	// they are.
	prefixFix *bitsFix
	// copies makes the scorers of an expansion on its first score.
	copies func() []iterator
	// keep, when not nil, keeps what a plain scan of the expansion
	// found in a segment: its count and lists (segment.go).
	keep   func(total int64, ts []*termIter, tops []float64, order []int)
	base   int32 // the window is base .. end-1
	end    int32
	cur    int32
	cst    int64
	active []int32 // the children with documents in the window
	next   []int32 // each child's current doc
	bits   [unionWindow / 64]uint64
	bacc   [unionWindow]float64
}

func (u *unionIter) docID() int32 { return u.cur }
func (u *unionIter) cost() int64  { return u.cst }

func (u *unionIter) nextDoc() int32 {
	if u.cur == noMore {
		return noMore
	}
	return u.advance(u.cur + 1)
}

func (u *unionIter) advance(t int32) int32 {
	if u.cur >= t {
		return u.cur
	}
	for {
		if t < u.end {
			if d := u.scan(max(t, u.base)); d != noMore {
				u.cur = d
				return d
			}
			t = u.end
		}
		if !u.fill(t, t == u.end) {
			u.cur = noMore
			return noMore
		}
	}
}

// scan returns the first marked doc >= t in the window, noMore if none.
func (u *unionIter) scan(t int32) int32 {
	k := int(t - u.base)
	w := k >> 6
	word := u.bits[w] &^ (1<<(k&63) - 1)
	for {
		if word != 0 {
			return u.base + int32(w<<6+bits.TrailingZeros64(word))
		}
		w++
		if w >= len(u.bits) {
			return noMore
		}
		word = u.bits[w]
	}
}

// fill collects the window that starts at the first child doc >= from:
// a long one when the walk goes on from the previous window, a short one
// after a jump (a conjunction advancing the union to its own, maybe
// sparse, documents), so that a jump does not walk the children over
// documents no one asked for.
func (u *unionIter) fill(from int32, onward bool) bool {
	if u.next == nil {
		// Each child's current doc, so that a window skips the children
		// that have nothing in it without calling them.
		u.next = make([]int32, len(u.its))
		for i, c := range u.its {
			u.next[i] = c.docID()
		}
	}
	first := int32(noMore)
	for i, d := range u.next {
		if d < from {
			d = u.its[i].advance(from)
			u.next[i] = d
		}
		first = min(first, d)
	}
	if first == noMore {
		return false
	}
	clear(u.bits[:])
	u.base = first
	size := int64(unionWindow)
	if !onward {
		size = unionJump
	}
	if u.scoring {
		clear(u.bacc[:size]) // children add their bounds
	}
	u.end = int32(min(int64(first)+size, noMore))
	u.active = u.active[:0]
	for i, d := range u.next {
		if d >= u.end {
			continue
		}
		u.active = append(u.active, int32(i))
		c := u.its[i]
		if t, ok := c.(*termIter); ok {
			u.next[i] = u.fillTerm(t)
			continue
		}
		for ; d < u.end; d = c.nextDoc() {
			k := d - u.base
			w, bit := &u.bits[k>>6], uint64(1)<<(k&63)
			if u.scoring {
				u.add(k, c.bound())
			}
			*w |= bit
		}
		u.next[i] = d
	}
	return true
}

// fillTerm is fill's loop for a term, a block at a time, without a call
// per document.
func (u *unionIter) fillTerm(t *termIter) int32 {
	p := t.p
	if p.cur == noMore || p.cur >= u.end {
		return p.cur
	}
	for i := p.i; ; i = 0 {
		var imps []uint8
		unit := 0.0
		if u.scoring && !t.useAll {
			imps, unit = p.blockImpacts(), t.impScale*p.impUnit
		}
		for ; i < p.cnt; i++ {
			if !p.wants(i) {
				continue
			}
			d := p.docs[i]
			if d >= u.end {
				p.i, p.cur = i, d
				return d
			}
			k := d - u.base
			w, bit := &u.bits[k>>6], uint64(1)<<(k&63)
			if u.scoring {
				if t.useAll {
					u.add(k, t.bound()) // the block's: the same for every i
				} else {
					u.add(k, unit*float64(imps[i]))
				}
			}
			*w |= bit
		}
		if !p.nextBlock(p.blk + 1) {
			return noMore
		}
	}
}

// add adds bound b of a child to window document k's.
func (u *unionIter) add(k int32, b float64) {
	if u.best {
		u.bacc[k] = max(u.bacc[k], b)
	} else {
		u.bacc[k] += b
	}
}

func (u *unionIter) bound() float64 { return u.bacc[u.cur-u.base] }

func (u *unionIter) score() float64 {
	if u.scorers == nil && u.copies != nil {
		u.scorers = u.copies()
	}
	s := 0.0
	for _, i := range u.active {
		c := u.scorers[i]
		if c.docID() < u.cur {
			c.advance(u.cur)
		}
		if c.docID() != u.cur {
			continue
		}
		if u.best {
			s = max(s, c.score())
		} else {
			s += c.score()
		}
	}
	return s
}
