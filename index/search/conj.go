package search

import (
	"context"
	"encoding/binary"
	"iter"
	"math"
	"math/bits"
	"slices"
)

// A conjunction of frequent terms has many matches, and visiting each to
// count it (advancing every list to it, bounding it, offering it to the
// page) costs far more than the matches' postings do to unpack. When
// nothing but the total and a relevance-ordered page is asked (no filter,
// facet or cursor), conj answers a conjunction of terms, with excluded
// terms, in two passes instead:
//
//   - count: a window of documents at a time, each list sets the bits of
//     its documents (with a wanted field) in a bitset, or reads its kept
//     set (sets.go), the bitsets are intersected (excluded lists cleared),
//     the bits counted and kept in a bitset of the matches;
//   - rank: the rarest list is walked block by block, and a block is
//     skipped unless the sum of its bound and the other lists' bounds over
//     its documents beats the worst score kept (block-max): only the
//     blocks that can enter the page are unpacked, and only their matches
//     (read in the bitset of matches) bounded, and scored if they can
//     enter it.
//
// The total is as exact as a visit of every match, and the page the same.
// A conjunction may also hold one prefix or stemmed word (conjexpansion.go).

// countWindow is the documents a count bitset covers (Index.conjWindow,
// smaller in tests).
const countWindow = 1 << 16

// conj is an eligible conjunction: its andIter (whose term iterators the
// rank pass positions and scores with) and its lists.
type conj struct {
	and      *andIter
	pos, neg []*termIter // pos by cost, the rarest first
	// exp is the conjunction's expansion of a prefix or a stemmed word
	// (conjexpansion.go), nil if none.
	exp *expMember
	// spans are the terms' bounds over spans of span documents, for a
	// rank with an expansion (conjexpansion.go).
	spans [][]float64
	span  int32
	// bounds are the terms' blocks' bounds (termIter.blockBounds), for a
	// rank with an expansion.
	bounds [][]float64
	// build marks the lists, pos then neg, whose sets the count builds
	// and adds (sets.go).
	build []bool
	// match, when the page is ranked, is the bitset of the matches over
	// the corpus, which the count sets window by window for the rank.
	match []uint64
}

// asConj returns it as a conj, or nil, when it is a conjunction of terms
// and at most one expansion, with excluded terms, whose other lists
// together are at most conjSkew times as long as the rarest term's; a
// list whose set is kept or built counts for nothing, and an expansion
// as expMember.cost says.
func asConj(it iterator) *conj {
	a, ok := it.(*andIter)
	if !ok {
		return nil
	}
	c := &conj{and: a, pos: a.terms}
	if a.terms == nil {
		if c.pos, c.exp = splitExpansion(a); c.exp == nil {
			return nil
		}
	}
	for _, n := range a.neg {
		t, ok := n.(*termIter)
		if !ok {
			return nil
		}
		c.neg = append(c.neg, t)
	}
	var others int64
	for i, t := range c.lists() {
		build := false
		if t.set == nil {
			t.set, build = t.ix.sets.get(t.p)
		}
		c.build = append(c.build, build)
		if i > 0 && t.set == nil && !build {
			others += t.cost()
		}
	}
	if c.exp != nil {
		others += c.exp.cost(c.pos[0].ix)
	}
	if others > conjSkew*c.pos[0].cost() {
		return nil
	}
	return c
}

// lists are the conjunction's term iterators, pos then neg.
func (c *conj) lists() []*termIter { return append(slices.Clip(c.pos), c.neg...) }

// conjSkew bounds how much longer the other lists together may be than
// the rarest for the bitset count to pay: it unpacks every posting, a
// walk advances the others to the rarest list's documents only. Measured
// at 10M documents (git history of BENCHMARKS.md): 4 beats 8 and 32 on three-word
// conjunctions and ties on two-word ones.
const conjSkew = 4

