package catalog

import (
	"fmt"

	"github.com/openshelf/openshelf/snapshot"
)

// Multi reads the catalogs of a snapshot's segments, oldest first, as the
// one catalog a fully merged build of their live documents would have:
// documents are numbered in canonical id order over all segments, and the
// documents a later segment supersedes or deletes are not there (see
// docs/architecture.md, "Incremental snapshots"). It answers what Reader
// answers, in that numbering. Safe for concurrent use while its readers
// are open; closing them is the caller's.
type Multi struct {
	segs []*Reader
	num  *snapshot.Numbering
}

// NewMulti returns the catalog of segs, oldest first; deleted[i] are the
// documents of segs[i] a later segment supersedes or deletes, increasing.
func NewMulti(segs []*Reader, deleted [][]int32) (*Multi, error) {
	ids := make([]snapshot.SegmentIDs, len(segs))
	for i, r := range segs {
		ids[i] = r
	}
	num, err := snapshot.NewNumbering(ids, deleted)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	return &Multi{segs: segs, num: num}, nil
}

// Numbering is where each segment's documents stand in the merged order,
// for the other readers of the same segments.
func (m *Multi) Numbering() *snapshot.Numbering { return m.num }

// Len is the number of live documents.
func (m *Multi) Len() int { return int(m.num.Len()) }

// ID returns the id of doc (nil if its record is damaged). doc must be
// in [0, Len()).
func (m *Multi) ID(doc int32) []byte {
	s, d := m.num.Locate(doc)
	if s < 0 {
		return nil
	}
	return m.segs[s].ID(d)
}

// Record decodes the record of doc, which must be in [0, Len()).
func (m *Multi) Record(doc int32) (Record, error) {
	s, d := m.num.Locate(doc)
	if s < 0 {
		return Record{}, fmt.Errorf("%w: no live document numbered %d", ErrCorrupt, doc)
	}
	return m.segs[s].Record(d)
}

// Find returns the doc of a canonical id, or -1.
func (m *Multi) Find(id string) int32 {
	for s, r := range m.segs {
		if d := r.Find(id); d >= 0 && m.num.Live(s, d) {
			return m.num.Docs(s)[d]
		}
	}
	return -1
}

// After returns the first doc whose id sorts after id (Len() if none):
// the number of live documents whose id sorts before the smallest id
// after it in any segment.
func (m *Multi) After(id string) int32 {
	after := m.num.Len()
	for s, r := range m.segs {
		if d := r.After(id); int(d) < r.Len() {
			after = min(after, m.num.Docs(s)[d])
		}
	}
	return after
}

// Lookup returns the doc an id or alias names, or -1. As in one merged
// build, where the builder gives a name claimed by several documents (as
// an alias or as a canonical id) to the smallest id, the live claimant
// with the smallest id wins; the merger never makes such claims.
func (m *Multi) Lookup(name string) int32 {
	best := m.Find(name)
	for s, r := range m.segs {
		if id, ok := r.aliasOf(name); ok {
			if d := r.Find(id); d >= 0 {
				if x := m.num.Merged(s, d); x >= 0 && (best < 0 || x < best) {
					best = x
				}
			}
		}
	}
	return best
}
