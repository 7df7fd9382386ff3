package search

import (
	"cmp"
	"context"
	"math/bits"
	"slices"
)

// A union of many terms (a prefix expands to up to 256) has as many
// matches as its lists together, most of them from its most frequent
// terms, whose low idf rarely lets a document of theirs into the page.
// When nothing but the total and a relevance-ordered page is asked, disj
// answers a union of terms in two passes instead of visiting each match:
//
//   - count: a window of documents at a time, every list sets the bits of
//     its documents in one bitset, whose bits are counted;
//   - rank (MaxScore): the terms are ordered by their largest bound; once
//     the page is full, the terms whose bounds together cannot reach the
//     worst score kept are non-essential: a document they alone match
//     cannot enter the page, so only the essential terms' documents are
//     walked, and scored (all terms counting) when their bound, plus the
//     non-essential terms' bounds, beats the worst score kept.
//
// The total and the page are the generic path's.

// disj is an eligible union: its terms, and their scorers (the same terms
// opened again, advanced only to the documents scored).
type disj struct {
	terms, scorers []*termIter
}

// asDisj returns it as a disj when it is a scored union of terms.
func asDisj(it iterator) (*disj, bool) {
	u, ok := it.(*unionIter)
	if !ok || !u.scoring || len(u.scorers) != len(u.its) {
		return nil, false
	}
	d := &disj{}
	for i, c := range u.its {
		t, ok1 := c.(*termIter)
		sc, ok2 := u.scorers[i].(*termIter)
		if !ok1 || !ok2 {
			return nil, false
		}
		d.terms, d.scorers = append(d.terms, t), append(d.scorers, sc)
	}
	return d, true
}

// scan counts the union and ranks its matches into s.
func (d *disj) scan(ctx context.Context, ev *evaluator, s *scan) error {
	ev.ix.disjScans.Add(1)
	total, err := d.count(ctx, ev)
	if err != nil {
		return err
	}
	if s.top.k > 0 {
		if err := d.rank(ctx, s); err != nil {
			return err
		}
	}
	s.total, s.beyond = total, total-int64(len(s.top.heap))
	return nil
}

// count counts the documents of any of the lists, fresh ones.
func (d *disj) count(ctx context.Context, ev *evaluator) (int64, error) {
	ls := ev.windowLists(d.terms)
	win := ev.ix.conjWindow
	acc := make([]uint64, win/64)
	var total int64
	for w, from := 0, int32(0); ; w++ {
		if w%64 == 63 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		next := int32(noMore)
		for _, l := range ls {
			next = min(next, l.first(from))
		}
		if next == noMore {
			break
		}
		base := next - next%win
		from = base + min(win, noMore-base)
		clear(acc)
		for _, l := range ls {
			l.fill(acc, base, win)
		}
		total += popcount(acc)
	}
	return total, nil
}

// rank offers the essential terms' documents that can enter the page.
func (d *disj) rank(ctx context.Context, s *scan) error {
	n := len(d.terms)
	// order: the terms by their largest bound, ascending; cum[i] the sum
	// of the bounds of order[:i+1].
	order := make([]int, n)
	maxB := make([]float64, n)
	for i, t := range d.terms {
		order[i], maxB[i] = i, t.maxBound()
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(maxB[a], maxB[b]) })
	cum := make([]float64, n)
	sum := 0.0
	for i, t := range order {
		sum += maxB[t]
		cum[i] = sum
	}
	ess := 0 // order[ess:] are the essential terms
	next := make([]int32, n)
	for i, t := range d.terms {
		next[i] = t.p.nextDoc()
	}
	win := min(unionWindow, s.ix.conjWindow) // smaller in tests
	words := make([]uint64, win/64)
	bacc := make([]float64, win)
	sc := &disjScore{d: d}
	for w := 0; ; w++ {
		if w%64 == 63 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rest := 0.0 // the non-essential terms' bounds
		if s.top.full() {
			for ess < n && cum[ess] <= s.top.worstScore() {
				ess++
			}
			if ess == n {
				return nil // no document left can enter the page
			}
			if ess > 0 {
				rest = cum[ess-1]
			}
		}
		base := int32(noMore)
		for _, i := range order[ess:] {
			base = min(base, next[i])
		}
		if base == noMore {
			return nil
		}
		end := base + min(win, noMore-base)
		clear(words)
		for _, i := range order[ess:] {
			next[i] = d.terms[i].fillBounds(words, bacc, base, end, next[i])
		}
		for k, word := range words {
			for word != 0 {
				x := k<<6 + bits.TrailingZeros64(word)
				word &= word - 1
				doc := base + int32(x)
				sc.doc, sc.b = doc, bacc[x]+rest
				s.rank(doc, sc)
			}
		}
	}
}

// fillBounds marks in words the term's documents of base..end-1 from its
// current one, cur, adding their bounds to bacc (setting them for the
// first term on a document), and returns its first document from end on.
func (t *termIter) fillBounds(words []uint64, bacc []float64, base, end, cur int32) int32 {
	p := t.p
	d := cur
	for ; d < end; d = p.nextDoc() {
		k := d - base
		w, bit := &words[k>>6], uint64(1)<<(k&63)
		if *w&bit == 0 {
			bacc[k] = t.bound()
		} else {
			bacc[k] += t.bound()
		}
		*w |= bit
	}
	return d
}

// maxBound bounds the term's score on any of its documents with a wanted
// field: its largest block bound.
func (t *termIter) maxBound() float64 {
	p := t.p
	best := 0.0
	for b := range p.nblocks {
		if p.maskOr(b)&p.mask != 0 {
			best = max(best, t.blockBound(b))
		}
	}
	return best
}

// disjScore is the rank's view of one document: its bound, and its score
// summed over every term in the union's order (as the union scores it).
type disjScore struct {
	d   *disj
	doc int32
	b   float64
}

func (x *disjScore) bound() float64 { return x.b }

func (x *disjScore) score() float64 {
	s := 0.0
	for _, c := range x.d.scorers {
		if c.p.cur < x.doc {
			c.p.advance(x.doc)
		}
		if c.p.cur == x.doc {
			s += c.score()
		}
	}
	return s
}
