package index

import (
	"errors"
	"fmt"
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
