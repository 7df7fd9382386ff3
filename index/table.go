package index

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/openshelf/openshelf/snapshot"
)

// hashFile is an output file that counts and hashes what is written, so the
// manifest needs no second pass over the data.
type hashFile struct {
	name  string // slash-separated, relative to the snapshot directory
	f     *os.File
	bw    *bufio.Writer
	h     hash.Hash
	bytes int64
}

func createHashFile(dir, name string) (*hashFile, error) {
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return &hashFile{name: name, f: f, bw: bufio.NewWriterSize(f, 256<<10), h: sha256.New()}, nil
}

func (h *hashFile) Write(p []byte) (int, error) {
	n, err := h.bw.Write(p)
	h.h.Write(p[:n])
	h.bytes += int64(n)
	return n, err
}

// close flushes, syncs and closes the file and describes it.
func (h *hashFile) close(rows int64) (snapshot.File, error) {
	err := h.bw.Flush()
	if err == nil {
		err = h.f.Sync()
	}
	if cerr := h.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return snapshot.File{}, fmt.Errorf("index: write %s: %w", h.name, err)
	}
	return snapshot.File{Name: h.name, Rows: rows, Bytes: h.bytes, SHA256: hex.EncodeToString(h.h.Sum(nil))}, nil
}

// abort closes the file without caring for errors (the directory is
// removed anyway).
func (h *hashFile) abort() { h.f.Close() }

// zstdCodec is shared by every table: it pools its encoders. The fastest
// level: page compression was the largest cost of a build at the default
// level, for files only ~10% smaller.
var zstdCodec = &pqzstd.Codec{Level: pqzstd.SpeedFastest}

// table writes one Parquet file row by row. Rows are handed to parquet-go
// in small batches, and a row group is cut every rowGroupRows rows or when
// the rows written since the last cut reach rowGroupBytes (as estimated by
// the caller), so memory stays bounded whatever the row size.
type table[T any] struct {
	out           *hashFile
	w             *parquet.GenericWriter[T]
	batch         []T
	rows          int64
	groupRows     int
	groupBytes    int
	rowGroupRows  int
	rowGroupBytes int
}

const (
	writeBatch       = 256
	defaultGroupRows = 100_000
	maxGroupBytes    = 64 << 20
)

func newTable[T any](dir, name string, rowGroupRows int) (*table[T], error) {
	out, err := createHashFile(dir, name)
	if err != nil {
		return nil, fmt.Errorf("index: create %s: %w", name, err)
	}
	if rowGroupRows <= 0 {
		rowGroupRows = defaultGroupRows
	}
	w := parquet.NewGenericWriter[T](out,
		parquet.Compression(zstdCodec),
		parquet.CreatedBy("openshelf", "1", ""),
		parquet.KeyValueMetadata("openshelf.schema_version", fmt.Sprint(snapshot.SchemaVersion)),
	)
	return &table[T]{out: out, w: w, rowGroupRows: rowGroupRows, rowGroupBytes: maxGroupBytes,
		batch: make([]T, 0, writeBatch)}, nil
}

// write adds one row; size is a rough estimate of its bytes.
func (t *table[T]) write(row T, size int) error {
	t.batch = append(t.batch, row)
	t.rows++
	t.groupRows++
	t.groupBytes += size
	if len(t.batch) == cap(t.batch) {
		if err := t.flushBatch(); err != nil {
			return err
		}
	}
	if t.groupRows >= t.rowGroupRows || t.groupBytes >= t.rowGroupBytes {
		if err := t.flushBatch(); err != nil {
			return err
		}
		if err := t.w.Flush(); err != nil {
			return fmt.Errorf("index: write %s: %w", t.out.name, err)
		}
		t.groupRows, t.groupBytes = 0, 0
	}
	return nil
}

func (t *table[T]) flushBatch() error {
	if len(t.batch) == 0 {
		return nil
	}
	if _, err := t.w.Write(t.batch); err != nil {
		return fmt.Errorf("index: write %s: %w", t.out.name, err)
	}
	clear(t.batch) // drop references to the rows' strings
	t.batch = t.batch[:0]
	return nil
}

func (t *table[T]) close() (snapshot.File, error) {
	if err := t.flushBatch(); err != nil {
		t.out.abort()
		return snapshot.File{}, err
	}
	if err := t.w.Close(); err != nil {
		t.out.abort()
		return snapshot.File{}, fmt.Errorf("index: write %s: %w", t.out.name, err)
	}
	return t.out.close(t.rows)
}

func (t *table[T]) abort() { t.out.abort() }
