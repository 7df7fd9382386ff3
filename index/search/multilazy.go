package search

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/openshelf/openshelf/index/search/query"
)

// A prefix alone, searched for the first time in a segment whose scan
// of it the Multi does not keep (the largest segments, and every segment
// for a prefix that none holds as a prefix term), was compiled as an
// index alone compiles it: every list of its words opened, hundreds a
// segment, then ORed for the count and read for its bound, and the page
// ranked from the few whose bound could enter it. Opening a list decodes
// its skip entry and meta part and readies an iterator; over ten
// segments that was a quarter of a first prefix search. The scan does
// not need the lists opened: the count needs a list's documents, which a
// short list (one block, most words of a prefix) gives by its gaps alone
// when its documents all have a field of the expansion's or none has,
// and the rank needs each list's bound, which its short entry or skip
// table gives in place. So the segment counts and bounds the lists where
// they lie, keeps the scan as a first plain scan keeps it (segExp), and
// ranks the page from it as a repeated search does, opening only the
// lists whose bound can enter the page. A list of another kind is opened
// for its count as before; a list that does not read back leaves the
// search to the generic path, which reports it.

// lazyExpansion answers a plain scan of query q in segment sg, a prefix
// alone in the default fields, without opening its lists but those the
// page needs; false if q is not such a prefix or a list does not read
// back, which the generic path then searches.
func (s *scan) lazyExpansion(ctx context.Context, e *evaluator, q query.Node) (bool, error) {
	k, ok := e.segExpKey(q)
	if !ok || k.kind != 'p' || k.mask != anyFields {
		return false, nil
	}
	m, ix := e.st.m, e.ix
	ids, recs, dfs, bits := m.expansion(k.seg, 'p', k.word)
	if len(ids) < 2 {
		return false, nil // a list alone is searched as a list
	}
	scale := e.st.scale(k.mask)
	x := &segExp{ids: ids, idfs: make([]float64, len(ids)), tops: make([]float64, len(ids)), order: make([]int, len(ids))}
	var df int64
	for i, rec := range recs {
		x.idfs[i] = e.st.idf(float64(dfs[i]))
		top, ok := ix.topBoundRec(rec, k.mask, x.idfs[i], scale)
		if !ok {
			return false, nil
		}
		x.tops[i] = top
		df += int64(rec.DF)
	}
	key := setKey{term: -1, mask: k.mask, words: "p:" + k.word + idsKey(ids)}
	var fromIndex *prefixSet
	var fix *bitsFix
	if bits {
		fromIndex = ix.prefixBits(k.word, ids, k.mask, true)
	} else if fix = m.prefixFix(k.seg, k.word); fix != nil {
		if fromIndex = ix.prefixBits(k.word, ids, k.mask, true); fromIndex == nil {
			fix = nil
		}
	}
	set, build := ix.sets.getKey(key, df, ix.n)
	done := func() {}
	if set == nil {
		fill := func(ctx context.Context, set []uint64) (bool, error) {
			return ix.fillRecs(ctx, set, ids, recs, k.mask)
		}
		var err error
		if set, done, err = ix.expansionBitsBy(ctx, key, fill, fromIndex, fix, df, build); err != nil || set == nil {
			return false, err // nil set: a list that does not read back
		}
	}
	x.total = popcount(set) - deletedIn(set, s.del, 0)
	done()
	sortByTop(x.tops, x.order)
	m.cache.putSegExp(k, x)
	return true, s.keptExpansion(ctx, e, x)
}

