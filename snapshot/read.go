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
	f, r, err := openParquet[T](path)
	if err != nil {
		return err
	}
	defer f.Close()
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

// rowsBatch is how many rows a Rows decodes at once.
const rowsBatch = 128

// Rows reads a Parquet file row by row as T (the columns named by T's
// parquet tags; others are skipped), a batch at a time, with one row of
// look-ahead for merge joins: ReadParquet for a caller that pulls. A
// malformed file is an error, never a panic (parquet-go panics on some).
type Rows[T any] struct {
	f    *os.File
	r    *parquet.GenericReader[T]
	buf  []T
	i, n int
	eof  bool
	path string
}

// OpenRows opens the Parquet file at path.
func OpenRows[T any](path string) (c *Rows[T], err error) {
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, fmt.Errorf("read %s: %v", path, p)
		}
	}()
	f, r, err := openParquet[T](path)
	if err != nil {
		return nil, fmt.Errorf("read %w", err)
	}
	return &Rows[T]{f: f, r: r, buf: make([]T, rowsBatch), path: path}, nil
}

// openParquet opens the Parquet file at path for reading as T; the
// caller closes both. An error names the path.
func openParquet[T any](path string) (f *os.File, r *parquet.GenericReader[T], err error) {
	if f, err = os.Open(path); err != nil {
		return nil, nil, err
	}
	defer func() {
		if r == nil {
			f.Close() // an error, or a panic passing through
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, parquet.NewGenericReader[T](pf), nil
}

// Peek returns the current row, or nil at the end. The row is valid until
// the batch after it is read (a Peek following Next); as with
// ReadParquet, a string kept longer must be cloned.
func (c *Rows[T]) Peek() (row *T, err error) {
	if c.i < c.n {
		return &c.buf[c.i], nil
	}
	if c.eof {
		return nil, nil
	}
	defer func() {
		if p := recover(); p != nil {
			row, err = nil, fmt.Errorf("read %s: %v", c.path, p)
		}
	}()
	clear(c.buf)
	n, err := c.r.Read(c.buf)
	c.i, c.n = 0, n
	if errors.Is(err, io.EOF) {
		c.eof = true
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", c.path, err)
	}
	if n == 0 {
		c.eof = true
		return nil, nil
	}
	return &c.buf[0], nil
}

// Next moves past the current row.
func (c *Rows[T]) Next() { c.i++ }

// Close closes the file.
func (c *Rows[T]) Close() {
	c.r.Close()
	c.f.Close()
}
