package search_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/ingest"
)

// tailText is n words of a vocabulary with a long tail: a third stop
// words, the rest Zipf-like over 3 000 words, so that most pairs of a
// stop word and a content word are in one or a few documents (the pairs
// an index leaves out below its minimum) and the head words are frequent
// pair words.
func tailText(rng *rand.Rand, stops []string, n int) string {
	w := make([]string, n)
	for i := range w {
		if rng.IntN(3) == 0 {
			w[i] = stops[rng.IntN(len(stops))]
		} else {
			w[i] = fmt.Sprintf("w%d", int(math.Pow(rng.Float64(), 3)*3000))
		}
	}
	return strings.Join(w, " ")
}

// TestRarePairs builds one corpus keeping every word pair and leaving out
// the rare ones at several minimums, and checks that every phrase of two
// and three words of every title and abstract, and random phrases of
// stop and content words, give the same totals, pages (documents and
// scores, to the bit), facets and second pages on all of them.
func TestRarePairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	stops := []string{"of", "the", "and", "in", "to", "with", "for"}
	for _, w := range stops {
		if !tokenize.IsStopWord(w) {
			t.Fatalf("%q is no longer a stop word: fix this test's words", w)
		}
	}
	var docs []*ingest.Document
	for i := range 600 {
		d := doc(40000+i, tailText(rng, stops, 3+rng.IntN(8)), tailText(rng, stops, rng.IntN(60)))
		d.Keywords = []string{tailText(rng, stops, 1+rng.IntN(3))}
		d.Topics = []string{[]string{"biology", "physics"}[rng.IntN(2)]}
		d.Year = 2000 + rng.IntN(20)
		if rng.IntN(3) == 0 {
			d.Sections = []ingest.Section{{Title: "Methods", Paragraphs: []string{tailText(rng, stops, 30)}}}
		}
		docs = append(docs, d)
	}
	all := buildCorpusConfig(t, docs, index.Config{PairMinDF: 1})
	if got := all.ix.Pairs().MinDF(); got != 1 {
		t.Fatalf("keeping every pair: MinDF %d", got)
	}
	var dropped []*corpus
	terms := all.ix.Terms()
	for i, minDF := range []int{2, 3, search.DefaultPairMinDF} {
		c := buildCorpusConfig(t, docs, index.Config{PairMinDF: minDF})
		if got := c.ix.Pairs().MinDF(); got != minDF {
			t.Fatalf("PairMinDF %d: the index says %d", minDF, got)
		}
		if c.ix.Terms() > terms || (i == 0 && c.ix.Terms() == terms) {
			t.Fatalf("PairMinDF %d: %d terms, %d with the minimum below", minDF, c.ix.Terms(), terms)
		}
		terms = c.ix.Terms()
		dropped = append(dropped, c)
	}

	// Every window of two and three words of titles and abstracts, then
	// random phrases.
	phrases := windows(docs, 3)
	frequent := all.ix.Pairs().Frequent()
	if len(frequent) < 10 {
		t.Fatalf("frequent pair words %q: too few to test", frequent)
	}
	for range 500 {
		words := make([]string, 2+rng.IntN(3))
		for i := range words {
			switch rng.IntN(3) {
			case 0:
				words[i] = stops[rng.IntN(len(stops))]
			case 1:
				words[i] = frequent[rng.IntN(len(frequent))]
			default:
				words[i] = fmt.Sprintf("w%d", rng.IntN(3000))
			}
		}
		phrases = append(phrases, words)
	}

	samePhraseAnswers(t, all, dropped, phrases)
}

// windows returns every distinct run of 2 to most words of the documents'
// titles and abstracts.
func windows(docs []*ingest.Document, most int) [][]string {
	seen := map[string]bool{}
	var phrases [][]string
	for _, d := range docs {
		for _, text := range []string{d.Title, d.Abstract} {
			toks := strings.Fields(text)
			for i := range toks {
				for n := 2; n <= most && i+n <= len(toks); n++ {
					if k := strings.Join(toks[i:i+n], " "); !seen[k] {
						seen[k] = true
						phrases = append(phrases, toks[i:i+n])
					}
				}
			}
		}
	}
	return phrases
}

