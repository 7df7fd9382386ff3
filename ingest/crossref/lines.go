package crossref

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
)

// maxLine caps one JSON line in line mode. Real works (thousands of
// references) are a few megabytes; a longer line is reported and skipped.
const maxLine = 64 << 20

// sniffSize is how much input is examined to choose between line mode and
// stream mode.
const sniffSize = 1 << 20

// lineReader splits its input into lines of at most max bytes.
type lineReader struct {
	br  *bufio.Reader
	max int
	num int
	buf []byte
}

// next returns the next line without its line ending, and its 1-based
// number. A line longer than max is consumed and reported with tooLong set.
// At the end of the input it returns io.EOF.
func (l *lineReader) next() (line []byte, num int, tooLong bool, err error) {
	l.buf = l.buf[:0]
	l.num++
	for {
		chunk, err := l.br.ReadSlice('\n')
		if !tooLong {
			if len(l.buf)+len(chunk) > l.max {
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

// errReader remembers the first error of the underlying reader, so that an
// I/O failure is told apart from malformed content.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// maybeGunzip returns r, decompressing it when it starts with the gzip
// magic bytes.
func maybeGunzip(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 4096)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		return gzip.NewReader(br)
	}
	return br, nil
}
