package search_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kljensen/snowball/english"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/snapshot"
)

var testNow = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// decide accepts every document; the evidence value names the family.
func decide(ev []licence.Evidence, _ time.Time) licence.Decision {
	fam, url := licence.CCBY, "https://creativecommons.org/licenses/by/4.0/"
	if len(ev) > 0 && ev[0].Value == "cc0" {
		fam, url = licence.CC0, "https://creativecommons.org/publicdomain/zero/1.0/"
	}
	return licence.Decision{Accepted: true, Family: fam, Version: "4.0", URL: url, Evidence: ev}
}

// corpus is a built snapshot, its documents in doc order and its index.
type corpus struct {
	ix   *search.Index
	docs []*ingest.Document
	snap *snapshot.Snapshot
	dir  string
}

// buildCorpus publishes docs with the real builder and opens the index.
func buildCorpus(t testing.TB, docs []*ingest.Document) *corpus {
	t.Helper()
	return buildCorpusPairs(t, docs, 0)
}

// buildCorpusPairs is buildCorpus with the word pairs chosen from the
// first sample documents (0: the builder's default), or without pairs
// (sample < 0).
func buildCorpusPairs(t testing.TB, docs []*ingest.Document, sample int) *corpus {
	t.Helper()
	return buildCorpusConfig(t, docs, index.Config{NoPhrasePairs: sample < 0, PairSample: sample})
}

// buildCorpusConfig is buildCorpus with the pair settings of cfg
// (NoPhrasePairs, PairSample, PairMinDF, JoinSegments).
func buildCorpusConfig(t testing.TB, docs []*ingest.Document, cfg index.Config) *corpus {
	t.Helper()
	topics := map[string]bool{}
	for _, d := range docs {
		if d.Licence.Family == "" {
			d.Licence = decide(d.Licence.Evidence, testNow)
		}
		d.AssignIDs()
		for _, tp := range d.Topics {
			topics[tp] = true
		}
	}
	var its []index.Topic
	for tp := range topics {
		its = append(its, index.Topic{Slug: tp, Name: tp})
	}
	slices.SortFunc(its, func(a, b index.Topic) int { return strings.Compare(a.Slug, b.Slug) })
	dir := t.TempDir()
	feed := func(ctx context.Context, sink ingest.Sink) error {
		for _, d := range docs {
			if err := sink.Document(d); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := index.Build(context.Background(), index.Config{DataDir: dir, Now: testNow, Decide: decide, Fresh: true, Topics: its,
		NoPhrasePairs: cfg.NoPhrasePairs, PairSample: cfg.PairSample, PairMinDF: cfg.PairMinDF, JoinSegments: cfg.JoinSegments}, feed); err != nil {
		t.Fatal(err)
	}
	snap, ix := openIndex(t, dir)
	sorted := slices.Clone(docs)
	slices.SortFunc(sorted, func(a, b *ingest.Document) int { return strings.Compare(a.ID, b.ID) })
	if ix.Len() != len(sorted) {
		t.Fatalf("index has %d documents, want %d", ix.Len(), len(sorted))
	}
	return &corpus{ix: ix, docs: sorted, snap: snap, dir: dir}
}

func doc(pmcid int, title, abstract string) *ingest.Document {
	return &ingest.Document{PMCID: fmt.Sprint(pmcid), Title: title, Abstract: abstract, Year: 2020,
		Topics: []string{"biology"}, Sources: []string{"jats:pmc"}, Authors: []ingest.Author{{Name: "Ada Lovelace"}}}
}

// fixedCorpus is small and hand-written: each document exercises one rule.
func fixedCorpus(t testing.TB) *corpus {
	docs := []*ingest.Document{
		doc(1, "Heart failure in mice", "We study cardiac function."),
		doc(2, "Cardiac arrest outcomes", "Heart failure and the failure of the heart."),
		doc(3, "A model of the heart", "Failure modes of pumps are studied."), // "heart" ends the title, "failure" opens the abstract
		doc(4, "State of the art imaging", "Studies of running mice."),
		doc(5, "Cardiology and cardiomyopathy", "Cardiovascular risk."),
		doc(6, "Zebrafish fins", "Short abstract."),
		doc(7, "Nothing relevant", "Plain text."),
	}
	docs[0].Keywords = []string{"cardiology"}
	docs[0].DOI = "10.1234/ABC.1"
	docs[1].Authors = []ingest.Author{{Name: "Grace Hopper"}, {Name: "Heart Smith"}}
	docs[1].Year, docs[2].Year, docs[3].Year = 2018, 0, 2024
	docs[3].Licence.Evidence = []licence.Evidence{{Kind: licence.KindJATSHref, Value: "cc0"}}
	docs[4].Topics = []string{"biology", "medicine"}
	docs[4].Sources = []string{"pubmed", "openalex"}
	docs[5].Sections = []ingest.Section{{Title: "Results", Paragraphs: []string{"Fin regeneration in zebrafish larvae."}}}
	// Citations: 2 and 3 cite 1 (by DOI and by PMID), 3 twice over; 1
	// cites itself (not counted) and an unknown work.
	docs[0].PMID = "901"
	docs[1].References = []ingest.Reference{{DOI: "10.1234/abc.1"}}
	docs[2].References = []ingest.Reference{{DOI: "https://doi.org/10.1234/ABC.1"}, {PMID: "901"}, {DOI: "10.9/none"}}
	docs[0].References = []ingest.Reference{{DOI: "10.1234/abc.1"}}
	docs[6].References = []ingest.Reference{{PMID: "901"}}
	return buildCorpus(t, docs)
}

// titlesOf runs a query and returns the titles of all hits in order.
func (c *corpus) titles(t *testing.T, req search.Request) []string {
	t.Helper()
	if req.Limit == 0 {
		req.Limit = 100
	}
	res, err := c.ix.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("%+v: %v", req, err)
	}
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, c.docs[h.Doc].Title)
	}
	if res.Total != int64(len(out)) {
		t.Errorf("total %d, %d hits", res.Total, len(out))
	}
	return out
}

