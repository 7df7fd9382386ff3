package search

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
)

// The term dictionary (FORMAT.md): the terms in byte order, in blocks of
// termBlock. A block's first term is written whole, the others as the
// length of the prefix they share with the term before and the rest, so
// that the many terms of a common prefix (DOIs of one registrant, words
// of one stem, pair terms of one word) keep their own bytes only. A term
// is found by a binary search over the blocks' first terms and a walk of
// one block.
const termBlock = 16

// termRec is what the dictionary records of one term. A prefix term
// (isPrefixTerm) has its sets at SkipOff instead of postings.
type termRec struct {
	SkipOff uint64 // file offset of the term's skip table
	DF      uint32 // documents
}

// dictWriter writes the dictionary's two sections to spools: term_idx,
// the offset of each block in term_blocks, and term_blocks.
type dictWriter struct {
	idx, blk *spool
	n        int64 // terms written
	prev     []byte
	prevOff  uint64
	buf      []byte
}

// add appends the next term, in byte order, and its record. Skip offsets
// increase with the terms (their lists are written in term order).
func (d *dictWriter) add(term []byte, rec termRec) error {
	b := d.buf[:0]
	if d.n%termBlock == 0 {
		if err := d.idx.write(binary.LittleEndian.AppendUint64(nil, uint64(d.blk.n))); err != nil {
			return err
		}
		b = binary.AppendUvarint(b, uint64(len(term)))
		b = append(b, term...)
		b = binary.AppendUvarint(b, uint64(rec.DF))
		b = binary.AppendUvarint(b, rec.SkipOff)
	} else {
		if rec.SkipOff < d.prevOff || bytes.Compare(term, d.prev) <= 0 {
			return fmt.Errorf("%w: term %q (offset %d) after %q (%d)", ErrWriteOrder, term, rec.SkipOff, d.prev, d.prevOff)
		}
		shared := 0
		for shared < len(term) && shared < len(d.prev) && term[shared] == d.prev[shared] {
			shared++
		}
		b = binary.AppendUvarint(b, uint64(shared))
		b = binary.AppendUvarint(b, uint64(len(term)-shared))
		b = append(b, term[shared:]...)
		b = binary.AppendUvarint(b, uint64(rec.DF))
		b = binary.AppendUvarint(b, rec.SkipOff-d.prevOff)
	}
	d.buf = b
	d.prev = append(d.prev[:0], term...)
	d.prevOff = rec.SkipOff
	d.n++
	return d.blk.write(b)
}

// finish writes term_idx's last offset: the end of term_blocks.
func (d *dictWriter) finish() error {
	return d.idx.write(binary.LittleEndian.AppendUint64(nil, uint64(d.blk.n)))
}

// termCursor walks the dictionary in term order from a term on.
type termCursor struct {
	ix   *Index
	t    int    // the current term
	blk  []byte // its block
	at   int    // the next entry's offset in blk
	term []byte // the current term's bytes, overwritten by next
	rec  termRec
}

// nBlocks is the number of dictionary blocks.
func (ix *Index) nBlocks() int { return (ix.nTerms + termBlock - 1) / termBlock }

// block returns dictionary block j's bytes, nil if damaged.
func (ix *Index) block(j int) []byte {
	if j < 0 || j+1 >= len(ix.termIdx) {
		return nil // past the last term
	}
	lo, hi := ix.termIdx[j], ix.termIdx[j+1]
	if lo >= hi || hi > uint64(len(ix.termBlk)) {
		return nil
	}
	return ix.termBlk[lo:hi]
}

// head returns the first term of block j, in place; nil if damaged.
func (ix *Index) head(j int) []byte {
	b := ix.block(j)
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil
	}
	return b[k : k+int(n)]
}

// cursor returns a cursor at term t (0 <= t < nTerms); ok is false if
// the dictionary is damaged.
func (ix *Index) cursor(t int) (c termCursor, ok bool) {
	c = termCursor{ix: ix, t: t &^ (termBlock - 1)}
	if !c.load() {
		return c, false
	}
	for c.t < t {
		if !c.next() {
			return c, false
		}
	}
	return c, true
}

// load decodes the first entry of the block of c.t.
func (c *termCursor) load() bool {
	c.blk = c.ix.block(c.t / termBlock)
	c.at = 0
	return c.blk != nil && c.entry(true)
}

// next moves to the next term; false after the last one or if the
// dictionary is damaged.
func (c *termCursor) next() bool {
	c.t++
	if c.t >= c.ix.nTerms {
		return false
	}
	if c.t%termBlock == 0 {
		return c.load()
	}
	return c.entry(false)
}

