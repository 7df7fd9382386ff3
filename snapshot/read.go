package snapshot

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// ReadParquet calls fn with batches of the rows of a snapshot's Parquet
// file, decoded into T. The rows are valid during the call only:
// parquet-go may point strings into its page buffers (dictionary-encoded
// columns), so a string kept beyond the call must be cloned.
func ReadParquet[T any](path string, fn func([]T) error) error {
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
