package bundle

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// ErrLine reports a bundle line that does not start with its id.
var ErrLine = errors.New("bundle: line without an id")

// Author and Line are the JSON form of a bundle line: metadata and
// rights, no full text. Every key is always present; id comes first
// ([LineID]).
type Author struct {
	Name         string   `json:"name"`
	Given        string   `json:"given"`
	Family       string   `json:"family"`
	ORCID        string   `json:"orcid"`
	Affiliations []string `json:"affiliations"`
}

type Line struct {
	ID               string   `json:"id"`
	Aliases          []string `json:"aliases"`
	Title            string   `json:"title"`
	Authors          []Author `json:"authors"`
	Venue            string   `json:"venue"`
	Year             int32    `json:"year"`
	Date             string   `json:"date"`
	DOI              string   `json:"doi"`
	Abstract         string   `json:"abstract"`
	Keywords         []string `json:"keywords"`
	Topics           []string `json:"topics"`
	License          string   `json:"license"`
	LicenseVersion   string   `json:"license_version"`
	LicenseURL       string   `json:"license_url"`
	LicenseName      string   `json:"license_name"`
	Attribution      string   `json:"attribution"`
	CopyrightNotice  string   `json:"copyright_notice"`
	ShareAlikeNotice string   `json:"share_alike_notice"`
}

// Writer writes a bundle's frames to a file: lines (JSON and newline, in
// id order), cut into a frame after each line whose id is a cut.
type Writer struct {
	w      io.Writer
	name   string  // of the file w writes, relative to the snapshot
	frames []Frame // in name
	size   int64   // bytes written to w
	chunk  []byte  // lines of the frame being filled
	lines  int64   // in chunk
	last   string  // id of chunk's last line
	docs   int64
}

// NewWriter returns a writer of frames to w, the file name (slash-
// separated, relative to the snapshot: the bundle file, or a pack).
func NewWriter(w io.Writer, name string) *Writer {
	return &Writer{w: w, name: name}
}

// Add appends a line, cutting a frame after it when its id is a cut.
func (w *Writer) Add(line []byte) error {
	id, err := LineID(line)
	if err != nil {
		return err
	}
	w.chunk = append(w.chunk, line...)
	w.lines++
	w.last = id
	w.docs++
	if IsCut(id) {
		return w.Flush()
	}
	return nil
}

// Flush writes the lines added since the last frame as one frame.
func (w *Writer) Flush() error {
	if w.lines == 0 {
		return nil
	}
	frame := encoder.EncodeAll(w.chunk, make([]byte, 0, len(w.chunk)/3))
	return w.frame(frame, w.lines, w.last)
}

// Pending reports whether lines were added since the last frame.
func (w *Writer) Pending() bool { return w.lines != 0 }

// WriteFrame writes an encoded frame as it is, of lines lines ending with
// the line of id last (a frame of another bundle that keeps its lines).
// No lines may be pending.
func (w *Writer) WriteFrame(frame []byte, lines int64, last string) error {
	if w.lines != 0 {
		return fmt.Errorf("bundle: %s: a frame written with lines pending", w.name)
	}
	w.docs += lines
	return w.frame(frame, lines, last)
}

func (w *Writer) frame(frame []byte, lines int64, last string) error {
	if _, err := w.w.Write(frame); err != nil {
		return fmt.Errorf("bundle: %s: %w", w.name, err)
	}
	w.frames = append(w.frames, Frame{Last: last, Bytes: int64(len(frame)), Lines: lines, Pack: w.name, Offset: w.size})
	w.size += int64(len(frame))
	w.chunk, w.lines = w.chunk[:0], 0
	return nil
}

// Close writes the pending lines as a frame; a bundle without lines gets
// one empty frame, so that every decoder reads an empty stream (the
// frames list has no entry for it). It does not close the file.
func (w *Writer) Close() error {
	if err := w.Flush(); err != nil {
		return err
	}
	if w.docs == 0 {
		if _, err := w.w.Write(emptyFrame); err != nil {
			return fmt.Errorf("bundle: %s: %w", w.name, err)
		}
		w.size += int64(len(emptyFrame))
	}
	return nil
}

// Frames returns the frames written so far.
func (w *Writer) Frames() []Frame { return w.frames }

// Docs is the number of lines written or pending.
func (w *Writer) Docs() int64 { return w.docs }

// Size is the number of bytes written.
func (w *Writer) Size() int64 { return w.size }

// encoder encodes every bundle frame: EncodeAll is safe for concurrent use
// and gives the same bytes for the same lines.
var encoder = mustEncoder(zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
	zstd.WithLowerEncoderMem(true))

