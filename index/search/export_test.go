package search

import (
	"context"
	"fmt"

	"github.com/openshelf/openshelf/index/search/query"
)

// Test hooks of the conjunction path (conj.go).

// SetConj turns the paths of plain scans (the bitset count and block-max
// ranking of conjunctions, the window scan of unions) on or off, and sets
// the documents of a conjunction's count window (a multiple of 64; 0
// keeps it).
func SetConj(ix *Index, on bool, window int32) {
	ix.noConj = !on
	if window > 0 {
		ix.conjWindow = window
	}
}

// ConjScans is how many searches took the conjunction path.
func ConjScans(ix *Index) int64 { return ix.conjScans.Load() }

// PhraseSetScans is how many searches of a phrase read its kept set.
func PhraseSetScans(ix *Index) int64 { return ix.phraseSetScans.Load() }

// TermDF is the documents of term in the index's dictionary, -1 if it
// has none.
func TermDF(ix *Index, term string) int {
	id := ix.lookup(term)
	if id < 0 {
		return -1
	}
	return int(ix.rec(id).DF)
}

// AbsentPairs is how many phrases a Multi found in none of the
// segment's documents by a missing pair that the segments before it
// count (pairs.go).
func AbsentPairs(ix *Index) int64 { return ix.absentPairs.Load() }

// ExpansionFills is how many expansions were counted by unpacking their
// lists.
func ExpansionFills(ix *Index) int64 { return ix.expansionFills.Load() }

// SetSets empties the index's dense term sets (sets.go) and sets their
// budget in bytes (0 keeps none).
func SetSets(ix *Index, budget int64) {
	ix.sets.mu.Lock()
	defer ix.sets.mu.Unlock()
	ix.sets.budget, ix.sets.bytes, ix.sets.m, ix.sets.asks = budget, 0, nil, nil
	ix.sets.probation.bits = nil
}

// SetsKept is the number of dense term sets kept and their bytes.
func SetsKept(ix *Index) (int, int64) {
	ix.sets.mu.Lock()
	defer ix.sets.mu.Unlock()
	return len(ix.sets.m), ix.sets.bytes
}

// SetPrefixTerms makes searches read the index's prefix terms
// (prefixes.go) or not.
func SetPrefixTerms(ix *Index, on bool) { ix.noPrefixTerms = !on }

// PrefixFills is how many expansions were counted from a prefix term.
func PrefixFills(ix *Index) int64 { return ix.prefixFills.Load() }

// Magic opens and closes an index file of this format.
const Magic = magic

// PhraseParts is the number of lists a phrase of the default fields
// walks (its triples', pairs' and words'), 0 when it matches nothing.
func PhraseParts(ix *Index, words []string) int {
	e := &evaluator{ix: ix, st: &ix.own, anyMask: anyFields}
	p, ok := e.phrase(&query.Phrase{Words: words}).(*phraseIter)
	if !ok {
		return 0
	}
	return len(p.parts)
}

// CheckDeletedCounts compares, for every term of every segment of m with
// deletions and a few field masks, the counts of its list's deleted
// documents (countShort where it answers, countDeleted, deletedIn) with
// a walk of the list document by document; it returns the first that
// differs, as text ("" if none), and how many lists it compared.
func CheckDeletedCounts(m *Multi) (string, int) {
	lists := 0
	for s, g := range m.segs {
		if g.del == nil {
			continue
		}
		ix := g.Index
		c, ok := ix.cursor(0)
		for ; ok; ok = c.next() {
			if isPrefixTerm(string(c.term)) {
				continue
			}
			for _, mask := range []uint8{allFields, anyFields, 1 << FieldTitle, 1 << FieldAuthor} {
				var want int64
				p := ix.openRec(c.t, c.rec, mask)
				for d := p.nextDoc(); d != noMore; d = p.nextDoc() {
					if g.deleted(d) {
						want++
					}
				}
				lists++
				got := g.countDeleted(c.t, c.rec, mask)
				short, ok := g.countShort(c.rec, mask)
				if !ok {
					short = want
				}
				if in := g.deletedIn(c.t, mask); got != want || short != want || in != want {
					return fmt.Sprintf("segment %d, %q, mask %b: %d deleted, counted %d, short %d (%v), kept %d", s, c.term, mask, want, got, short, ok, in), lists
				}
			}
		}
	}
	return "", lists
}

// FirstInUse returns, for a Multi given a FirstFile, the words whose
// deleted documents it holds and its prefixes; false if it has none.
func FirstInUse(m *Multi) (words, prefixes, fixes int, ok bool) {
	for _, g := range m.segs {
		if g.first == nil {
			return 0, 0, 0, false
		}
		words += len(g.first.ids)
	}
	for _, b := range m.firstExps {
		x, ok := m.decodeExpansion(b, make([]*segExp, len(m.segs)))
		if !ok {
			return 0, 0, 0, false
		}
		for _, f := range x.fixes {
			if f != nil && len(f.plus)+len(f.minus) > 0 {
				fixes++
			}
		}
	}
	return words, len(m.firstExps), fixes, true
}

// FirstFixes counts, over the prefixes of m's FirstFile and the
// segments whose prefix terms are of other words, the corrections that
// add documents and those that remove some.
func FirstFixes(m *Multi) (plus, minus int) {
	for _, b := range m.firstExps {
		x, ok := m.decodeExpansion(b, make([]*segExp, len(m.segs)))
		if !ok {
			return -1, -1
		}
		for _, f := range x.fixes {
			if f != nil && len(f.plus) > 0 {
				plus++
			}
			if f != nil && len(f.minus) > 0 {
				minus++
			}
		}
	}
	return plus, minus
}

// PrefixOthers reports how the index keeps the documents of prefix p's
// prefix term that have its words in full text only: "bitset", "gaps",
// or "" if it has no such term.
func PrefixOthers(ix *Index, p string) string {
	ids, _ := ix.expandPrefix(p, query.MaxExpansions)
	switch ps := ix.prefixBits(p, ids, anyFieldsFulltext, true); {
	case ps == nil:
		return ""
	case ps.others != nil:
		return "bitset"
	default:
		return "gaps"
	}
}

// MakeFirstV1 is MakeFirst writing the file's version 1, which lists the
// deleted documents of no short list.
func MakeFirstV1(ctx context.Context, ids []string, segs []Segment) ([]byte, error) {
	return makeFirst(ctx, ids, segs, 1)
}