// count counts the conjunction's matches with fresh lists, which it
// appends to ev.postings (so that damage is reported), and the documents
// of its expansion in exp (nil if none), a bitset of the corpus.
func (c *conj) count(ctx context.Context, ev *evaluator, exp []uint64) (int64, error) {
	ls, err := c.windowLists(ctx, ev)
	if err != nil {
		return 0, err
	}
	pos, neg := ls[:len(c.pos)], ls[len(c.pos):]
	if exp != nil {
		pos = append(slices.Clip(pos), &winList{set: exp})
	}
	// No wider than the index: a small segment's count (multi.go) would
	// clear and scan a window mostly past its documents.
	win := int32(max(min(int64(ev.ix.conjWindow), setBytes(ev.ix.n)*8), 64))
	acc := make([]uint64, win/64)
	tmp := make([]uint64, win/64)
	var total int64
	lead, from := pos[0], int32(0)
	for w := 0; ; w++ {
		if w%16 == 15 {
			if err := yield(ctx); err != nil {
				return 0, err
			}
		}
		// Windows without a document of the rarest list are skipped.
		next := lead.first(from)
		if next >= ev.ix.n { // noMore, or a damaged skip entry past the documents
			break
		}
		base := next - next%win
		from = base + min(win, noMore-base) // the next window, or noMore past the last
		if lead.set != nil {
			copy(acc, lead.window(tmp, base, win))
		} else if clear(acc); lead.fill(acc, base, win) == 0 {
			continue
		}
		for _, l := range pos[1:] {
			for i, x := range l.window(tmp, base, win) {
				acc[i] &= x
			}
		}
		for _, l := range neg {
			for i, x := range l.window(tmp, base, win) {
				acc[i] &^= x
			}
		}
		total += popcount(acc) - deletedIn(acc, ev.del, base)
		if c.match != nil {
			copy(c.match[base/64:], acc)
		}
	}
	return total, nil
}

func popcount(b []uint64) int64 {
	n := 0
	for _, x := range b {
		n += bits.OnesCount64(x)
	}
	return int64(n)
}

// windowLists opens fresh lists of the terms for a count, pos then neg,
// appended to ev.postings (so that damage is reported), with their sets:
// kept, or built now and added.
func (c *conj) windowLists(ctx context.Context, ev *evaluator) ([]*winList, error) {
	ts := c.lists()
	ls := make([]*winList, len(ts))
	for i, t := range ts {
		p := ev.ix.openRec(t.p.term, t.p.rec(), t.p.mask)
		ev.postings = append(ev.postings, p)
		ls[i] = &winList{p: p, set: t.set}
		if !c.build[i] {
			continue
		}
		if err := yield(ctx); err != nil {
			return nil, err
		}
		// The whole list in one window, from a list of its own.
		b := ev.ix.openRec(t.p.term, t.p.rec(), t.p.mask)
		ev.postings = append(ev.postings, b)
		set := make([]uint64, setBytes(ev.ix.n)/8)
		if (&winList{p: b}).fill(set, 0, ev.ix.n); !b.bad {
			ev.ix.sets.add(listKey(b), set, int64(b.df))
			ls[i].set, t.set = set, set
		}
	}
	return ls, nil
}

// winList walks a list a window of documents at a time for a count.
type winList struct {
	p *postings
	b int // no block before b has a wanted document in a window to come
	// set is the list's set (sets.go), nil if none: window reads it.
	set []uint64
}

// window returns the bitset of the list's documents (with a wanted
// field) in the window of win documents from base, in tmp or the set.
func (l *winList) window(tmp []uint64, base, win int32) []uint64 {
	if l.set != nil {
		lo := min(int(base/64), len(l.set))
		if hi := lo + int(win/64); hi <= len(l.set) {
			return l.set[lo:hi]
		}
		clear(tmp[copy(tmp, l.set[lo:]):])
		return tmp
	}
	clear(tmp)
	l.fill(tmp, base, win)
	return tmp
}

// first returns a lower bound of the list's first document at or after
// from with a wanted field (the start of the first such block's
// documents), noMore when there is none. Calls come with increasing from.
func (l *winList) first(from int32) int32 {
	p := l.p
	if p.bad {
		return noMore // Search reports the damage
	}
	for ; l.b < p.nblocks; l.b++ {
		if p.lastDoc(l.b) >= from && p.maskOr(l.b)&p.mask != 0 {
			if l.b == 0 {
				return from
			}
			return max(from, p.lastDoc(l.b-1)+1)
		}
	}
	return noMore
}

