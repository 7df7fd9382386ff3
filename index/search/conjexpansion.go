package search

import (
	"context"
	"math"
	"slices"
)

// A prefix or a stemmed word next to other words ("cons* science") is a
// conjunction whose one part is an expansion, hundreds of lists scored by
// their best (expand.go). Walked as any conjunction, the rarest part
// leading, each of the leader's documents advances the expansion's
// lists, a window union over them, and at 10M documents such a search
// took 100 to 175 ms of CPU with a frequent word (git history of BENCHMARKS.md). conj
// takes it instead when the lists are not too long (asConj):
//
//   - count: the expansion's documents are a bitset of the corpus, its
//     kept set or filled by ORing its lists (expansionSet), which the
//     count windows read as they read a term's kept set;
//   - rank: as scan.bestLists ranks an expansion alone, its lists one after
//     another from the highest bound, reading only the blocks whose
//     bound, plus the terms' bounds over the block's documents, can enter
//     the page; each of their documents among the matches is scored with
//     the terms, and one offered by several words keeps its best score.
//
// Most of such a search is the words' blocks that pass that test (at 1M
// documents `re* al` reads 2 900 blocks of 190 words; with the page's
// last score known from the start, 2 800 would pass), and in each a few
// matches at most can enter the page. So a block is probed before it is
// loaded (conjprobe.go): its impacts say which of its documents can
// (the word's bound on each, plus the terms' over the block), its gaps
// are unpacked only up to the last of those, and only those among the
// matches are kept. Each is bounded again by the terms' blocks that hold
// it, then by the terms' impacts, then by their scores, and the word's
// block is loaded and its frequencies decoded only for a match that
// still can enter the page (65 of the 890 probed out at 1M).
//
// The sum of a document's scores is taken in the order andIter.score
// takes it, and a sum is monotone in each of its parts, so the best of
// the sums is the sum with the best word: the scores are those of the
// generic walk, to the bit.

// expMember is a conjunction's expansion.
type expMember struct {
	u  *unionIter
	ts []*termIter // its lists
	df int64       // their documents' sum
	// set is its kept set (sets.go), nil if none; build is whether the
	// count builds it.
	set   []uint64
	build bool
}

// splitExpansion returns a's terms, by cost, and its one expansion; a
// nil expansion if a has no term, more than one expansion, or another
// kind of part, or an expansion's dictionary entry is damaged.
func splitExpansion(a *andIter) ([]*termIter, *expMember) {
	var pos []*termIter
	var exp *expMember
	for _, it := range a.its {
		switch it := it.(type) {
		case *termIter:
			pos = append(pos, it)
		case *unionIter:
			if exp != nil || !it.expansion() {
				return nil, nil
			}
			ts, df, ok := it.words()
			if !ok {
				return nil, nil // Search reports the damage
			}
			exp = &expMember{u: it, ts: ts, df: df}
		default:
			return nil, nil
		}
	}
	if len(pos) == 0 {
		return nil, nil
	}
	return pos, exp
}

// cost asks for the expansion's set and returns what the count pays to
// read the expansion, in postings of a term's list: nothing when its set
// is kept, built or on probation, or in the index, else a share of its
// lists' postings.
// A walk of the conjunction advances the expansion's lists, up to 256, to
// each of the rarest term's documents (a window union over them), where
// filling the expansion's bitset unpacks each posting once. With
// conjSkew, an expansion up to 16 times as long as the term is filled: at
// 10M documents, the first search of such a conjunction, which fills,
// beat the walk for the large prefixes measured (git history of BENCHMARKS.md).
func (e *expMember) cost(ix *Index) int64 {
	if e.set, e.build = ix.sets.getKey(e.u.key, e.df, ix.n); e.set != nil || e.build || ix.sets.onProbation(e.u.key) {
		return 0
	}
	if e.u.prefixBits != nil {
		return 0 // the index's bitset of a prefix (prefixes.go; in a segment, corrected: multifirst.go): a copy
	}
	return e.df / expansionWalk
}

// expansionWalk is how many of an expansion's postings the count fills
// for the cost of advancing a term's list to one document in a walk.
const expansionWalk = 4