func parse(t *testing.T, q string) query.Node {
	t.Helper()
	n, err := query.Parse(q)
	if err != nil {
		t.Fatalf("parse %q: %v", q, err)
	}
	return n
}

func TestOperators(t *testing.T) {
	c := fixedCorpus(t)
	const (
		hf  = "Heart failure in mice"
		ca  = "Cardiac arrest outcomes"
		mod = "A model of the heart"
		sa  = "State of the art imaging"
		crd = "Cardiology and cardiomyopathy"
		zf  = "Zebrafish fins"
	)
	for _, tc := range []struct {
		q        string
		stem, ft bool
		want     []string // any order
	}{
		{q: "heart", want: []string{hf, ca, mod}},
		{q: "heart failure", want: []string{hf, ca, mod}},
		{q: `"heart failure"`, want: []string{hf, ca}},      // doc 3 has it only across title and abstract
		{q: `title:"heart failure"`, want: []string{hf}},    // field-scoped phrase
		{q: `abstract:"heart failure"`, want: []string{ca}}, //
		{q: `"failure of the heart"`, want: []string{ca}},   // stop words inside a phrase count
		{q: `"state of the art"`, want: []string{sa}},       //
		{q: `"state art"`, want: []string{}},                // not adjacent
		{q: "heart OR zebrafish", want: []string{hf, ca, mod, zf}},
		{q: "heart -mice", want: []string{ca, mod}},
		{q: "heart NOT (mice OR arrest)", want: []string{mod}},
		{q: "title:heart", want: []string{hf, mod}},
		{q: "author:heart", want: []string{ca}},
		{q: "keyword:cardiology", want: []string{hf}},
		{q: "cardio*", want: []string{hf, crd}},
		{q: "cardi*", want: []string{hf, ca, crd}},
		{q: "doi:10.1234/abc.1", want: []string{hf}},
		{q: "zebrafish", want: []string{zf}},
		{q: "regeneration", want: []string{}},
		{q: "regeneration", ft: true, want: []string{zf}},
		{q: "fulltext:regeneration", want: []string{zf}},
		{q: `fulltext:"fin regeneration"`, want: []string{zf}},
		{q: `"results fin"`, ft: true, want: []string{}}, // a section title and its paragraph are two values
		{q: "study", want: []string{hf}},
		{q: "study", stem: true, want: []string{hf, mod, sa}}, // study, studied, studies
		{q: "run", stem: true, want: []string{sa}},
		{q: "author:lovelac", stem: true, want: []string{}}, // author names are not stemmed
		{q: "unknownword", want: []string{}},
		{q: "heart unknownword", want: []string{}},
		{q: "heart OR unknownword", want: []string{hf, ca, mod}},
		{q: "the", want: []string{ca, mod, sa}}, // a bare stop word, the whole query
	} {
		got := c.titles(t, search.Request{Query: parse(t, tc.q), Stem: tc.stem, Fulltext: tc.ft})
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tc.want))
		if !slices.Equal(got, want) {
			t.Errorf("%q (stem %v, fulltext %v): %q, want %q", tc.q, tc.stem, tc.ft, got, want)
		}
	}
}

