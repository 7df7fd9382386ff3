package archive

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// errIndex reports snapshot tables (catalog, aliases, content) that do not
// have the documented shape. The search index has its own,
// search.ErrMalformed.
var errIndex = errors.New("archive: malformed search index")

// The catalog and alias stores read their tables with the same two helpers
// package index/search uses; they are copied here until those stores move
// next to their writer too (see doc.go).

type bitset []uint64

func newBitset(n int) bitset      { return make(bitset, (n+63)/64) }
func (b bitset) set(i int32)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

// readParquet calls fn with batches of the rows of a Parquet file. The
// rows are valid during the call only: parquet-go may point strings into
// its page buffers (dictionary-encoded columns), so a string kept beyond
// the call must be cloned.
func readParquet[T any](path string, fn func([]T) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	buf := make([]T, 4096)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if ferr := fn(buf[:n]); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
}