// rankBest offers the conjunction's matches (c.match) to the page word
// after word of its expansion, from the highest bound, while the word's
// bound plus the terms' can enter it.
func (c *conj) rankBest(ctx context.Context, ev *evaluator, s *scan) error {
	ts := c.exp.ts
	terms := 0.0
	c.span, c.spans = ev.ix.conjWindow/4, make([][]float64, len(c.pos))
	c.bounds = make([][]float64, len(c.pos))
	for k, t := range c.pos {
		terms += t.topBound()
		c.spans[k] = t.spans(ev.ix.n, c.span)
		c.bounds[k] = t.blockBounds()
	}
	tops, order := topBounds(ts) // of lists opened or pending (multilazy.go)
	r := &wordRank{offered: map[int32]bool{}, from: make([]int, len(c.pos)), at: make([]int, len(c.pos))}
	for j, i := range order {
		if s.prunable(tops[i] + terms) {
			break // and so are the words after it
		}
		if j%64 == 63 {
			if err := yield(ctx); err != nil {
				return err
			}
		}
		if ev.open(ts[i]); ts[i].p.bad || !c.rankWord(ev, s, ts[i], r) {
			return nil // damaged: Search reports it
		}
	}
	return nil
}

// wordRank is what rankWord keeps from one word to the next.
type wordRank struct {
	offered map[int32]bool // the documents offered (scan.offer)
	// terms are the conjunction's terms (terms[k] scores c.pos[k]) on lists
	// of their own, opened at the first match scored and rewound for each
	// word.
	terms  []*termIter
	scores []float64 // the terms' scores on a match
	// from and at are each term's first block that may hold a document
	// of the word's block (termsBound) and of its match (boundAt).
	from, at []int
	probe    []probed // the matches of a block that probe finds
}

// rankWord offers the matches among word w's documents whose bound can
// enter the page; false if a list is damaged. A block of the word is
// probed (probe) before it is loaded: only those of its matches whose
// impact, plus the terms' bound over the block, can enter the page are
// read, bounded by the terms' blocks that hold them, and scored if they
// still can; most blocks are never loaded.
func (c *conj) rankWord(ev *evaluator, s *scan, w *termIter, r *wordRank) bool {
	p := w.p
	clear(r.from)
	clear(r.at)
	for b := 0; b < p.nblocks; b++ {
		if p.maskOr(b)&p.mask == 0 {
			continue
		}
		lo, hi := int32(0), p.lastDoc(b)
		if b > 0 {
			lo = p.lastDoc(b-1) + 1
		}
		others := c.termsBound(r.from, lo, hi)
		if math.IsInf(others, -1) || s.prunable(w.blockBound(b)+others) {
			continue // no match here, or none that can enter the page
		}
		if hi-lo < 4*c.span && !anySet(c.match, lo, hi) {
			continue // a frequent word's block among few matches
		}
		var ok bool
		if r.probe, ok = w.probe(b, c.match, s, others, r.probe[:0]); !ok {
			return false
		}
		for _, m := range r.probe {
			at := 0.0
			for k, t := range c.pos {
				at += t.boundFrom(&r.at[k], m.doc)
			}
			if s.prunable(m.bound + at) {
				continue
			}
			if r.terms == nil {
				r.terms, r.scores = make([]*termIter, len(c.pos)), make([]float64, len(c.pos))
				for k, t := range c.pos {
					r.terms[k] = ev.termIter(t.p.term, t.p.mask)
				}
			}
			// The terms' scores, then the word's if the page can still
			// take the match: the impact bounds the word's closely, the
			// block the terms' loosely.
			terms := 0.0
			for _, t := range r.terms {
				if t.p.cur > m.doc {
					t.p.rewind() // a word after another, from its first document
				}
				if t.p.advance(m.doc) != m.doc {
					return false // damaged, and reported
				}
				terms += t.bound()
			}
			if s.prunable(m.bound + terms) {
				continue // by the terms' impacts, their frequencies not decoded
			}
			terms = 0
			for k, t := range r.terms {
				r.scores[k] = t.score()
				terms += r.scores[k]
			}
			if s.prunable(m.bound + terms) {
				continue
			}
			if p.blk != b && !p.load(b) {
				return false
			}
			if p.docs[m.i] != m.doc {
				return p.fail() // damaged: the probe read other gaps
			}
			p.i, p.cur = m.i, m.doc
			score := c.sum(r.scores, w.score())
			s.offer(m.doc, score, r.offered)
		}
	}
	return true
}

