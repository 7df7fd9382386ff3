// Package lines reads JSON Lines and other line-oriented inputs with a cap
// on the length of one line, and sniffs gzip.
package lines

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"

	"github.com/openshelf/openshelf/ingest/internal/limit"
)

// Reader splits its input into lines of at most Max bytes.
type Reader struct {
	BR  *bufio.Reader
	Max int
	num int
	buf []byte
}

// Next returns the next line without its line ending, and its 1-based
// number. A line longer than Max is consumed and reported with tooLong set.
// At the end of the input it returns io.EOF.
func (l *Reader) Next() (line []byte, num int, tooLong bool, err error) {
	l.buf = l.buf[:0]
	l.num++
	for {
		chunk, err := l.BR.ReadSlice('\n')
		if !tooLong {
			if len(l.buf)+len(chunk) > l.Max {
				tooLong = true
				l.buf = l.buf[:0]
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		switch {
		case err == nil:
			return bytes.TrimRight(l.buf, "\r\n"), l.num, tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			if len(l.buf) == 0 && !tooLong {
				return nil, l.num, false, io.EOF
			}
			return bytes.TrimRight(l.buf, "\r\n"), l.num, tooLong, nil
		default:
			return nil, l.num, false, err
		}
	}
}

// ErrReader remembers the first error of the underlying reader, so that an
// I/O failure is told apart from malformed content.
type ErrReader struct {
	R   io.Reader
	Err error
}

func (e *ErrReader) Read(p []byte) (int, error) {
	n, err := e.R.Read(p)
	if err != nil && err != io.EOF && e.Err == nil {
		e.Err = err
	}
	return n, err
}

// MaybeGunzip returns a buffered r, decompressing it when it starts with
// the gzip magic bytes; decompression is bounded (limit.Expansion: a bomb
// fails with limit.ErrBomb).
func MaybeGunzip(r io.Reader) (*bufio.Reader, error) {
	in := &limit.Counter{R: r}
	br := bufio.NewReaderSize(in, 256<<10)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		x := &limit.Expansion{R: zr, In: func() int64 { return in.N }}
		return bufio.NewReaderSize(x, 256<<10), nil
	}
	return br, nil
}
