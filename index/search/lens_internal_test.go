package search

import (
	"context"
	"testing"

	"github.com/openshelf/openshelf/index/search/query"
)

// TestFieldLensWidths: the docs records keep each document's field
// lengths, two bytes each unless one is above 65535, and a search scores
// the same from either width.
func TestFieldLensWidths(t *testing.T) {
	var scores []float64 // the narrow index's
	for _, tc := range []struct {
		name     string
		fulltext int // the second document's full-text length
		narrow   bool
	}{
		{"narrow", 65535, true},
		{"wide", 70000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, path := newDocsWriter(t, 0, [NumFields]int{})
			lens := [][NumFields]int{{3, 40, 2, 0, 1, 0}, {5, 60, 1, 2, 1, tc.fulltext}}
			for _, l := range lens {
				if err := w.AddDoc(DocValues{License: "CC0", Len: l}); err != nil {
					t.Fatal(err)
				}
			}
			for d := range int32(2) {
				if err := w.AddPosting([]byte("cell"), d, FieldAbstract, []uint32{1, 7}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := w.Close(); err != nil {
				t.Fatal(err)
			}
			ix, err := OpenFile(path, "x", Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if got := ix.lens.narrow != nil; got != tc.narrow {
				t.Fatalf("narrow records: %v, want %v", got, tc.narrow)
			}
			for d, l := range lens {
				for f, want := range l {
					if got := ix.lens.of(int32(d), f); got != uint32(want) {
						t.Errorf("doc %d field %d: length %d, want %d", d, f, got, want)
					}
				}
			}
			res, err := ix.Search(context.Background(), Request{Query: &query.Term{Word: "cell"}, Limit: 2})
			if err != nil || len(res.Hits) != 2 {
				t.Fatalf("search: %v, %v", res, err)
			}
			// The shorter abstract scores higher, as BM25F's length
			// normalisation has it.
			if res.Hits[0].Doc != 0 || !(res.Hits[0].Score > res.Hits[1].Score) {
				t.Errorf("hits %+v", res.Hits)
			}
			// The abstracts' lengths and average are the same in both.
			got := []float64{res.Hits[0].Score, res.Hits[1].Score}
			if scores == nil {
				scores = got
			} else if got[0] != scores[0] || got[1] != scores[1] {
				t.Errorf("scores %v, narrow records %v", got, scores)
			}
		})
	}
}
