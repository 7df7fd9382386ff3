package search

import (
	"bytes"
	"slices"
	"strings"

	"github.com/openshelf/openshelf/index/tokenize"
)

// Word pairs (biwords). A phrase whose words are frequent has many
// candidate documents whose positions must be checked; the pair terms make
// it intersect far shorter lists. The builder indexes, as extra terms of
// the same dictionary and field, the adjacent pairs of tokens of a value
// that its [Pairs] rule names, at the position of the first word, in the
// fields of [PairFields]: every pair with a stop word of index/tokenize
// ([PairWords]) on either side, and every pair of two of the corpus's most
// frequent words (chosen by the builder from a sample of its documents).
// The TOC records both word lists and the fields, so that a query knows
// which pairs the index must have: a missing pair that qualifies means no
// document has it, any other pair is checked word by word. An index
// without the TOC entry (written before pairs) answers every phrase word
// by word.
//
// Most pair terms are a stop word beside a rare word ("of zebrafish"),
// in one or a few documents each: they cost a dictionary record and a
// skip entry each and save little, since the rare word's own list is
// short. The writer leaves out those in fewer than a minimum of documents
// ([Writer.DropRarePairs]), recorded in the TOC: a phrase then trusts a
// missing pair only when both its words are stop or frequent pair words
// (such pairs are always kept; [Pairs.Complete]), and checks any other
// missing pair word by word, walking the rare word's list.
//
// A segment of a snapshot built incrementally is small: counted in its
// own documents, most of the pairs the archive keeps would be rare in it
// and left out, and a phrase over the segments would check them word by
// word where one index of the archive walks a pair. So a delta build's
// segment joins the segments before it ([Writer.JoinPairs], recorded in
// the TOC): it takes the frequent pair words of the largest, so that all
// index the same pairs, and keeps a pair term when its documents in the
// segment and those the joined segments' dictionaries count (superseded
// and deleted documents included) reach the minimum. A [Multi] then also
// trusts a segment's missing pair when the segments before it count at
// least the minimum of its documents: their dictionaries never change and
// a segment only ever leaves a snapshot (merged into a newer one), so the
// segment would have kept its own. Any other missing pair is checked word
// by word. A pair that every joined segment left out counts none, so a
// segment may still leave out a pair one index of the archive keeps.

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

// Pairs is the rule of an index's pairs: a pair is indexed when either
// word is a stop pair word or both are frequent pair words. The nil
// *Pairs indexes none.
type Pairs struct {
	stop, frequent map[string]struct{}
	frequentWords  []string
	// minDF is the fewest documents of a kept pair that has a word
	// neither stop nor frequent; 1: every pair is kept.
	minDF int
	// triples are the triple terms indexed (triples.go); nil: none.
	triples     map[[3]string]struct{}
	tripleTerms []string
	// joined means that minDF counts the pair's documents in the
	// segments before this one as well (JoinPairs).
	joined bool
}

// DefaultPairMinDF is the builder's minimum of documents of a pair of a
// stop word and a word neither stop nor frequent (Writer.DropRarePairs).
// At 1M generated documents such pairs in fewer documents are 90 % of the
// pair terms and a fifth of the index.
const DefaultPairMinDF = 32

// NewPairs returns the rule of the stop words and frequent words given.
func NewPairs(stop, frequent []string) *Pairs {
	return &Pairs{stop: wordSet(stop), frequent: wordSet(frequent), frequentWords: slices.Clone(frequent), minDF: 1}
}

// Frequent returns the frequent pair words, sorted.
func (p *Pairs) Frequent() []string {
	if p == nil {
		return nil
	}
	return slices.Clone(p.frequentWords)
}

func wordSet(words []string) map[string]struct{} {
	s := make(map[string]struct{}, len(words))
	for _, w := range words {
		s[w] = struct{}{}
	}
	return s
}

// Indexed reports whether the index has the pair a b: every occurrence,
// or (Complete) none if the pair is in fewer than MinDF documents.
func (p *Pairs) Indexed(a, b string) bool {
	if p == nil {
		return false
	}
	_, x := p.stop[a]
	_, y := p.stop[b]
	if x || y {
		return true
	}
	_, x = p.frequent[a]
	_, y = p.frequent[b]
	return x && y
}

