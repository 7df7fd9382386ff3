package resident

import "io"

// A Writer buffers a file and writes it in whole 2 MiB chunks at
// multiples of 2 MiB (but for its last), for a file that Map will map.
// A buffered write on ext4 (Linux 6.16 and later) leaves page cache
// folios as large as its size and alignment allow, so a file written this
// way is in the page cache in 2 MiB folios, which Map's mapping maps with
// one page table entry each, without reading the file again; with bufio's
// 1 MiB or 256 KiB writes, the folios are as small as those. Not safe for
// concurrent use.
type Writer struct {
	w   io.WriterAt
	buf []byte // the chunk at off, as far as written
	off int64
}

// NewWriter returns a Writer writing w from its start.
func NewWriter(w io.WriterAt) *Writer {
	return &Writer{w: w, buf: make([]byte, 0, hugePage)}
}

// Write buffers p, writing every chunk it completes.
func (c *Writer) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(c.buf[len(c.buf):cap(c.buf)], p[n:])
		c.buf = c.buf[:len(c.buf)+k]
		n += k
		if len(c.buf) == cap(c.buf) {
			if _, err := c.w.WriteAt(c.buf, c.off); err != nil {
				return n, err
			}
			c.off += int64(len(c.buf))
			c.buf = c.buf[:0]
		}
	}
	return n, nil
}

// Flush writes the chunk begun so far. It stays buffered, to be written
// again whole once full.
func (c *Writer) Flush() error {
	_, err := c.w.WriteAt(c.buf, c.off)
	return err
}