// fill sets in set (a bitset of the win documents from base) the
// documents of the window with a wanted field, and returns how many.
func (l *winList) fill(set []uint64, base, win int32) int {
	p := l.p
	if l.first(base) == noMore {
		return 0
	}
	n := 0
	for b := l.b; b < p.nblocks; b++ {
		if p.maskOr(b)&p.mask == 0 {
			continue
		}
		if b > 0 && p.lastDoc(b-1)-base >= win-1 {
			break // starts after the window
		}
		k, ok := p.fillBlock(b, set, base, win)
		if !ok {
			break
		}
		n += k
	}
	return n
}

// fillBlock sets in set the documents of block b in the window of win
// documents from base with a wanted field, and returns how many. It
// decodes the block's doc part only, without keeping the doc ids as a
// walk does (load), and checks it as load does: false if it is damaged.
func (p *postings) fillBlock(b int, set []uint64, base, win int32) (int, bool) {
	v, ok := p.checkBlock(b)
	if !ok {
		return 0, false
	}
	want := v.meta.wanted(v.blk, v.cnt, v.e.MaskOr, p.mask)
	width, src := int(v.blk[0]), v.blk[1:]
	if v.prev >= int64(base)-1 && int64(v.e.LastDoc) < int64(base)+int64(win) && !p.gaps0 &&
		packedLen(v.cnt, width)+8 <= len(src) {
		// Most blocks lie within the window, and the block's other parts
		// follow their gaps: each gap is read in eight bytes and its bit
		// set without a test of the document's place nor a branch. A
		// damaged block may run past the window: its bits are set in the
		// window's last word, and the check below fails it.
		acc, s := v.prev-int64(base), set[:(win+63)/64]
		last, mask := uint64(len(s)-1), uint64(1)<<width-1
		for i := range v.cnt {
			bit := i * width
			acc += int64(binary.LittleEndian.Uint64(src[bit>>3:])>>(bit&7)&mask) + 1
			s[min(uint64(acc)>>6, last)] |= (want[i>>6] >> (i & 63) & 1) << (acc & 63)
		}
		if !p.lastDocOK(&v, acc+int64(base)) {
			return 0, p.fail()
		}
		return bits.OnesCount64(want[0]) + bits.OnesCount64(want[1]), true
	}
	if !p.gaps0 {
		unpack(p.delta[:v.cnt], src, width)
	}
	n, acc := 0, v.prev
	for i, d := range p.delta[:v.cnt] {
		acc += int64(d) + 1
		x := uint64(acc - int64(base))
		if x < uint64(win) && want[i>>6]&(1<<(i&63)) != 0 {
			set[x>>6] |= 1 << (x & 63)
			n++
		}
	}
	if !p.lastDocOK(&v, acc) {
		return n, p.fail()
	}
	return n, true
}

// scan counts the conjunction and ranks its matches into s.
func (c *conj) scan(ctx context.Context, ev *evaluator, s *scan) error {
	ev.ix.conjScans.Add(1)
	if s.top.k > 0 {
		m := ev.ix.scratchSet()
		defer ev.ix.matches.Put(m)
		c.match = *m
	}
	var exp []uint64
	if c.exp != nil {
		exp = c.exp.set
		if exp == nil {
			setOf := func() ([]uint64, func(), error) {
				return ev.ix.expansionBits(ctx, c.exp.u.key, c.exp.ts, c.exp.u.prefixBits, c.exp.u.prefixFix, c.exp.df, c.exp.build)
			}
			if c.pendingExp() {
				setOf = func() ([]uint64, func(), error) { return c.expansionSetPending(ctx, ev) } // multilazy.go
			}
			set, done, err := setOf()
			if err != nil || set == nil {
				return err // nil set: a damaged list, which Search reports
			}
			defer done()
			exp = set
		}
	}
	total, err := c.count(ctx, ev, exp)
	if err != nil {
		return err
	}
	switch {
	case s.top.k == 0:
	case c.exp != nil:
		err = c.rankBest(ctx, ev, s) // conjexpansion.go
	default:
		err = c.rank(ctx, s)
	}
	if err != nil {
		return err
	}
	// Every match not kept ranks after the page.
	s.total, s.beyond = total, total-int64(len(s.top.heap))
	return nil
}

