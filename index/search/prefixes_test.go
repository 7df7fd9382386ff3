package search_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/ingest"
)

// zqDoc makes document i of a corpus whose titles, keywords and full
// texts draw from 700 words "zq000".."zq699", low numbers frequent, so
// that a prefix such as "zq*" expands to a choice of MaxExpansions of
// them.
func zqDoc(rng *rand.Rand, i, _ int) *ingest.Document {
	zq := func(n int) string {
		w := make([]string, n)
		for k := range w {
			w[k] = fmt.Sprintf("zq%03d", int(700*math.Pow(rng.Float64(), 2)))
		}
		return strings.Join(w, " ")
	}
	d := doc(10000+i, zq(3)+" "+randomText(rng, 2), randomText(rng, 5))
	d.Year = []int{0, 2010, 2020}[rng.IntN(3)]
	d.Keywords = []string{zq(1)}
	d.Topics = [][]string{{"biology"}, {"medicine"}}[rng.IntN(2)]
	if rng.IntN(3) == 0 {
		d.Sections = []ingest.Section{{Title: "Intro", Paragraphs: []string{zq(4) + " " + randomText(rng, 10)}}}
	}
	return d
}

// TestPrefixTerms: a prefix counted from its prefix term answers exactly
// as one counted from its words' lists, alone, beside words, in fields,
// with filters, facets and sorts.
func TestPrefixTerms(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var docs []*ingest.Document
	for i := range 1200 {
		docs = append(docs, zqDoc(rng, i, 1200))
	}
	c := buildCorpus(t, docs)
	search.SetSets(c.ix, 0) // every search fills its expansion
	queries := []string{"zq*", "zq0*", "zq1*", "zq00*", "title:zq*", "keyword:zq0*", "fulltext:zq*", "zq* heart",
		"zq0* cell", "zq* -zq001", "zq00* OR zq5*", "he*", "ce*", "mo* gene", "st*"}
	wheres := []map[string][]string{nil, {"topic": {"medicine"}}, {"year": {"2020"}}}
	for _, q := range queries {
		n, err := query.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []search.Request{
			{Query: n, Limit: 10},
			{Query: n, Limit: 3, Sort: search.ByYear},
			{Query: n, Limit: 10, Fulltext: true},
			{Query: n, Limit: 10, Where: wheres[1]},
			{Query: n, Limit: 5, Where: wheres[2], Facets: []string{search.FacetTopic, search.FacetYear}},
			{Query: n, Limit: 0},
		} {
			comparePrefixTerms(t, c.ix, q, r)
		}
	}
	if search.PrefixFills(c.ix) == 0 {
		t.Fatal("no search counted a prefix from its prefix term")
	}
}

// TestPrefixTermsFullTextOnly: a prefix term keeps the documents with
// its words in full text only as a bitset where they are most of the
// corpus ("zf*", in nine full texts of ten), as gaps where they are few
// ("zq*", in every title), and both count as the words' lists do.
func TestPrefixTermsFullTextOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var docs []*ingest.Document
	for i := range 1200 {
		d := zqDoc(rng, i, 1200)
		zf := fmt.Sprintf("zf%03d", int(300*math.Pow(rng.Float64(), 2)))
		if i%10 == 0 {
			d.Title += " " + zf
		} else {
			d.Sections = append(d.Sections, ingest.Section{Title: "Body", Paragraphs: []string{zf + " " + randomText(rng, 5)}})
		}
		docs = append(docs, d)
	}
	c := buildCorpus(t, docs)
	search.SetSets(c.ix, 0)
	for p, want := range map[string]string{"zf": "bitset", "zq": "gaps"} {
		if got := search.PrefixOthers(c.ix, p); got != want {
			t.Fatalf("prefix %q keeps its full-text-only documents as %q, want %q", p, got, want)
		}
	}
	for _, q := range []string{"zf*", "zf0*", "zq*", "zf* cell", "zf* -zq001", "zf00* OR zq5*"} {
		n, err := query.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []search.Request{
			{Query: n, Limit: 10, Fulltext: true},
			{Query: n, Limit: 10},
			{Query: n, Limit: 0, Fulltext: true, Facets: []string{search.FacetYear}},
		} {
			comparePrefixTerms(t, c.ix, q, r)
		}
	}
}

// comparePrefixTerms fails t unless r, the query q, answers the same with
// the index's prefix terms as without them.
func comparePrefixTerms(t *testing.T, ix *search.Index, q string, r search.Request) {
	t.Helper()
	ctx := context.Background()
	search.SetPrefixTerms(ix, false)
	want, werr := ix.Search(ctx, r)
	search.SetPrefixTerms(ix, true)
	got, gerr := ix.Search(ctx, r)
	if werr != nil || gerr != nil {
		t.Fatalf("%q: %v, without prefix terms %v", q, gerr, werr)
	}
	if !identicalResult(got, want) {
		t.Fatalf("%q %+v:\n   with prefix terms %+v\n without %+v", q, r, got, want)
	}
}

// TestMultiPrefixTerms: over segments, a prefix is counted from each
// segment's prefix term where that term holds the words the live
// documents choose, and from the words' lists elsewhere, with the
// answers of one merged index.
func TestMultiPrefixTerms(t *testing.T) {
	sg := buildSegmented(t, 900, 4, 9, zqDoc)
	for _, s := range sg.segs {
		search.SetSets(s.ix, 0)
	}
	for i, q := range []string{"zq*", "zq0*", "zq1*", "title:zq*", "zq* heart", "zq0* cell"} {
		n, err := query.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{3, 20} {
			r := search.Request{Query: n, Limit: limit}
			comparePages(t, sg, r, fmt.Sprintf("#%d %s limit %d", i, q, limit))
			r.Facets = []string{search.FacetYear}
			comparePages(t, sg, r, fmt.Sprintf("#%d %s limit %d, faceted", i, q, limit))
		}
	}
	used := int64(0)
	for _, s := range sg.segs {
		used += search.PrefixFills(s.ix)
	}
	if used == 0 {
		t.Fatal("no segment counted a prefix from its prefix term")
	}
}
