package catalog

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// File is the catalog's path inside a snapshot directory.
const File = "catalog/catalog.bin"

const (
	magic      = "osbcatl1"
	footerSize = 8 + 7*8 + 8
)

// Flags of a record.
const (
	FlagFulltext   = 1 << 0
	FlagReferences = 1 << 1
)

// Record is one document's catalog entry.
type Record struct {
	ID         string
	Title      string
	Authors    []string
	Year       int32
	Venue      string
	Topics     []string
	License    string
	LicenseURL string
	Flags      byte
}

// ErrOrder reports records or aliases added out of order.
var ErrOrder = errors.New("catalog: out of order")

// Writer writes a catalog file: Add every record in id order, then
// AddAlias every alias in alias order, then Close. The offset arrays go
// to a scratch file until Close appends them, so memory stays small
// whatever the number of documents. Not safe for concurrent use.
type Writer struct {
	w       io.Writer
	pos     uint64
	scratch *os.File
	sw      *bufio.Writer
	dict    map[string]uint64
	words   []string
	n, na   uint64
	lastID  string
	last    string // last alias
	inAlias bool
	recEnd  uint64 // end of the records section
	aliasAt uint64 // start of the aliases section
	dictAt  uint64
	buf     []byte
}

// NewWriter returns a Writer appending to w, which should be buffered;
// scratchDir holds its scratch file.
func NewWriter(w io.Writer, scratchDir string) (*Writer, error) {
	f, err := os.CreateTemp(scratchDir, "catalog-offsets-*")
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	return &Writer{w: w, scratch: f, sw: bufio.NewWriterSize(f, 64<<10), dict: map[string]uint64{}}, nil
}

func (w *Writer) word(s string) uint64 {
	i, ok := w.dict[s]
	if !ok {
		i = uint64(len(w.words))
		w.dict[s] = i
		w.words = append(w.words, s)
	}
	return i
}

// Add writes the next document's record; ids must increase.
func (w *Writer) Add(r *Record) error {
	if w.inAlias || (w.n > 0 && r.ID <= w.lastID) {
		return fmt.Errorf("%w: record %q", ErrOrder, r.ID)
	}
	w.lastID = r.ID
	b := appendString(w.buf[:0], r.ID)
	b = appendString(b, r.Title)
	b = binary.AppendUvarint(b, uint64(len(r.Authors)))
	for _, a := range r.Authors {
		b = appendString(b, a)
	}
	b = binary.AppendVarint(b, int64(r.Year))
	b = binary.AppendUvarint(b, w.word(r.Venue))
	b = binary.AppendUvarint(b, uint64(len(r.Topics)))
	for _, t := range r.Topics {
		b = binary.AppendUvarint(b, w.word(t))
	}
	b = binary.AppendUvarint(b, w.word(r.License))
	b = binary.AppendUvarint(b, w.word(r.LicenseURL))
	b = append(b, r.Flags)
	w.buf = b
	w.n++
	return w.record(b)
}

// record writes one record or alias and notes its offset.
func (w *Writer) record(b []byte) error {
	if err := w.offset(w.pos); err != nil {
		return err
	}
	return w.write(b)
}

func (w *Writer) offset(o uint64) error {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], o)
	if _, err := w.sw.Write(b[:]); err != nil {
		return fmt.Errorf("catalog: scratch: %w", err)
	}
	return nil
}

func (w *Writer) write(b []byte) error {
	n, err := w.w.Write(b)
	w.pos += uint64(n)
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	return nil
}

// pad writes zeros up to a multiple of 8.
func (w *Writer) pad() error {
	var zero [8]byte
	return w.write(zero[:(8-w.pos%8)%8])
}

// Len is the number of records added.
func (w *Writer) Len() int { return int(w.n) }

// AddAlias writes the next alias of canonical id; aliases must increase.
// An alias equal to its id is skipped: canonical ids are found among the
// records.
func (w *Writer) AddAlias(alias, id string) error {
	if !w.inAlias {
		if err := w.endRecords(); err != nil {
			return err
		}
	}
	if alias == id {
		return nil
	}
	if w.na > 0 && alias <= w.last {
		return fmt.Errorf("%w: alias %q", ErrOrder, alias)
	}
	w.last = alias
	w.na++
	w.buf = appendString(appendString(w.buf[:0], alias), id)
	return w.record(w.buf)
}

// endRecords closes the records: the end offset, the dictionary.
func (w *Writer) endRecords() error {
	w.inAlias = true
	w.recEnd = w.pos
	if err := w.offset(w.pos); err != nil {
		return err
	}
	w.dictAt = w.pos
	for _, s := range w.words {
		if err := w.write(appendString(w.buf[:0], s)); err != nil {
			return err
		}
	}
	w.aliasAt = w.pos
	return nil
}

// Close appends the offset arrays and the footer, and removes the
// scratch file. It does not close the underlying writer.
func (w *Writer) Close() error {
	defer w.Abort()
	if !w.inAlias {
		if err := w.endRecords(); err != nil {
			return err
		}
	}
	if err := w.offset(w.pos); err != nil {
		return err
	}
	if err := w.sw.Flush(); err != nil {
		return fmt.Errorf("catalog: scratch: %w", err)
	}
	// The scratch file holds rec_off then alias_off, each ending with its
	// end offset.
	if _, err := w.scratch.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("catalog: scratch: %w", err)
	}
	sr := bufio.NewReaderSize(w.scratch, 64<<10)
	if err := w.pad(); err != nil {
		return err
	}
	recOff := w.pos
	if err := w.copyOffsets(sr, w.n+1); err != nil {
		return err
	}
	if err := w.pad(); err != nil {
		return err
	}
	aliasOff := w.pos
	if err := w.copyOffsets(sr, w.na+1); err != nil {
		return err
	}
	f := append([]byte(nil), magic...)
	for _, v := range []uint64{w.n, uint64(len(w.words)), w.na, recOff, w.dictAt, w.aliasAt, aliasOff} {
		f = binary.LittleEndian.AppendUint64(f, v)
	}
	return w.write(append(f, magic...))
}

func (w *Writer) copyOffsets(r io.Reader, n uint64) error {
	if _, err := io.CopyN(writerFunc(w.write), r, int64(8*n)); err != nil {
		return fmt.Errorf("catalog: offsets: %w", err)
	}
	return nil
}

// Abort removes the scratch file; the caller removes the output.
func (w *Writer) Abort() {
	if w.scratch != nil {
		w.scratch.Close()
		os.Remove(w.scratch.Name())
		w.scratch = nil
	}
}

type writerFunc func([]byte) error

func (f writerFunc) Write(b []byte) (int, error) {
	if err := f(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}