// topBoundRec is termIter.topBound of the list of rec in the fields of
// mask (no field outside the default ones) for a term of IDF idf whose
// bounds scale by scale, read in its short entry or skip table in place;
// false if the list does not lie within the postings.
func (ix *Index) topBoundRec(rec termRec, mask uint8, idf, scale float64) (float64, bool) {
	off, df := rec.SkipOff, int(rec.DF)
	if off < ix.postLo || off >= ix.postHi || df < 1 {
		return 0, false
	}
	bound := func(w32 float32) float64 {
		w := float64(w32) * scale
		return idf * w / (K1 + w) * (1 + 1e-9)
	}
	if df <= blockDocs {
		maskOr := ix.mm[off]
		if maskOr&mask == 0 {
			return 0, true
		}
		if maskOr&anyFields == 0 || off+3 > ix.postHi {
			return 0, false
		}
		return max(0, bound(bf16(binary.LittleEndian.Uint16(ix.mm[off+1:])))), true
	}
	nblocks := (df + blockDocs - 1) / blockDocs
	end := off + uint64(nblocks)*skipEntrySize
	if end > ix.postHi || end < off {
		return 0, false
	}
	top := 0.0
	for b := range nblocks {
		e := ix.mm[off+uint64(b)*skipEntrySize:]
		if e[skipMaskAt]&mask != 0 {
			top = max(top, bound(math.Float32frombits(binary.LittleEndian.Uint32(e[skipWAnyAt:]))))
		}
	}
	return top, true
}

// fillRecs ORs the documents of the lists of recs (terms ids) with a
// field of mask into set, a bitset of the index's documents: a short
// list whose documents all have such a field by its gaps, another list
// opened; false if one does not read back.
func (ix *Index) fillRecs(ctx context.Context, set []uint64, ids []int, recs []termRec, mask uint8) (bool, error) {
	var l postings
	var docs [blockDocs]int32
	var delta [blockDocs]uint32
	var since int
	for i, rec := range recs {
		if since += int(rec.DF); since >= yieldPostings {
			if err := yield(ctx); err != nil {
				return false, err
			}
			since = 0
		}
		if done, ok := ix.fillShort(set, rec, mask, &delta); !ok {
			return false, nil
		} else if done {
			continue
		}
		n := blockLen(rec)
		ix.openInto(&l, ids[i], rec, mask, docs[:n:n], delta[:n:n])
		if (&winList{p: &l}).fill(set, 0, ix.n); l.bad {
			return false, nil
		}
	}
	return true, nil
}

// fillShort ORs into set the documents of the list of rec if it is a
// short list whose documents all have a field of mask or none has
// (shortDocs, their ids unpacked into docs); done is false if the list is
// of another kind, ok false if it does not read back.
func (ix *Index) fillShort(set []uint64, rec termRec, mask uint8, docs *[blockDocs]uint32) (done, ok bool) {
	n, short, ok := ix.shortDocs(rec, mask, docs)
	if !ok || !short {
		return false, ok
	}
	for _, d := range docs[:n] {
		set[d>>6] |= 1 << (d & 63)
	}
	return true, true
}

// shortDocs unpacks into docs the documents of the list of rec, without
// opening it, if it is a list of one block whose documents all have a
// field of mask or none has: read from its short entry (FORMAT.md) and
// its gaps alone. It returns their number (none if no document has such
// a field); short is false if the list is of another kind, ok false if
// it does not read back.
func (ix *Index) shortDocs(rec termRec, mask uint8, docs *[blockDocs]uint32) (n int, short, ok bool) {
	off, df := rec.SkipOff, int(rec.DF)
	if df < 1 || off < ix.postLo || off >= ix.postHi {
		return 0, false, false
	}
	if df > blockDocs {
		return 0, false, true
	}
	b := ix.mm[off:ix.postHi]
	maskOr := b[0]
	switch {
	case maskOr&mask == 0:
		return 0, true, true
	case maskOr&^mask != 0:
		return 0, false, true
	}
	at := 1 // past the bounds (bfloat16s) the entry holds
	if maskOr&anyFields != 0 {
		at += 2
	}
	if maskOr&^anyFields != 0 {
		at += 2
	}
	if at > len(b) {
		return 0, false, false
	}
	_, k := uvarint(b, at) // the frequency part's length
	if k <= 0 {
		return 0, false, false
	}
	size, k := uvarint(b, at+k)
	if k <= 0 || size == 0 || size > off-ix.postLo {
		return 0, false, false
	}
	blk := ix.mm[off-size : off]
	width := int(blk[0])
	if width > 31 || 1+packedLen(df, width) > len(blk) {
		return 0, false, false
	}
	unpack(docs[:df], blk[1:], width)
	d := int64(-1)
	for i, gap := range docs[:df] {
		if d += int64(gap) + 1; d >= int64(ix.n) {
			return 0, false, false
		}
		docs[i] = uint32(d)
	}
	ix.res.Touch(int(off-size), int(off)+at)
	return df, true, true
}