// entry decodes the entry at c.at.
func (c *termCursor) entry(first bool) bool {
	shared := uint64(0)
	var ok bool
	if !first {
		if shared, ok = c.uvarint(); !ok || shared > uint64(len(c.term)) {
			return false
		}
	}
	n, ok := c.uvarint()
	if !ok || n > uint64(len(c.blk)-c.at) {
		return false
	}
	c.term = append(c.term[:shared], c.blk[c.at:c.at+int(n)]...)
	c.at += int(n)
	df, ok1 := c.uvarint()
	off, ok2 := c.uvarint()
	if !ok1 || !ok2 || df > 1<<32-1 {
		return false
	}
	c.rec.DF = uint32(df)
	if first {
		c.rec.SkipOff = off
	} else {
		c.rec.SkipOff += off
	}
	return true
}

func (c *termCursor) uvarint() (uint64, bool) {
	x, n := uvarint(c.blk, c.at)
	c.at += n
	return x, n > 0
}

// term returns the bytes of term t (a copy), nil if damaged.
func (ix *Index) term(t int) []byte {
	c, ok := ix.cursor(t)
	if !ok {
		return nil
	}
	return c.term
}

// rec returns term t's record; zero if damaged (its list then fails to
// open: a zero offset is outside the postings).
func (ix *Index) rec(t int) termRec {
	var rec termRec
	ix.walkRecs(t, t+1, func(r termRec) { rec = r })
	return rec
}

// seek returns a cursor at the first term >= s; ok is false when there
// is none (or the dictionary is damaged).
func (ix *Index) seek(s string) (c termCursor, ok bool) {
	nb := ix.nBlocks()
	// The first block whose first term is above s: s is in the one before.
	j := sort.Search(nb, func(j int) bool { return string(ix.head(j)) > s })
	if j == 0 {
		c, ok = ix.cursor(0)
		return c, ok && ix.nTerms > 0
	}
	c, ok = ix.cursor((j - 1) * termBlock)
	for ok && string(c.term) < s {
		ok = c.next()
	}
	return c, ok
}

// seekNum is seek's term number, nTerms when no term is >= s.
func (ix *Index) seekNum(s string) int {
	c, ok := ix.seek(s)
	if !ok {
		return ix.nTerms
	}
	return c.t
}

// lookup returns the number of a term, or -1.
func (ix *Index) lookup(term string) int {
	t, _ := ix.lookupRec(term)
	return t
}

// lookupRec returns the number of a term and its record, or -1.
func (ix *Index) lookupRec(term string) (int, termRec) {
	if c, ok := ix.seek(term); ok && string(c.term) == term {
		return c.t, c.rec
	}
	return -1, termRec{}
}

// prefixRange returns the terms starting with p: lo..hi-1.
func (ix *Index) prefixRange(p string) (int, int) {
	lo := ix.seekNum(p)
	// The terms with prefix p are those from p up to p's successor: p
	// without its trailing 0xff bytes, its last byte incremented.
	q := []byte(p)
	for len(q) > 0 && q[len(q)-1] == 0xff {
		q = q[:len(q)-1]
	}
	if len(q) == 0 {
		return lo, ix.nTerms
	}
	q[len(q)-1]++
	return lo, max(lo, ix.seekNum(string(q)))
}

// walkRecs calls visit with the records of the terms lo..hi-1 in order,
// skipping the terms' bytes that walk rebuilds; false if the dictionary
// is damaged.
func (ix *Index) walkRecs(lo, hi int, visit func(rec termRec)) bool {
	for j := lo / termBlock; j*termBlock < hi; j++ {
		b := ix.block(j)
		var rec termRec
		at := 0
		for t := j * termBlock; t < min(hi, (j+1)*termBlock); t++ {
			var v [4]uint64 // shared (not the first), length, df, offset
			for k := range v {
				if k == 0 && t%termBlock == 0 {
					continue
				}
				x, n := uvarint(b, at)
				if n <= 0 || k == 1 && x > uint64(len(b)-at-n) {
					return false
				}
				v[k], at = x, at+n
				if k == 1 {
					at += int(x)
				}
			}
			if v[2] > 1<<32-1 {
				return false
			}
			rec.DF = uint32(v[2])
			if t%termBlock == 0 {
				rec.SkipOff = v[3]
			} else {
				rec.SkipOff += v[3]
			}
			if t >= lo {
				visit(rec)
			}
		}
	}
	return true
}

// walk calls visit with the terms lo..hi-1 in order, their bytes (valid
// until visit returns) and records, until visit returns false; false if
// the dictionary is damaged.
func (ix *Index) walk(lo, hi int, visit func(t int, term []byte, rec termRec) bool) bool {
	if lo >= hi {
		return true
	}
	c, ok := ix.cursor(lo)
	for ok {
		if !visit(c.t, c.term, c.rec) || c.t+1 >= hi {
			return true
		}
		ok = c.next()
	}
	return false
}