// samePhraseAnswers checks that every phrase, searched in a rotation of
// fields, sorts, facets and page sizes, gets from each of others the
// totals, pages (scores to the bit), facets and second page of ref, and
// that at least half of them match.
func samePhraseAnswers(t *testing.T, ref *corpus, others []*corpus, phrases [][]string) {
	t.Helper()
	fields := []query.Field{query.Any, query.Any, query.Title, query.Abstract, query.Keyword, query.Fulltext}
	facets := [][]string{nil, {search.FacetYear, search.FacetTopic}}
	ctx := context.Background()
	matched := 0
	for i, words := range phrases {
		req := search.Request{Query: &query.Phrase{Field: fields[i%len(fields)], Words: words},
			Fulltext: i%5 == 0, Sort: search.Sort(i % 4), Facets: facets[i%len(facets)], Limit: 1 + i%7}
		label := fmt.Sprintf("phrase #%d %s (fulltext %v, sort %d)", i, show(req.Query), req.Fulltext, req.Sort)
		want, err := ref.ix.Search(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if want.Total > 0 {
			matched++
		}
		for _, c := range others {
			got, err := c.ix.Search(ctx, req)
			if err != nil {
				t.Fatalf("%s, minimum %d: %v", label, c.ix.Pairs().MinDF(), err)
			}
			if !sameWithCursors(got, want) {
				t.Fatalf("%s, minimum %d:\n   %+v\nref %+v", label, c.ix.Pairs().MinDF(), got, want)
			}
			if want.Next == "" {
				continue
			}
			// The second page, each index by its own cursor.
			wr, gr := req, req
			wr.Cursor, gr.Cursor = want.Next, got.Next
			want2, werr := ref.ix.Search(ctx, wr)
			got2, gerr := c.ix.Search(ctx, gr)
			if werr != nil || gerr != nil || !sameWithCursors(got2, want2) {
				t.Fatalf("%s, minimum %d, page 2 (%v, %v):\n   %+v\nref %+v", label, c.ix.Pairs().MinDF(), gerr, werr, got2, want2)
			}
		}
	}
	if matched < len(phrases)/2 {
		t.Errorf("only %d of %d phrases matched", matched, len(phrases))
	}
}

// sameWithCursors is identicalResult (facets and scores to the bit) for two indexes of the same documents in
// different snapshots: cursors differ by the snapshot id, so only their
// presence is compared.
func sameWithCursors(a, b search.Result) bool {
	a.Next, b.Next = cursorShown(a.Next), cursorShown(b.Next)
	return identicalResult(a, b)
}

func cursorShown(c string) string {
	if c == "" {
		return ""
	}
	return "cursor"
}

// TestRarePairsSegments checks the segments' answers, each segment
// having left out its rare pairs (every build uses the default minimum),
// against one index of the live documents keeping every pair: segments
// built on their own, each with its own frequent pair words and counting
// its own documents, and segments that joined those before them, as a
// delta build's do, whose missing pairs the Multi then trusts where the
// segments before count enough of them.
func TestRarePairsSegments(t *testing.T) {
	for _, join := range []bool{false, true} {
		t.Run(fmt.Sprintf("join=%v", join), func(t *testing.T) { testRarePairsSegments(t, join) })
	}
}

func testRarePairsSegments(t *testing.T, join bool) {
	stops := []string{"of", "the", "and", "in"}
	// Documents after the first 40 also have one of the words m0 to m3
	// after "the", none of them in the first build's first 32 documents,
	// which choose its frequent pair words: each pair in about 40 of the
	// first build's 200 documents; "the m0" and "the m1" in no other
	// build but for revisions, "the m2" and "the m3" in about 20 of each.
	gen := func(rng *rand.Rand, i, n int) *ingest.Document {
		abstract := tailText(rng, stops, rng.IntN(40))
		if m := rng.IntN(4); i >= 40 && (i < n/2 || m >= 2) {
			abstract += fmt.Sprintf(" the m%d", m)
		}
		d := doc(50000+i, tailText(rng, stops, 3+rng.IntN(6)), abstract)
		d.Topics = []string{"biology"}
		return d
	}
	sg := buildSegmentedJoin(t, 400, 4, 21, gen, join, index.Config{PairSample: 32})
	all := buildCorpusConfig(t, sg.merged.docs, index.Config{PairMinDF: 1})
	frequent := sg.segs[0].ix.Pairs().Frequent()
	for i, s := range sg.segs {
		p := s.ix.Pairs()
		if got := p.MinDF(); got != search.DefaultPairMinDF {
			t.Fatalf("a segment's MinDF %d, want the default %d", got, search.DefaultPairMinDF)
		}
		if p.Joined() != (join && i > 0) {
			t.Fatalf("segment %d: joined %v", i, p.Joined())
		}
		if join && !slices.Equal(p.Frequent(), frequent) {
			t.Fatalf("segment %d: frequent pair words %q, the first segment's %q", i, p.Frequent(), frequent)
		}
	}
	// A segment keeps a pair of a stop word and a word neither stop nor
	// frequent in fewer than the minimum of its documents only when the
	// segments before it count enough of them.
	rare := 0
	for _, s := range sg.segs {
		frequent := s.ix.Pairs().Frequent()
		seen := map[string]bool{}
		for _, d := range s.docs {
			for _, text := range []string{d.Title, d.Abstract} {
				toks := strings.Fields(text)
				for i := 1; i < len(toks); i++ {
					pt := search.PairTerm(toks[i-1], toks[i])
					if seen[pt] || !slices.Contains(stops, toks[i-1]) || slices.Contains(stops, toks[i]) || slices.Contains(frequent, toks[i]) {
						continue
					}
					seen[pt] = true
					if df := search.TermDF(s.ix, pt); df > 0 && df < search.DefaultPairMinDF {
						rare++
					}
				}
			}
		}
	}
	if join != (rare > 0) {
		t.Fatalf("joined %v: the segments keep %d rare pairs", join, rare)
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(21, 22))
	matched := 0
	for i := range 400 {
		d := all.docs[rng.IntN(len(all.docs))]
		toks := strings.Fields(d.Abstract + " " + d.Title)
		if len(toks) < 3 {
			continue
		}
		at := rng.IntN(len(toks) - 2)
		words := slices.Clone(toks[at : at+2+rng.IntN(2)])
		if i%4 == 0 {
			words[rng.IntN(len(words))] = fmt.Sprintf("w%d", rng.IntN(3000))
		}
		req := search.Request{Query: &query.Phrase{Words: words}, Sort: search.Sort(i % 4), Limit: 1 + i%9,
			Facets: []string{search.FacetYear}}
		want, err := all.ix.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sg.multi.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if !sameWithCursors(got, want) {
			t.Fatalf("phrase #%d %s sort %d:\nsegments %+v\n     all %+v", i, show(req.Query), req.Sort, got, want)
		}
		if want.Total > 0 {
			matched++
		}
	}
	if matched < 200 {
		t.Errorf("only %d phrases matched", matched)
	}
	absent := int64(0)
	for _, s := range sg.segs {
		absent += search.AbsentPairs(s.ix)
	}
	if !join && absent > 0 {
		t.Errorf("segments built alone: %d phrases answered by a pair the segments before count", absent)
	}
}

// TestAbsentPairs: a segment that joined the one before it keeps a pair
// of a stop word and a word neither stop nor frequent that the two count
// the minimum of documents of, and trusts its missing pair when the one
// before counts that many (no document has it: its words are not
// checked); else it checks the words. Answers are those of one index.
func TestAbsentPairs(t *testing.T) {
	var first, second []*ingest.Document
	for i := range 100 {
		// The first 8 documents choose the frequent pair words: none of
		// zebra, yak, okapi.
		var extra string
		switch {
		case i >= 10 && i < 50:
			extra = "the zebra"
		case i >= 50 && i < 90:
			extra = "the yak"
		case i >= 90:
			extra = "the okapi" // 10 documents: left out
		}
		first = append(first, doc(70000+i, fmt.Sprintf("cells w%d of mice %s", i, extra), "growth of cells"))
	}
	for i := range 20 {
		title := "zebra of the plains" // both words, not the pair
		switch i % 4 {
		case 1:
			title = "the yak herds" // kept: 40 documents before
		case 2:
			title = "the okapi and zebra" // left out: too few before
		}
		second = append(second, doc(71000+i, title, "growth of cells"))
	}
	for _, d := range first {
		d.Topics = []string{"biology"}
	}
	for _, d := range second {
		d.Topics = []string{"biology"}
	}
	a := buildCorpusConfig(t, first, index.Config{PairSample: 8})
	b := buildCorpusConfig(t, second, index.Config{JoinSegments: []string{a.snap.Dir}})
	merged := buildCorpus(t, append(slices.Clone(first), second...))
	if !b.ix.Pairs().Joined() || !slices.Equal(b.ix.Pairs().Frequent(), a.ix.Pairs().Frequent()) {
		t.Fatalf("the second segment's pairs: joined %v, frequent %q, the first's %q", b.ix.Pairs().Joined(), b.ix.Pairs().Frequent(), a.ix.Pairs().Frequent())
	}
	for _, tc := range []struct {
		a, b string
		df   int // in the second segment's dictionary, -1 none
	}{
		{"the", "zebra", -1},
		{"the", "yak", 5},
		{"the", "okapi", -1},
	} {
		if df := search.TermDF(b.ix, search.PairTerm(tc.a, tc.b)); df != tc.df {
			t.Errorf("%s %s: %d documents in the second segment, want %d", tc.a, tc.b, df, tc.df)
		}
	}
	m := multiOf(t, merged, a, b)
	ctx := context.Background()
	for _, tc := range []struct {
		words  []string
		absent int64 // phrases the second segment trusts a missing pair of
	}{
		{[]string{"the", "zebra"}, 1},
		{[]string{"of", "the", "zebra"}, 1},
		{[]string{"the", "yak"}, 0},
		{[]string{"the", "okapi"}, 0},
		{[]string{"zebra", "of"}, 0},
	} {
		before := search.AbsentPairs(b.ix)
		req := search.Request{Query: &query.Phrase{Words: tc.words}, Limit: 5}
		want, err := merged.ix.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Search(ctx, req)
		if err != nil || !sameWithCursors(got, want) {
			t.Fatalf("%q: (%v)\nsegments %+v\n  merged %+v", tc.words, err, got, want)
		}
		if n := search.AbsentPairs(b.ix) - before; n != tc.absent {
			t.Errorf("%q: %d missing pairs trusted, want %d", tc.words, n, tc.absent)
		}
		if search.AbsentPairs(a.ix) != 0 {
			t.Errorf("%q: the first segment trusted a missing pair", tc.words)
		}
	}

	// The first segment gone (its documents merged into a later one
	// without the pair), a segment that joined only the second has the
	// pair in too few documents with the second's to keep it: its missing
	// pair is checked word by word, though the second has the pair.
	var third []*ingest.Document
	for i := range 10 {
		title := "cells of the steppe"
		if i < 2 {
			title = "the yak herds"
		}
		d := doc(72000+i, title, "growth of cells")
		d.Topics = []string{"biology"}
		third = append(third, d)
	}
	c := buildCorpusConfig(t, third, index.Config{JoinSegments: []string{b.snap.Dir}})
	if df := search.TermDF(c.ix, search.PairTerm("the", "yak")); df != -1 {
		t.Fatalf("the third segment has the yak pair in %d documents", df)
	}
	merged = buildCorpus(t, append(slices.Clone(second), third...))
	m = multiOf(t, merged, b, c)
	req := search.Request{Query: &query.Phrase{Words: []string{"the", "yak"}}, Limit: 10}
	want, err := merged.ix.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Search(ctx, req)
	if err != nil || !sameWithCursors(got, want) || want.Total != 7 {
		t.Fatalf("the yak: (%v)\nsegments %+v\n  merged %+v", err, got, want)
	}
	if n := search.AbsentPairs(c.ix); n != 0 {
		t.Errorf("the third segment trusted %d missing pairs", n)
	}
}

// multiOf is the Multi of segments without deletions whose live
// documents are merged's.
func multiOf(t *testing.T, merged *corpus, segs ...*corpus) *search.Multi {
	t.Helper()
	ids := make([]string, len(merged.docs))
	for i, d := range merged.docs {
		ids[i] = d.ID
	}
	var ss []search.Segment
	for _, c := range segs {
		s := search.Segment{Index: c.ix, Docs: make([]int32, len(c.docs))}
		for l, d := range c.docs {
			s.Docs[l] = int32(sort.SearchStrings(ids, d.ID))
		}
		ss = append(ss, s)
	}
	m, err := search.NewMulti(merged.snap.ID, ss, newCites(t, merged))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPairMinDFEntry reads the TOC's minimum of documents of rare pairs:
// an index without the entry (written before rare pairs were left out)
// keeps every pair, a minimum outside 2 to 128 is ErrMalformed, and the
// writer takes 1 to 128 after SetPairs and before the postings.
func TestPairMinDFEntry(t *testing.T) {
	c := buildCorpusConfig(t, []*ingest.Document{doc(60001, "heart of the matter", "the cell")}, index.Config{PairMinDF: 1})
	b, err := os.ReadFile(filepath.Join(c.snap.Dir, filepath.FromSlash(search.File)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tail []byte
		want int // 0: ErrMalformed
	}{
		{nil, 1}, {[]byte{2}, 2}, {[]byte{32}, 32}, {[]byte{128, 1}, 128}, {[]byte{32, 2}, 32},
		{[]byte{0}, 0}, {[]byte{1}, 0}, {[]byte{129, 1}, 0}, {[]byte{32, 0}, 0}, {[]byte{0x80}, 0},
		{[]byte{1, 2}, 0}, {[]byte{32, 4}, 0}, {[]byte{32, 2, 1}, 0},
	} {
		ix, err := openWithTOCTail(t, b, tc.tail)
		if tc.want == 0 {
			if !errors.Is(err, search.ErrMalformed) {
				t.Errorf("tail %v: %v, want ErrMalformed", tc.tail, err)
			}
			if err == nil {
				ix.Close()
			}
			continue
		}
		if err != nil {
			t.Fatalf("tail %v: %v", tc.tail, err)
		}
		if got := ix.Pairs().MinDF(); got != tc.want {
			t.Errorf("tail %v: MinDF %d, want %d", tc.tail, got, tc.want)
		}
		if got, want := ix.Pairs().Joined(), len(tc.tail) == 2 && tc.tail[1] == 2; got != want {
			t.Errorf("tail %v: joined %v", tc.tail, got)
		}
		ix.Close()
	}

	dir := t.TempDir()
	w, err := search.NewWriter(filepath.Join(dir, "index.bin"), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.DropRarePairs(2); !errors.Is(err, search.ErrWriteOrder) {
		t.Errorf("DropRarePairs before SetPairs: %v", err)
	}
	if err := w.SetPairs([]string{"of"}, nil, search.PairFields); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []int{0, -1, 129} {
		if err := w.DropRarePairs(bad); !errors.Is(err, search.ErrWriteOrder) {
			t.Errorf("DropRarePairs(%d): %v", bad, err)
		}
	}
	if err := w.DropRarePairs(1); err != nil {
		t.Errorf("DropRarePairs(1): %v", err)
	}
	if err := w.JoinPairs(nil); !errors.Is(err, search.ErrWriteOrder) {
		t.Errorf("JoinPairs keeping every pair: %v", err)
	}
	if err := w.DropRarePairs(128); err != nil {
		t.Errorf("DropRarePairs(128): %v", err)
	}
	if err := w.JoinPairs(nil); err != nil {
		t.Errorf("JoinPairs: %v", err)
	}
	if err := w.AddDoc(search.DocValues{License: "CC0"}); err != nil {
		t.Fatal(err)
	}
	if err := w.AddPosting([]byte("of"), 0, search.FieldTitle, []uint32{0}); err != nil {
		t.Fatal(err)
	}
	if err := w.DropRarePairs(2); !errors.Is(err, search.ErrWriteOrder) {
		t.Errorf("DropRarePairs after a posting: %v", err)
	}
	if err := w.JoinPairs(nil); !errors.Is(err, search.ErrWriteOrder) {
		t.Errorf("JoinPairs after a posting: %v", err)
	}
}

// TestDroppedPairBytes: a pair left out leaves no byte in the file (the
// same file as without its postings), and one of two common words, or
// with the minimum of documents, is kept.
func TestDroppedPairBytes(t *testing.T) {
	write := func(pairs []string, minDF int) []byte {
		t.Helper()
		dir := t.TempDir()
		path := filepath.Join(dir, "index.bin")
		w, err := search.NewWriter(path, dir)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(w.SetPairs([]string{"of"}, []string{"heart"}, search.PairFields))
		must(w.DropRarePairs(minDF))
		for range 3 {
			must(w.AddDoc(search.DocValues{License: "CC0"}))
		}
		for _, p := range pairs {
			a, b, _ := strings.Cut(p, " ")
			for d := range int32(2) {
				must(w.AddPosting([]byte(search.PairTerm(a, b)), d, search.FieldTitle, []uint32{0}))
			}
		}
		for i, word := range []string{"cell", "heart", "of"} {
			for d := range int32(3) {
				must(w.AddPosting([]byte(word), d, search.FieldTitle, []uint32{uint32(i)}))
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// Two documents each: "cell of" (a rarer word) is left out at a
	// minimum of 3, "heart of" (stop and frequent) is always kept.
	none := write([]string{"heart of"}, 3)
	if got := write([]string{"cell of", "heart of"}, 3); !slices.Equal(got, none) {
		t.Errorf("a pair left out changed the file: %d bytes, %d without it", len(got), len(none))
	}
	if got := write([]string{"cell of", "heart of"}, 2); len(got) <= len(none) {
		t.Errorf("a pair at the minimum was left out: %d bytes, %d without it", len(got), len(none))
	}
	if got := write(nil, 3); len(got) >= len(none) {
		t.Errorf("a pair of common words was left out: %d bytes, %d without it", len(got), len(none))
	}
}