func mustEncoder(opts ...zstd.EOption) *zstd.Encoder {
	e, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		panic(err) // the options are constant
	}
	return e
}

// emptyFrame is the zstd frame of no bytes.
var emptyFrame = mustEncoder(zstd.WithZeroFrames(true)).EncodeAll(nil, nil)

// decoder decodes bundle frames; DecodeAll is safe for concurrent use.
var decoder = func() *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		panic(err) // constant options
	}
	return d
}()

// Decode appends the lines of an encoded frame (or frames) to dst.
func Decode(frame, dst []byte) ([]byte, error) {
	out, err := decoder.DecodeAll(frame, dst)
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	return out, nil
}

// Cut makes a frame end after 1 line in Cut on average: about 10 KB of
// JSON. A delta build encodes again the frames holding a changed line, so
// smaller frames make its share of the bundles scale with the delta's;
// zstd compresses them less well (BenchmarkBundleFrames in package
// index, BENCHMARKS.md "Incremental builds": 8 lines a frame take 16 %
// more bytes than 32, 4 lines 31 %, while a 1 % delta rewrites 12 % of
// the bytes at 8 lines, 38 % at 32).
const Cut = 8

// IsCut reports whether a frame ends after the line of document id: its
// 64-bit FNV-1a hash is Cut-1 modulo Cut. (Bundles were once cut where
// the hash was 0 modulo 32: those cuts are not cuts now, so a delta
// build tells such a bundle by its frames and writes it again whole,
// [Stale].)
func IsCut(id string) bool {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()%Cut == Cut-1
}

// LineID returns the document id a bundle line starts with.
func LineID(line []byte) (string, error) {
	const head = `{"id":"`
	rest, ok := bytes.CutPrefix(line, []byte(head))
	end := bytes.IndexByte(rest, '"')
	if !ok || end < 0 {
		return "", ErrLine
	}
	return string(rest[:end]), nil
}

// Dirty marks the frames of a bundle that a delta adding the lines of
// ids added (increasing) and removing those of removed changes: those
// whose id range (after the previous frame's last id; the last frame's
// has no end) holds an added or a removed id, and the frame after one
// whose last line is removed (without its cut the two are one frame
// now).
func Dirty(frames []Frame, added []string, removed map[string]bool) []bool {
	dirty := make([]bool, len(frames))
	if len(frames) == 0 {
		return dirty
	}
	at := func(id string) int {
		i, _ := slices.BinarySearchFunc(frames, id, func(f Frame, id string) int { return strings.Compare(f.Last, id) })
		return min(i, len(frames)-1)
	}
	for _, id := range added {
		dirty[at(id)] = true
	}
	for id := range removed {
		dirty[at(id)] = true
	}
	for i := range frames {
		if removed[frames[i].Last] && i+1 < len(frames) {
			dirty[i+1] = true
		}
	}
	return dirty
}

// Stale reports whether a bundle's frames were cut by another rule than
// IsCut (bundles were once cut into frames of about 32 lines), so that a
// build writes it again whole: a frame but the last ends with a line
// that is no cut, or a bundle of one frame holds a cut before its last
// line. read returns a frame as stored; Stale calls it only for a bundle
// of one frame of several lines.
func Stale(frames []Frame, read func(Frame) ([]byte, error)) (bool, error) {
	for i := 0; i+1 < len(frames); i++ {
		if !IsCut(frames[i].Last) {
			return true, nil
		}
	}
	if len(frames) != 1 || frames[0].Lines < 2 {
		return false, nil
	}
	raw, err := read(frames[0])
	if err != nil {
		return false, err
	}
	plain, err := Decode(raw, nil)
	if err != nil {
		return false, err
	}
	for line := range bytes.Lines(plain) {
		id, err := LineID(line)
		if err != nil {
			return false, err
		}
		if id != frames[0].Last && IsCut(id) {
			return true, nil
		}
	}
	return false, nil
}

// Lines are lines of a bundle and their ids, in id order.
type Lines struct {
	IDs   []string
	Lines [][]byte
}

// ReadLines decodes the bundle file at path.
func ReadLines(path string) (Lines, error) {
	f, err := os.Open(path)
	if err != nil {
		return Lines{}, err
	}
	defer f.Close()
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return Lines{}, err
	}
	defer zr.Close()
	var out Lines
	br := bufio.NewReaderSize(zr, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			id, lerr := LineID(line)
			if lerr != nil {
				return Lines{}, lerr
			}
			out.IDs, out.Lines = append(out.IDs, id), append(out.Lines, line)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return Lines{}, fmt.Errorf("bundle: %s: %w", path, err)
		}
	}
}
