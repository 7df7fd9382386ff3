package search_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshelf/openshelf/index/search"
)

// TestWriterOrder: calls out of the documented order fail with
// ErrWriteOrder, and Abort leaves no file behind (spools included).
func TestWriterOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(w *search.Writer) error
	}{
		{"citation of an unknown doc", func(w *search.Writer) error { return w.AddCitation(5, 0) }},
		{"citations out of order", func(w *search.Writer) error {
			if err := w.AddCitation(1, 0); err != nil {
				return err
			}
			return w.AddCitation(0, 1)
		}},
		{"terms out of order", func(w *search.Writer) error {
			if err := w.AddPosting([]byte("b"), 0, 0, []uint32{0}); err != nil {
				return err
			}
			return w.AddPosting([]byte("a"), 0, 0, []uint32{0})
		}},
		{"docs out of order", func(w *search.Writer) error {
			if err := w.AddPosting([]byte("a"), 1, 0, []uint32{0}); err != nil {
				return err
			}
			return w.AddPosting([]byte("a"), 0, 0, []uint32{0})
		}},
		{"positions not increasing", func(w *search.Writer) error { return w.AddPosting([]byte("a"), 0, 0, []uint32{3, 3}) }},
		{"doc after postings", func(w *search.Writer) error {
			if err := w.AddPosting([]byte("a"), 0, 0, []uint32{0}); err != nil {
				return err
			}
			return w.AddDoc(search.DocValues{})
		}},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "index.bin")
		w, err := search.NewWriter(path, dir)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := w.AddDoc(search.DocValues{License: "CC0", Topics: []string{"x"}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := tc.run(w); !errors.Is(err, search.ErrWriteOrder) {
			t.Errorf("%s: %v, want ErrWriteOrder", tc.name, err)
		}
		w.Abort()
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s: Abort left %d files", tc.name, len(ents))
		}
	}
}
