package content

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// File is the content store's path inside a snapshot directory.
const File = "content/docs.bin"

const (
	magic      = "osbcont1"
	footerSize = 48
	parts      = 3

	codecRaw  = 0
	codecZstd = 1
	// minCompress: smaller parts are stored raw, zstd's frame overhead
	// would eat the gain.
	minCompress = 128
)

// Part numbers of a document's record.
const (
	PartDocument   = 0
	PartSections   = 1
	PartReferences = 2
)

// Writer writes a content store to w, one document at a time in doc
// order. Not safe for concurrent use.
//
// Records are small and compress poorly on their own, and much of them
// repeats from document to document (licence texts, attribution phrasing,
// venues, vocabulary), so each part kind is compressed with a raw zstd
// dictionary: the concatenated parts of the first documents (up to
// dictSize per kind). Those documents are held back until the
// dictionaries are complete, then everything is written.
type Writer struct {
	w       io.Writer
	enc     [parts]*zstd.Encoder
	dicts   [parts][]byte
	pending [][parts][]byte // documents held back until the dictionaries are made
	held    int             // bytes in pending
	started bool
	docs    int
	pos     uint64
	offsets []uint64
	buf     []byte
	blob    []byte
}

const (
	dictSize = 100 << 10
	// minDict: a shorter sample makes no useful dictionary.
	minDict = 1 << 10
	// Documents held back at most (count, bytes) before writing starts
	// with whatever dictionaries the sample made.
	maxHeldDocs  = 2048
	maxHeldBytes = 16 << 20
)

// NewWriter returns a Writer appending to w, which should be buffered.
func NewWriter(w io.Writer) (*Writer, error) { return &Writer{w: w}, nil }

// Add writes the next document's parts.
func (w *Writer) Add(d *Document, secs []Section, refs []Reference) error {
	w.docs++
	if w.started {
		w.buf = AppendDocument(w.buf[:0], d)
		if err := w.part(PartDocument, w.buf); err != nil {
			return err
		}
		w.buf = AppendSections(w.buf[:0], secs)
		if err := w.part(PartSections, w.buf); err != nil {
			return err
		}
		w.buf = AppendReferences(w.buf[:0], refs)
		return w.part(PartReferences, w.buf)
	}
	rec := [parts][]byte{AppendDocument(nil, d), AppendSections(nil, secs), AppendReferences(nil, refs)}
	full := true
	for k, p := range rec {
		if room := dictSize - len(w.dicts[k]); room > 0 {
			w.dicts[k] = append(w.dicts[k], p[:min(room, len(p))]...)
		}
		full = full && len(w.dicts[k]) >= dictSize
		w.held += len(p)
	}
	w.pending = append(w.pending, rec)
	if full || len(w.pending) >= maxHeldDocs || w.held >= maxHeldBytes {
		return w.start()
	}
	return nil
}

// start writes the dictionaries and the documents held back.
func (w *Writer) start() error {
	w.started = true
	for k := range w.enc {
		opts := []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithLowerEncoderMem(true)}
		if len(w.dicts[k]) < minDict {
			w.dicts[k] = nil
		} else {
			opts = append(opts, zstd.WithEncoderDictRaw(uint32(k+1), w.dicts[k]))
		}
		enc, err := zstd.NewWriter(nil, opts...)
		if err != nil {
			return fmt.Errorf("content: %w", err)
		}
		w.enc[k] = enc
		if err := w.write(w.dicts[k]); err != nil {
			return err
		}
	}
	for _, rec := range w.pending {
		for k, p := range rec {
			if err := w.part(k, p); err != nil {
				return err
			}
		}
	}
	w.pending, w.held = nil, 0
	return nil
}

// part writes part k of the next document: nothing for an empty list.
func (w *Writer) part(k int, p []byte) error {
	w.offsets = append(w.offsets, w.pos)
	if len(p) <= 1 { // a zero count: no sections, no references
		return nil
	}
	if len(p) < minCompress {
		w.blob = append(append(w.blob[:0], codecRaw), p...)
	} else {
		w.blob = w.enc[k].EncodeAll(p, append(w.blob[:0], codecZstd))
	}
	return w.write(w.blob)
}

func (w *Writer) write(b []byte) error {
	n, err := w.w.Write(b)
	w.pos += uint64(n)
	if err != nil {
		return fmt.Errorf("content: %w", err)
	}
	return nil
}

// Len is the number of documents added.
func (w *Writer) Len() int { return w.docs }

// Close writes the offsets and the footer. It does not close the
// underlying writer.
func (w *Writer) Close() error {
	if !w.started {
		if err := w.start(); err != nil {
			return err
		}
	}
	for _, e := range w.enc {
		if e != nil {
			defer e.Close()
		}
	}
	n := uint64(w.Len())
	b := make([]byte, 0, 8*len(w.offsets)+8+footerSize)
	for _, o := range w.offsets {
		b = binary.LittleEndian.AppendUint64(b, o)
	}
	b = binary.LittleEndian.AppendUint64(b, w.pos)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint64(b, n)
	b = binary.LittleEndian.AppendUint64(b, w.pos)
	for _, d := range w.dicts {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(d)))
	}
	if _, err := w.w.Write(b); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	return nil
}

