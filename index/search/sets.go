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
// other out, rebuilt on every search (git history of BENCHMARKS.md). The same cache
// keeps the documents of a prefix or a stemmed word (expand.go) dense
// enough, counted by their postings' sum, and searched more than once,
// alone or in a conjunction (conjexpansion.go): it then counts by popcount or
// word-wise AND instead of unpacking hundreds of lists, and the second
// search keeps the bitset the first one counted (sets.probation). It
// keeps the matches of a phrase (phraseset.go) whose rarest list is
// dense and that is searched more than once (from its probation too),
// which then counts by popcount instead of checking positions. The sets are
// built from the index, so that a restart only costs the first searches
// their building, and read-only once built, so that searches share them.

// DefaultSets is the default budget of the sets.
const DefaultSets = 128 << 20

// denseRatio makes a list dense when it has at least N/denseRatio
// documents: at 64, a count ANDs the set's N/64 words where it would
// unpack at least N/64 postings, each costing more than a word.
const denseRatio = 64

// setKey names a set: a term's documents with a field of mask, or (term
// -1) those of the expansion of a prefix or a stemmed word (expand.go),
// named by words.
type setKey struct {
	term  int
	mask  uint8
	words string
}

// listKey names the set of p's list.
func listKey(p *postings) setKey { return setKey{term: p.term, mask: p.mask} }

type setEntry struct {
	bits []uint64
	used uint64 // the clock at its last use
	df   int64  // the postings a use saves unpacking
}

// sets is an Index's cache of dense term sets; the zero value (budget 0)
// keeps none.
type sets struct {
	budget int64
	mu     sync.Mutex
	bytes  int64
	clock  uint64
	m      map[setKey]*setEntry
	// asks counts the asks for each key, kept or not, halved now and
	// then so that it follows the recent searches. A set is built on its
	// second ask, and only if it fits in the budget or saves more than
	// the least recently used set it would push out: its asks times the
	// postings it saves unpacking (a list's documents, the sum of an
	// expansion's) are more than the other's. So a term searched once
	// does not push out the set of a term searched often, more frequent
	// terms than the budget holds do not push each other out on every
	// search, and a prefix of millions of postings is kept rather than a
	// word of a few hundred thousand asked as often.
	asks map[setKey]uint32
	// nasks counts the asks since asks was last halved.
	nasks int
	// probation holds the bitset (from Index.matches) of the last
	// expansion or phrase counted without a set being kept: one bitset
	// beyond the budget, so that the second ask of a prefix or a phrase,
	// which builds its set, takes it instead of unpacking its lists or
	// checking its positions again.
	probation struct {
		key  setKey
		bits *[]uint64 // nil: none
	}
}

// takeProbation returns the bitset on probation if it is k's, which the
// caller then owns; nil if not.
func (c *sets) takeProbation(k setKey) *[]uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.probation.bits == nil || c.probation.key != k {
		return nil
	}
	b := c.probation.bits
	c.probation.bits = nil
	return b
}

// onProbation reports whether the bitset on probation is k's.
func (c *sets) onProbation(k setKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.probation.bits != nil && c.probation.key == k
}

// probate puts bits, the documents of k, on probation and returns the
// bitset it replaces (nil if none), for the caller to pool.
func (c *sets) probate(k setKey, bits *[]uint64) *[]uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.probation.bits
	c.probation.key, c.probation.bits = k, bits
	return old
}

// halveEvery is how many asks pass between two halvings of the counts.
const halveEvery = 1 << 14

// dense reports whether a list (or an expansion) of df documents of n
// qualifies for a set.
func (c *sets) dense(df int64, n int32) bool {
	return c.budget >= setBytes(n) && df*denseRatio >= int64(n)
}

func setBytes(n int32) int64 { return (int64(n) + 63) / 64 * 8 }

// get returns the set of p's list if kept; build is whether the caller
// should build it (see sets.asks) and then add it.
func (c *sets) get(p *postings) (bits []uint64, build bool) {
	return c.getKey(listKey(p), int64(p.df), p.ix.n)
}

// getKey is get for the set named k, of df documents (at most) of n.
func (c *sets) getKey(k setKey, df int64, n int32) (bits []uint64, build bool) {
	if !c.dense(df, n) {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	c.ask(k)
	if e, ok := c.m[k]; ok {
		e.used = c.clock
		return e.bits, false
	}
	if c.asks[k] < 2 {
		return nil, false
	}
	if c.bytes+setBytes(n) <= c.budget {
		return nil, true
	}
	v := c.oldest()
	return nil, c.m[v] == nil || uint64(c.asks[k])*uint64(df) > uint64(c.asks[v])*uint64(c.m[v].df)
}

// ask counts an ask for k, halving the counts every halveEvery asks.
func (c *sets) ask(k setKey) {
	if c.asks == nil {
		c.asks = map[setKey]uint32{}
	}
	if c.nasks++; c.nasks >= halveEvery {
		c.nasks = 0
		for k, n := range c.asks {
			if n /= 2; n == 0 {
				delete(c.asks, k)
			} else {
				c.asks[k] = n
			}
		}
	}
	c.asks[k]++
}

// oldest returns the least recently used set's key (the zero key if
// none is kept).
func (c *sets) oldest() (k setKey) {
	var at uint64 = 1<<64 - 1
	for key, e := range c.m {
		if e.used < at {
			k, at = key, e.used
		}
	}
	return k
}

// kept returns the set of p's list if kept, counting the use as an ask;
// it never asks for a set to be built.
func (c *sets) kept(p *postings) []uint64 {
	if !c.dense(int64(p.df), p.ix.n) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := listKey(p)
	e, ok := c.m[k]
	if !ok {
		return nil
	}
	c.clock++
	c.ask(k) // keeps it against the sets that would push it out
	e.used = c.clock
	return e.bits
}

// add keeps bits as the set named k, which saves unpacking df postings
// a use, dropping the least recently used sets to stay within the
// budget.
func (c *sets) add(k setKey, bits []uint64, df int64) {
	size := int64(len(bits)) * 8
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok || size > c.budget {
		return // built by another search meanwhile, or too large
	}
	for c.bytes+size > c.budget {
		oldest := c.oldest()
		c.bytes -= int64(len(c.m[oldest].bits)) * 8
		delete(c.m, oldest)
	}
	if c.m == nil {
		c.m = map[setKey]*setEntry{}
	}
	c.clock++
	c.m[k] = &setEntry{bits: bits, used: c.clock, df: df}
	c.bytes += size
}