// rank offers the conjunction's matches to the page, skipping the rarest
// list's blocks whose bound cannot enter it. Within a block it visits the
// matches the count found, and drops without advancing the other lists
// those whose bound on the rarest list plus the other lists' bounds over
// the block cannot enter the page.
func (c *conj) rank(ctx context.Context, s *scan) error {
	lead := c.pos[0]
	p := lead.p
	cur := make([]int, len(c.pos)) // each other list's first block that may overlap
	for b := 0; b < p.nblocks && !p.bad; b++ {
		if b%1024 == 1023 {
			if err := yield(ctx); err != nil {
				return err
			}
		}
		if p.maskOr(b)&p.mask == 0 {
			continue
		}
		lo, hi := int32(0), p.lastDoc(b)
		if b > 0 {
			lo = p.lastDoc(b-1) + 1
		}
		others := 0.0
		for i, t := range c.pos[1:] {
			others += t.rangeBound(&cur[i+1], lo, hi)
		}
		if s.top.full() && lead.blockBound(b)+others <= s.top.worstScore() {
			continue
		}
		if !p.load(b) {
			break
		}
		i := 0
	matches:
		for d := range setBits(c.match, lo, hi) {
			// The lead has every match: find it in the block.
			for i < p.cnt && p.docs[i] < d {
				i++
			}
			if i == p.cnt || p.docs[i] != d {
				p.fail() // damaged: the block does not hold its match
				return nil
			}
			p.i, p.cur = i, d
			if s.top.full() && lead.bound()+others <= s.top.worstScore() {
				continue
			}
			for _, t := range c.pos[1:] {
				if t.p.advance(d) != d {
					continue matches // damaged, and reported
				}
			}
			c.and.cur = d
			s.rank(d, c.and)
		}
	}
	p.cur = noMore
	return nil
}

// setBits yields the documents lo..hi whose bits are set in set.
func setBits(set []uint64, lo, hi int32) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for w := lo >> 6; w <= hi>>6 && int(w) < len(set); w++ {
			word := set[w]
			if w == lo>>6 {
				word &^= 1<<(lo&63) - 1
			}
			if w == hi>>6 && hi&63 != 63 {
				word &= 1<<(hi&63+1) - 1
			}
			for ; word != 0; word &= word - 1 {
				if !yield(w<<6 + int32(bits.TrailingZeros64(word))) {
					return
				}
			}
		}
	}
}

// anySet reports whether a bit of lo..hi is set in set.
func anySet(set []uint64, lo, hi int32) bool {
	for range setBits(set, lo, hi) {
		return true
	}
	return false
}

// boundAt bounds the term's score on document d by the bound of the
// block that would hold it: *from, moved on to it; calls come with
// increasing d. Past the last block (d is not in the list) it is 0.
func (t *termIter) boundAt(from *int, d int32) float64 {
	p := t.p
	if p.bad {
		return math.Inf(1) // no skip table: Search reports the damage
	}
	for *from < p.nblocks && p.lastDoc(*from) < d {
		*from++
	}
	if *from == p.nblocks {
		return 0
	}
	return t.blockBound(*from)
}

// rangeBound bounds the term's score on the documents lo..hi: the largest
// bound of its blocks that overlap them and have a wanted field, or -Inf
// when none does (no document there can match). *from is the first block
// that may overlap; calls come with increasing lo.
func (t *termIter) rangeBound(from *int, lo, hi int32) float64 {
	p := t.p
	if p.bad {
		return math.Inf(1) // no skip table: Search reports the damage
	}
	for *from < p.nblocks && p.lastDoc(*from) < lo {
		*from++
	}
	best := math.Inf(-1)
	for b := *from; b < p.nblocks; b++ {
		if p.maskOr(b)&p.mask != 0 {
			best = max(best, t.blockBound(b))
		}
		if p.lastDoc(b) >= hi {
			break
		}
	}
	return best
}
