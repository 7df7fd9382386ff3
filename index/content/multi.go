package content

import (
	"fmt"

	"github.com/openshelf/openshelf/snapshot"
)

// Multi reads the content stores of a snapshot's segments, oldest first,
// as the one store a fully merged build of their live documents would
// have: doc d is the d-th live document in canonical id order, as num
// (the segments' catalogs give it, catalog.Multi.Numbering) numbers it.
// Safe for concurrent use while its readers are open; closing them is
// the caller's.
type Multi struct {
	segs []*Reader
	num  *snapshot.Numbering
}

// NewMulti returns the store of segs numbered by num, which must number
// the same segments.
func NewMulti(segs []*Reader, num *snapshot.Numbering) (*Multi, error) {
	if len(segs) != num.Segments() {
		return nil, fmt.Errorf("%w: %d stores for %d segments", ErrCorrupt, len(segs), num.Segments())
	}
	for i, r := range segs {
		if r.Len() != len(num.Docs(i)) {
			return nil, fmt.Errorf("%w: segment %d has %d documents, its catalog %d", ErrCorrupt, i, r.Len(), len(num.Docs(i)))
		}
	}
	return &Multi{segs: segs, num: num}, nil
}

// Len is the number of live documents.
func (m *Multi) Len() int { return int(m.num.Len()) }

// Part returns the decoded bytes of part k of doc, as Reader.Part.
func (m *Multi) Part(doc, k int) ([]byte, error) {
	s, d := m.num.Locate(int32(min(doc, 1<<31-1)))
	if doc < 0 || s < 0 {
		return nil, fmt.Errorf("content: part %d of doc %d out of range (%d documents)", k, doc, m.Len())
	}
	return m.segs[s].Part(int(d), k)
}

// Document returns part 0 of doc, decoded.
func (m *Multi) Document(doc int) (*Document, error) {
	return decoded(m, doc, PartDocument, DecodeDocument)
}

// Sections returns the sections of doc (nil when it has none).
func (m *Multi) Sections(doc int) ([]Section, error) {
	return decoded(m, doc, PartSections, DecodeSections)
}

// References returns the references of doc (nil when it has none).
func (m *Multi) References(doc int) ([]Reference, error) {
	return decoded(m, doc, PartReferences, DecodeReferences)
}
