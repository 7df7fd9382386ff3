package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/openshelf/openshelf/index/search/query"
)

// File is the search index's path in a snapshot directory (slash
// separated); FORMAT.md documents its byte layout.
const File = "search/index.bin"

// magic opens and closes the file; the digit is the format version.
// Files of earlier versions are refused with ErrFormat.
const magic = "osbsrch8"

// magicPrefix is the magic without its version digit.
const magicPrefix = "osbsrch"

// ErrMalformed reports a search index that does not have the documented
// shape (FORMAT.md): the snapshot is unusable.
var ErrMalformed = errors.New("search: malformed search index")

// ErrFormat reports an index written in another format version (an older
// snapshot's "osbsrch1" to "osbsrch7"): the snapshot must be rebuilt. It is also
// ErrMalformed, so a server treats the snapshot as unusable.
var ErrFormat = fmt.Errorf("%w: unsupported format version (rebuild the snapshot: the next build merges it, or run openshelf ingest -merge)", ErrMalformed)

// CurrentFormat reports whether the index file at path is written in this
// version of the format: a build over a snapshot whose segments are not
// merges them all again (package index).
func CurrentFormat(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	b := make([]byte, len(magic))
	if _, err := io.ReadFull(f, b); err != nil {
		return false, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return string(b) == magic, nil
}

// The indexed fields, as numbered in the file: query.Field minus one.
const (
	FieldTitle = iota
	FieldAbstract
	FieldAuthor
	FieldKeyword
	FieldDOI
	FieldFulltext
	NumFields
)

// fieldOf maps a query field to its number in the file; Any is -1.
func fieldOf(f query.Field) int { return int(f) - 1 }

// FieldNames names the fields as the query language spells them.
var FieldNames = [NumFields]string{"title", "abstract", "author", "keyword", "doi", "fulltext"}

// FieldParams are the BM25F parameters of each field: a match weighs
// Weight, and the field length is normalised by 1 - B + B·len/avg_len.
// The order of the weights is title > keyword > author > abstract >
// fulltext: a title is written to say what a paper is about; a word
// somewhere in a full text says little.
var FieldParams = [NumFields]struct{ Weight, B float64 }{
	FieldTitle:    {3, 0.75},
	FieldAbstract: {0.8, 0.75},
	FieldAuthor:   {1, 0.3},
	FieldKeyword:  {2, 0.5},
	FieldDOI:      {3, 0},
	FieldFulltext: {0.3, 0.75},
}

// B is the length normalisation the former three-field ranking used for
// every field (search/fields.parquet keeps its parameters).
const B = 0.75

// K1 is the BM25 saturation parameter.
const K1 = 1.2

// blockDocs is the number of documents per postings block (one skip
// entry each).
const blockDocs = 128

// Section numbers, in file order.
const (
	secDocs        = iota // N docRec: the field lengths
	secTopicOff           // N+1 uint32: doc d's topic codes are topicCodes[off[d]:off[d+1]]
	secTopicCodes         // uint16
	secTopicDocOff        // T+1 uint64: topic t's docs are topicDocs[off[t]:off[t+1]]
	secTopicDocs          // int32
	secCiteOff            // N+1 uint32: the docs citing d are citing[off[d]:off[d+1]]
	secCiting             // int32
	secPostings           // per term: blocks, then its skip table
	secTermIdx            // ⌈nTerms/termBlock⌉+1 uint64: each dictionary block's offset in secTermBlocks, then its length
	secTermBlocks         // the dictionary's blocks (dict.go)
	secYears              // N uint16 (0: undated), or N int32 when a year is outside 0..65535
	secLicFlags           // N × (licence code uint8, flags uint8)
	numSections
)

// docRec is the fixed record of one document: its field lengths, which
// scoring reads (its year, licence and flags are in their columns), as
// uint32 where a length does not fit uint16; docRec16 where all do.
type docRec struct {
	Len [NumFields]uint32
}

type docRec16 struct {
	Len [NumFields]uint16
}

const (
	docRecSize   = 24
	docRec16Size = 12
)

// fieldLens are the documents' field lengths, the docs section read in
// place.
type fieldLens struct {
	narrow []docRec16 // nil: wide
	wide   []docRec
}

func newFieldLens(b []byte, narrow bool) fieldLens {
	if narrow {
		return fieldLens{narrow: castSlice[docRec16](b)}
	}
	return fieldLens{wide: castSlice[docRec](b)}
}

// of is document d's length of field f.
func (l fieldLens) of(d int32, f int) uint32 {
	if l.narrow != nil {
		return uint32(l.narrow[d].Len[f])
	}
	return l.wide[d].Len[f]
}

const flagFulltext = 1

// Sources are the facet values of a document's inputs (ingest.Document
// Sources): "jats:pmc" and other JATS inputs are "jats".
var Sources = [...]string{"jats", "pubmed", "openalex", "crossref"}

// SourceBits returns the source bits of a document's Sources.
func SourceBits(sources []string) uint8 {
	var bits uint8
	for _, s := range sources {
		name := s
		if len(s) >= 5 && s[:5] == "jats:" {
			name = "jats"
		}
		for i, n := range Sources {
			if n == name {
				bits |= 1 << i
			}
		}
	}
	return bits
}

// skipEntry is one postings block's entry in its term's skip table.
type skipEntry struct {
	LastDoc int32 // the block's last document
	MaskOr  uint8 // the union of the block's field masks
	// Any is 1 + the number of the block's documents with a field of
	// anyFields, so that a search of those fields counts a block whose
	// masks differ without reading the block; 0 where it is not
	// recorded (a short entry).
	Any uint8
	// WAny and WAll bound the BM25F weighted frequency sum of the block's
	// documents over the fields of anyFields and over all fields: a
	// document's score over fields m is at most idf·W/(K1+W) with W the
	// bound of a superset of m (rounded up to float32).
	WAny, WAll float32
	FreqOff    uint32 // the frequency part's offset from the block's start
	PosOff     uint32 // the position part's offset from the block's start
	Off        uint64 // file offset of the block
}

// maxListBytes bounds a term's blocks, which a skip entry finds back from
// its skip table's offset in a uint32.
const maxListBytes = math.MaxUint32

// skipEntrySize is a skip table entry's size: last doc int32 | mask_or
// uint8 | any uint8 | freq_off uint16 | w_any float32 | w_all float32 |
// pos_off uint32 | back uint32 (the skip table's offset less the block's).
const skipEntrySize = 24

// Offsets within a skip entry.
const (
	skipMaskAt = 4
	skipAnyAt  = 5
	skipWAnyAt = 8 // w_all follows
	skipOffAt  = 20
)

// maxFreqOff bounds a block's doc part: 1 + 128 gaps of 31 bits + the
// meta part (at most 1 + 1 + 96 + 128 bytes) fit a uint16.
const maxFreqOff = math.MaxUint16

// putSkip encodes e, an entry of the skip table at file offset table,
// into b (skipEntrySize bytes).
func putSkip(b []byte, e skipEntry, table uint64) {
	clear(b[:skipEntrySize])
	binary.LittleEndian.PutUint32(b[0:], uint32(e.LastDoc))
	b[skipMaskAt] = e.MaskOr
	b[skipAnyAt] = e.Any
	binary.LittleEndian.PutUint16(b[6:], uint16(e.FreqOff))
	binary.LittleEndian.PutUint32(b[skipWAnyAt:], math.Float32bits(e.WAny))
	binary.LittleEndian.PutUint32(b[skipWAnyAt+4:], math.Float32bits(e.WAll))
	binary.LittleEndian.PutUint32(b[16:], e.PosOff)
	binary.LittleEndian.PutUint32(b[skipOffAt:], uint32(table-e.Off))
}

// getSkip decodes the entry at b of the skip table at file offset table.
func getSkip(b []byte, table uint64) skipEntry {
	return skipEntry{
		LastDoc: int32(binary.LittleEndian.Uint32(b[0:])),
		MaskOr:  b[skipMaskAt],
		Any:     b[skipAnyAt],
		FreqOff: uint32(binary.LittleEndian.Uint16(b[6:])),
		WAny:    math.Float32frombits(binary.LittleEndian.Uint32(b[skipWAnyAt:])),
		WAll:    math.Float32frombits(binary.LittleEndian.Uint32(b[skipWAnyAt+4:])),
		PosOff:  binary.LittleEndian.Uint32(b[16:]),
		Off:     blockOff(b, table),
	}
}

// blockOff is the file offset of the block of the entry at b of the skip
// table at file offset table (past table if damaged: above it, or
// wrapped around).
func blockOff(b []byte, table uint64) uint64 {
	return table - uint64(binary.LittleEndian.Uint32(b[skipOffAt:]))
}

// roundUp16 is the smallest bfloat16 (a float32 of 8 significant bits)
// >= x (x >= 0, finite): a short skip entry's bound keeps 2 bytes of a
// float32's 4, at most 0.8 % above the value it bounds.
func roundUp16(x float64) uint16 {
	b := math.Float32bits(roundUp32(x))
	if b&0xffff != 0 {
		b += 0x10000
	}
	return uint16(b >> 16)
}

// bf16 decodes a bfloat16.
func bf16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// roundUp32 is the smallest float32 >= x (x >= 0, finite).
func roundUp32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// footerSize is the fixed end of the file: TOC offset and length (uint64),
// CRC-32 (IEEE) of the TOC, 4 zero bytes and the magic.
const footerSize = 8 + 8 + 4 + 4 + 8

// headerSize is the magic and 8 zero bytes.
const headerSize = 16
