package search_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/ingest"
)

// segmented is an archive built in several builds, each a segment of the
// new and revised documents and the deletions, beside one build of its
// final state.
type segmented struct {
	merged *corpus
	segs   []*corpus
	multi  *search.Multi
	// ss and cites make the Multi again (multifirst_test.go).
	ss    []search.Segment
	cites search.Citations
}

// buildSegmented builds n documents in builds segments: the first build
// has about half of them; each later one adds new ones, revises some
// (the same id, another title, abstract and references) and deletes
// some.
func buildSegmented(t testing.TB, n, builds int, seed uint64, gen func(rng *rand.Rand, i, n int) *ingest.Document) *segmented {
	t.Helper()
	return buildSegmentedJoin(t, n, builds, seed, gen, true, index.Config{})
}

// buildSegmentedJoin is buildSegmented, each segment joining those before
// it as a delta build's does (index.Config.JoinSegments) or, without
// join, built on its own, with the pair settings of cfg (PairSample).
func buildSegmentedJoin(t testing.TB, n, builds int, seed uint64, gen func(rng *rand.Rand, i, n int) *ingest.Document, join bool, cfg index.Config) *segmented {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	latest := map[string]int{} // id -> the build of its live version
	num := map[string]int{}    // id -> the document's number in randomDoc
	deleted := map[string]bool{}
	var batches [][]*ingest.Document
	next := 0
	for b := range builds {
		var batch []*ingest.Document
		fresh := n / 2
		if b > 0 {
			fresh = (n - n/2) / (builds - 1)
		}
		for range fresh {
			d := gen(rng, next, n)
			d.AssignIDs()
			num[d.ID] = next
			batch = append(batch, d)
			next++
		}
		if b > 0 {
			for id := range sortedKeys(latest) {
				switch k := rng.IntN(10); {
				case deleted[id]:
				case k == 0: // revised
					batch = append(batch, gen(rng, num[id], n))
				case k == 1:
					deleted[id] = true
				}
			}
		}
		for _, d := range batch {
			d.AssignIDs()
			latest[d.ID] = b
		}
		batches = append(batches, batch)
	}
	var final []*ingest.Document
	for bi, batch := range batches {
		for _, d := range batch {
			if !deleted[d.ID] && latest[d.ID] == bi {
				final = append(final, d)
			}
		}
	}
	sg := &segmented{merged: buildCorpus(t, final)}
	ids := make([]string, len(sg.merged.docs))
	for i, d := range sg.merged.docs {
		ids[i] = d.ID
	}
	var segs []search.Segment
	var before []string
	for bi, batch := range batches {
		cfg.JoinSegments = before
		c := buildCorpusConfig(t, batch, cfg)
		if join {
			before = append(before, c.snap.Dir)
		}
		sg.segs = append(sg.segs, c)
		s := search.Segment{Index: c.ix, Docs: make([]int32, len(c.docs))}
		for l, d := range c.docs {
			s.Docs[l] = int32(sort.SearchStrings(ids, d.ID))
			if deleted[d.ID] || latest[d.ID] != bi {
				s.Deleted = append(s.Deleted, int32(l))
			}
		}
		segs = append(segs, s)
	}
	revised, gone := 0, 0
	for id := range latest {
		if deleted[id] {
			gone++
		}
	}
	for _, s := range segs {
		revised += len(s.Deleted)
	}
	if builds > 1 && (gone == 0 || revised-gone <= 0) {
		t.Fatalf("%d documents deleted, %d superseded: the split tests neither", gone, revised-gone)
	}
	sg.ss, sg.cites = segs, newCites(t, sg.merged)
	m, err := search.NewMulti(sg.merged.snap.ID, segs, sg.cites)
	if err != nil {
		t.Fatal(err)
	}
	sg.multi = m
	return sg
}

func sortedKeys(m map[string]int) func(func(string) bool) {
	return slices.Values(slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}))
}

// cites are the archive's citations, from its documents' references by
// PMID (the random corpus cites by PMID only): the live documents citing
// each, a document not citing itself.
type cites [][]int32

