package snapshot

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A deletion file lists the documents of one segment that a snapshot no
// longer serves: those a later segment supersedes or deletes. A segment
// never changes, so the file belongs to the snapshot, not to the segment
// (docs/architecture.md, "Incremental snapshots"). Documents are numbered
// inside their segment, in its canonical id order. The file is
//
//	magic "osbdele1" | n uint64 | n × uint32 doc numbers, strictly increasing |
//	CRC-32C (Castagnoli) of everything before it, uint32
//
// all little-endian.
const deletionsMagic = "osbdele1"

// ErrDeletions reports a deletion file that is damaged or does not fit its
// segment.
var ErrDeletions = errors.New("snapshot: invalid deletion file")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// EncodeDeletions returns the deletion file of docs, which must be
// strictly increasing and non-negative.
func EncodeDeletions(docs []int32) ([]byte, error) {
	b := make([]byte, 0, len(deletionsMagic)+8+4*len(docs)+4)
	b = append(b, deletionsMagic...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(docs)))
	for i, d := range docs {
		if d < 0 || i > 0 && d <= docs[i-1] {
			return nil, fmt.Errorf("%w: document %d at position %d is out of order", ErrDeletions, d, i)
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(d))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

// DecodeDeletions reads a deletion file of a segment of n documents and
// returns its documents, increasing.
func DecodeDeletions(b []byte, n int32) ([]int32, error) {
	const head = len(deletionsMagic) + 8
	if len(b) < head+4 || !bytes.Equal(b[:len(deletionsMagic)], []byte(deletionsMagic)) {
		return nil, fmt.Errorf("%w: no header", ErrDeletions)
	}
	count := binary.LittleEndian.Uint64(b[len(deletionsMagic):])
	if count > uint64(n) || uint64(len(b)) != uint64(head)+4*count+4 {
		return nil, fmt.Errorf("%w: %d documents in %d bytes for a segment of %d", ErrDeletions, count, len(b), n)
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(body):]) {
		return nil, fmt.Errorf("%w: checksum", ErrDeletions)
	}
	docs := make([]int32, count)
	for i := range docs {
		d := binary.LittleEndian.Uint32(body[head+4*i:])
		if d >= uint32(n) || i > 0 && int32(d) <= docs[i-1] {
			return nil, fmt.Errorf("%w: document %d at position %d", ErrDeletions, d, i)
		}
		docs[i] = int32(d)
	}
	return docs, nil
}

// WriteDeletions writes the deletion file of docs at path and syncs it.
func WriteDeletions(path string, docs []int32) error {
	b, err := EncodeDeletions(docs)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("snapshot: write %s: %w", path, err)
	}
	return nil
}

