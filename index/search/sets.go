package search

import (
	"sync"
)

// A conjunction's count (conj.go) unpacks every posting of its lists,
// and a frequent term's list is long: at 10M documents a word in a third
// of them costs tens of milliseconds to unpack, on every search that
// names it. The documents of such a list, as a bitset of the corpus
// (N/8 bytes), count in a conjunction by word-wise AND and popcount, and
// tell a conjunction whether a document has the term without unpacking
// the list (termIter.lacks). sets keeps the bitsets of dense lists that
// the counted conjunctions (conj.go) asked for more than once, within a
// byte budget, least recently used first out; every conjunction reads
// those kept. Only those conjunctions ask: at 10M documents, letting
// every conjunction ask made the sets of a benchmark's terms push each
// other out, rebuilt on every search (BENCHMARKS.md). The sets are
// built from the index, so that a restart only costs the first searches
// their building, and read-only once built, so that searches share them.

// DefaultSets is the default budget of the dense term sets.
const DefaultSets = 128 << 20

// denseRatio makes a list dense when it has at least N/denseRatio
// documents: at 64 its bitset is smaller than about ten bits a posting,
// which a frequent list's doc part takes too.
const denseRatio = 64

// setKey names a set: a term's documents with a field of mask.
type setKey struct {
	term int
	mask uint8
}

type setEntry struct {
	bits []uint64
	used uint64 // the clock at its last use
}

// sets is an Index's cache of dense term sets; the zero value (budget 0)
// keeps none.
type sets struct {
	budget int64
	mu     sync.Mutex
	bytes  int64
	clock  uint64
	m      map[setKey]*setEntry
	// asked are the keys asked for once and not kept: the second ask
	// builds the set, so that a term searched once does not push out
	// the sets of terms searched often.
	asked map[setKey]struct{}
}

// maxAsked bounds asked: past it, the record starts over.
const maxAsked = 1 << 14

// dense reports whether p's list qualifies for a set.
func (c *sets) dense(p *postings) bool {
	return c.budget >= setBytes(p.ix.n) && int64(p.df)*denseRatio >= int64(p.ix.n)
}

func setBytes(n int32) int64 { return (int64(n) + 63) / 64 * 8 }

// get returns the set of p's list if kept; build is whether the caller
// should build it (it is dense and asked for before) and then add it.
func (c *sets) get(p *postings) (bits []uint64, build bool) {
	if !c.dense(p) {
		return nil, false
	}
	k := setKey{p.term, p.mask}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	if e, ok := c.m[k]; ok {
		e.used = c.clock
		return e.bits, false
	}
	if _, ok := c.asked[k]; ok {
		return nil, true
	}
	if c.asked == nil || len(c.asked) >= maxAsked {
		c.asked = map[setKey]struct{}{}
	}
	c.asked[k] = struct{}{}
	return nil, false
}

// kept returns the set of p's list if kept, without asking for it.
func (c *sets) kept(p *postings) []uint64 {
	if !c.dense(p) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[setKey{p.term, p.mask}]
	if !ok {
		return nil
	}
	c.clock++
	e.used = c.clock
	return e.bits
}

// add keeps bits as the set of p's list, dropping the least recently
// used sets to stay within the budget.
func (c *sets) add(p *postings, bits []uint64) {
	k := setKey{p.term, p.mask}
	size := int64(len(bits)) * 8
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok || size > c.budget {
		return // built by another search meanwhile
	}
	for c.bytes+size > c.budget {
		var oldest setKey
		var at uint64 = 1<<64 - 1
		for k, e := range c.m {
			if e.used < at {
				oldest, at = k, e.used
			}
		}
		c.bytes -= int64(len(c.m[oldest].bits)) * 8
		delete(c.m, oldest)
	}
	if c.m == nil {
		c.m = map[setKey]*setEntry{}
	}
	c.clock++
	c.m[k] = &setEntry{bits: bits, used: c.clock}
	c.bytes += size
	delete(c.asked, k)
}
