package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type testRow struct {
	ID   int64    `parquet:"id"`
	Name string   `parquet:"name"`
	Tags []string `parquet:"tags,list"`
}

// narrow reads only some of row's columns.
type narrow struct {
	Name string `parquet:"name"`
}

func writeRows(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.parquet")
	rows := make([]testRow, n)
	for i := range rows {
		rows[i] = testRow{ID: int64(i), Name: strings.Repeat("x", i%7), Tags: make([]string, i%3)}
	}
	if err := parquet.WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRows: every row comes once, in order, across batch boundaries;
// Peek does not move; a subset of the columns can be read.
func TestRows(t *testing.T) {
	for _, n := range []int{0, 1, rowsBatch - 1, rowsBatch, rowsBatch + 1, 3*rowsBatch + 5} {
		path := writeRows(t, n)
		c, err := OpenRows[testRow](path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			r, err := c.Peek()
			if err != nil || r == nil {
				t.Fatalf("n=%d row %d: %v, %v", n, i, r, err)
			}
			if again, _ := c.Peek(); again != r {
				t.Fatalf("n=%d row %d: Peek moved", n, i)
			}
			if r.ID != int64(i) || len(r.Name) != i%7 || len(r.Tags) != i%3 {
				t.Fatalf("n=%d row %d: %+v", n, i, *r)
			}
			c.Next()
		}
		if r, err := c.Peek(); r != nil || err != nil {
			t.Fatalf("n=%d: after the last row %v, %v", n, r, err)
		}
		c.Close()

		nc, err := OpenRows[narrow](path)
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for r, err := nc.Peek(); r != nil || err != nil; r, err = nc.Peek() {
			if err != nil || len(r.Name) != k%7 {
				t.Fatalf("n=%d narrow row %d: %+v, %v", n, k, r, err)
			}
			nc.Next()
			k++
		}
		nc.Close()
		if k != n {
			t.Fatalf("narrow: %d rows, want %d", k, n)
		}
	}
}

// TestRowsDamaged: a truncated or garbled file is an error from Open or
// Peek, not a panic.
func TestRowsDamaged(t *testing.T) {
	good, err := os.ReadFile(writeRows(t, 300))
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{0, 4, len(good) / 3, len(good) / 2, len(good) - 8} {
		for _, garble := range []bool{false, true} {
			b := append([]byte(nil), good[:cut]...)
			if garble {
				b = append([]byte(nil), good...)
				for i := cut; i < cut+64 && i < len(b)-8; i++ {
					b[i] ^= 0x5a
				}
			}
			path := filepath.Join(t.TempDir(), "bad.parquet")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := OpenRows[testRow](path)
			if err != nil {
				continue
			}
			for {
				r, err := c.Peek()
				if err != nil || r == nil {
					break
				}
				c.Next()
			}
			c.Close()
		}
	}
}
