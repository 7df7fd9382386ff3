package index

import (
	"cmp"
	"path/filepath"
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
// The sample also chooses the triples of two indexed pairs the index
// holds as terms of their own (search.TripleTerm), recorded the same way.

// Frequent triples (search.TripleTerm): three adjacent words whose two
// pairs the rule indexes, in at least one in tripleShare documents of the
// sample and in at least minFrequentDF; at most maxTriples, the most
// common first. A triple in 0.2 % of the documents still costs a check
// of every document with both its pairs, which may be a tenth of the
// archive; at 1M generated documents the triples chosen so take 0.8 % of
// the index (0.35 % in at least 1 %) and make such a phrase 1.7 to 2.4
// times cheaper.
const (
	tripleShare = 500
	maxTriples  = 1024
)

// A segment of an archive built incrementally (a delta build's new
// segment) joins the archive's segments instead (joinPairs): it takes the
// pair rule (frequent words and triples) of the largest of them, whose
// pairs most phrases read, so that every segment indexes the same pairs,
// and keeps a rare pair when its documents in those segments and its own
// reach the minimum (search.Writer.JoinPairs), as one index of the
// archive would keep it from all of them.

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

// choosePairs ends the sample: it chooses the frequent words and the
// frequent triples, records the pair rule in the index and posts the
// sampled documents' pairs and triples.
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
	triples := s.triples(b.pairs)
	if err := b.pairs.SetTriples(triples); err != nil {
		return err
	}
	if err := b.sidx.SetTriples(triples); err != nil {
		return err
	}
	for _, f := range s.fields {
		pairs := b.appendPairs(f.tp[:len(f.tp):len(f.tp)])[len(f.tp):]
		if err := b.postTokens(f.doc, f.field, pairs); err != nil {
			return err
		}
	}
	return nil
}

// triples returns the sample's frequent triples under the pair rule, as
// sorted triple terms.
func (s *pairSample) triples(rule *isearch.Pairs) []string {
	type count struct {
		df   int
		last int32
	}
	counts := map[[3]string]*count{}
	for _, f := range s.fields {
		tp := f.tp
		for i := 0; i+2 < len(tp); i++ {
			x, y, z := tp[i], tp[i+1], tp[i+2]
			if y.pos != x.pos+1 || z.pos != y.pos+1 || !rule.Indexed(x.tok, y.tok) || !rule.Indexed(y.tok, z.tok) {
				continue
			}
			k := [3]string{x.tok, y.tok, z.tok}
			c := counts[k]
			if c == nil {
				c = &count{last: -1}
				counts[k] = c
			}
			if c.last != f.doc {
				c.df, c.last = c.df+1, f.doc
			}
		}
	}
	least := max(minFrequentDF, (s.docs+tripleShare-1)/tripleShare)
	var keys [][3]string
	for k, c := range counts {
		if c.df >= least {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b [3]string) int {
		return cmp.Or(-cmp.Compare(counts[a].df, counts[b].df), slices.Compare(a[:], b[:]))
	})
	terms := make([]string, 0, min(len(keys), maxTriples))
	for _, k := range keys[:min(len(keys), maxTriples)] {
		terms = append(terms, isearch.TripleTerm(k[0], k[1], k[2]))
	}
	slices.Sort(terms)
	return terms
}

// joinPairs makes the segment being written join the segments in dirs
// (their directories, oldest first): unless it is written without pairs,
// or the largest of them has none or keeps every pair, it takes their
// largest's frequent pair words and triples instead of sampling its own,
// and keeps the pairs they count enough of (search.Writer.JoinPairs). It
// is called before the first document; the segments' indexes stay open
// until the build ends.
func (b *Builder) joinPairs(dirs []string) error {
	if b.sample == nil || b.ndocs > 0 || len(dirs) == 0 {
		return nil
	}
	var largest *isearch.Index
	for _, dir := range dirs {
		ix, err := isearch.OpenFile(filepath.Join(dir, filepath.FromSlash(isearch.File)), "", isearch.Options{Sets: -1})
		if err != nil {
			return err
		}
		b.joined = append(b.joined, ix)
		if largest == nil || ix.Len() > largest.Len() {
			largest = ix
		}
	}
	minDF := cmp.Or(b.cfg.PairMinDF, isearch.DefaultPairMinDF)
	if largest.Pairs() == nil || minDF <= 1 {
		return nil // the segment chooses its own, as one index does
	}
	stop, frequent, triples := isearch.PairWords(), largest.Pairs().Frequent(), largest.Pairs().Triples()
	if err := b.sidx.SetPairs(stop, frequent, isearch.PairFields); err != nil {
		return err
	}
	if err := b.sidx.DropRarePairs(minDF); err != nil {
		return err
	}
	pairs := isearch.NewPairs(stop, frequent)
	if err := pairs.SetTriples(triples); err != nil {
		return err
	}
	if err := b.sidx.SetTriples(triples); err != nil {
		return err
	}
	if err := b.sidx.JoinPairs(b.joined); err != nil {
		return err
	}
	b.sample, b.pairs = nil, pairs
	return nil
}

// closeJoined closes the indexes of the segments joined (joinPairs).
func (b *Builder) closeJoined() {
	for _, ix := range b.joined {
		ix.Close()
	}
	b.joined = nil
}