// Reader reads parts of a content store with positioned reads: it holds
// no data in memory, and is safe for concurrent use.
type Reader struct {
	f       *os.File
	dec     *zstd.Decoder
	n       int
	offsets int64  // position of the offsets table
	start   uint64 // end of the dictionaries: blobs are in [start, end)
	dicts   [parts]int
	end     uint64
}

// Open opens a content store and checks its footer.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := newReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

func newReader(f *os.File) (*Reader, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size < footerSize+8 {
		return nil, fmt.Errorf("%w: too short", ErrCorrupt)
	}
	var foot [footerSize]byte
	if _, err := f.ReadAt(foot[:], size-footerSize); err != nil {
		return nil, err
	}
	if string(foot[:8]) != magic {
		return nil, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	n := binary.LittleEndian.Uint64(foot[8:])
	pos := binary.LittleEndian.Uint64(foot[16:])
	// dictionaries | blobs | (3n+1) offsets | footer, exactly.
	if n > uint64(size)/(8*parts) || pos+8*(parts*n+1)+footerSize != uint64(size) {
		return nil, fmt.Errorf("%w: bad footer", ErrCorrupt)
	}
	var dicts [parts][]byte
	var start uint64
	opts := []zstd.DOption{zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1 << 30)}
	for k := range dicts {
		l := binary.LittleEndian.Uint64(foot[24+8*k:])
		if l > dictSize || start+l > pos {
			return nil, fmt.Errorf("%w: bad dictionary length", ErrCorrupt)
		}
		if l > 0 {
			dicts[k] = make([]byte, l)
			if _, err := f.ReadAt(dicts[k], int64(start)); err != nil {
				return nil, err
			}
			opts = append(opts, zstd.WithDecoderDictRaw(uint32(k+1), dicts[k]))
		}
		start += l
	}
	dec, err := zstd.NewReader(nil, opts...)
	if err != nil {
		return nil, err
	}
	r := &Reader{f: f, dec: dec, n: int(n), offsets: int64(pos), start: start, end: pos}
	for k, d := range dicts {
		r.dicts[k] = len(d)
	}
	return r, nil
}

// dictLens returns the sizes of the dictionaries (for tests).
func (r *Reader) dictLens() [parts]int { return r.dicts }

// Len is the number of documents.
func (r *Reader) Len() int { return r.n }

// Close closes the file and the decoder.
func (r *Reader) Close() error {
	r.dec.Close()
	return r.f.Close()
}

// Part returns the decoded bytes of part k of doc (empty when the document
// has none).
func (r *Reader) Part(doc, k int) ([]byte, error) {
	if doc < 0 || doc >= r.n || k < 0 || k >= parts {
		return nil, fmt.Errorf("content: part %d of doc %d out of range (%d documents)", k, doc, r.n)
	}
	var ob [16]byte
	if _, err := r.f.ReadAt(ob[:], r.offsets+8*int64(parts*doc+k)); err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	from, to := binary.LittleEndian.Uint64(ob[:]), binary.LittleEndian.Uint64(ob[8:])
	if from > to || from < r.start || to > r.end || to-from > 1<<30 {
		return nil, fmt.Errorf("%w: bad offsets of doc %d", ErrCorrupt, doc)
	}
	if from == to {
		return nil, nil
	}
	blob := make([]byte, to-from)
	if _, err := r.f.ReadAt(blob, int64(from)); err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	switch blob[0] {
	case codecRaw:
		return blob[1:], nil
	case codecZstd:
		out, err := r.dec.DecodeAll(blob[1:], nil)
		if err != nil {
			return nil, fmt.Errorf("%w: doc %d: %v", ErrCorrupt, doc, err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: codec %d of doc %d", ErrCorrupt, blob[0], doc)
}

// Document returns part 0 of doc, decoded.
func (r *Reader) Document(doc int) (*Document, error) {
	return decoded(r, doc, PartDocument, DecodeDocument)
}

// Sections returns the sections of doc (nil when it has none).
func (r *Reader) Sections(doc int) ([]Section, error) {
	return decoded(r, doc, PartSections, DecodeSections)
}

// References returns the references of doc (nil when it has none).
func (r *Reader) References(doc int) ([]Reference, error) {
	return decoded(r, doc, PartReferences, DecodeReferences)
}

// decoded returns part k of doc from r, decoded by decode.
func decoded[T any](r interface {
	Part(doc, k int) ([]byte, error)
}, doc, k int, decode func([]byte) (T, error)) (T, error) {
	b, err := r.Part(doc, k)
	if err != nil {
		var zero T
		return zero, err
	}
	return decode(b)
}
