package search_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
)

// asFormat2 rewrites a format 3 index as format 2 wrote it: the same
// sections without the year, licence and flags columns, no frequent pair
// words in the TOC, the version 2 magic.
func asFormat2(t *testing.T, b []byte) []byte {
	t.Helper()
	foot := b[len(b)-32:]
	tocOff := binary.LittleEndian.Uint64(foot)
	toc := b[tocOff : len(b)-32]
	uv := func() uint64 {
		v, n := binary.Uvarint(toc)
		if n <= 0 {
			t.Fatal("bad toc")
		}
		toc = toc[n:]
		return v
	}
	out := binary.AppendUvarint(nil, uv()) // documents
	out = binary.AppendUvarint(out, uv())  // terms
	if nsec := uv(); nsec != 12 {
		t.Fatalf("%d sections, want 12", nsec)
	}
	out = binary.AppendUvarint(out, 10)
	for s := range 12 {
		off, l := uv(), uv()
		if s < 10 {
			out = binary.AppendUvarint(binary.AppendUvarint(out, off), l)
		}
	}
	rest := len(toc)
	strs := func() {
		for range uv() {
			toc = toc[uv():]
		}
	}
	toc = toc[6*8:] // average lengths
	strs()          // licences
	strs()          // topics
	strs()          // stop pair words
	toc = toc[1:]   // pair fields
	// What is left is the frequent words (and the minimum of documents
	// of rare pairs, when they were left out): drop it.
	kept := rest - len(toc)
	out = append(out, b[len(b)-32-rest:len(b)-32-rest+kept]...)
	return withTOC(b, out, "osbsrch2")
}

// withTOC returns the index b with the table of contents toc and the
// magic given.
func withTOC(b, toc []byte, magic string) []byte {
	tocOff := binary.LittleEndian.Uint64(b[len(b)-32:])
	nb := append([]byte(nil), b[:tocOff]...)
	copy(nb, magic)
	nb = append(nb, toc...)
	var f [32]byte
	binary.LittleEndian.PutUint64(f[0:], tocOff)
	binary.LittleEndian.PutUint64(f[8:], uint64(len(toc)))
	binary.LittleEndian.PutUint32(f[16:], crc32.ChecksumIEEE(toc))
	copy(f[24:], magic)
	return append(nb, f[:]...)
}

// TestFormat2 reads an index as format 2 wrote it (no columns, no
// frequent pair words): every phrase, year sort, filter and facet answers
// as from the format 3 file it was made from.
func TestFormat2(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	var docs []*ingest.Document
	for i := range 200 {
		d := doc(40000+i, randomText(rng, 2+rng.IntN(8)), randomText(rng, rng.IntN(30)))
		d.Year = 1990 + rng.IntN(35)
		if i%17 == 0 {
			d.Year = 0
		}
		d.Topics = []string{"biology"}
		d.Sources = [][]string{{"jats:pmc"}, {"pubmed"}, {"openalex", "crossref"}}[rng.IntN(3)]
		if rng.IntN(3) == 0 {
			d.Sections = []ingest.Section{{Title: "Intro", Paragraphs: []string{randomText(rng, 20)}}}
		}
		if rng.IntN(4) == 0 {
			d.Licence.Evidence = []licence.Evidence{{Kind: licence.KindJATSHref, Value: "cc0"}}
		}
		docs = append(docs, d)
	}
	// Format 2 kept every pair.
	c := buildCorpusConfig(t, docs, index.Config{PairMinDF: 1})
	b, err := os.ReadFile(filepath.Join(c.snap.Dir, filepath.FromSlash(search.File)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "index.bin")
	if err := os.WriteFile(path, asFormat2(t, b), 0o644); err != nil {
		t.Fatal(err)
	}
	old, err := search.OpenFile(path, c.snap.ID, search.Options{})
	if err != nil {
		t.Fatalf("open format 2: %v", err)
	}
	defer old.Close()
	frequent := c.ix.Pairs().Frequent()
	if len(frequent) == 0 || old.Pairs() == nil || len(old.Pairs().Frequent()) != 0 {
		t.Fatalf("frequent pair words: format 3 %q, format 2 %v", frequent, old.Pairs())
	}
	ctx := context.Background()
	facets := []string{search.FacetLicense, search.FacetTopic, search.FacetYear, search.FacetSource, search.FacetFulltext}
	wheres := []map[string][]string{nil, {"license": {"CC0"}}, {"source": {"pubmed", "jats"}}, {"fulltext": {"true"}},
		{"year": {"2000", "2010", "2020"}}}
	for i := range 300 {
		var n query.Node
		r := search.Request{Limit: 1 + rng.IntN(15), Facets: facets, Where: wheres[rng.IntN(len(wheres))]}
		if rng.IntN(4) == 0 {
			from := 2000 + rng.IntN(20)
			r.YearFrom = &from
		}
		switch i % 3 {
		case 0:
			n = &query.Phrase{Words: []string{frequent[rng.IntN(len(frequent))], frequent[rng.IntN(len(frequent))]}}
		case 1:
			n = &query.Term{Word: vocab[rng.IntN(len(vocab))]}
			r.Sort = search.ByYearDesc
		default:
			n = &query.Term{Word: vocab[rng.IntN(len(vocab))]}
			r.Sort = search.ByYear
		}
		r.Query = n
		want, err := c.ix.Search(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := old.Search(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s sort %v: format 2 %+v, format 3 %+v", show(n), r.Sort, got, want)
		}
	}
}

// TestWideYears: a year that does not fit the year column leaves it
// empty, and years sort and count from the document records.
func TestWideYears(t *testing.T) {
	var docs []*ingest.Document
	for i, y := range []int{2020, 70000, 0, 1999, 65535} {
		d := doc(50000+i, "river delta", "")
		d.Year = y
		docs = append(docs, d)
	}
	c := buildCorpus(t, docs)
	res, err := c.ix.Search(context.Background(), search.Request{Query: &query.Term{Word: "river"}, Sort: search.ByYearDesc,
		Limit: 5, Facets: []string{"year"}})
	if err != nil {
		t.Fatal(err)
	}
	var years []int
	for _, h := range res.Hits {
		years = append(years, c.docs[h.Doc].Year)
	}
	if fmt.Sprint(years) != "[70000 65535 2020 1999 0]" {
		t.Errorf("years by -year: %v", years)
	}
	if fmt.Sprint(res.Facets["year"]) != "[{1999 1} {2020 1} {65535 1} {70000 1}]" {
		t.Errorf("year facet: %v", res.Facets["year"])
	}
}
