package index

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/openshelf/openshelf/index/resident"
	"github.com/openshelf/openshelf/snapshot"
)

// hashFile is an output file that counts and hashes what is written, so the
// manifest needs no second pass over the data.
type hashFile struct {
	name string // slash-separated, relative to the snapshot directory
	dir  string // the directory name is relative to
	f    *os.File
	bw   interface {
		io.Writer
		Flush() error
	}
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
	return &hashFile{name: name, dir: dir, f: f, bw: bufio.NewWriterSize(f, 256<<10), h: sha256.New()}, nil
}

// mapped makes h write in aligned 2 MiB chunks (resident.Writer), for a
// file the read server maps. Call it before the first Write.
func (h *hashFile) mapped() { h.bw = resident.NewWriter(h.f) }

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
//
// Encoding and compressing the pages runs in a goroutine of the table's
// own, fed batch by batch through a short queue: the builder's goroutine
// goes on with the next document meanwhile, and the tables (full text,
// references, documents...) compress on the other cores. The queue holds
// at most tableQueue batches, so memory stays bounded; rows are written in
// order, so the file is the same as if written in the caller's goroutine.
// An error of the goroutine is returned by the next write or by close.
//
// parquet.GenericWriter shreds a batch column by column, through functions
// it compiles once per row type, not by reflection on each row; what is
// left outside compression is copying the strings into the page buffers,
// the pages' statistics and their encoding. Writing each column's
// []parquet.Value through ColumnWriter.WriteRowValues, 64 rows at a time,
// gives the same bytes but costs 2-9% more CPU on the full-text table, as
// boxing every value outweighs the shredding it saves.
type table[T any] struct {
	out           *hashFile
	w             *parquet.GenericWriter[T]
	batch         []T
	rows          int64
	groupRows     int
	groupBytes    int
	rowGroupRows  int
	rowGroupBytes int

	ops    chan tableOp[T]
	free   chan []T
	done   chan struct{}
	err    atomic.Pointer[error] // first error of the goroutine
	closed bool                  // ops is closed
}

// tableOp is one batch for the table's goroutine; cut ends the row group
// after it.
type tableOp[T any] struct {
	rows []T
	cut  bool
}

const (
	writeBatch       = 256
	tableQueue       = 2
	defaultGroupRows = 100_000
	maxGroupBytes    = 64 << 20
)

func newTable[T any](dir, name string, rowGroupRows int, opts ...parquet.WriterOption) (*table[T], error) {
	out, err := createHashFile(dir, name)
	if err != nil {
		return nil, fmt.Errorf("index: create %s: %w", name, err)
	}
	if rowGroupRows <= 0 {
		rowGroupRows = defaultGroupRows
	}
	opts = append([]parquet.WriterOption{
		parquet.Compression(zstdCodec),
		parquet.CreatedBy("openshelf", "1", ""),
		parquet.KeyValueMetadata("openshelf.schema_version", fmt.Sprint(snapshot.SchemaVersion)),
	}, opts...)
	w := parquet.NewGenericWriter[T](out, opts...)
	t := &table[T]{out: out, w: w, rowGroupRows: rowGroupRows, rowGroupBytes: maxGroupBytes,
		batch: make([]T, 0, writeBatch), ops: make(chan tableOp[T], tableQueue),
		free: make(chan []T, tableQueue+1), done: make(chan struct{})}
	go t.run()
	return t, nil
}

// proseColumns returns the options that leave the pages of the columns
// named (dotted paths) without min/max bounds. For columns of prose
// (titles, abstracts, paragraphs, references' text) bounds filter nothing,
// and computing them compared every value of every page: a few percent of
// writing the full text and references tables.
func proseColumns(paths ...string) []parquet.WriterOption {
	opts := make([]parquet.WriterOption, len(paths))
	for i, p := range paths {
		opts[i] = parquet.SkipPageBounds(strings.Split(p, ".")...)
	}
	return opts
}

// run is the table's goroutine: it writes the batches in order.
func (t *table[T]) run() {
	defer close(t.done)
	for op := range t.ops {
		if t.err.Load() == nil {
			if err := t.writeOp(op); err != nil {
				err = fmt.Errorf("index: write %s: %w", t.out.name, err)
				t.err.Store(&err)
			}
		}
		clear(op.rows) // drop references to the rows' strings
		select {
		case t.free <- op.rows[:0]:
		default:
		}
	}
}

func (t *table[T]) writeOp(op tableOp[T]) error {
	if len(op.rows) > 0 {
		if _, err := t.w.Write(op.rows); err != nil {
			return err
		}
	}
	if op.cut {
		return t.w.Flush()
	}
	return nil
}

func (t *table[T]) failure() error {
	if p := t.err.Load(); p != nil {
		return *p
	}
	return nil
}

// write adds one row; size is a rough estimate of its bytes.
func (t *table[T]) write(row T, size int) error {
	if err := t.failure(); err != nil {
		return err
	}
	if t.closed {
		return fmt.Errorf("index: write %s: %w", t.out.name, ErrFinished)
	}
	t.batch = append(t.batch, row)
	t.rows++
	t.groupRows++
	t.groupBytes += size
	cut := t.groupRows >= t.rowGroupRows || t.groupBytes >= t.rowGroupBytes
	if cut || len(t.batch) == cap(t.batch) {
		t.send(cut)
	}
	if cut {
		t.groupRows, t.groupBytes = 0, 0
	}
	return nil
}

// send queues the current batch and starts a new one.
func (t *table[T]) send(cut bool) {
	t.ops <- tableOp[T]{rows: t.batch, cut: cut}
	select {
	case t.batch = <-t.free:
	default:
		t.batch = make([]T, 0, writeBatch)
	}
}

// stop ends the goroutine once it has written what is queued.
func (t *table[T]) stop() {
	if !t.closed {
		t.closed = true
		close(t.ops)
	}
	<-t.done
}

func (t *table[T]) close() (snapshot.File, error) {
	if len(t.batch) > 0 && !t.closed {
		t.send(false)
	}
	t.stop()
	if err := t.failure(); err != nil {
		t.out.abort()
		return snapshot.File{}, err
	}
	if err := t.w.Close(); err != nil {
		t.out.abort()
		return snapshot.File{}, fmt.Errorf("index: write %s: %w", t.out.name, err)
	}
	return t.out.close(t.rows)
}

func (t *table[T]) abort() {
	t.stop()
	t.out.abort()
}
