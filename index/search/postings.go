package search

import (
	"encoding/binary"
	"math"
)

// noMore is the doc of an exhausted iterator.
const noMore = math.MaxInt32

// postings iterates one term's postings block by block, decoding a
// block's doc part (docs, field masks, frequencies) on entry and its
// positions only when a phrase asks. A malformed block ends the iteration
// and sets bad: the search then fails with ErrMalformed.
type postings struct {
	ix      *Index
	skips   []byte
	skipOff uint64 // file offset of skips: the end of the last block
	nblocks int
	df      int
	mask    uint8 // fields that count; docs with none are skipped

	blk  int // current block, -1 before the first
	cnt  int // docs in the block
	i    int // current doc's index in the block
	cur  int32
	docs [blockDocs]int32
	fm   [blockDocs]uint8
	tfs  [blockDocs][NumFields]uint32
	// Positions: the block's position part, and a reader positioned at
	// the start of doc posAt's positions.
	pos   []byte
	posAt int
	posRd int
	bad   bool
}

// open makes an iterator over term t restricted to the fields in mask.
func (ix *Index) open(t int, mask uint8) *postings {
	p := &postings{ix: ix, mask: mask, blk: -1, cur: -1}
	rec := ix.terms[t]
	p.df = int(rec.DF)
	p.nblocks = (p.df + blockDocs - 1) / blockDocs
	end := rec.SkipOff + uint64(p.nblocks)*skipEntrySize
	if rec.SkipOff < ix.postLo || end > ix.postHi || end < rec.SkipOff {
		p.bad, p.cur = true, noMore
		return p
	}
	p.skips, p.skipOff = ix.mm[rec.SkipOff:end], rec.SkipOff
	return p
}

func (p *postings) lastDoc(b int) int32 {
	return int32(binary.LittleEndian.Uint32(p.skips[b*skipEntrySize:]))
}

// load decodes block b's doc part.
func (p *postings) load(b int) bool {
	e := p.skips[b*skipEntrySize:]
	docLen, off := uint64(binary.LittleEndian.Uint32(e[4:])), binary.LittleEndian.Uint64(e[8:])
	p.cnt = blockDocs
	if b == p.nblocks-1 {
		p.cnt = p.df - b*blockDocs
	}
	prev := int32(-1)
	if b > 0 {
		prev = p.lastDoc(b - 1)
	}
	// The block ends where the next one starts, or at the skip table.
	next := p.skipOff
	if b+1 < p.nblocks {
		next = binary.LittleEndian.Uint64(p.skips[(b+1)*skipEntrySize+8:])
	}
	if off < p.ix.postLo || next > p.ix.postHi || off > next || docLen > next-off {
		return p.fail()
	}
	buf := p.ix.mm[off : off+docLen]
	p.pos = p.ix.mm[off+docLen : next]
	for i := range p.cnt {
		delta, n := binary.Uvarint(buf)
		if n <= 0 || delta == 0 || delta > uint64(math.MaxInt32-1-prev) || n >= len(buf) {
			return p.fail()
		}
		prev += int32(delta)
		p.docs[i] = prev
		m := buf[n]
		buf = buf[n+1:]
		if m == 0 || m >= 1<<NumFields {
			return p.fail()
		}
		p.fm[i] = m
		for f := range NumFields {
			p.tfs[i][f] = 0
			if m&(1<<f) != 0 {
				tf, n := binary.Uvarint(buf)
				if n <= 0 || tf == 0 || tf > math.MaxUint32 {
					return p.fail()
				}
				p.tfs[i][f] = uint32(tf)
				buf = buf[n:]
			}
		}
	}
	if prev != p.lastDoc(b) || len(buf) != 0 || prev >= p.ix.n {
		return p.fail()
	}
	p.blk, p.i, p.posAt, p.posRd = b, -1, 0, 0
	return true
}

func (p *postings) fail() bool {
	p.bad, p.cur, p.cnt = true, noMore, 0
	return false
}

// nextDoc moves to the next document with a wanted field.
func (p *postings) nextDoc() int32 {
	for p.cur != noMore {
		p.i++
		if p.i >= p.cnt {
			if p.blk+1 >= p.nblocks || !p.load(p.blk+1) {
				p.cur = noMore
				return noMore
			}
			p.i = 0
		}
		if p.fm[p.i]&p.mask != 0 {
			p.cur = p.docs[p.i]
			return p.cur
		}
	}
	return noMore
}

// advance moves to the first document >= target with a wanted field.
func (p *postings) advance(target int32) int32 {
	if p.cur >= target {
		return p.cur
	}
	if p.blk < 0 || p.lastDoc(p.blk) < target {
		// Gallop over the skip table to the block holding target.
		lo := p.blk + 1
		if lo >= p.nblocks {
			p.cur = noMore
			return noMore
		}
		step, hi := 1, lo
		for hi < p.nblocks && p.lastDoc(hi) < target {
			lo = hi + 1
			hi += step
			step <<= 1
		}
		hi = min(hi, p.nblocks-1)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if p.lastDoc(m) < target {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo >= p.nblocks || p.lastDoc(lo) < target || !p.load(lo) {
			p.cur = noMore
			return noMore
		}
	}
	for {
		p.i++
		if p.i >= p.cnt {
			return p.nextDocFromBlockEnd()
		}
		if p.docs[p.i] >= target && p.fm[p.i]&p.mask != 0 {
			p.cur = p.docs[p.i]
			return p.cur
		}
	}
}

func (p *postings) nextDocFromBlockEnd() int32 {
	p.i = p.cnt - 1
	return p.nextDoc()
}

// positions appends the current document's positions in field f to dst.
func (p *postings) positions(dst []uint32, f int) []uint32 {
	if p.fm[p.i]&(1<<f) == 0 {
		return dst
	}
	if p.posAt > p.i {
		p.posAt, p.posRd = 0, 0
	}
	buf := p.pos
	rd := p.posRd
	skip := func(k int) bool {
		for ; k > 0; k-- {
			_, n := binary.Uvarint(buf[rd:])
			if n <= 0 {
				return false
			}
			rd += n
		}
		return true
	}
	for ; p.posAt < p.i; p.posAt++ {
		for g := range NumFields {
			if !skip(int(p.tfs[p.posAt][g])) {
				p.fail()
				return dst
			}
		}
	}
	p.posRd = rd
	for g := 0; g < f; g++ {
		if !skip(int(p.tfs[p.i][g])) {
			p.fail()
			return dst
		}
	}
	x := uint64(0)
	for range p.tfs[p.i][f] {
		d, n := binary.Uvarint(buf[rd:])
		if n <= 0 {
			p.fail()
			return dst
		}
		rd += n
		x += d
		dst = append(dst, uint32(x))
	}
	return dst
}
