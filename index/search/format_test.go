package search_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/ingest"
)

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

// TestWideYears: a year that does not fit two bytes makes the year
// column int32, and years sort and count from it.
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

// openWithTOCTail opens a copy of the index file b whose table of
// contents ends with tail besides.
func openWithTOCTail(t *testing.T, b, tail []byte) (*search.Index, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "index.bin")
	if err := os.WriteFile(path, withTOC(b, append(slices.Clone(tocOf(b)), tail...), search.Magic), 0o644); err != nil {
		t.Fatal(err)
	}
	return search.OpenFile(path, "s", search.Options{})
}

// tocOf is the table of contents of an index file.
func tocOf(b []byte) []byte {
	tocOff := binary.LittleEndian.Uint64(b[len(b)-32:])
	return b[tocOff : len(b)-32]
}
