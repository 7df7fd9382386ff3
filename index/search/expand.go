package search

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// A prefix expands to up to query.MaxExpansions words, a stemmed word to
// its variants, and both are one word of the query: a document scores by
// its best-scoring word of the expansion (unionIter.best), not by their
// sum, which would rank a document above another for holding several
// words of one prefix. That also makes a plain scan of an expansion
// cheap. Summed, every posting of every list adds to its document's
// bound, and a prefix of a few million matches at 10M documents cost
// 85 ms in that walk alone (git history of BENCHMARKS.md). By the best word, a document
// can enter the page only through a list whose own bound can, so:
//
//   - the count ORs the lists into a bitset of the corpus, doc ids only,
//     list after list; the bitset is the expansion's set (sets.go), kept
//     within the sets' budget, so that a prefix searched again counts
//     by popcount alone;
//   - the page is ranked list after list, the list of the highest bound
//     first, unpacking only the blocks whose bound can enter the page: a
//     few blocks of the rare words, whose scores are high, and seldom any
//     of the frequent ones.

// expansion reports whether u is the expansion of a prefix or a stemmed
// word into terms, which scan.expansion walks.
func (u *unionIter) expansion() bool {
	if !u.best {
		return false
	}
	for _, c := range u.its {
		if _, ok := c.(*termIter); !ok {
			return false
		}
	}
	return true
}

// expansion counts the expansion u in a plain scan and ranks its page.
func (s *scan) expansion(ctx context.Context, u *unionIter) error {
	ts, df, ok := u.words()
	if !ok {
		return nil // a damaged dictionary entry: Search reports it
	}
	set, done, err := s.ix.expansionSet(ctx, u.key, ts, u.prefixBits, u.prefixFix, df)
	if err != nil || set == nil {
		return err // nil set: a damaged list, which Search reports
	}
	s.total = popcount(set) - deletedIn(set, s.del, 0)
	done()
	var tops []float64
	var order []int
	if s.top.k > 0 || u.keep != nil {
		// The lists' bounds, read once for the rank and what a segment
		// keeps.
		tops, order = byTopBound(ts)
	}
	if s.top.k > 0 {
		if err := s.bestLists(ctx, tops, order, func(i int) *termIter { return ts[i] }); err != nil {
			return err
		}
	}
	// Every match not kept ranks after the page.
	s.beyond = s.total - int64(len(s.top.heap))
	if u.keep != nil {
		u.keep(s.total, ts, tops, order) // segment.go
	}
	return nil
}

// words returns the expansion's term iterators and the sum of their
// documents; false if a dictionary entry is damaged.
func (u *unionIter) words() ([]*termIter, int64, bool) {
	ts := make([]*termIter, len(u.its))
	var df int64
	for i, c := range u.its {
		ts[i] = c.(*termIter)
		if ts[i].p.bad {
			return nil, 0, false
		}
		df += int64(ts[i].p.df)
	}
	return ts, df, true
}

// expansionSet returns the documents of the expansion named key (its
// lists ts, df postings in all, and its bitset in the index, fromIndex,
// if it has one) as a bitset of the corpus, its kept set or
// expansionBits'; done is to be called once the bitset is no longer read.
func (ix *Index) expansionSet(ctx context.Context, key setKey, ts []*termIter, fromIndex *prefixSet, fix *bitsFix, df int64) (set []uint64, done func(), err error) {
	set, build := ix.sets.getKey(key, df, ix.n)
	if set != nil {
		return set, func() {}, nil
	}
	return ix.expansionBits(ctx, key, ts, fromIndex, fix, df, build)
}

