package market

import (
	"math"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

// blockSearch finds the last block at or before a target time from block
// times read round by round (one or two blocks a round, read together),
// keeping a bracket: lo, the highest block known at or before the target,
// and hi, the lowest known after it. Before lo is known it steps back from
// hi by the rate observed between hi and the head (the configured block
// time at first); then it interpolates between lo and hi, reading the
// block interpolation names and the next one, so that on a chain of
// regular block times the round that lands also confirms; and it bisects
// across irregular times (a halted chain, a test chain that jumped a day),
// where the bracket's mean block time is far from the configured one, or
// after two interpolations in a row that did not halve the bracket. A
// target that the rate puts before genesis is bisected for (the chain is
// younger or jumped). Every block read lies inside the bracket, so each
// round narrows it, and the block found is the one a plain binary search
// over all block times finds.
type blockSearch struct {
	head   chain.Header
	target int64
	bt     float64 // the configured block time, seconds
	// lo.Time is math.MinInt64 while no block at or before the target is
	// known (lo.Number is then 0).
	lo, hi chain.Header
	// span is the bracket's width when the last round was planned, interp
	// whether that round interpolated, misses how many interpolations in a
	// row did not halve it.
	span   uint64
	interp bool
	misses int
}

// maxRounds bounds a search against a node whose block times are not
// monotonic; a chain's search ends long before.
const maxRounds = 96

func newBlockSearch(head chain.Header, target int64, bt float64) *blockSearch {
	if bt <= 0 {
		bt = 12
	}
	return &blockSearch{head: head, target: target, bt: bt, lo: chain.Header{Time: math.MinInt64}, hi: head}
}

func (s *blockSearch) loKnown() bool { return s.lo.Time != math.MinInt64 }

// resume starts from an earlier search's bracket when its lower end is
// still at or before the target and below the head, and its upper end
// with it when still after the target.
func (s *blockSearch) resume(lo, hi chain.Header) {
	if lo.Time <= s.target && lo.Number < s.hi.Number {
		s.lo = lo
		if hi.Time > s.target && hi.Number <= s.hi.Number {
			s.hi = hi
		}
	}
}

// run reads first (when given), then the rounds next plans, until the
// bracket closes, and returns the block found: lo, or 0 when every block
// read was after the target.
func (s *blockSearch) run(first []uint64, read func([]uint64) ([]chain.Header, error)) (uint64, error) {
	for round := 0; round < maxRounds && s.hi.Number-s.lo.Number > 1; round++ {
		ns := first
		first = nil
		if len(ns) == 0 {
			ns = s.next()
		}
		hs, err := read(ns)
		if err != nil {
			return 0, err
		}
		for _, h := range hs {
			s.see(h)
		}
	}
	if !s.loKnown() {
		return 0, nil
	}
	return s.lo.Number, nil
}

// see narrows the bracket by a block read.
func (s *blockSearch) see(h chain.Header) {
	switch {
	case h.Time <= s.target:
		if !s.loKnown() || h.Number > s.lo.Number {
			s.lo = h
		}
	case h.Number < s.hi.Number:
		s.hi = h
	}
}

// inside reports whether block n lies strictly inside the bracket.
func (s *blockSearch) inside(n int64) bool {
	return n < int64(s.hi.Number) && (n > int64(s.lo.Number) || !s.loKnown() && n >= 0)
}

// around is n, the block expected to be the last at or before the target,
// and n+1, which confirms it, as far as they lie inside the bracket.
func (s *blockSearch) around(n uint64) []uint64 {
	var out []uint64
	for _, x := range []int64{int64(n), int64(n) + 1} {
		if s.inside(x) {
			out = append(out, uint64(x))
		}
	}
	return out
}

// next plans a round: the blocks to read.
func (s *blockSearch) next() []uint64 {
	lo, hi := s.lo, s.hi
	width := hi.Number - lo.Number
	if s.interp {
		if width > s.span/2 {
			s.misses++
		} else {
			s.misses = 0
		}
	}
	s.span, s.interp = width, false
	mid := int64(lo.Number+hi.Number) / 2
	if !s.loKnown() {
		// Back from hi by the rate observed between it and the head.
		rate := s.bt
		if hi.Number < s.head.Number {
			if r := float64(s.head.Time-hi.Time) / float64(s.head.Number-hi.Number); r > 0 {
				rate = r
			}
		}
		g := int64(hi.Number) - int64(math.Ceil(float64(hi.Time-s.target)/rate))
		if hi.Number < s.head.Number {
			g-- // a step that fell short: past the target this time
		}
		if g <= 0 {
			// Before genesis at that rate: the time jumped, or the chain
			// is younger.
			g = mid
		}
		return []uint64{uint64(max(g, 0))}
	}
	mean := float64(hi.Time-lo.Time) / float64(width)
	if mean > 4*s.bt || mean < s.bt/4 || s.misses >= 2 {
		s.misses = 0
		return []uint64{uint64(mid)}
	}
	s.interp = true
	frac := float64(s.target-lo.Time) / float64(hi.Time-lo.Time)
	return s.around(lo.Number + uint64(frac*float64(width)))
}