func TestRankingAndSorts(t *testing.T) {
	c := fixedCorpus(t)
	// A title match outranks an abstract match.
	got := c.titles(t, search.Request{Query: parse(t, "mice")})
	if len(got) != 2 || got[0] != "Heart failure in mice" {
		t.Errorf("mice: %q", got)
	}
	all := search.Request{Query: parse(t, "heart OR cardiac OR art OR cardiology")}
	all.Sort = search.ByYear
	if got := c.titles(t, all); !slices.Equal(got, []string{"Cardiac arrest outcomes", "Heart failure in mice",
		"Cardiology and cardiomyopathy", "State of the art imaging", "A model of the heart"}) {
		t.Errorf("by year: %q", got)
	}
	all.Sort = search.ByYearDesc
	if got := c.titles(t, all); !slices.Equal(got, []string{"State of the art imaging", "Heart failure in mice",
		"Cardiology and cardiomyopathy", "Cardiac arrest outcomes", "A model of the heart"}) {
		t.Errorf("by year desc: %q", got)
	}
	all.Sort = search.ByCitedBy
	if got := c.titles(t, all); got[0] != "Heart failure in mice" {
		t.Errorf("by cited_by: %q", got)
	}
	// A listing is in catalog order.
	if got := c.titles(t, search.Request{}); len(got) != len(c.docs) || got[0] != c.docs[0].Title {
		t.Errorf("listing: %q", got)
	}
}

