// Package limit holds the bounds every ingest reader applies to hostile
// input (data/README.md, "Caps"): the size of one record, of one field, the
// length of one array, nesting depth, and how far a compressed stream may
// expand. A record over a cap is rejected with a [TooLarge] error naming the
// field ("record_too_large: reference: 1000000 elements, over the cap of
// 50000"); the run goes on.
package limit

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Caps of one record as read from its source. The Document-level caps of
// served fields are in package ingest (ingest.Caps).
const (
	// RecordBytes bounds one record: a JSON line or list item (Crossref,
	// OpenAlex), one PubMed article element.
	RecordBytes = 16 << 20
	// FieldBytes bounds one JSON string value or one XML text field.
	FieldBytes = 1 << 20
	// ArrayLen bounds the elements of one JSON array (references, authors,
	// locations...).
	ArrayLen = 50_000
	// Depth bounds JSON nesting.
	Depth = 64
	// Ratio bounds how many bytes a compressed stream may expand to per
	// compressed byte, once past RatioFloor bytes of output.
	Ratio = 100
	// RatioFloor is the output a compressed stream may always produce.
	RatioFloor = 64 << 20
	// DecompressedBytes bounds the output of one compressed stream.
	DecompressedBytes = 64 << 30
)

// Reason is the Problem reason prefix of a record over a cap.
const Reason = "record_too_large"

// ErrTooLarge is matched by every *TooLarge.
var ErrTooLarge = errors.New(Reason)

// ErrBomb means a compressed stream expanded past Ratio or
// DecompressedBytes.
var ErrBomb = errors.New("decompression bound exceeded")

// TooLarge says which field of a record is over which cap.
type TooLarge struct {
	Field string // "reference", "title[0]", "(record)", "(nesting)"
	What  string // "1000000 elements", "20971520 bytes"
	Cap   string // "50000 elements"
}

func (e *TooLarge) Error() string {
	return Reason + ": " + e.Field + ": " + e.What + ", over the cap of " + e.Cap
}

func (e *TooLarge) Is(target error) bool { return target == ErrTooLarge }

// Record reports a whole record over RecordBytes.
func Record(n int) *TooLarge {
	return &TooLarge{Field: "(record)", What: strconv.Itoa(n) + " bytes", Cap: strconv.Itoa(RecordBytes) + " bytes"}
}

// CheckJSON scans one JSON value and returns a *TooLarge for the first
// string over FieldBytes, array over ArrayLen or nesting over Depth, or nil.
// It does not validate the JSON (the decoder does that next) and allocates
// only the path of the offending field.
func CheckJSON(b []byte) error {
	type frame struct {
		array bool
		n     int    // elements so far (arrays)
		key   []byte // last key (objects)
	}
	var stack [Depth + 1]frame
	depth := 0
	// path names the field being read: "reference[50000]", "title[0]",
	// "author[2].affiliation[0].name".
	path := func() string {
		var sb strings.Builder
		for i := 1; i <= depth; i++ {
			f := &stack[i]
			switch {
			case f.array:
				sb.WriteString("[" + strconv.Itoa(max(f.n-1, 0)) + "]")
			case f.key != nil:
				if sb.Len() > 0 {
					sb.WriteByte('.')
				}
				sb.Write(f.key)
			}
		}
		if sb.Len() == 0 {
			return "(record)"
		}
		return sb.String()
	}
	expectKey := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '{', '[':
			if depth > 0 && stack[depth].array {
				stack[depth].n++
				if stack[depth].n > ArrayLen {
					return &TooLarge{Field: path(), What: "more than " + strconv.Itoa(ArrayLen) + " elements", Cap: strconv.Itoa(ArrayLen) + " elements"}
				}
			}
			if depth == Depth {
				return &TooLarge{Field: path(), What: "nesting deeper than " + strconv.Itoa(Depth), Cap: strconv.Itoa(Depth) + " levels"}
			}
			depth++
			stack[depth] = frame{array: c == '['}
			expectKey = c == '{'
		case '}', ']':
			if depth > 0 {
				depth--
			}
			expectKey = false
		case ',':
			expectKey = depth > 0 && !stack[depth].array
		case '"':
			start := i + 1
			j := start
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if expectKey && depth > 0 {
				stack[depth].key = b[start:min(j, len(b))]
				expectKey = false
			} else {
				if depth > 0 && stack[depth].array {
					stack[depth].n++
				}
				if j-start > FieldBytes {
					return &TooLarge{Field: path(), What: strconv.Itoa(j-start) + " bytes", Cap: strconv.Itoa(FieldBytes) + " bytes"}
				}
				if depth > 0 && stack[depth].array && stack[depth].n > ArrayLen {
					return &TooLarge{Field: path(), What: "more than " + strconv.Itoa(ArrayLen) + " elements", Cap: strconv.Itoa(ArrayLen) + " elements"}
				}
			}
			i = j
		case ' ', '\t', '\r', '\n', ':':
		default:
			// A number, true, false or null: one array element.
			if depth > 0 && stack[depth].array {
				stack[depth].n++
				if stack[depth].n > ArrayLen {
					return &TooLarge{Field: path(), What: "more than " + strconv.Itoa(ArrayLen) + " elements", Cap: strconv.Itoa(ArrayLen) + " elements"}
				}
			}
			for i+1 < len(b) && !strings.ContainsRune(",]} \t\r\n", rune(b[i+1])) {
				i++
			}
		}
	}
	return nil
}

// Budget is a reader that fails with a *TooLarge once more than Max bytes
// have been read since the last Reset: a streaming decoder over it holds at
// most one record of Max bytes (plus its read-ahead).
type Budget struct {
	R    io.Reader
	Max  int64
	used int64
}

// Reset starts a new record.
func (b *Budget) Reset() { b.used = 0 }

func (b *Budget) Read(p []byte) (int, error) {
	if b.used > b.Max {
		return 0, Record(int(b.used))
	}
	// Never read more than one byte past the budget, so a decoder that
	// grows its buffer cannot swallow a whole oversized record in one read.
	if rest := b.Max - b.used + 1; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := b.R.Read(p)
	b.used += int64(n)
	return n, err
}

// Expansion bounds a decompressing reader: it fails with ErrBomb once its
// output passes RatioFloor and Ratio times the compressed input consumed
// (In reports that count), or DecompressedBytes.
type Expansion struct {
	R   io.Reader
	In  func() int64
	out int64
}

func (x *Expansion) Read(p []byte) (int, error) {
	n, err := x.R.Read(p)
	x.out += int64(n)
	if x.out > DecompressedBytes {
		return n, fmt.Errorf("%w: more than %d bytes decompressed", ErrBomb, int64(DecompressedBytes))
	}
	if x.out > RatioFloor {
		if in := x.In(); in <= 0 || x.out/max(in, 1) > Ratio {
			return n, fmt.Errorf("%w: %d bytes from %d compressed (more than %d:1)", ErrBomb, x.out, in, Ratio)
		}
	}
	return n, err
}

// Counter counts the bytes read through it.
type Counter struct {
	R io.Reader
	N int64
}

func (c *Counter) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}
