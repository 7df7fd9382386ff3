package archive

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/openshelf/openshelf/index/catalog"
	"github.com/openshelf/openshelf/index/content"
	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/snapshot"
)

// openSegments opens a segmented snapshot (docs/architecture.md,
// "Incremental snapshots"): each segment's catalog, content store and
// search index, its deleted documents, and the archive's citations, read
// as one archive of the live documents.
func (g *generation) openSegments(opts search.Options) error {
	var (
		cats    []*catalog.Reader
		cons    []*content.Reader
		deleted [][]int32
	)
	for _, info := range g.snap.Manifest.Segments {
		dir := g.snap.SegmentDir(info.ID)
		cat, err := catalog.Open(filepath.Join(dir, filepath.FromSlash(catalog.File)))
		if err != nil {
			return fmt.Errorf("segment %s: %w", info.ID, err)
		}
		g.closers = append(g.closers, cat)
		con, err := content.Open(filepath.Join(dir, filepath.FromSlash(content.File)))
		if err != nil {
			return fmt.Errorf("segment %s: %w", info.ID, err)
		}
		g.closers = append(g.closers, con)
		if int64(cat.Len()) != info.Documents || con.Len() != cat.Len() {
			return fmt.Errorf("%w: segment %s holds %d documents, the manifest says %d", errIndex, info.ID, cat.Len(), info.Documents)
		}
		var del []int32
		if info.Deleted > 0 {
			if del, err = snapshot.ReadDeletions(g.snap.DeletionsPath(info.ID), int32(cat.Len())); err != nil {
				return err
			}
		}
		cats, cons, deleted = append(cats, cat), append(cons, con), append(deleted, del)
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
	segs := make([]search.Segment, 0, len(cats))
	var ixs []io.Closer
	for i, info := range g.snap.Manifest.Segments {
		ix, err := search.OpenFile(filepath.Join(g.snap.SegmentDir(info.ID), filepath.FromSlash(search.File)), g.snap.ID, opts)
		if err != nil {
			closeAll(ixs)
			return fmt.Errorf("segment %s: search index: %w", info.ID, err)
		}
		ixs = append(ixs, ix)
		if ix.Len() != cats[i].Len() {
			closeAll(ixs)
			return fmt.Errorf("%w: segment %s: the search index has %d documents, the catalog %d", errIndex, info.ID, ix.Len(), cats[i].Len())
		}
		segs = append(segs, search.Segment{Index: ix, Deleted: num.Deleted(i), Docs: num.Docs(i)})
	}
	m, err := search.NewMulti(g.snap.ID, segs, cites)
	if err != nil {
		closeAll(ixs)
		return err
	}
	g.index = m // closes the segments' indexes
	return nil
}

func closeAll(cs []io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}
