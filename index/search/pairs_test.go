package search_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/ingest"
)

// TestPhrasePairs builds one random corpus without the word pairs, with
// the pairs chosen from all its documents and from its first 37, and
// checks that random phrases (from the documents, across value gaps and
// fields, made of the vocabulary with its stop words) give the same
// totals and pages on all three, and the brute-force oracle's totals.
func TestPhrasePairs(t *testing.T) {
	for _, sample := range []int{0, 37} {
		t.Run(fmt.Sprintf("sample=%d", sample), func(t *testing.T) { testPhrasePairs(t, sample) })
	}
}

func testPhrasePairs(t *testing.T, sample int) {
	rng := rand.New(rand.NewPCG(3, 3))
	var docs []*ingest.Document
	for i := range 300 {
		d := doc(20000+i, randomText(rng, 2+rng.IntN(8)), randomText(rng, rng.IntN(40)))
		d.Keywords = []string{randomText(rng, 1+rng.IntN(3)), randomText(rng, 1+rng.IntN(2))}
		d.Authors = []ingest.Author{{Name: randomText(rng, 2)}, {Name: randomText(rng, 2)}}
		d.Topics = []string{"biology"}
		if rng.IntN(2) == 0 {
			d.Sections = []ingest.Section{{Title: "Intro of the", Paragraphs: []string{randomText(rng, 40), randomText(rng, 20)}}}
		}
		docs = append(docs, d)
	}
	with := buildCorpusPairs(t, docs, sample)
	without := buildCorpusPairs(t, docs, -1)
	if with.ix.Terms() <= without.ix.Terms() {
		t.Fatalf("%d terms with pairs, %d without: no pairs indexed", with.ix.Terms(), without.ix.Terms())
	}
	frequent := with.ix.Pairs().Frequent()
	if len(frequent) < 10 {
		t.Fatalf("frequent pair words %q: too few to test", frequent)
	}
	if without.ix.Pairs() != nil {
		t.Fatal("an index built without pairs has a pair rule")
	}
	orc := &oracle{}
	for _, d := range with.docs {
		orc.docs = append(orc.docs, oracleFields(d))
	}
	fields := []query.Field{query.Any, query.Title, query.Abstract, query.Author, query.Keyword, query.Fulltext}
	ctx := context.Background()
	matched := 0
	for i := range 600 {
		var words []string
		switch k := rng.IntN(5); k {
		case 0, 1:
			// From a document's field, so that it matches.
			od := &orc.docs[rng.IntN(len(orc.docs))]
			f := rng.IntN(search.NumFields)
			toks := od.fields[f]
			if len(toks) < 2 {
				continue
			}
			n := 2 + rng.IntN(3)
			at := rng.IntN(len(toks))
			for j := at; j < min(at+n, len(toks)); j++ {
				words = append(words, toks[j].tok) // may run over a value gap
			}
		case 2:
			// Stop words only, or a stop word and another word.
			stops := []string{"the", "of", "and", "in"}
			for range 2 + rng.IntN(2) {
				words = append(words, stops[rng.IntN(len(stops))])
			}
			if rng.IntN(2) == 0 {
				words[rng.IntN(len(words))] = vocab[rng.IntN(len(vocab))]
			}
		case 3:
			// Frequent words, whose pairs the index has.
			for range 2 + rng.IntN(3) {
				words = append(words, frequent[rng.IntN(len(frequent))])
			}
		default:
			for range 2 + rng.IntN(3) {
				words = append(words, vocab[rng.IntN(len(vocab))])
			}
		}
		if len(words) < 2 {
			continue
		}
		q := &query.Phrase{Field: fields[rng.IntN(len(fields))], Words: words}
		orc.stem, orc.ft = rng.IntN(2) == 0, rng.IntN(2) == 0
		req := search.Request{Query: q, Stem: orc.stem, Fulltext: orc.ft, Limit: 5 + rng.IntN(20)}
		label := fmt.Sprintf("phrase #%d %s (stem %v, fulltext %v)", i, show(q), orc.stem, orc.ft)
		a, err := with.ix.Search(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		b, err := without.ix.Search(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		want := int64(0)
		for d := range orc.docs {
			if orc.match(&orc.docs[d], q) {
				want++
			}
		}
		if a.Total != want || b.Total != want {
			t.Fatalf("%s: %d matches with pairs, %d without, want %d", label, a.Total, b.Total, want)
		}
		if !slices.Equal(a.Hits, b.Hits) {
			t.Fatalf("%s: pages differ:\nwith pairs %v\nwithout    %v", label, a.Hits, b.Hits)
		}
		if want > 0 {
			matched++
		}
	}
	if matched < 150 {
		t.Errorf("only %d phrases matched", matched)
	}
}

// TestPhrasePairsGaps checks that a pair never joins two values of a
// field or two fields, and that stop words inside a phrase count.
func TestPhrasePairsGaps(t *testing.T) {
	d := doc(30001, "heart of the matter", "the cell")
	d.Keywords = []string{"model of", "the mouse"}
	d.Authors = []ingest.Author{{Name: "Ada of"}, {Name: "The Brain"}}
	d.Topics = []string{"biology"}
	c := buildCorpusPairs(t, []*ingest.Document{d, doc(30002, "heart the matter", "cells")}, 0)
	for _, tc := range []struct {
		q    string
		want int64
	}{
		{`"heart of the matter"`, 1},
		{`"of the"`, 1},
		{`"heart the matter"`, 1},      // the other document: "of" is a position
		{`"of the mouse"`, 0},          // keywords are two values
		{`"model of the"`, 0},          // keywords are two values
		{`author:"of the"`, 0},         // authors are two values
		{`"matter the"`, 0},            // title then abstract: two fields
		{`"the matter"`, 2},            // both
		{`keyword:"model of"`, 1},      // within a value
		{`"the the"`, 0},               // a pair no document has
		{`"zebrafish of the"`, 0},      // an unknown word
		{`title:"heart of the"`, 1},    // scoped
		{`abstract:"heart of the"`, 0}, // scoped elsewhere
	} {
		res, err := c.ix.Search(context.Background(), search.Request{Query: parse(t, tc.q), Limit: 10})
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if res.Total != tc.want {
			t.Errorf("%s: %d matches, want %d", tc.q, res.Total, tc.want)
		}
	}
	// Prefixes never expand to pair terms.
	res, err := c.ix.Search(context.Background(), search.Request{Query: parse(t, "of*"), Limit: 10})
	if err != nil || res.Total != 1 {
		t.Errorf("of*: %d matches, %v; want 1", res.Total, err)
	}
}

func TestPairsRule(t *testing.T) {
	if !tokenize.IsStopWord("of") || tokenize.IsStopWord("heart") {
		t.Fatal("stop words changed: fix this test's words")
	}
	p := search.NewPairs(search.PairWords(), []string{"heart", "matter"})
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"heart", "of", true}, {"of", "cell", true}, {"of", "the", true}, // a stop word either side
		{"heart", "matter", true}, {"matter", "heart", true}, // both frequent
		{"heart", "cell", false}, {"cell", "matter", false}, {"cell", "mouse", false},
	} {
		if got := p.Indexed(tc.a, tc.b); got != tc.want {
			t.Errorf("Indexed(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	var none *search.Pairs
	if none.Indexed("of", "the") || none.Frequent() != nil {
		t.Error("the nil rule indexes pairs")
	}
}

// TestPairsClaimed writes an index by hand whose TOC claims pairs it does
// not hold (a stop word's, and two frequent words'): a phrase over fields
// with pairs then trusts the missing pair (no match), one over full text
// checks the words, and without the claim every phrase checks the words.
// A pair the rule does not name is checked word by word either way. With
// a minimum of documents of rare pairs, a missing pair of a stop word and
// a word neither stop nor frequent is checked word by word too.
func TestPairsClaimed(t *testing.T) {
	title := []string{"heart", "of", "cell", "matter", "heart"}
	for _, tc := range []struct {
		claim    bool
		minDF    int
		fulltext bool
		phrase   []string
		want     int64
	}{
		{false, 1, false, []string{"heart", "of"}, 1}, {false, 1, true, []string{"heart", "of"}, 1},
		{true, 1, false, []string{"heart", "of"}, 0}, {true, 1, true, []string{"heart", "of"}, 1},
		{false, 1, false, []string{"matter", "heart"}, 1}, {true, 1, false, []string{"matter", "heart"}, 0},
		{true, 1, true, []string{"matter", "heart"}, 1},
		{true, 1, false, []string{"cell", "matter"}, 1}, {true, 1, false, []string{"cell", "matter", "heart"}, 0},
		{true, 1, false, []string{"of", "cell"}, 0}, {true, 2, false, []string{"of", "cell"}, 1},
		{true, 2, false, []string{"heart", "of"}, 0}, {true, 2, false, []string{"matter", "heart"}, 0},
		{true, 2, false, []string{"heart", "of", "cell"}, 0}, {true, 2, false, []string{"of", "cell", "matter"}, 1},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "index.bin")
		w, err := search.NewWriter(path, dir)
		if err != nil {
			t.Fatal(err)
		}
		if tc.claim {
			if err := w.SetPairs([]string{"of"}, []string{"heart", "matter"}, search.PairFields); err != nil {
				t.Fatal(err)
			}
			if err := w.DropRarePairs(tc.minDF); err != nil {
				t.Fatal(err)
			}
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(w.AddDoc(search.DocValues{License: "CC0", Topics: []string{"x"}}))
		sorted := slices.Clone(title)
		slices.Sort(sorted)
		for _, word := range slices.Compact(sorted) {
			var pos []uint32
			for i, x := range title {
				if x == word {
					pos = append(pos, uint32(i))
				}
			}
			must(w.AddPosting([]byte(word), 0, search.FieldTitle, pos))
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		ix, err := search.OpenFile(path, "s", search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := ix.Search(context.Background(), search.Request{Query: &query.Phrase{Words: tc.phrase},
			Fulltext: tc.fulltext, Limit: 10})
		ix.Close()
		if err != nil || res.Total != tc.want {
			t.Errorf("claim %v, minimum %d, fulltext %v, %q: %d matches, %v; want %d", tc.claim, tc.minDF, tc.fulltext, tc.phrase, res.Total, err, tc.want)
		}
	}
	w, err := search.NewWriter(filepath.Join(t.TempDir(), "index.bin"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, bad := range [][]string{nil, {"the", "of"}, {"of", "of"}, {""}, {"a\x01b"}} {
		if err := w.SetPairs(bad, nil, search.PairFields); !errors.Is(err, search.ErrWriteOrder) {
			t.Errorf("SetPairs(%q, nil): %v", bad, err)
		}
		if bad == nil {
			continue
		}
		if err := w.SetPairs([]string{"of"}, bad, search.PairFields); !errors.Is(err, search.ErrWriteOrder) {
			t.Errorf("SetPairs(of, %q): %v", bad, err)
		}
	}
}

// TestPairPhrasePages checks the pages of phrases that one pair term
// covers, which a search ranks block by block with the words' block
// bounds (scan.list), against an index without pairs: on a corpus of
// few words, so that pair lists run over many blocks and later blocks
// are skipped by their bound.
func TestPairPhrasePages(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	words := strings.Fields("heart failure the of cell model")
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	var docs []*ingest.Document
	for i := range 3000 {
		docs = append(docs, doc(30000+i, text(2+rng.IntN(7)), text(rng.IntN(30))))
	}
	with := buildCorpusPairs(t, docs, 0)
	without := buildCorpusPairs(t, docs, -1)
	ctx := context.Background()
	long := 0
	for _, a := range words {
		for _, b := range words {
			for _, f := range []query.Field{query.Any, query.Title} {
				q := &query.Phrase{Field: f, Words: []string{a, b}}
				for _, limit := range []int{1, 3, 10} {
					// Each index pages by its own cursors (a cursor names its
					// snapshot).
					rx := search.Request{Query: q, Limit: limit}
					ry := rx
					for page := range 2 {
						label := fmt.Sprintf("%s limit %d page %d", show(q), limit, page+1)
						x, err := with.ix.Search(ctx, rx)
						if err != nil {
							t.Fatalf("%s: %v", label, err)
						}
						y, err := without.ix.Search(ctx, ry)
						if err != nil {
							t.Fatalf("%s: %v", label, err)
						}
						if x.Total != y.Total || !slices.Equal(x.Hits, y.Hits) || (x.Next == "") != (y.Next == "") {
							t.Fatalf("%s: with pairs %d %v, without %d %v", label, x.Total, x.Hits, y.Total, y.Hits)
						}
						if x.Total > 4*128 {
							long++
						}
						if x.Next == "" {
							break
						}
						rx.Cursor, ry.Cursor = x.Next, y.Next
					}
				}
			}
		}
	}
	if long < 20 {
		t.Errorf("only %d searches of pairs over more than 4 blocks", long)
	}
}