func newCites(t testing.TB, c *corpus) cites {
	byPMID := map[string]int32{}
	for i, d := range c.docs {
		byPMID[d.PMID] = int32(i)
	}
	cs := make(cites, len(c.docs))
	for i, d := range c.docs {
		for _, r := range d.References {
			if to, ok := byPMID[r.PMID]; ok && to != int32(i) && !slices.Contains(cs[to], int32(i)) {
				cs[to] = append(cs[to], int32(i))
			}
		}
	}
	// The builder resolves them the same way: checked against the
	// merged build's own lists.
	for d := range cs {
		got, _, _, err := c.ix.CitedBy(context.Background(), int32(d), len(c.docs), "")
		if err != nil || !slices.Equal(got, cs[d]) && len(got)+len(cs[d]) > 0 {
			t.Fatalf("citations of %d: the builder has %v, the references %v (%v)", d, got, cs[d], err)
		}
	}
	return cs
}

func (c cites) Count(doc int32) int32    { return int32(len(c[doc])) }
func (c cites) Citing(doc int32) []int32 { return c[doc] }

// TestMultiEqualsMerged: over an archive in segments, with documents
// revised and deleted, every class of request answers as one build of
// the final documents: the same hits, scores to the bit, totals, facets
// and cursors, page after page; likewise the cited-by pages.
func TestMultiEqualsMerged(t *testing.T) {
	for _, tc := range []struct {
		n, builds int
		seed      uint64
	}{{500, 5, 1}, {400, 8, 2}, {300, 2, 3}} {
		t.Run(fmt.Sprintf("%d docs in %d segments", tc.n, tc.builds), func(t *testing.T) {
			sg := buildSegmented(t, tc.n, tc.builds, tc.seed, randomDoc)
			compareRequests(t, sg, tc.seed)
			compareCitedBy(t, sg)
			compareLocate(t, sg)
		})
	}
}

// wheres and facet lists of the random requests.
var (
	multiWheres = []map[string][]string{nil, nil, {"license": {"CC0"}}, {"topic": {"physics"}}, {"topic": {"medicine"}},
		{"topic": {"physics"}, "source": {"pubmed", "jats"}}, {"year": {"2020", "2021"}, "fulltext": {"true"}}, {"topic": {"nothing"}}}
	multiFacets = [][]string{nil, nil, {search.FacetLicense, search.FacetTopic, search.FacetYear, search.FacetSource, search.FacetFulltext}, {search.FacetTopic}}
)

// compareRequests runs random requests of every class on both.
func compareRequests(t *testing.T, sg *segmented, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	classes := map[string]func() query.Node{
		"term": func() query.Node { return &query.Term{Word: vocab[rng.IntN(len(vocab))]} },
		"field": func() query.Node {
			return &query.Term{Field: []query.Field{query.Title, query.Abstract, query.Author, query.Keyword, query.Fulltext}[rng.IntN(5)], Word: vocab[rng.IntN(len(vocab))]}
		},
		"prefix": func() query.Node {
			w := vocab[rng.IntN(len(vocab))]
			return &query.Term{Word: w[:min(len(w), 1+rng.IntN(3))], Prefix: true}
		},
		"random": func() query.Node { return randomQuery(rng, sg.merged, 2) },
		"and": func() query.Node {
			return &query.And{Children: []query.Node{randomQuery(rng, sg.merged, 0), randomQuery(rng, sg.merged, 0)}}
		},
		"or": func() query.Node {
			return &query.Or{Children: []query.Node{randomQuery(rng, sg.merged, 0), randomQuery(rng, sg.merged, 0)}}
		},
		"not": func() query.Node {
			return &query.And{Children: []query.Node{randomQuery(rng, sg.merged, 0), &query.Not{Child: randomQuery(rng, sg.merged, 0)}}}
		},
		"phrase": func() query.Node {
			d := sg.merged.docs[rng.IntN(len(sg.merged.docs))]
			toks := strings.Fields(strings.ToLower(d.Title))
			if len(toks) < 2 {
				return &query.Phrase{Words: []string{"of", "the"}}
			}
			i := rng.IntN(len(toks) - 1)
			return &query.Phrase{Words: toks[i : i+2+rng.IntN(min(2, len(toks)-i-1))]}
		},
		"listing": func() query.Node { return nil },
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range classes {
			if !yield(k) {
				return
			}
		}
	})
	hits := 0
	for _, class := range names {
		for i := range 40 {
			r := search.Request{Query: classes[class](), Stem: rng.IntN(3) == 0, Fulltext: rng.IntN(3) == 0,
				Where: multiWheres[rng.IntN(len(multiWheres))], Sort: search.Sort(rng.IntN(4)),
				Facets: multiFacets[rng.IntN(len(multiFacets))], Limit: []int{1, 7, 20}[rng.IntN(3)]}
			if rng.IntN(4) == 0 {
				r.Offset = rng.IntN(30)
			}
			label := fmt.Sprintf("%s #%d %s (stem %v, fulltext %v, where %v, sort %d, facets %v, limit %d, offset %d)",
				class, i, show(r.Query), r.Stem, r.Fulltext, r.Where, r.Sort, r.Facets, r.Limit, r.Offset)
			if comparePages(t, sg, r, label) {
				hits++
			}
		}
	}
	if hits < len(names)*40/3 {
		t.Errorf("only %d requests had hits", hits)
	}
}