// A prefix AND words in a segment's plain scan is a conjunction with an
// expansion (conjexpansion.go), which counts the expansion's documents
// into a bitset and ranks the page word after word of the prefix from
// the highest bound while a word's bound can enter the page: most lists
// are never read but for their documents and bound, which need no list
// opened either. So such a scan compiles the prefix's lists unopened
// (pending), the conjunction counts and bounds them where they lie and
// opens only the words it ranks; any other plan opens them all first
// (openPending).

// pendingSlab is termIterSlab with the list left unopened.
func (e *evaluator) pendingSlab(s *listSlab, id int, rec termRec, mask uint8, idf float64) *termIter {
	if s == nil || len(s.ps) == 0 {
		return e.termIterRec(id, rec, mask, idf)
	}
	n := blockLen(rec)
	p, t := &s.ps[0], &s.ts[0]
	// Only what a pending list is read for: openInto sets the rest.
	p.ix, p.term, p.mask, p.df, p.skipOff, p.bad = e.ix, id, mask, int(rec.DF), rec.SkipOff, false
	p.docs, p.delta = s.docs[:n:n], s.delta[:n:n]
	s.ps, s.ts, s.docs, s.delta = s.ps[1:], s.ts[1:], s.docs[n:], s.delta[n:]
	*t = termIter{p: p, ix: e.ix, st: e.st, idf: idf, bscale: e.st.scale(mask), pending: true}
	if e.pendings == nil {
		e.pendings = make([]*termIter, 0, len(s.ps)+1)
	}
	e.pendings = append(e.pendings, t)
	return t
}

// open opens t's list if it is pending, as termIterSlab would have.
func (e *evaluator) open(t *termIter) {
	if !t.pending {
		return
	}
	p := t.p
	e.ix.openInto(p, p.term, p.rec(), p.mask, p.docs, p.delta)
	e.termIterOn(p, t, t.idf)
}

// openPending opens the lists left pending.
func (e *evaluator) openPending() {
	for _, t := range e.pendings {
		e.open(t)
	}
	e.pendings = nil
}

// pendingExp reports whether the conjunction's expansion has its lists
// pending.
func (c *conj) pendingExp() bool {
	return c.exp != nil && len(c.exp.ts) > 0 && c.exp.ts[0].pending
}

// expansionSetPending is expansionBits for a conjunction's expansion
// whose lists are pending: ORed unopened, or, if one does not read
// back, opened (which reports it).
func (c *conj) expansionSetPending(ctx context.Context, ev *evaluator) ([]uint64, func(), error) {
	x := c.exp
	ids, recs := make([]int, len(x.ts)), make([]termRec, len(x.ts))
	for i, t := range x.ts {
		ids[i], recs[i] = t.p.term, t.p.rec()
	}
	fill := func(ctx context.Context, set []uint64) (bool, error) {
		return ev.ix.fillRecs(ctx, set, ids, recs, x.ts[0].p.mask)
	}
	set, done, err := ev.ix.expansionBitsBy(ctx, x.u.key, fill, x.u.prefixBits, x.u.prefixFix, x.df, x.build)
	if err != nil || set != nil {
		return set, done, err
	}
	ev.openPending()
	return ev.ix.expansionBits(ctx, x.u.key, x.ts, x.u.prefixBits, x.u.prefixFix, x.df, x.build)
}

// topBounds returns the bounds of the lists ts, pending or not, and
// their order from the highest (byTopBound): a pending list's read in
// place, +Inf if it does not read back (opened first, which reports it).
func topBounds(ts []*termIter) ([]float64, []int) {
	tops, order := make([]float64, len(ts)), make([]int, len(ts))
	for i, t := range ts {
		if !t.pending {
			tops[i] = t.topBound()
			continue
		}
		top, ok := t.ix.topBoundRec(t.p.rec(), t.p.mask, t.idf, t.bscale)
		if !ok {
			top = math.Inf(1)
		}
		tops[i] = top
	}
	sortByTop(tops, order)
	return tops, order
}