func TestCitations(t *testing.T) {
	c := fixedCorpus(t)
	ctx := context.Background()
	target := slices.IndexFunc(c.docs, func(d *ingest.Document) bool { return d.PMID == "901" })
	if n := c.ix.CitedByCount(int32(target)); n != 3 {
		t.Errorf("cited_by_count = %d, want 3", n)
	}
	var citing []string
	cursor := ""
	for {
		docs, total, next, err := c.ix.CitedBy(ctx, int32(target), 2, cursor)
		if err != nil {
			t.Fatal(err)
		}
		if total != 3 {
			t.Errorf("total %d", total)
		}
		for _, d := range docs {
			citing = append(citing, c.docs[d].Title)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	slices.Sort(citing)
	if want := []string{"A model of the heart", "Cardiac arrest outcomes", "Nothing relevant"}; !slices.Equal(citing, want) {
		t.Errorf("cited by %q, want %q", citing, want)
	}
	for d := range c.docs {
		if d != target && c.ix.CitedByCount(int32(d)) != 0 {
			t.Errorf("doc %d cited %d times", d, c.ix.CitedByCount(int32(d)))
		}
	}
	// The citations table says the same.
	if _, err := os.Stat(filepath.Join(c.snap.Dir, "citations.parquet")); err != nil {
		t.Error(err)
	}
}

func TestFacetsAndFilters(t *testing.T) {
	c := fixedCorpus(t)
	res, err := c.ix.Search(context.Background(), search.Request{Limit: 3,
		Facets: []string{search.FacetLicense, search.FacetTopic, search.FacetYear, search.FacetSource, search.FacetFulltext}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]search.FacetCount{
		search.FacetLicense:  {{"CC-BY", 6}, {"CC0", 1}},
		search.FacetTopic:    {{"biology", 7}, {"medicine", 1}},
		search.FacetYear:     {{"2020", 4}, {"2018", 1}, {"2024", 1}},
		search.FacetSource:   {{"jats", 6}, {"openalex", 1}, {"pubmed", 1}},
		search.FacetFulltext: {{"false", 6}, {"true", 1}},
	}
	for k, v := range want {
		if !slices.Equal(res.Facets[k], v) {
			t.Errorf("facet %s: %v, want %v", k, res.Facets[k], v)
		}
	}
	for _, tc := range []struct {
		where map[string][]string
		n     int
	}{
		{map[string][]string{"license": {"CC0"}}, 1},
		{map[string][]string{"license": {"CC0", "CC-BY"}}, 7},
		{map[string][]string{"topic": {"medicine"}}, 1},
		{map[string][]string{"topic": {"medicine"}, "license": {"CC0"}}, 0},
		{map[string][]string{"year": {"2018", "2024"}}, 2},
		{map[string][]string{"source": {"pubmed"}}, 1},
		{map[string][]string{"fulltext": {"true"}}, 1},
		{map[string][]string{"fulltext": {"false"}}, 6},
		{map[string][]string{"license": {"nope"}}, 0},
	} {
		res, err := c.ix.Search(context.Background(), search.Request{Where: tc.where, Limit: 10})
		if err != nil || res.Total != int64(tc.n) {
			t.Errorf("where %v: %d (%v), want %d", tc.where, res.Total, err, tc.n)
		}
	}
	if _, err := c.ix.Search(context.Background(), search.Request{Facets: []string{"colour"}}); !errors.Is(err, search.ErrUnknownFacet) {
		t.Errorf("unknown facet: %v", err)
	}
}

func TestCursorErrors(t *testing.T) {
	c := fixedCorpus(t)
	ctx := context.Background()
	res, err := c.ix.Search(ctx, search.Request{Limit: 2})
	if err != nil || res.Next == "" {
		t.Fatalf("%v %q", err, res.Next)
	}
	for _, bad := range []string{"!!", "AAAA", res.Next[:len(res.Next)-3], strings.Repeat("A", 600)} {
		if _, err := c.ix.Search(ctx, search.Request{Limit: 2, Cursor: bad}); !errors.Is(err, search.ErrCursorInvalid) {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
	if _, err := c.ix.Search(ctx, search.Request{Limit: 2, Cursor: res.Next, Sort: search.ByYear}); !errors.Is(err, search.ErrCursorInvalid) {
		t.Errorf("cursor of another sort: %v", err)
	}
	// The same file opened as another snapshot: the cursor has expired.
	other, err := search.OpenFile(filepath.Join(c.snap.Dir, filepath.FromSlash(search.File)), "20990101T000000Z-ffff", search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Search(ctx, search.Request{Limit: 2, Cursor: res.Next}); !errors.Is(err, search.ErrCursorExpired) {
		t.Errorf("cursor of another snapshot: %v", err)
	}
}

// --- the brute-force oracle ---

// oracleDoc is a document's fields as token lists with positions.
type oracleDoc struct {
	fields [search.NumFields][]tokPos
	doc    *ingest.Document
}

type tokPos struct {
	tok string
	pos int
}

func oracleFields(d *ingest.Document) oracleDoc {
	o := oracleDoc{doc: d}
	add := func(f int, texts ...string) {
		p := 0
		for _, t := range texts {
			for _, tok := range tokenize.Tokens(t) {
				o.fields[f] = append(o.fields[f], tokPos{tok, p})
				p++
			}
			p++
		}
	}
	add(search.FieldTitle, d.Title)
	add(search.FieldAbstract, d.Abstract)
	var names []string
	for _, a := range d.Authors {
		names = append(names, a.Name)
	}
	add(search.FieldAuthor, names...)
	add(search.FieldKeyword, d.Keywords...)
	var ft []string
	for _, s := range d.Sections {
		ft = append(append(ft, s.Title), s.Paragraphs...)
	}
	add(search.FieldFulltext, ft...)
	if doi := ingest.NormaliseDOI(d.DOI); doi != "" {
		o.fields[search.FieldDOI] = []tokPos{{doi, 0}}
	}
	return o
}

func oracleStem(w string) string {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	return english.Stem(w, true)
}

type oracle struct {
	docs     []oracleDoc
	stem, ft bool
}

func (o *oracle) fields(f query.Field) []int {
	if f != query.Any {
		return []int{int(f) - 1}
	}
	fs := []int{search.FieldTitle, search.FieldAbstract, search.FieldAuthor, search.FieldKeyword, search.FieldDOI}
	if o.ft {
		fs = append(fs, search.FieldFulltext)
	}
	return fs
}

func (o *oracle) wordMatch(tok, w string, f int, stem bool) bool {
	if tok == w {
		return true
	}
	return stem && f != search.FieldAuthor && f != search.FieldDOI && oracleStem(tok) == oracleStem(w)
}

func (o *oracle) match(d *oracleDoc, n query.Node) bool {
	switch n := n.(type) {
	case nil:
		return true
	case *query.Term:
		w := n.Word
		if n.Field == query.DOI {
			w = ingest.NormaliseDOI(w)
		}
		for _, f := range o.fields(n.Field) {
			for _, tp := range d.fields[f] {
				if n.Prefix && strings.HasPrefix(tp.tok, w) || !n.Prefix && o.wordMatch(tp.tok, w, f, o.stem) {
					return true
				}
			}
		}
		return false
	case *query.Phrase:
		for _, f := range o.fields(n.Field) {
			at := map[int]string{}
			for _, tp := range d.fields[f] {
				at[tp.pos] = tp.tok
			}
			for _, tp := range d.fields[f] {
				ok := true
				for k, w := range n.Words {
					if tok, has := at[tp.pos+k]; !has || tok != w {
						ok = false
						break
					}
				}
				if ok {
					return true
				}
			}
		}
		return false
	case *query.And:
		for _, c := range n.Children {
			if not, ok := c.(*query.Not); ok {
				if o.match(d, not.Child) {
					return false
				}
			} else if !o.match(d, c) {
				return false
			}
		}
		return true
	case *query.Or:
		for _, c := range n.Children {
			if o.match(d, c) {
				return true
			}
		}
		return false
	}
	panic(fmt.Sprintf("node %T", n))
}

var vocab = strings.Fields("heart failure cardiac cell cells tumour tumor growth model models modelling the of and in gene genes " +
	"expression protein signal signalling mouse mice brain neural network study studies studied zebrafish")

func randomText(rng *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = vocab[rng.IntN(len(vocab))]
	}
	return strings.Join(w, " ")
}

func randomCorpus(t testing.TB, n int, seed uint64) *corpus {
	rng := rand.New(rand.NewPCG(seed, seed))
	var docs []*ingest.Document
	for i := range n {
		docs = append(docs, randomDoc(rng, i, n))
	}
	return buildCorpus(t, docs)
}

// randomDoc makes document i of a random corpus of n, citing others by
// PMID.
func randomDoc(rng *rand.Rand, i, n int) *ingest.Document {
	d := doc(10000+i, randomText(rng, 2+rng.IntN(6)), randomText(rng, rng.IntN(30)))
	d.Year = []int{0, 1999, 2010, 2020, 2021}[rng.IntN(5)]
	d.Keywords = []string{randomText(rng, 1+rng.IntN(2)), randomText(rng, 1)}
	d.Authors = []ingest.Author{{Name: randomText(rng, 2)}, {Name: "Ada Lovelace"}}
	d.Topics = [][]string{{"biology"}, {"medicine"}, {"biology", "physics"}}[rng.IntN(3)]
	d.Sources = [][]string{{"jats:pmc"}, {"pubmed"}, {"openalex", "crossref"}}[rng.IntN(3)]
	if rng.IntN(3) == 0 {
		d.Sections = []ingest.Section{{Title: "Intro", Paragraphs: []string{randomText(rng, 40), randomText(rng, 20)}}}
	}
	if rng.IntN(4) == 0 {
		d.Licence.Evidence = []licence.Evidence{{Kind: licence.KindJATSHref, Value: "cc0"}}
	}
	d.PMID = fmt.Sprint(50000 + i)
	for range rng.IntN(4) {
		d.References = append(d.References, ingest.Reference{PMID: fmt.Sprint(50000 + rng.IntN(n))})
	}
	return d
}

// randomQuery makes a query tree over the vocabulary.
func randomQuery(rng *rand.Rand, c *corpus, depth int) query.Node {
	fields := []query.Field{query.Any, query.Any, query.Any, query.Title, query.Abstract, query.Keyword, query.Author, query.Fulltext}
	switch k := rng.IntN(10); {
	case depth == 0 || k < 4:
		w := vocab[rng.IntN(len(vocab))]
		t := &query.Term{Field: fields[rng.IntN(len(fields))], Word: w}
		if rng.IntN(5) == 0 {
			t.Word, t.Prefix = w[:min(len(w), 3)], true
		}
		return t
	case k < 6:
		// A phrase taken from a document, so that phrases do match.
		d := c.docs[rng.IntN(len(c.docs))]
		toks := tokenize.Tokens(d.Abstract + " " + d.Title)
		if len(toks) < 3 {
			return &query.Phrase{Words: []string{"heart", "failure"}}
		}
		i := rng.IntN(len(toks) - 2)
		return &query.Phrase{Field: fields[rng.IntN(3)], Words: toks[i : i+2+rng.IntN(2)]}
	case k < 8:
		a := &query.And{}
		for range 2 + rng.IntN(2) {
			a.Children = append(a.Children, randomQuery(rng, c, depth-1))
		}
		if rng.IntN(2) == 0 {
			a.Children = append(a.Children, &query.Not{Child: randomQuery(rng, c, depth-1)})
		}
		return a
	default:
		o := &query.Or{}
		for range 2 + rng.IntN(2) {
			o.Children = append(o.Children, randomQuery(rng, c, depth-1))
		}
		return o
	}
}

// TestOracle compares random queries, filters, sorts, facets and pages
// with a brute-force evaluation over the documents.
func TestOracle(t *testing.T) {
	c := randomCorpus(t, 400, 7)
	rng := rand.New(rand.NewPCG(9, 9))
	orc := &oracle{}
	for _, d := range c.docs {
		orc.docs = append(orc.docs, oracleFields(d))
	}
	ctx := context.Background()
	wheres := []map[string][]string{nil, {"license": {"CC0"}}, {"topic": {"physics"}}, {"topic": {"physics"}, "source": {"pubmed", "jats"}},
		{"year": {"2020", "2021"}, "fulltext": {"true"}}}
	facets := []string{search.FacetLicense, search.FacetTopic, search.FacetYear, search.FacetSource, search.FacetFulltext}
	nonEmpty := 0
	for i := range 300 {
		q := randomQuery(rng, c, 2)
		if i%7 == 0 {
			q = nil // a listing
		}
		orc.stem, orc.ft = rng.IntN(3) == 0, rng.IntN(3) == 0
		where := wheres[rng.IntN(len(wheres))]
		sort := search.Sort(rng.IntN(4))
		req := search.Request{Query: q, Stem: orc.stem, Fulltext: orc.ft, Where: where, Sort: sort, Facets: facets, Limit: 1000}
		res, err := c.ix.Search(ctx, req)
		if err != nil {
			t.Fatalf("%v: %v", q, err)
		}
		var want []int32
		counts := map[string]map[string]int64{}
		for d := range orc.docs {
			od := &orc.docs[d]
			if !orc.match(od, q) || !passes(od.doc, where) {
				continue
			}
			want = append(want, int32(d))
			countFacets(counts, od.doc)
		}
		var got []int32
		for _, h := range res.Hits {
			got = append(got, h.Doc)
		}
		label := fmt.Sprintf("query #%d %s (stem %v, fulltext %v, where %v, sort %d)", i, show(q), orc.stem, orc.ft, where, sort)
		if res.Total != int64(len(want)) || !slices.Equal(slices.Sorted(slices.Values(got)), want) {
			t.Fatalf("%s: %d hits %v, want %d %v", label, res.Total, got, len(want), want)
		}
		if len(want) > 0 {
			nonEmpty++
		}
		// Order: by the sort key, ties by doc.
		key := func(h search.Hit) float64 {
			d := c.docs[h.Doc]
			switch sort {
			case search.ByYear, search.ByYearDesc:
				if d.Year == 0 {
					return 1e300
				}
				if sort == search.ByYearDesc {
					return -float64(d.Year)
				}
				return float64(d.Year)
			case search.ByCitedBy:
				return -float64(c.ix.CitedByCount(h.Doc))
			}
			return -h.Score
		}
		if !slices.IsSortedFunc(res.Hits, func(a, b search.Hit) int { return cmp.Or(cmp.Compare(key(a), key(b)), cmp.Compare(a.Doc, b.Doc)) }) {
			t.Fatalf("%s: hits out of order: %v", label, res.Hits)
		}
		for name, vals := range res.Facets {
			for _, fc := range vals {
				if counts[name][fc.Value] != fc.Count {
					t.Fatalf("%s: facet %s=%s counts %d, want %d", label, name, fc.Value, fc.Count, counts[name][fc.Value])
				}
			}
			if len(vals) != len(counts[name]) {
				t.Fatalf("%s: facet %s has %d values, want %d", label, name, len(vals), len(counts[name]))
			}
		}
		// Pages by cursor and by offset give the same hits.
		if i%10 == 0 || q == nil {
			checkPaging(t, c, req, res.Hits, label)
		}
	}
	if nonEmpty < 100 {
		t.Errorf("only %d queries had hits", nonEmpty)
	}
}

func checkPaging(t *testing.T, c *corpus, req search.Request, all []search.Hit, label string) {
	t.Helper()
	ctx := context.Background()
	req.Limit, req.Facets = 7, nil
	var byCursor, byOffset []search.Hit
	for page := 0; ; page++ {
		res, err := c.ix.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		byCursor = append(byCursor, res.Hits...)
		if res.Next == "" {
			break
		}
		req.Cursor = res.Next
		if page > len(all) {
			t.Fatalf("%s: cursor paging does not end", label)
		}
	}
	req.Cursor = ""
	for req.Offset = 0; req.Offset < len(all)+7; req.Offset += 7 {
		res, err := c.ix.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		byOffset = append(byOffset, res.Hits...)
	}
	if !slices.Equal(byCursor, all) || !slices.Equal(byOffset, all) {
		t.Fatalf("%s: pages differ:\ncursor %v\noffset %v\n   all %v", label, byCursor, byOffset, all)
	}
}

func passes(d *ingest.Document, where map[string][]string) bool {
	for name, vals := range where {
		if !slices.ContainsFunc(facetValues(d, name), func(v string) bool { return slices.Contains(vals, v) }) {
			return false
		}
	}
	return true
}

func facetValues(d *ingest.Document, name string) []string {
	switch name {
	case search.FacetLicense:
		return []string{string(d.Licence.Family)}
	case search.FacetTopic:
		return d.Topics
	case search.FacetYear:
		if d.Year == 0 {
			return nil
		}
		return []string{fmt.Sprint(d.Year)}
	case search.FacetSource:
		var out []string
		for i, s := range search.Sources {
			if search.SourceBits(d.Sources)&(1<<i) != 0 {
				out = append(out, s)
			}
		}
		return out
	case search.FacetFulltext:
		return []string{fmt.Sprint(len(d.Sections) > 0)}
	}
	return nil
}

func countFacets(counts map[string]map[string]int64, d *ingest.Document) {
	for _, name := range []string{search.FacetLicense, search.FacetTopic, search.FacetYear, search.FacetSource, search.FacetFulltext} {
		if counts[name] == nil {
			counts[name] = map[string]int64{}
		}
		for _, v := range facetValues(d, name) {
			counts[name][v]++
		}
	}
}

func show(n query.Node) string {
	switch n := n.(type) {
	case *query.Term:
		s := n.Field.String() + ":" + n.Word
		if n.Prefix {
			s += "*"
		}
		return s
	case *query.Phrase:
		return n.Field.String() + `:"` + strings.Join(n.Words, " ") + `"`
	case *query.Not:
		return "-" + show(n.Child)
	case *query.And, *query.Or:
		var kids []query.Node
		op := " "
		if a, ok := n.(*query.And); ok {
			kids = a.Children
		} else {
			kids, op = n.(*query.Or).Children, " OR "
		}
		var parts []string
		for _, k := range kids {
			parts = append(parts, show(k))
		}
		return "(" + strings.Join(parts, op) + ")"
	}
	return "?"
}

// openIndex opens the snapshot of the data directory dir and its search
// index, closed when the test ends.
func openIndex(t testing.TB, dir string) (*snapshot.Snapshot, *search.Index) {
	t.Helper()
	snap, err := snapshot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := search.Open(snap, nil, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return snap, ix
}