// expansionBits returns the documents of an expansion without a kept set
// as a bitset of the corpus: the bitset on probation (sets.probation), so
// that the ask that builds its set need not fill it again, or one filled
// now: from fromIndex, the index's set of a prefix (prefixes.go), if not
// nil (in a segment, with fix applied, unless nil: multifirst.go), else
// by ORing the lists. done, to be called once the bitset is no
// longer read, keeps it as the expansion's set if build (sets.getKey),
// else puts it on probation. The set is nil (and done too) if a list is
// damaged, which Search reports. The fill leaves the lists where they
// were, for the rank.
func (ix *Index) expansionBits(ctx context.Context, key setKey, ts []*termIter, fromIndex *prefixSet, fix *bitsFix, df int64, build bool) (set []uint64, done func(), err error) {
	fill := func(ctx context.Context, set []uint64) (bool, error) { return fillExpansion(ctx, set, ts, ix.n) }
	return ix.expansionBitsBy(ctx, key, fill, fromIndex, fix, df, build)
}

// expansionBitsBy is expansionBits with the lists ORed by fill, false
// if one is damaged (a segment's first scan of a prefix ORs them
// unopened: multilazy.go).
func (ix *Index) expansionBitsBy(ctx context.Context, key setKey, fill func(context.Context, []uint64) (bool, error), fromIndex *prefixSet, fix *bitsFix, df int64, build bool) (set []uint64, done func(), err error) {
	m := ix.sets.takeProbation(key)
	switch {
	case m != nil:
	case fromIndex != nil:
		m = ix.scratchSet()
		ix.prefixFills.Add(1)
		fromIndex.fill(*m)
		if fix != nil {
			fix.apply(*m) // a segment's prefix term of other words
		}
	default:
		m = ix.scratchSet()
		ix.expansionFills.Add(1)
		if ok, err := fill(ctx, *m); err != nil || !ok {
			ix.putSet(m)
			return nil, nil, err
		}
	}
	return *m, func() { ix.keepBits(key, m, df, build) }, nil
}

// keepBits disposes of m, a bitset of scratchSet holding the documents
// named key (df postings): kept as their set if build (sets.getKey), else
// on probation if dense, else back in the pool.
func (ix *Index) keepBits(key setKey, m *[]uint64, df int64, build bool) {
	switch {
	case build:
		ix.sets.add(key, *m, df) // the sets own it now
	case ix.sets.dense(df, ix.n):
		ix.putSet(ix.sets.probate(key, m))
	default:
		ix.putSet(m)
	}
}

// fillExpansion ORs the documents of the lists into set, a bitset of
// the n documents; false if a list is damaged.
func fillExpansion(ctx context.Context, set []uint64, ts []*termIter, n int32) (bool, error) {
	var since int
	for _, t := range ts {
		if since += t.p.df; since >= yieldPostings {
			if err := yield(ctx); err != nil {
				return false, err
			}
			since = 0
		}
		if (&winList{p: t.p}).fill(set, 0, n); t.p.bad {
			return false, nil
		}
	}
	return true, nil
}

// yieldPostings is about how many postings the count of an expansion
// unpacks between two yields.
const yieldPostings = 1 << 17

// putSet puts a bitset of scratchSet back (nil: none).
func (ix *Index) putSet(m *[]uint64) {
	if m != nil {
		ix.matches.Put(m)
	}
}

// scratchSet returns a cleared bitset of the corpus from the index's
// pool, to be put back: searches reuse them, so that counting does not
// make the collector run.
func (ix *Index) scratchSet() *[]uint64 {
	m, _ := ix.matches.Get().(*[]uint64)
	if m == nil {
		m = new([]uint64)
		*m = make([]uint64, setBytes(ix.n)/8)
	}
	clear(*m)
	return m
}

// bestLists offers to the page the documents of the expansion's lists
// whose bound can enter it, list after list from the highest bound (tops,
// in order: byTopBound): list(i) gives list i, opened when its bound can
// enter the page. A document in several lists is offered once per list,
// keeping its best score.
func (s *scan) bestLists(ctx context.Context, tops []float64, order []int, list func(i int) *termIter) error {
	_, err := s.bestListsOf(ctx, tops, order, list, map[int32]bool{})
	return err
}