// ReadDeletions reads the deletion file at path of a segment of n
// documents.
func ReadDeletions(path string, n int32) ([]int32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	docs, err := DecodeDeletions(b, n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return docs, nil
}

// SegmentIDs gives the canonical id of each document of a segment, in the
// segment's order (increasing ids); catalog readers provide it.
type SegmentIDs interface {
	Len() int
	ID(doc int32) []byte
}

// MergedNumbers numbers the live documents of segments, oldest first, as
// one fully merged build of them numbers its documents: in canonical id
// order. deleted[s] are segment s's deleted documents, increasing. For
// each segment it returns, per document, the number of live documents of
// all segments whose id sorts before its own: a live document's merged
// number, and for a deleted one the number its replacement (a live
// document of the same id, if any) has, so each list never decreases. It
// also returns the number of live documents. Two live documents with one
// id are an error: the merger never publishes them.
func MergedNumbers(segs []SegmentIDs, deleted [][]int32) (docs [][]int32, live int32, err error) {
	if len(deleted) != len(segs) {
		return nil, 0, fmt.Errorf("%w: %d deletion lists for %d segments", ErrDeletions, len(deleted), len(segs))
	}
	h := &idHeap{}
	docs = make([][]int32, len(segs))
	for s, seg := range segs {
		docs[s] = make([]int32, seg.Len())
		if seg.Len() > 0 {
			h.cur = append(h.cur, &cursor{seg: s, ids: seg, id: seg.ID(0)})
		}
	}
	heap.Init(h)
	var group []*cursor // the cursors at the smallest id
	for h.Len() > 0 {
		group = append(group[:0], heap.Pop(h).(*cursor))
		for h.Len() > 0 && bytes.Equal(h.cur[0].id, group[0].id) {
			group = append(group, heap.Pop(h).(*cursor))
		}
		n := int32(0)
		for _, c := range group {
			docs[c.seg][c.doc] = live
			del := deleted[c.seg]
			if c.del < len(del) && del[c.del] == c.doc {
				c.del++
			} else {
				n++
			}
		}
		if n > 1 {
			return nil, 0, fmt.Errorf("%w: id %s is live in %d segments", ErrDeletions, group[0].id, n)
		}
		if live == math.MaxInt32 {
			return nil, 0, fmt.Errorf("%w: more than 2^31 documents", ErrDeletions)
		}
		live += n
		for _, c := range group {
			if c.doc++; int(c.doc) == c.ids.Len() {
				if c.del != len(deleted[c.seg]) {
					return nil, 0, fmt.Errorf("%w: segment %d: deleted documents out of range or order", ErrDeletions, c.seg)
				}
				continue
			}
			next := c.ids.ID(c.doc)
			if bytes.Compare(next, c.id) <= 0 {
				return nil, 0, fmt.Errorf("%w: segment %d: id %s after %s", ErrDeletions, c.seg, next, c.id)
			}
			c.id = next
			heap.Push(h, c)
		}
	}
	return docs, live, nil
}

// cursor walks one segment's ids.
type cursor struct {
	seg int
	ids SegmentIDs
	doc int32
	id  []byte // ids.ID(doc)
	del int    // deleted[seg][:del] are behind doc
}

// idHeap orders cursors by their current id, then by segment.
type idHeap struct{ cur []*cursor }

func (h *idHeap) Len() int { return len(h.cur) }
func (h *idHeap) Less(i, j int) bool {
	if c := bytes.Compare(h.cur[i].id, h.cur[j].id); c != 0 {
		return c < 0
	}
	return h.cur[i].seg < h.cur[j].seg
}
func (h *idHeap) Swap(i, j int) { h.cur[i], h.cur[j] = h.cur[j], h.cur[i] }
func (h *idHeap) Push(x any)    { h.cur = append(h.cur, x.(*cursor)) }
func (h *idHeap) Pop() any {
	c := h.cur[len(h.cur)-1]
	h.cur = h.cur[:len(h.cur)-1]
	return c
}

// Numbering is where the documents of a snapshot's segments stand in the
// merged order: what readers over segments (the catalog's, the content
// store's, the search index's) share. Safe for concurrent use.
type Numbering struct {
	docs, deleted [][]int32
	n             int32
}

// NewNumbering numbers the live documents of segs, oldest first, whose
// deleted documents are deleted[i] (see MergedNumbers).
func NewNumbering(segs []SegmentIDs, deleted [][]int32) (*Numbering, error) {
	docs, n, err := MergedNumbers(segs, deleted)
	if err != nil {
		return nil, err
	}
	return &Numbering{docs: docs, deleted: deleted, n: n}, nil
}

// Len is the number of live documents.
func (m *Numbering) Len() int32 { return m.n }

// Segments is the number of segments.
func (m *Numbering) Segments() int { return len(m.docs) }

// Docs are segment seg's documents' merged numbers (MergedNumbers).
func (m *Numbering) Docs(seg int) []int32 { return m.docs[seg] }

// Deleted are segment seg's deleted documents, increasing.
func (m *Numbering) Deleted(seg int) []int32 { return m.deleted[seg] }

// Live reports whether document d of segment seg is live.
func (m *Numbering) Live(seg int, d int32) bool {
	_, found := sort.Find(len(m.deleted[seg]), func(i int) int { return int(d - m.deleted[seg][i]) })
	return !found
}

// Merged returns the merged number of document d of segment seg, or -1
// if it is deleted.
func (m *Numbering) Merged(seg int, d int32) int32 {
	if !m.Live(seg, d) {
		return -1
	}
	return m.docs[seg][d]
}

// Locate returns the segment and the document in it of merged number doc,
// or (-1, -1) when doc is not in [0, Len()).
func (m *Numbering) Locate(doc int32) (seg int, d int32) {
	for s, docs := range m.docs {
		// The documents numbered doc in s: at most one of them is live.
		lo := sort.Search(len(docs), func(j int) bool { return docs[j] >= doc })
		for j := lo; j < len(docs) && docs[j] == doc; j++ {
			if m.Live(s, int32(j)) {
				return s, int32(j)
			}
		}
	}
	return -1, -1
}

// Names of the segmented layout (docs/architecture.md, "Incremental
// snapshots"): a segment's tables are under
// SegmentsDir/segment=<segment id>/, a Hive-style partition directory, so
// that DuckDB, pyarrow and Spark read the segment id as a column named
// segment; DeletionsTable lists the (segment, id) pairs of the rows the
// snapshot no longer serves.
const (
	SegmentsDir    = "segments"
	DeletionsTable = "deletions"
	DeletionsDir   = "deletions" // deletions/<segment id>.bin
	DeletionsExt   = ".bin"
)

// TableSQL returns what a DuckDB FROM clause reads for a table of the
// snapshot: read_parquet of its file, or for a per-document table of a
// segmented snapshot its live rows (LiveSQL) in parentheses.
func (s *Snapshot) TableSQL(table string) string {
	if s.Segmented() && PerDocument[table] {
		return "(" + LiveSQL(s.Dir, table) + ")"
	}
	return "read_parquet('" + strings.ReplaceAll(s.Path(table), "'", "''") + "')"
}

// PerDocument are the tables each segment of a segmented snapshot holds
// for its own documents; the others belong to the whole snapshot.
var PerDocument = map[string]bool{Documents: true, Fulltext: true, References: true, LicenceEvidence: true,
	Aliases: true, Specs: true}

// LiveSQL returns a DuckDB query of the live rows of a per-document table
// (one whose rows carry the document's canonical id in an id column:
// documents, fulltext, references, licence_evidence, aliases) of the
// segmented snapshot in dir: every segment's rows except those whose
// (segment, id) the deletion table lists. It is the query data/README.md
// gives analysts; its columns are the table's, without segment.
func LiveSQL(dir, table string) string {
	q := func(p string) string { return "'" + strings.ReplaceAll(p, "'", "''") + "'" }
	rows := filepath.Join(dir, SegmentsDir, "segment=*", filepath.FromSlash(table)+".parquet")
	del := filepath.Join(dir, DeletionsTable+".parquet")
	return "SELECT t.* EXCLUDE (segment) FROM read_parquet(" + q(rows) + ", hive_partitioning = true, hive_types = {'segment': VARCHAR}) t " +
		"ANTI JOIN read_parquet(" + q(del) + ") x ON t.segment = x.segment AND t.id = x.id"
}