// comparePages compares a request and the pages after it, by cursor,
// and reports whether it had hits.
func comparePages(t *testing.T, sg *segmented, r search.Request, label string) bool {
	t.Helper()
	ctx := context.Background()
	for page := 0; ; page++ {
		want, werr := sg.merged.ix.Search(ctx, r)
		got, gerr := sg.multi.Search(ctx, r)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("%s page %d: error %v, merged %v", label, page, gerr, werr)
		}
		if werr != nil {
			return false
		}
		if !identicalResult(got, want) {
			t.Fatalf("%s page %d:\n   segments %+v\n     merged %+v", label, page, got, want)
		}
		if want.Next == "" || page == 5 {
			return want.Total > 0
		}
		r.Cursor = want.Next
	}
}

// identicalResult compares two results, scores by their bits.
func identicalResult(a, b search.Result) bool {
	if a.Total != b.Total || a.Next != b.Next || len(a.Hits) != len(b.Hits) || !reflect.DeepEqual(a.Facets, b.Facets) {
		return false
	}
	for i := range a.Hits {
		if a.Hits[i].Doc != b.Hits[i].Doc || math.Float64bits(a.Hits[i].Score) != math.Float64bits(b.Hits[i].Score) {
			return false
		}
	}
	return true
}

// compareCitedBy pages every document's citing documents on both.
func compareCitedBy(t *testing.T, sg *segmented) {
	ctx := context.Background()
	for d := range int32(sg.merged.ix.Len()) {
		cw, cg := "", ""
		for page := 0; ; page++ {
			want, wn, wnext, err := sg.merged.ix.CitedBy(ctx, d, 1, cw)
			if err != nil {
				t.Fatal(err)
			}
			got, gn, gnext, err := sg.multi.CitedBy(ctx, d, 1, cg)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) || gn != wn || gnext != wnext {
				t.Fatalf("cited-by %d page %d: %v %d %q, merged %v %d %q", d, page, got, gn, gnext, want, wn, wnext)
			}
			if wnext == "" {
				break
			}
			cw, cg = wnext, gnext
		}
	}
}

// compareLocate finds every merged document in its segment.
func compareLocate(t *testing.T, sg *segmented) {
	if sg.multi.Len() != sg.merged.ix.Len() {
		t.Fatalf("Len %d, merged %d", sg.multi.Len(), sg.merged.ix.Len())
	}
	for d, doc := range sg.merged.docs {
		s, l := sg.multi.Locate(int32(d))
		if s < 0 || sg.segs[s].docs[l].ID != doc.ID {
			t.Fatalf("Locate(%d) = %d, %d, want %s", d, s, l, doc.ID)
		}
	}
}

