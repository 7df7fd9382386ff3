// Package parquetrows reads a Parquet table into Go structs row by row, a
// batch at a time, so that memory stays bounded whatever the table's
// size, with one row of look-ahead for merge joins. A malformed file is
// an error, never a panic (parquet-go panics on some).
package parquetrows

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// batch is how many rows a Read decodes at once.
const batch = 128

// Cursor reads the rows of one file as T (the columns named by T's
// parquet tags; others are skipped).
type Cursor[T any] struct {
	f    *os.File
	r    *parquet.GenericReader[T]
	buf  []T
	i, n int
	eof  bool
	path string
}

// Open opens the table at path.
func Open[T any](path string) (c *Cursor[T], err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			f.Close()
			c, err = nil, fmt.Errorf("read %s: %v", path, p)
		}
	}()
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return &Cursor[T]{f: f, r: parquet.NewGenericReader[T](pf), buf: make([]T, batch), path: path}, nil
}

// Peek returns the current row, or nil at the end. The row is valid until
// the batch after it is read (a Peek following Next).
func (c *Cursor[T]) Peek() (row *T, err error) {
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
func (c *Cursor[T]) Next() { c.i++ }

// Close closes the file.
func (c *Cursor[T]) Close() {
	c.r.Close()
	c.f.Close()
}
