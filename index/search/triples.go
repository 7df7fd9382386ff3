package search

import (
	"fmt"
	"slices"
	"strings"
)

// Word triples. A phrase of three common words ("natural resource
// economics") whose two pairs are both indexed still has for candidates
// every document with both pairs, and each one's positions are checked:
// at 100 000 generated documents such a phrase in 15 % of them cost 2.5 ms
// against 0.45 ms for one of its pairs, and the cost grows with the
// archive. The builder therefore also indexes, as terms of the same
// dictionary (TripleTerm), every occurrence of the most frequent triples
// of its sample whose two pairs the index has, and records them in the
// TOC. A phrase uses a recorded triple as one list, with no position to
// check when the triple is the whole phrase; a recorded triple missing
// from the dictionary means no document has it. Any other triple is
// matched from its pairs and words, as before.

// maxTriples bounds the triples an index records.
const maxTriples = 1024

// tocTriples is the flag of the TOC's pair entry that announces triples.
const tocTriples = 1

// TripleTerm is the dictionary term of the adjacent words a, b, c: it
// follows the pair term of a, b, so it too sorts before every word.
func TripleTerm(a, b, c string) string { return PairTerm(a, b) + pairMark + c }

// isTripleTerm reports whether a pair-marked dictionary term is a triple.
func isTripleTerm(t string) bool { return strings.Count(t, pairMark) == 3 }

// tripleWords splits a triple term into its words; ok is false for any
// other string.
func tripleWords(t string) (a, b, c string, ok bool) {
	parts := strings.Split(t, pairMark)
	if len(parts) != 4 || parts[0] != "" || parts[1] == "" || parts[2] == "" || parts[3] == "" {
		return "", "", "", false
	}
	return parts[1], parts[2], parts[3], true
}

// Triple reports whether the index holds every occurrence of the triple
// a b c as one term.
func (p *Pairs) Triple(a, b, c string) bool {
	if p == nil || p.triples == nil {
		return false
	}
	_, ok := p.triples[[3]string{a, b, c}]
	return ok
}

// Triples returns the terms of the recorded triples, sorted.
func (p *Pairs) Triples() []string {
	if p == nil {
		return nil
	}
	return slices.Clone(p.tripleTerms)
}

// SetTriples records in the rule the triple terms indexed, which must be
// sorted, distinct and each of two pairs the rule indexes.
func (p *Pairs) SetTriples(terms []string) error {
	if len(terms) > maxTriples || !slices.IsSorted(terms) || len(slices.Compact(slices.Clone(terms))) != len(terms) {
		return fmt.Errorf("%w: %d triples, sorted and distinct, at most %d", ErrWriteOrder, len(terms), maxTriples)
	}
	set := make(map[[3]string]struct{}, len(terms))
	for _, t := range terms {
		a, b, c, ok := tripleWords(t)
		if !ok || !p.Indexed(a, b) || !p.Indexed(b, c) {
			return fmt.Errorf("%w: %q is not a triple of two indexed pairs", ErrWriteOrder, t)
		}
		set[[3]string{a, b, c}] = struct{}{}
	}
	p.triples, p.tripleTerms = set, slices.Clone(terms)
	return nil
}

// SetTriples records that the postings include every occurrence of the
// triple terms given (TripleTerm, sorted, at most 1024), each of two
// pairs the index has. It is called after SetPairs and before the first
// posting.
func (w *Writer) SetTriples(terms []string) error {
	if w.pairRule == nil || w.phase >= 2 {
		return fmt.Errorf("%w: SetTriples needs pairs, before the postings", ErrWriteOrder)
	}
	return w.pairRule.SetTriples(terms)
}
