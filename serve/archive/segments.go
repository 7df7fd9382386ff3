package archive

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/openshelf/openshelf/index/catalog"
	"github.com/openshelf/openshelf/index/content"
	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/snapshot"
)

// openSegments opens a segmented snapshot (docs/architecture.md,
// "Incremental snapshots"): each segment's catalog, content store and
// search index, its deleted documents, and the archive's citations, read
// as one archive of the live documents. The segments' readers come from
// the store's cache, so a switch to the next snapshot opens only its new
// segments.
func (g *generation) openSegments(cache *segmentCache, opts search.Options) error {
	var (
		cats    []*catalog.Reader
		cons    []*content.Reader
		ixs     []*search.Index
		deleted [][]int32
	)
	for _, info := range g.snap.Manifest.Segments {
		r, err := cache.acquire(g.snap, info, opts)
		if err != nil {
			return err
		}
		g.segments = append(g.segments, info.ID)
		var del []int32
		if info.Deleted > 0 {
			if del, err = snapshot.ReadDeletions(g.snap.DeletionsPath(info.ID), int32(r.cat.Len())); err != nil {
				return err
			}
		}
		cats, cons, ixs, deleted = append(cats, r.cat), append(cons, r.con), append(ixs, r.ix), append(deleted, del)
	}
	cat, err := catalog.NewMulti(cats, deleted)
	if err != nil {
		return err
	}
	g.catalog = cat
	if g.content, err = content.NewMulti(cons, cat.Numbering()); err != nil {
		return err
	}
	cites, err := search.ReadCitations(filepath.Join(g.snap.Dir, search.CitationsFile), int32(cat.Len()))
	if err != nil {
		return err
	}
	num := cat.Numbering()
	segs := make([]search.Segment, len(ixs))
	for i, ix := range ixs {
		segs[i] = search.Segment{Index: ix, Deleted: num.Deleted(i), Docs: num.Docs(i)}
	}
	m, err := search.NewMulti(g.snap.ID, segs, cites)
	if err != nil {
		return err
	}
	// What first searches need, from the newest segment's build: used
	// if made for these segments, else they count it as without.
	if n := len(g.segments); n > 0 {
		first, err := search.ReadFirst(filepath.Join(g.snap.SegmentDir(g.segments[n-1]), filepath.FromSlash(search.FirstFile)))
		if err != nil {
			return err
		}
		m.UseFirst(first, g.segments)
	}
	g.index = multiSearcher{m}
	return nil
}

// multiSearcher is a Multi as a generation's searcher: the segments'
// indexes belong to the segment cache, so closing it closes nothing.
type multiSearcher struct{ *search.Multi }

func (multiSearcher) Close() error { return nil }

// segmentCache holds the readers of the segments of the generations being
// served, by segment id (a segment never changes, and every snapshot that
// names it holds hard links of the same files), each closed when no
// generation uses it any more.
type segmentCache struct {
	mu     sync.Mutex
	segs   map[string]*segmentReaders
	opened int // segments opened so far (tests)
}

// segmentReaders are one segment's readers and the generations using them.
type segmentReaders struct {
	cat  *catalog.Reader
	con  *content.Reader
	ix   *search.Index
	refs int
}

// acquire returns the readers of a segment of snap, opening them unless a
// served generation already has.
func (c *segmentCache) acquire(snap *snapshot.Snapshot, info snapshot.Segment, opts search.Options) (*segmentReaders, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.segs[info.ID]; ok {
		r.refs++
		return r, nil
	}
	r, err := openSegment(snap.SegmentDir(info.ID), info, opts)
	if err != nil {
		return nil, fmt.Errorf("segment %s: %w", info.ID, err)
	}
	if c.segs == nil {
		c.segs = map[string]*segmentReaders{}
	}
	r.refs = 1
	c.segs[info.ID] = r
	c.opened++
	return r, nil
}

// release gives back the segments a generation acquired.
func (c *segmentCache) release(ids []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		r := c.segs[id]
		if r == nil {
			continue
		}
		if r.refs--; r.refs == 0 {
			r.close()
			delete(c.segs, id)
		}
	}
}

func openSegment(dir string, info snapshot.Segment, opts search.Options) (*segmentReaders, error) {
	r := &segmentReaders{}
	var err error
	if r.cat, err = catalog.Open(filepath.Join(dir, filepath.FromSlash(catalog.File))); err != nil {
		return nil, err
	}
	if r.con, err = content.Open(filepath.Join(dir, filepath.FromSlash(content.File))); err != nil {
		r.close()
		return nil, err
	}
	// The index's own snapshot id is not used: the Multi over the
	// segments names its snapshot in cursors.
	if r.ix, err = search.OpenFile(filepath.Join(dir, filepath.FromSlash(search.File)), info.ID, opts); err != nil {
		r.close()
		return nil, err
	}
	if int64(r.cat.Len()) != info.Documents || r.con.Len() != r.cat.Len() || r.ix.Len() != r.cat.Len() {
		r.close()
		return nil, fmt.Errorf("%w: the segment's catalog, content store and index hold %d, %d and %d documents, the manifest says %d",
			errIndex, r.cat.Len(), r.con.Len(), r.ix.Len(), info.Documents)
	}
	return r, nil
}

func (r *segmentReaders) close() {
	if r.cat != nil {
		r.cat.Close()
	}
	if r.con != nil {
		r.con.Close()
	}
	if r.ix != nil {
		r.ix.Close()
	}
}