// MinDF is the fewest documents of a pair the index keeps when one of
// its words is neither a stop nor a frequent pair word; 1 when it keeps
// every pair that Indexed names (and for the nil rule).
func (p *Pairs) MinDF() int {
	if p == nil {
		return 1
	}
	return p.minDF
}

// Complete reports whether the index has every occurrence of the pair
// a b whatever its number of documents, so that a missing pair term
// means that no document has it: Indexed names it, and the index keeps
// all such pairs or both words are stop or frequent pair words.
func (p *Pairs) Complete(a, b string) bool {
	return p.Indexed(a, b) && (p.minDF <= 1 || p.common(a) && p.common(b))
}

// common reports whether w is a stop or a frequent pair word.
func (p *Pairs) common(w string) bool {
	_, x := p.stop[w]
	_, y := p.frequent[w]
	return x || y
}

// Joined reports whether the index kept a pair when its documents and
// those of the segments before it reached MinDF (Writer.JoinPairs).
func (p *Pairs) Joined() bool { return p != nil && p.joined }

// keeps reports whether the index keeps the pair term of df documents
// (the nil rule: every pair term).
func (p *Pairs) keeps(term string, df int) bool {
	if p == nil || df >= p.minDF || isTripleTerm(term) {
		return true
	}
	a, b, _ := strings.Cut(strings.TrimPrefix(term, pairMark), pairMark)
	return p.common(a) && p.common(b)
}

// validPairWords reports whether words can be a TOC's pair words: sorted,
// distinct, non-empty, without the pair mark.
func validPairWords(words []string) bool {
	return slices.IsSorted(words) && !slices.ContainsFunc(words, func(w string) bool {
		return w == "" || strings.Contains(w, pairMark)
	}) && len(slices.Compact(slices.Clone(words))) == len(words)
}

// maxPairWords bounds each of the pair word lists a TOC may hold.
const maxPairWords = 4096

// tocJoined is the flag of the TOC's pair entry of a segment that joined
// the segments before it (Writer.JoinPairs).
const tocJoined = 2

// pairArchive counts the documents of pair terms in the dictionaries of
// the segments a segment joins (Writer.JoinPairs): one cursor a
// dictionary, moved forward only, since the writer asks for its terms in
// term order.
type pairArchive struct {
	cursors []termCursor
	live    []bool // whether the cursor is on a term (false: past the last)
}

func newPairArchive(segs []*Index) *pairArchive {
	a := &pairArchive{}
	for _, ix := range segs {
		c, ok := ix.seek(pairMark)
		a.cursors, a.live = append(a.cursors, c), append(a.live, ok)
	}
	return a
}

// df returns the documents of term in the joined segments' dictionaries;
// term is not below the term asked before. A damaged dictionary counts
// none from where it fails (the pair may then be left out, which costs
// speed only: the segment's Multi reads the same dictionary).
func (a *pairArchive) df(term []byte) int {
	n := 0
	for i := range a.cursors {
		c := &a.cursors[i]
		for a.live[i] && bytes.Compare(c.term, term) < 0 {
			a.live[i] = c.next()
		}
		if a.live[i] && bytes.Equal(c.term, term) {
			n += int(c.rec.DF)
		}
	}
	return n
}

// lookupPair returns the number of pair (or triple) term t in the
// index, or -1: in a segment, looked up once for all segments, its live
// documents not counted.
func (e *evaluator) lookupPair(t string) int {
	if e.st.m == nil {
		return e.ix.lookup(t)
	}
	return e.known(e.st.m.termIDs([]byte(t)))
}

// pairAbsent reports whether the segment searched, which has no pair
// term t that its rule indexes but may have left out as rare, has no
// document with it either: it joined the segments before it, and their
// dictionaries count at least its minimum of t's documents, so that it
// would have kept its own (a Multi's segments are oldest first, and
// those before a segment are some of those it joined).
func (e *evaluator) pairAbsent(t string) bool {
	m := e.st.m
	if m == nil || !e.ix.pairs.Joined() {
		return false
	}
	ids := m.termIDs([]byte(t)).ids
	n := 0
	for s, id := range ids[:e.st.seg] {
		if id >= 0 {
			n += int(m.segs[s].Index.rec(int(id)).DF)
		}
	}
	if n < e.ix.pairs.minDF {
		return false
	}
	e.ix.absentPairs.Add(1)
	return true
}
