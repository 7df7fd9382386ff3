package search_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
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
	seen := map[string]bool{}
	var phrases [][]string
	for _, d := range docs {
		for _, text := range []string{d.Title, d.Abstract} {
			toks := strings.Fields(text)
			for i := range toks {
				for n := 2; n <= 3 && i+n <= len(toks); n++ {
					if k := strings.Join(toks[i:i+n], " "); !seen[k] {
						seen[k] = true
						phrases = append(phrases, toks[i:i+n])
					}
				}
			}
		}
	}
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

	fields := []query.Field{query.Any, query.Any, query.Title, query.Abstract, query.Keyword, query.Fulltext}
	facets := [][]string{nil, {search.FacetYear, search.FacetTopic}}
	ctx := context.Background()
	matched := 0
	for i, words := range phrases {
		req := search.Request{Query: &query.Phrase{Field: fields[i%len(fields)], Words: words},
			Fulltext: i%5 == 0, Sort: search.Sort(i % 4), Facets: facets[i%len(facets)], Limit: 1 + i%7}
		label := fmt.Sprintf("phrase #%d %s (fulltext %v, sort %d)", i, show(req.Query), req.Fulltext, req.Sort)
		want, err := all.ix.Search(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if want.Total > 0 {
			matched++
		}
		for _, c := range dropped {
			got, err := c.ix.Search(ctx, req)
			if err != nil {
				t.Fatalf("%s, minimum %d: %v", label, c.ix.Pairs().MinDF(), err)
			}
			if !sameWithCursors(got, want) {
				t.Fatalf("%s, minimum %d:\n   %+v\nall %+v", label, c.ix.Pairs().MinDF(), got, want)
			}
			if want.Next == "" {
				continue
			}
			// The second page, each index by its own cursor.
			wr, gr := req, req
			wr.Cursor, gr.Cursor = want.Next, got.Next
			want2, werr := all.ix.Search(ctx, wr)
			got2, gerr := c.ix.Search(ctx, gr)
			if werr != nil || gerr != nil || !sameWithCursors(got2, want2) {
				t.Fatalf("%s, minimum %d, page 2 (%v, %v):\n   %+v\nall %+v", label, c.ix.Pairs().MinDF(), gerr, werr, got2, want2)
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
// having left out its own rare pairs (every build uses the default
// minimum), against one index of the live documents keeping every pair.
func TestRarePairsSegments(t *testing.T) {
	stops := []string{"of", "the", "and", "in"}
	sg := buildSegmented(t, 400, 4, 21, func(rng *rand.Rand, i, n int) *ingest.Document {
		d := doc(50000+i, tailText(rng, stops, 3+rng.IntN(6)), tailText(rng, stops, rng.IntN(40)))
		d.Topics = []string{"biology"}
		return d
	})
	all := buildCorpusConfig(t, sg.merged.docs, index.Config{PairMinDF: 1})
	for _, s := range sg.segs {
		if got := s.ix.Pairs().MinDF(); got != search.DefaultPairMinDF {
			t.Fatalf("a segment's MinDF %d, want the default %d", got, search.DefaultPairMinDF)
		}
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
	tocOff := binary.LittleEndian.Uint64(b[len(b)-32:])
	toc := b[tocOff : len(b)-32]
	for _, tc := range []struct {
		tail []byte
		want int // 0: ErrMalformed
	}{
		{nil, 1}, {[]byte{2}, 2}, {[]byte{32}, 32}, {[]byte{128, 1}, 128},
		{[]byte{0}, 0}, {[]byte{1}, 0}, {[]byte{129, 1}, 0}, {[]byte{32, 0}, 0}, {[]byte{0x80}, 0},
	} {
		path := filepath.Join(t.TempDir(), "index.bin")
		if err := os.WriteFile(path, withTOC(b, append(slices.Clone(toc), tc.tail...), search.Magic), 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := search.OpenFile(path, "s", search.Options{})
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
	if err := w.DropRarePairs(128); err != nil {
		t.Errorf("DropRarePairs(128): %v", err)
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
