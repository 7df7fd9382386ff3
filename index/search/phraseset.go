package search

import "context"

// A phrase of frequent words may have millions of candidate documents,
// each checked position by position: at 10M documents "natural resource
// economics" has 1.5M matches and took 155 ms of CPU, every time it was
// searched (git history of BENCHMARKS.md). Its matches, as a bitset of the corpus, are
// kept among the sets (sets.go) as a frequent term's are, when a plain
// scan searches it more than once and its rarest list has at least 1/64
// of the documents (the walk visits about as many candidates, however
// few match): its first search records the matches of its walk and
// leaves them on probation (sets.probation), the second keeps them as its
// set; both, and later ones, count by popcount and rank a window of
// documents at a time, skipping a window without a match or whose words'
// block bounds cannot enter the page, and scoring the others' matches as
// the walk does, the phrase's lists advanced to each.

// phrase counts and ranks a phrase of several lists (a lone pair term is
// a lister) in a plain scan.
func (s *scan) phrase(ctx context.Context, p *phraseIter) error {
	n, df := s.ix.n, p.cost() // the rarest list's documents
	set, build := s.ix.sets.getKey(p.key, df, n)
	if set != nil {
		return s.phraseSet(ctx, p, set)
	}
	if m := s.ix.sets.takeProbation(p.key); m != nil {
		defer s.ix.keepBits(p.key, m, df, build)
		return s.phraseSet(ctx, p, *m)
	}
	if !s.ix.sets.dense(df, n) {
		return s.iter(ctx, p)
	}
	m := s.ix.scratchSet()
	s.record = *m
	err := s.iter(ctx, p)
	s.record = nil
	if err != nil || p.damaged() {
		s.ix.putSet(m)
		return err
	}
	s.ix.keepBits(p.key, m, df, build)
	return nil
}

// damaged reports whether one of the phrase's lists is damaged.
func (p *phraseIter) damaged() bool {
	for _, ts := range [][]*termIter{p.parts, p.words} {
		for _, t := range ts {
			if t.p.bad {
				return true
			}
		}
	}
	return false
}

// phraseSet counts the phrase's matches in its kept set and ranks them a
// window of documents at a time.
func (s *scan) phraseSet(ctx context.Context, p *phraseIter, set []uint64) error {
	s.ix.phraseSetScans.Add(1)
	s.total = popcount(set) - deletedIn(set, s.del, 0)
	scorers := p.words
	if scorers == nil {
		scorers = p.parts
	}
	// Windows of 1024 documents by default: at 10M documents, a window of
	// 4096 whose words are frequent is seldom skipped (git history of BENCHMARKS.md).
	win, n := max(s.ix.conjWindow/64, 1), s.ix.n
	from := make([]int, len(scorers)) // each scorer's first block that may overlap
	for lo, w := int32(0), 0; lo < n && s.top.k > 0; lo, w = lo+win, w+1 {
		if w%256 == 255 {
			if err := yield(ctx); err != nil {
				return err
			}
		}
		hi := min(lo+win, n) - 1
		if !anySet(set, lo, hi) {
			continue
		}
		bound := 0.0
		for i, t := range scorers {
			bound += t.rangeBound(&from[i], lo, hi)
		}
		if s.prunable(bound) {
			continue
		}
		for d := range setBits(set, lo, hi) {
			if !p.at(d) {
				return nil // damaged: Search reports it
			}
			s.rank(d, p)
		}
	}
	// Every match not kept ranks after the page.
	s.beyond = s.total - int64(len(s.top.heap))
	return nil
}

// at puts the phrase on its match d, every list advanced to it; false
// if a list does not hold it (damaged).
func (p *phraseIter) at(d int32) bool {
	for _, t := range p.parts {
		if t.p.advance(d) != d {
			t.p.fail()
			return false
		}
	}
	p.and.cur = d
	return true
}
