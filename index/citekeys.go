package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/snapshot"
)

// citeKeysFile keeps a snapshot's (or segment's) citation records as the
// build sorted them (searchbuild.go: key 0x00 kind doc(4) id, in byte
// order), so that a later delta build resolves the archive's citations
// from every segment's records without reading any document again. Each
// record is a uvarint length and the record, the whole zstd-compressed.
const citeKeysFile = "search/citekeys.zst"

type citeKeyWriter struct {
	out *hashFile
	zw  *zstd.Encoder
	n   int64
	buf []byte
}

func newCiteKeyWriter(dir string) (*citeKeyWriter, error) {
	out, err := createHashFile(dir, citeKeysFile)
	if err != nil {
		return nil, fmt.Errorf("index: %s: %w", citeKeysFile, err)
	}
	zw, err := zstd.NewWriter(out, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		out.abort()
		return nil, err
	}
	return &citeKeyWriter{out: out, zw: zw}, nil
}

func (w *citeKeyWriter) add(rec []byte) error {
	w.buf = append(binary.AppendUvarint(w.buf[:0], uint64(len(rec))), rec...)
	w.n++
	_, err := w.zw.Write(w.buf)
	return err
}

func (w *citeKeyWriter) close() (snapshot.File, error) {
	if err := w.zw.Close(); err != nil {
		w.out.abort()
		return snapshot.File{}, fmt.Errorf("index: %s: %w", citeKeysFile, err)
	}
	return w.out.close(w.n)
}

func (w *citeKeyWriter) abort() {
	w.zw.Close()
	w.out.abort()
}

// citeKeyReader reads a citeKeysFile record by record.
type citeKeyReader struct {
	f   *os.File
	zr  *zstd.Decoder
	br  *bufio.Reader
	rec []byte
}

func openCiteKeys(dir string) (*citeKeyReader, error) {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(citeKeysFile)))
	if err != nil {
		return nil, err
	}
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		f.Close()
		return nil, err
	}
	return &citeKeyReader{f: f, zr: zr, br: bufio.NewReaderSize(zr, 64<<10)}, nil
}

// next returns the next record, valid until the next call, or nil at the
// end.
func (r *citeKeyReader) next() ([]byte, error) {
	n, err := binary.ReadUvarint(r.br)
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil || n > 1<<20 {
		return nil, fmt.Errorf("index: %s: corrupt record", citeKeysFile)
	}
	if cap(r.rec) < int(n) {
		r.rec = make([]byte, n)
	}
	r.rec = r.rec[:n]
	if _, err := io.ReadFull(r.br, r.rec); err != nil {
		return nil, fmt.Errorf("index: %s: %w", citeKeysFile, err)
	}
	return r.rec, nil
}

func (r *citeKeyReader) close() {
	r.zr.Close()
	r.f.Close()
}
