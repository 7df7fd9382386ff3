package index

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/snapshot"
)

// The records of a segment (Config.Records)
//
// A merged document cannot be merged again without one of its records, so
// a segment written with Config.Records keeps, for every work its build
// merged (published or rejected), the source records the work was merged
// from (ingest.Document.Records). A later build that touches the work
// carries those records into its merger instead of the merged document.
// The merge is then the one a build reading every source's records again
// would make: a PubMed record deleted, a PMC version withdrawn or an
// OpenAlex work merged away leaves the work merged from the rest, and a
// work rejected yesterday (a PubMed record without a licence) is merged
// with tonight's PMC article.
//
// Files, in the segment's directory (FORMAT: little-endian integers):
//
//   - records/records.bin: the groups one after the other; a group is a
//     uvarint count of records, then each record as a uvarint length and
//     its bytes (ingest.DecodeRecord);
//   - records/groups.bin: 12 bytes a group, in the order of records.bin:
//     the uint64 offset of the group in records.bin and the int32 number
//     of its document in the segment, -1 for a rejected work;
//   - records/ids.bin: 12 bytes an id, sorted: the 64-bit FNV-1a hash of
//     every id of a group (big-endian, so the bytes sort as the numbers)
//     and the group's number (big-endian). A hash collision only makes a
//     build merge an unrelated work again, which changes nothing.
//
// A group taken by a later build is dead: a published work's document is
// in its segment's deletions; every dead group is also listed in
// records-deleted/<segment>.bin (the deletions' encoding, of group
// numbers), which only builds read.
const (
	recordsDataFile   = "records/records.bin"
	recordsGroupsFile = "records/groups.bin"
	recordsIDsFile    = "records/ids.bin"
	recordsDeadDir    = "records-deleted"
	groupEntrySize    = 12
	idEntrySize       = 12
)

// recordsWriter writes a segment's records.
type recordsWriter struct {
	data, groups *hashFile
	ids          *sorter
	off          int64
	n            int32
	buf          []byte
}

func newRecordsWriter(dir, work string, mem int) (*recordsWriter, error) {
	data, err := createHashFile(dir, recordsDataFile)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	groups, err := createHashFile(dir, recordsGroupsFile)
	if err != nil {
		data.abort()
		return nil, fmt.Errorf("index: %w", err)
	}
	return &recordsWriter{data: data, groups: groups, ids: newSorter(work, mem)}, nil
}

// add writes the records of d, merged into document doc of the segment
// (-1: rejected).
func (w *recordsWriter) add(d *ingest.Document, doc int32) error {
	if d.ID == "" || len(d.Records) == 0 {
		return nil
	}
	w.buf = binary.AppendUvarint(w.buf[:0], uint64(len(d.Records)))
	for _, r := range d.Records {
		w.buf = binary.AppendUvarint(w.buf, uint64(len(r)))
		w.buf = append(w.buf, r...)
	}
	var e [groupEntrySize]byte
	binary.LittleEndian.PutUint64(e[:8], uint64(w.off))
	binary.LittleEndian.PutUint32(e[8:], uint32(doc))
	if _, err := w.data.Write(w.buf); err != nil {
		return fmt.Errorf("index: records: %w", err)
	}
	if _, err := w.groups.Write(e[:]); err != nil {
		return fmt.Errorf("index: records: %w", err)
	}
	w.off += int64(len(w.buf))
	for _, id := range append([]string{d.ID}, d.Aliases...) {
		var k [idEntrySize]byte
		binary.BigEndian.PutUint64(k[:8], idHash(id))
		binary.BigEndian.PutUint32(k[8:], uint32(w.n))
		if err := w.ids.add(k[:]); err != nil {
			return err
		}
	}
	w.n++
	return nil
}

func (w *recordsWriter) close() ([]snapshot.File, error) {
	dir := w.data.dir
	df, err := w.data.close(int64(w.n))
	if err != nil {
		w.abort()
		return nil, err
	}
	gf, err := w.groups.close(int64(w.n))
	if err != nil {
		w.abort()
		return nil, err
	}
	ids, err := createHashFile(dir, recordsIDsFile)
	if err != nil {
		w.ids.cleanup()
		return nil, fmt.Errorf("index: %w", err)
	}
	var n int64
	err = w.ids.iterate(func(rec []byte) error {
		n++
		_, err := ids.Write(rec)
		return err
	})
	if err != nil {
		ids.abort()
		return nil, fmt.Errorf("index: records: %w", err)
	}
	f, err := ids.close(n)
	if err != nil {
		return nil, err
	}
	return []snapshot.File{df, gf, f}, nil
}

func (w *recordsWriter) abort() {
	w.data.abort()
	w.groups.abort()
	w.ids.cleanup()
}

func idHash(id string) uint64 {
	h := fnv.New64a()
	io.WriteString(h, id)
	return h.Sum64()
}

// recordStore reads a segment's records.
type recordStore struct {
	dir    string
	data   *os.File
	groups []byte // records/groups.bin
}

// openRecords opens the records of the segment in dir; nil when it has
// none.
func openRecords(dir string) (*recordStore, error) {
	groups, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(recordsGroupsFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("index: records: %w", err)
	}
	if len(groups)%groupEntrySize != 0 {
		return nil, fmt.Errorf("index: records: %s is %d bytes, not whole entries", recordsGroupsFile, len(groups))
	}
	data, err := os.Open(filepath.Join(dir, filepath.FromSlash(recordsDataFile)))
	if err != nil {
		return nil, fmt.Errorf("index: records: %w", err)
	}
	return &recordStore{dir: dir, data: data, groups: groups}, nil
}

