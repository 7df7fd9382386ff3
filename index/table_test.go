package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// The table's goroutine writes every row, in order, across batches and
// row-group cuts, and the file is described by what close returns.
func TestTableWritesInOrder(t *testing.T) {
	dir := t.TempDir()
	tb, err := newTable[aliasRow](dir, "t.parquet", 1000)
	if err != nil {
		t.Fatal(err)
	}
	const n = 5*writeBatch + 17
	for i := 0; i < n; i++ {
		if err := tb.write(aliasRow{Alias: fmt.Sprintf("a%05d", i), ID: "x"}, 10); err != nil {
			t.Fatal(err)
		}
	}
	f, err := tb.close()
	if err != nil {
		t.Fatal(err)
	}
	if f.Rows != n || f.Bytes == 0 || f.SHA256 == "" {
		t.Errorf("file %+v", f)
	}
	rows, err := parquet.ReadFile[aliasRow](filepath.Join(dir, "t.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n {
		t.Fatalf("%d rows, want %d", len(rows), n)
	}
	for i, r := range rows {
		if want := fmt.Sprintf("a%05d", i); r.Alias != want {
			t.Fatalf("row %d is %q, want %q", i, r.Alias, want)
		}
	}
	tb.abort() // after close: harmless
	if err := tb.write(aliasRow{}, 1); !errors.Is(err, ErrFinished) {
		t.Errorf("write after close: %v", err)
	}
}

// An error in the table's goroutine (the file cannot be written) comes
// back from a later write or from close, never as a panic or a hang.
func TestTableWriteError(t *testing.T) {
	tb, err := newTable[aliasRow](t.TempDir(), "t.parquet", 100)
	if err != nil {
		t.Fatal(err)
	}
	tb.out.f.Close() // every write to the file fails from now on
	var werr error
	for i := 0; i < 20*writeBatch && werr == nil; i++ {
		werr = tb.write(aliasRow{Alias: strings.Repeat("x", 100), ID: "y"}, 200)
	}
	_, cerr := tb.close()
	if werr == nil && cerr == nil {
		t.Fatal("writing to a closed file reported no error")
	}
	for _, err := range []error{werr, cerr} {
		if err != nil && !strings.Contains(err.Error(), "t.parquet") {
			t.Errorf("error does not name the file: %v", err)
		}
	}
}

// The prose columns of the documents, full text and references tables are
// written without bounds, and every other column keeps them: DuckDB prunes
// row groups by an id's or a year's bounds. A prose path that names no
// column (a renamed field) fails here rather than silently writing bounds.
func TestProseColumnsHaveNoBounds(t *testing.T) {
	dr, sr, rr := benchTableRows(3)
	dir := t.TempDir()
	checkProse(t, dir, "documents.parquet", dr, documentProse)
	checkProse(t, dir, "fulltext.parquet", sr, sectionProse)
	checkProse(t, dir, "references.parquet", rr, referenceProse)
}

func checkProse[T any](t *testing.T, dir, name string, rows []T, prose []string) {
	t.Helper()
	tb, err := newTable[T](dir, name, 0, proseColumns(prose...)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := tb.write(r, 100); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tb.close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	isProse := map[string]bool{}
	for _, p := range prose {
		isProse[p] = true
	}
	seen := 0
	for _, c := range pf.Metadata().RowGroups[0].Columns {
		path := strings.Join(c.MetaData.PathInSchema, ".")
		hasBounds := c.MetaData.Statistics.MinValue != nil
		if isProse[path] {
			seen++
		}
		if hasBounds == isProse[path] && c.MetaData.NumValues > c.MetaData.Statistics.NullCount {
			t.Errorf("%s: column %s has bounds %v", name, path, hasBounds)
		}
	}
	if seen != len(prose) {
		t.Errorf("%s: %d of the prose columns %q are columns of the table", name, seen, prose)
	}
	if _, err := parquet.ReadFile[T](filepath.Join(dir, name)); err != nil {
		t.Errorf("%s reads back: %v", name, err)
	}
}
