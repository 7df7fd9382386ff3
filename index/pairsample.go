package index

import (
	"cmp"
	"slices"
	"strings"

	isearch "github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/tokenize"
)

// The search index's word pairs (search.Pairs) cover, besides every pair
// with a stop word, the pairs of two frequent words: a phrase of two
// common content words ("resource management") otherwise checks the
// positions of every document that has both. Which words are frequent is
// a property of the corpus, and the builder streams it once, so it counts
// the words of the first documents (the sample) and chooses from those
// counts; the sample's own pairs wait until then. A sample that is not
// representative costs speed, never results: the index records the words
// it chose, and a query trusts a missing pair only for the words recorded.

// Frequent pair words: a word is frequent when it is in at least one in
// frequentShare documents of the sample, and in at least minFrequentDF;
// at most maxFrequent words are chosen, the most common first.
const (
	defaultPairSample = 8192
	frequentShare     = 100
	minFrequentDF     = 2
	maxFrequent       = 1024
)

// pairSample holds the pair fields' tokens of the sample's documents and
// counts the documents each word is in.
type pairSample struct {
	docs   int
	words  map[string]*sampleWord
	fields []sampledField
}

type sampleWord struct {
	tok  string // the word, a copy of its own
	df   int
	last int32 // the last document counted, so that a document counts once
}

// sampledField is one field of one sampled document, its tokens in
// position order.
type sampledField struct {
	doc   int32
	field int
	tp    []tokPos
}

func newPairSample() *pairSample {
	return &pairSample{words: map[string]*sampleWord{}}
}

// add keeps a copy of a field's tokens and counts its words. The copy's
// tokens are the words map's own strings: a token is a substring of its
// document's text, and keeping it would keep the whole text of every
// sampled document alive until the sample ends (hundreds of MB that the
// garbage collector scans again and again).
func (s *pairSample) add(doc int32, field int, tp []tokPos) {
	tp = slices.Clone(tp)
	for i, t := range tp {
		w := s.words[t.tok]
		if w == nil {
			w = &sampleWord{tok: strings.Clone(t.tok), last: -1}
			s.words[w.tok] = w
		}
		tp[i].tok = w.tok
		if w.last != doc {
			w.df, w.last = w.df+1, doc
		}
	}
	s.fields = append(s.fields, sampledField{doc, field, tp})
}

// frequent returns the sample's frequent words, sorted.
func (s *pairSample) frequent() []string {
	least := max(minFrequentDF, (s.docs+frequentShare-1)/frequentShare)
	var words []string
	for w, c := range s.words {
		if c.df >= least && !tokenize.IsStopWord(w) {
			words = append(words, w)
		}
	}
	slices.SortFunc(words, func(a, b string) int {
		return cmp.Or(-cmp.Compare(s.words[a].df, s.words[b].df), cmp.Compare(a, b))
	})
	words = words[:min(len(words), maxFrequent)]
	slices.Sort(words)
	return words
}

// choosePairs ends the sample: it chooses the frequent words, records the
// pair rule in the index and posts the sampled documents' pairs.
func (b *Builder) choosePairs() error {
	s := b.sample
	b.sample = nil
	stop := isearch.PairWords()
	frequent := s.frequent()
	if err := b.sidx.SetPairs(stop, frequent, isearch.PairFields); err != nil {
		return err
	}
	if err := b.sidx.DropRarePairs(cmp.Or(b.cfg.PairMinDF, isearch.DefaultPairMinDF)); err != nil {
		return err
	}
	b.pairs = isearch.NewPairs(stop, frequent)
	for _, f := range s.fields {
		pairs := b.appendPairs(f.tp[:len(f.tp):len(f.tp)])[len(f.tp):]
		if err := b.postTokens(f.doc, f.field, pairs); err != nil {
			return err
		}
	}
	return nil
}