func (s *recordStore) Close() error { return s.data.Close() }

// len is the number of groups.
func (s *recordStore) len() int32 { return int32(len(s.groups) / groupEntrySize) }

// doc is the document of group g in the segment, -1 for a rejected work.
func (s *recordStore) doc(g int32) int32 {
	return int32(binary.LittleEndian.Uint32(s.groups[int(g)*groupEntrySize+8:]))
}

func (s *recordStore) offset(g int32) int64 {
	return int64(binary.LittleEndian.Uint64(s.groups[int(g)*groupEntrySize:]))
}

// groupsOfDocs maps the segment's documents to their groups.
func (s *recordStore) groupsOfDocs(ndocs int) []int32 {
	out := make([]int32, ndocs)
	for i := range out {
		out[i] = -1
	}
	for g := range s.len() {
		if d := s.doc(g); d >= 0 && int(d) < ndocs {
			out[d] = g
		}
	}
	return out
}

// lookup returns the groups holding any of the ids whose hashes are given
// (sorted, may repeat), increasing.
func (s *recordStore) lookup(hashes []uint64) ([]int32, error) {
	f, err := os.Open(filepath.Join(s.dir, filepath.FromSlash(recordsIDsFile)))
	if err != nil {
		return nil, fmt.Errorf("index: records: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var out []int32
	var e [idEntrySize]byte
	for len(hashes) > 0 {
		if _, err := io.ReadFull(r, e[:]); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("index: records: %w", err)
		}
		h := binary.BigEndian.Uint64(e[:8])
		for len(hashes) > 0 && hashes[0] < h {
			hashes = hashes[1:]
		}
		if len(hashes) > 0 && hashes[0] == h {
			out = append(out, int32(binary.BigEndian.Uint32(e[8:])))
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// read returns the records of group g.
func (s *recordStore) read(g int32) ([][]byte, error) {
	end, err := s.end(g)
	if err != nil {
		return nil, err
	}
	off := s.offset(g)
	if end < off {
		return nil, fmt.Errorf("index: records: group %d is corrupt", g)
	}
	buf := make([]byte, end-off)
	if _, err := s.data.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("index: records: %w", err)
	}
	n, k := binary.Uvarint(buf)
	if k <= 0 || n > uint64(len(buf)) {
		return nil, fmt.Errorf("index: records: group %d is corrupt", g)
	}
	buf = buf[k:]
	out := make([][]byte, 0, n)
	for range n {
		size, k := binary.Uvarint(buf)
		if k <= 0 || size > uint64(len(buf)-k) {
			return nil, fmt.Errorf("index: records: group %d is corrupt", g)
		}
		out = append(out, buf[k:k+int(size)])
		buf = buf[k+int(size):]
	}
	return out, nil
}

func (s *recordStore) end(g int32) (int64, error) {
	if g+1 < s.len() {
		return s.offset(g + 1), nil
	}
	st, err := s.data.Stat()
	if err != nil {
		return 0, fmt.Errorf("index: records: %w", err)
	}
	return st.Size(), nil
}

// hasRecords reports whether every segment of s keeps its records.
func hasRecords(s *snapshot.Snapshot) bool {
	for _, dir := range segmentDirs(s) {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(recordsGroupsFile))); err != nil {
			return false
		}
	}
	return true
}

// HasRecords reports whether every segment of the snapshot s keeps the
// source records of its works, so that a build can take Config.Touch and
// Config.Keep.
func HasRecords(s *snapshot.Snapshot) bool { return hasRecords(s) }

// deadGroupsPath is where a snapshot lists the dead groups of a segment.
func deadGroupsPath(snapDir, seg string) string {
	return filepath.Join(snapDir, recordsDeadDir, seg+snapshot.DeletionsExt)
}

// carryGroup carries the records of group gr of g into m, leaving out
// those cfg.Keep drops.
func carryGroup(g *oldSegment, gr int32, keep func(string, *ingest.Document) bool, m *ingest.Merger) error {
	recs, err := g.rec.read(gr)
	if err != nil {
		return fmt.Errorf("index: segment %s: %w", g.ID, err)
	}
	for _, raw := range recs {
		d, err := ingest.DecodeRecord(raw)
		if err != nil {
			return fmt.Errorf("index: segment %s: %w", g.ID, err)
		}
		if keep != nil && !keep(d.Origin, d) {
			continue
		}
		if err := m.Carry(d); err != nil {
			return err
		}
	}
	return nil
}

// carryRecords carries every live work of the snapshot s, from its
// segments' records, into m (a full merge).
func carryRecords(ctx context.Context, s *snapshot.Snapshot, keep func(string, *ingest.Document) bool, m *ingest.Merger) (int64, error) {
	segs, err := openSegments(s)
	if err != nil {
		return 0, err
	}
	defer closeSegments(segs)
	var n int64
	for _, g := range segs {
		for gr := range g.rec.len() {
			if n%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return n, err
				}
			}
			if !g.liveGroup(gr) {
				continue
			}
			if err := carryGroup(g, gr, keep, m); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// liveGroup reports whether group gr of g is still the segment's: not
// taken by a later build.
func (g *oldSegment) liveGroup(gr int32) bool {
	if _, dead := slices.BinarySearch(g.dead, gr); dead {
		return false
	}
	d := g.rec.doc(gr)
	return d < 0 || g.live(d)
}
