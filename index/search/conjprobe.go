package search

import (
	"encoding/binary"
	"math/bits"
)

// probed is a match of a word's block that probe found: its index in
// the block, its document and its bound on the word (its impact's).
type probed struct {
	i     int
	doc   int32
	bound float64
}

// probe appends to out the documents of block b of t's list that have a
// wanted field, are set in match and whose bound on t plus others can
// enter the page, without loading the block: it reads the block's
// impacts first and unpacks its gaps only up to the last document whose
// impact can (none if no document can), and reads the match bits of
// those documents alone. A bound of full text has no impacts: every
// wanted document is bounded by the block's bound. The gaps read are
// checked as far as they are read (within the corpus and the block's
// last document); a match that is scored loads the block, which checks
// the rest. ok is false if the block is damaged.
func (t *termIter) probe(b int, match []uint64, s *scan, others float64, out []probed) (_ []probed, ok bool) {
	p := t.p
	v, ok := p.checkBlock(b)
	if !ok {
		return out, false
	}
	var cand [2]uint64
	if v.e.MaskOr&^p.mask == 0 || v.meta.full&p.mask != 0 {
		for i := range cand {
			if n := v.cnt - 64*i; n > 0 {
				cand[i] = 1<<min(n, 64) - 1
			}
		}
	} else {
		cand = v.meta.wanted(v.blk, v.cnt, v.e.MaskOr, p.mask)
	}
	var imps []byte
	var unpacked [blockDocs]uint8
	unit := 0.0 // an impact's bound (postings.impUnit)
	if !t.useAll {
		packed, all := v.meta.impacts(v.blk, v.cnt)
		if imps = sameImpacts[all][:v.cnt]; packed != nil {
			imps = unpacked[:v.cnt]
			unpackImpacts(imps, packed, v.meta.impBase)
		}
		unit = t.impScale * impactUnit(v.e.WAny)
		if q := t.minImpact(s, others, unit); q > 0 {
			keep := atLeast(imps, q)
			cand[0] &= keep[0]
			cand[1] &= keep[1]
		}
	}
	last := -1
	switch {
	case cand[1] != 0:
		last = 127 - bits.LeadingZeros64(cand[1])
	case cand[0] != 0:
		last = 63 - bits.LeadingZeros64(cand[0])
	default:
		return out, true
	}
	if !p.gaps0 {
		unpack(p.delta[:last+1], v.blk[1:], int(v.blk[0]))
	}
	block := t.blockBound(b)
	acc, n := v.prev, int64(p.ix.n)
	for i, g := range p.delta[:last+1] {
		acc += int64(g) + 1
		if cand[i>>6]&(1<<(i&63)) == 0 {
			continue
		}
		if acc >= n || acc > int64(v.e.LastDoc) {
			return out, p.fail() // damaged: past the block or the corpus
		}
		if d := int32(acc); match[d>>6]&(1<<(d&63)) != 0 {
			bound := block
			if imps != nil {
				bound = unit * float64(imps[i])
			}
			out = append(out, probed{i: i, doc: d, bound: bound})
		}
	}
	return out, true
}

// atLeast returns the bitset of the bytes of b (at most blockDocs) that
// are at least q (1 to 256): bit i of word i/64 for b[i].
func atLeast(b []byte, q int) (set [2]uint64) {
	if q > 255 {
		return set
	}
	i := 0
	if q > 0 {
		// Eight bytes at a time (SWAR): a byte x is at least q when its high
		// bit is above q's, or equal and its low seven bits are at least
		// q's, which (x|0x80)-(q&0x7f) tells in its high bit, borrowing
		// nothing from the next byte.
		const hi, lo = 0x8080808080808080, 0x0101010101010101
		qq := uint64(q) * lo
		for ; i+8 <= len(b); i += 8 {
			x := binary.LittleEndian.Uint64(b[i:])
			low := (x | hi) - qq&^hi
			ge := (x&^qq | ^(x^qq)&low) & hi
			// The eight high bits gathered into a byte, byte j to bit j.
			set[i>>6] |= (ge >> 7 * 0x0102040810204080 >> 56) << (i & 63)
		}
	}
	for ; i < len(b); i++ {
		if int(b[i]) >= q {
			set[i>>6] |= 1 << (i & 63)
		}
	}
	return set
}

// minImpact returns the least impact whose bound on t (unit times it)
// plus others can enter the page: 0 when every one can (or the page is
// not full), impactMax+1 when none can.
func (t *termIter) minImpact(s *scan, others, unit float64) int {
	if !s.prunable(others) {
		return 0
	}
	// The bound grows with the impact: the first that is not prunable.
	lo, hi := 1, impactMax+1
	for lo < hi {
		m := (lo + hi) / 2
		if s.prunable(unit*float64(m) + others) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// rewind moves the list back before its first document, so that advance
// finds an earlier document than the current one: a conjunction ranked
// word after word of an expansion scores the terms' documents of each
// word in turn. The block loaded and its decoded frequencies stay valid.
func (p *postings) rewind() {
	if !p.bad {
		p.blk, p.cur, p.i = -1, -1, -1
	}
}

// blockFrom moves *from on to the first block from *from whose last
// document is at least d (p.nblocks if none), galloping over the skip
// table: a term's blocks are bounded again from the first for each word
// of an expansion.
func (p *postings) blockFrom(from *int, d int32) {
	lo := *from
	if lo >= p.nblocks || p.lastDoc(lo) >= d {
		return
	}
	// lastDoc(lo) < d: find the first block past lo that reaches d.
	step, hi := 1, lo+1
	for hi < p.nblocks && p.lastDoc(hi) < d {
		lo = hi
		hi += step
		step <<= 1
	}
	hi = min(hi, p.nblocks)
	for lo+1 < hi {
		m := int(uint(lo+hi) >> 1)
		if p.lastDoc(m) < d {
			lo = m
		} else {
			hi = m
		}
	}
	*from = hi
}
