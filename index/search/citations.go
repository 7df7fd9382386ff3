package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
)

// CitationsFile holds a segmented snapshot's citations between live
// documents in merged document numbers (the Citations of a Multi): one
// index's cited-by lists only know its own documents.
//
// Layout, little endian: the magic "osbcite1", the number of documents n
// and of pairs m (uint32 each), n+1 offsets (uint32) into the citing
// list, m citing documents (int32, increasing within each cited
// document), and a CRC-32C of everything before it.
const CitationsFile = "citations.bin"

const citationsMagic = "osbcite1"

// ErrCitations reports a citations file that is not one.
var ErrCitations = errors.New("search: invalid citations file")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CitationWriter writes a CitationsFile from pairs given in increasing
// (cited, citing) order.
type CitationWriter struct {
	n      int32
	off    []uint32
	citing []int32
}

// NewCitationWriter starts the citations of n documents.
func NewCitationWriter(n int32) *CitationWriter {
	return &CitationWriter{n: n, off: make([]uint32, 0, n+1)}
}

// Add records that citing cites cited. Pairs come in increasing order,
// each once.
func (w *CitationWriter) Add(cited, citing int32) error {
	if cited < 0 || cited >= w.n || citing < 0 || citing >= w.n {
		return fmt.Errorf("%w: pair (%d, %d) of %d documents", ErrCitations, cited, citing, w.n)
	}
	if int(cited) < len(w.off)-1 {
		return fmt.Errorf("%w: pairs out of order", ErrCitations)
	}
	for len(w.off) <= int(cited) {
		w.off = append(w.off, uint32(len(w.citing)))
	}
	if s := w.citing[w.off[cited]:]; len(s) > 0 && s[len(s)-1] >= citing {
		return fmt.Errorf("%w: pairs out of order", ErrCitations)
	}
	if len(w.citing) == 1<<32-1 {
		return fmt.Errorf("%w: too many pairs", ErrCitations)
	}
	w.citing = append(w.citing, citing)
	return nil
}

// WriteTo writes the file.
func (w *CitationWriter) WriteTo(out io.Writer) (int64, error) {
	for len(w.off) <= int(w.n) {
		w.off = append(w.off, uint32(len(w.citing)))
	}
	b := make([]byte, 0, 16+4*len(w.off)+4*len(w.citing)+4)
	b = append(b, citationsMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(w.n))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(w.citing)))
	for _, o := range w.off {
		b = binary.LittleEndian.AppendUint32(b, o)
	}
	for _, c := range w.citing {
		b = binary.LittleEndian.AppendUint32(b, uint32(c))
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	n, err := out.Write(b)
	return int64(n), err
}

// CitationTable is a CitationsFile read into memory; it implements
// Citations.
type CitationTable struct {
	off    []uint32
	citing []int32
}

// ReadCitations reads the citations file at path of a snapshot of n live
// documents.
func ReadCitations(path string, n int32) (*CitationTable, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	t, err := decodeCitations(b, n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

func decodeCitations(b []byte, n int32) (*CitationTable, error) {
	if len(b) < 20 || !bytes.HasPrefix(b, []byte(citationsMagic)) {
		return nil, ErrCitations
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, fmt.Errorf("%w: checksum", ErrCitations)
	}
	docs, m := binary.LittleEndian.Uint32(body[8:]), binary.LittleEndian.Uint32(body[12:])
	if int64(docs) != int64(n) || int64(len(body)) != 16+4*(int64(docs)+1)+4*int64(m) {
		return nil, fmt.Errorf("%w: %d documents, %d pairs in %d bytes, for %d documents", ErrCitations, docs, m, len(b), n)
	}
	t := &CitationTable{off: make([]uint32, docs+1), citing: make([]int32, m)}
	p := body[16:]
	for i := range t.off {
		t.off[i] = binary.LittleEndian.Uint32(p[4*i:])
	}
	p = p[4*len(t.off):]
	for i := range t.citing {
		t.citing[i] = int32(binary.LittleEndian.Uint32(p[4*i:]))
	}
	if t.off[0] != 0 || t.off[docs] != m {
		return nil, ErrCitations
	}
	for d := range docs {
		if t.off[d] > t.off[d+1] {
			return nil, fmt.Errorf("%w: document %d", ErrCitations, d)
		}
		list := t.citing[t.off[d]:t.off[d+1]]
		if !slices.IsSorted(list) || len(list) > 0 && (list[0] < 0 || list[len(list)-1] >= n) {
			return nil, fmt.Errorf("%w: document %d", ErrCitations, d)
		}
	}
	return t, nil
}

// Count implements Citations.
func (t *CitationTable) Count(doc int32) int32 {
	if doc < 0 || int(doc) >= len(t.off)-1 {
		return 0
	}
	return int32(t.off[doc+1] - t.off[doc])
}

// Citing implements Citations.
func (t *CitationTable) Citing(doc int32) []int32 {
	if doc < 0 || int(doc) >= len(t.off)-1 {
		return nil
	}
	return t.citing[t.off[doc]:t.off[doc+1]]
}
