package search

import (
	"slices"
	"strings"

	"github.com/openshelf/openshelf/index/tokenize"
)

// Word pairs (biwords). A phrase whose words are frequent has many
// candidate documents whose positions must be checked; the pair terms make
// it intersect far shorter lists. The builder indexes, as extra terms of
// the same dictionary and field, every adjacent pair of tokens of a value
// in which one word is a pair word (the stop words of index/tokenize, see
// [PairWords]), at the position of the first word, in the fields of
// [PairFields]. The TOC records the pair words and fields the index was
// built with, so that a query knows which pairs
// the index must have: a missing pair that qualifies means no document has
// it, any other pair is checked word by word. An index without the TOC
// entry (written before pairs) answers every phrase word by word.

// pairMark starts a pair term and separates its words: no token contains
// it (tokens are letters and digits), so pair terms sort before every word
// and no word prefix ranges over them.
const pairMark = "\x01"

// PairTerm is the dictionary term of the adjacent words a, b.
func PairTerm(a, b string) string { return pairMark + a + pairMark + b }

// isPairTerm reports whether a dictionary term is a pair.
func isPairTerm(t string) bool { return strings.HasPrefix(t, pairMark) }

// PairFields are the fields whose pairs the index has: all but full text
// (its pairs would add a fifth to the index; a phrase searched in full
// text is checked word by word). The DOI is one token: it has no pairs,
// so all of them.
const PairFields = 1<<FieldTitle | 1<<FieldAbstract | 1<<FieldAuthor | 1<<FieldKeyword | 1<<FieldDOI

// PairWords are the words whose adjacent pairs the builder indexes:
// tokenize's stop words, sorted. The writer records them (SetPairWords).
func PairWords() []string {
	return tokenize.StopWords()
}

// IndexedPair reports whether the builder indexes the pair a b.
func IndexedPair(a, b string) bool { return tokenize.IsStopWord(a) || tokenize.IsStopWord(b) }

// pairSet is the set of pair words an index was built with; nil when it
// has no pairs.
type pairSet map[string]struct{}

func newPairSet(words []string) pairSet {
	s := make(pairSet, len(words))
	for _, w := range words {
		s[w] = struct{}{}
	}
	return s
}

// indexed reports whether the index has every occurrence of the pair a b.
func (s pairSet) indexed(a, b string) bool {
	if s == nil {
		return false
	}
	_, x := s[a]
	_, y := s[b]
	return x || y
}

// validPairWords reports whether words can be a TOC's pair words: sorted,
// distinct, non-empty, without the pair mark.
func validPairWords(words []string) bool {
	return slices.IsSorted(words) && !slices.ContainsFunc(words, func(w string) bool {
		return w == "" || strings.Contains(w, pairMark)
	}) && len(slices.Compact(slices.Clone(words))) == len(words)
}

// maxPairWords bounds the pair words a TOC may list.
const maxPairWords = 4096