// TestMultiLone: one segment without deletions is searched as it is.
func TestMultiLone(t *testing.T) {
	c := randomCorpus(t, 200, 5)
	m, err := search.NewMulti(c.snap.ID, []search.Segment{{Index: c.ix}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sg := &segmented{merged: c, segs: []*corpus{c}, multi: m}
	compareRequests(t, sg, 5)
	compareCitedBy(t, sg)
	compareLocate(t, sg)
}

// zqTitleWords is how many words zqTitleDoc draws from.
const zqTitleWords = 700

// zqTitleDoc is a document titled by four of the words zq000 to zq699, drawn
// skewed: low numbers are frequent and many words tie, so that the prefix
// zq* has more words than an expansion takes (zqDoc spreads them over
// every field).
func zqTitleDoc(rng *rand.Rand, i, _ int) *ingest.Document {
	w := make([]string, 4)
	for k := range w {
		w[k] = fmt.Sprintf("zq%03d", int(zqTitleWords*math.Pow(rng.Float64(), 2)))
	}
	return doc(10000+i, strings.Join(w, " "), randomText(rng, 5))
}

// TestMultiExpansions: a prefix of more than MaxExpansions words expands
// over segments to the words one index of the live documents chooses,
// its most frequent, though deletions and revisions move words in and
// out of them.
func TestMultiExpansions(t *testing.T) {
	sg := buildSegmented(t, 900, 6, 4, zqTitleDoc)
	distinct := map[string]bool{}
	for _, d := range sg.merged.docs {
		for _, w := range strings.Fields(d.Title) {
			distinct[w] = true
		}
	}
	if len(distinct) <= query.MaxExpansions {
		t.Fatalf("%d words: the prefix does not need a choice", len(distinct))
	}
	for i, q := range []string{"zq*", "zq0*", "zq1*", "zq* heart", "zq00* OR zq5*", "zq* -zq001"} {
		n, err := query.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []search.Sort{search.ByRelevance, search.ByYear} {
			for _, limit := range []int{3, 50} {
				r := search.Request{Query: n, Sort: s, Limit: limit}
				comparePages(t, sg, r, fmt.Sprintf("#%d %s sort %d limit %d", i, q, s, limit))
				r.Facets = []string{search.FacetYear}
				comparePages(t, sg, r, fmt.Sprintf("#%d %s sort %d limit %d, faceted", i, q, s, limit))
			}
		}
	}
}

// TestMultiKept: what a Multi keeps from a search (an expansion's count
// and bounds in each segment, a list's count, a topic's documents, the
// cited-by counts) answers the same searches again as the first time,
// as one index does.
func TestMultiKept(t *testing.T) {
	sg := buildSegmented(t, 500, 5, 5, randomDoc)
	var reqs []search.Request
	for _, w := range []string{"heart", "cell", "the"} {
		for _, q := range []query.Node{&query.Term{Word: w[:2], Prefix: true}, &query.Term{Word: w}, &query.Term{Word: w, Field: query.Title}} {
			for _, stem := range []bool{false, true} {
				reqs = append(reqs, search.Request{Query: q, Stem: stem, Limit: 5},
					search.Request{Query: q, Stem: stem, Fulltext: true, Limit: 20},
					search.Request{Query: q, Stem: stem, Sort: search.ByCitedBy, Limit: 5})
			}
		}
	}
	for _, topic := range []string{"physics", "medicine", "nothing"} {
		reqs = append(reqs, search.Request{Where: map[string][]string{search.FacetTopic: {topic}}, Limit: 7, Offset: 3})
	}
	// The floor a request ended with (multifloor.go), under each sort.
	and := &query.And{Children: []query.Node{&query.Term{Word: "the"}, &query.Or{Children: []query.Node{&query.Term{Word: "cell"}, &query.Phrase{Words: []string{"of", "the"}}}}}}
	for s := range search.Sort(4) {
		reqs = append(reqs, search.Request{Query: and, Sort: s, Limit: 4, Offset: 2},
			search.Request{Query: and, Sort: s, Limit: 3, Where: map[string][]string{search.FacetLicense: {"CC-BY"}}, Facets: []string{search.FacetYear}},
			search.Request{Sort: s, Limit: 6, Where: map[string][]string{search.FacetYear: {"2020", "2021"}}})
	}
	for i, r := range reqs {
		for ask := range 3 {
			comparePages(t, sg, r, fmt.Sprintf("#%d %s (stem %v, fulltext %v, sort %d, where %v), ask %d", i, show(r.Query), r.Stem, r.Fulltext, r.Sort, r.Where, ask))
		}
	}
}

// TestMultiDeletedCounts: the deleted documents of a segment's lists, as
// the Multi counts them (from a short list's entry alone, from a block's
// gaps, or from its masks), are those a walk of each list finds, in any
// fields.
func TestMultiDeletedCounts(t *testing.T) {
	sg := buildSegmented(t, 1200, 4, 7, randomDoc)
	diff, lists := search.CheckDeletedCounts(sg.multi)
	if diff != "" {
		t.Fatal(diff)
	}
	if lists < 1000 {
		t.Fatalf("%d lists compared", lists)
	}
}