// bestListsOf is bestLists with the documents offered so far; it
// reports whether a list's bound pruned it and the lists after it.
func (s *scan) bestListsOf(ctx context.Context, tops []float64, order []int, list func(i int) *termIter, offered map[int32]bool) (bool, error) {
	for j, i := range order {
		if s.prunable(tops[i]) {
			return true, nil // and so are the lists after it
		}
		if j%64 == 63 {
			if err := yield(ctx); err != nil {
				return false, err
			}
		}
		s.bestOf(list(i), offered)
	}
	return false, nil
}

// bestOf offers the documents of t's list whose bound can enter the page,
// unpacking only the blocks whose bound can.
func (s *scan) bestOf(t *termIter, offered map[int32]bool) {
	p := t.p
	if p.bad {
		return // a list opened only now (multilazy.go): Search reports it
	}
	for b := 0; b < p.nblocks; b++ {
		if p.maskOr(b)&p.mask == 0 || s.prunable(t.blockBound(b)) {
			continue
		}
		if !p.load(b) {
			return // Search reports the damage
		}
		for i := range p.cnt {
			if !p.wants(i) {
				continue
			}
			p.i, p.cur = i, p.docs[i]
			if s.prunable(t.bound()) {
				continue
			}
			s.offer(p.cur, t.score(), offered)
		}
	}
}

// byTopBound returns the lists' topBounds and their order from the
// highest.
func byTopBound(ts []*termIter) (tops []float64, order []int) {
	tops, order = make([]float64, len(ts)), make([]int, len(ts))
	for i, t := range ts {
		tops[i] = t.topBound()
	}
	sortByTop(tops, order)
	return tops, order
}

// sortByTop sets order to the places of tops from the highest, ties in
// place order. A search over segments sorts the bounds of hundreds of
// lists in each segment: as integers, not by a comparison function, in
// a third of the time. A bound is not negative, so that its bits order
// it, complemented from the highest; the low bits of a key are its
// place, and keys equal but for those are put in order after.
func sortByTop(tops []float64, order []int) {
	const placeBits = 16
	if len(tops) > 1<<placeBits || slices.ContainsFunc(tops, func(t float64) bool { return math.Signbit(t) || math.IsNaN(t) }) {
		type bound struct {
			top float64
			i   int
		}
		bs := make([]bound, len(tops))
		for i, t := range tops {
			bs[i] = bound{t, i}
		}
		// Ties in list order: a stable sort's, at the cost of a plain one.
		slices.SortFunc(bs, func(a, b bound) int { return cmp.Or(cmp.Compare(b.top, a.top), cmp.Compare(a.i, b.i)) })
		for k, b := range bs {
			order[k] = b.i
		}
		return
	}
	keys := make([]uint64, len(tops))
	for i, t := range tops {
		keys[i] = ^math.Float64bits(t)&^(1<<placeBits-1) | uint64(i)
	}
	slices.Sort(keys)
	for k, key := range keys {
		order[k] = int(key & (1<<placeBits - 1))
	}
	// A run of keys equal but for their places is in place order; its
	// bounds' low bits may order it otherwise.
	for k := 1; k < len(keys); k++ {
		if keys[k]>>placeBits != keys[k-1]>>placeBits {
			continue
		}
		for j := k; j > 0 && keys[j]>>placeBits == keys[j-1]>>placeBits && tops[order[j]] > tops[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
}

// offer offers document d with score to the page, which keeps its best
// score if offered before (by another word of an expansion).
func (s *scan) offer(d int32, score float64, offered map[int32]bool) {
	if s.del != nil && s.del[d>>6]&(1<<(d&63)) != 0 {
		return
	}
	h := ranked{key: -score, doc: d, score: score}
	if offered[d] && s.top.raise(h) {
		return
	}
	offered[d] = true
	s.top.push(h)
}

// topBound bounds the score of every document of t's list: the highest
// of its blocks' bounds.
func (t *termIter) topBound() float64 {
	if t.p.bad {
		return math.Inf(1) // no skip table: Search reports the damage
	}
	top := 0.0
	for b := range t.p.nblocks {
		if t.p.maskOr(b)&t.p.mask != 0 {
			top = max(top, t.blockBound(b))
		}
	}
	return top
}