// termsBound bounds the sum of the terms' scores on documents lo..hi,
// -Inf if a term has none of them: by the terms' blocks over a narrow
// span, as conj.rank does, by their spans over a wide one. A rare word's
// block may span the corpus, and a frequent term's blocks over it are
// tens of thousands: read one by one for each word of a prefix, they
// cost more than the rest of its search (git history of BENCHMARKS.md).
func (c *conj) termsBound(from []int, lo, hi int32) float64 {
	s := 0.0
	for k, t := range c.pos {
		if hi-lo < 4*c.span {
			s += t.rangeBoundOf(c.bounds[k], &from[k], lo, hi)
			continue
		}
		b := math.Inf(-1)
		sp := c.spans[k]
		for i := max(lo, 0) / c.span; i <= hi/c.span && int(i) < len(sp); i++ {
			b = max(b, sp[i])
		}
		s += b
	}
	return s
}

// blockBounds returns the bound of each of the term's blocks, -Inf for a
// block without a wanted field: read once for all the words of an
// expansion, which bound the term over their blocks.
func (t *termIter) blockBounds() []float64 {
	p := t.p
	if p.bad {
		return nil // rangeBoundOf reads no bound of a damaged list
	}
	bs := make([]float64, p.nblocks)
	for b := range bs {
		bs[b] = math.Inf(-1)
		if p.maskOr(b)&p.mask != 0 {
			bs[b] = t.blockBound(b)
		}
	}
	return bs
}

// boundFrom is boundAt galloping over the skip table: a word's matches
// lie far apart in a term's list.
func (t *termIter) boundFrom(from *int, d int32) float64 {
	p := t.p
	if p.bad {
		return math.Inf(1) // no skip table: Search reports the damage
	}
	if p.blockFrom(from, d); *from == p.nblocks {
		return 0
	}
	return t.blockBound(*from)
}

// rangeBoundOf is rangeBound with the blocks' bounds bs (blockBounds).
func (t *termIter) rangeBoundOf(bs []float64, from *int, lo, hi int32) float64 {
	p := t.p
	if p.bad {
		return math.Inf(1) // no skip table: Search reports the damage
	}
	p.blockFrom(from, lo)
	best := math.Inf(-1)
	for b := *from; b < len(bs); b++ {
		best = max(best, bs[b])
		if p.lastDoc(b) >= hi {
			break
		}
	}
	return best
}

// spans returns the term's bound over each span of size documents of
// the n: the largest bound of its blocks with a wanted field that
// overlap it, -Inf if none does (+Inf everywhere if the list is damaged).
func (t *termIter) spans(n, size int32) []float64 {
	s := make([]float64, n/size+1)
	p := t.p
	if p.bad {
		for i := range s {
			s[i] = math.Inf(1)
		}
		return s
	}
	for i := range s {
		s[i] = math.Inf(-1)
	}
	lo := int32(0)
	for b := range p.nblocks {
		hi := p.lastDoc(b)
		if p.maskOr(b)&p.mask != 0 {
			x := t.blockBound(b)
			for i := max(lo, 0) / size; i <= hi/size && int(i) < len(s); i++ {
				s[i] = max(s[i], x)
			}
		}
		lo = hi + 1
	}
	return s
}

// sum is a match's score with exp for the expansion's and scores[k] for
// c.pos[k]'s, summed in andIter.score's order.
func (c *conj) sum(scores []float64, exp float64) float64 {
	s := 0.0
	for _, it := range c.and.query {
		if it == iterator(c.exp.u) {
			s += exp
			continue
		}
		s += scores[slices.Index(c.pos, it.(*termIter))]
	}
	return s
}
