package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/openshelf/openshelf/index/catalog"
	"github.com/openshelf/openshelf/index/content"
	isearch "github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/snapshot"
)

// A delta build (docs/architecture.md, "Incremental snapshots") writes one
// new segment holding the documents its run adds or changes and shares
// every other segment of the previous snapshot by hard links:
//
//  1. the run is read into a Merger of its own, whose ids say which
//     documents of the previous snapshot it touches (looked up in each
//     segment's catalog);
//  2. those documents are read back from the segments' content stores
//     and carried into a second Merger, which then receives the run's
//     records replayed in their order (ingest.Merger.Replay): the same
//     merge a full build makes of them;
//  3. the merged documents go through the ordinary Builder into
//     segments/segment=<id>/; the touched documents' old copies become
//     the snapshot's deletions;
//  4. what belongs to the whole archive is written at the top of the
//     snapshot: the deletions, the citations (delta_archive.go), the
//     bundles of the topics whose documents changed (delta_bundles.go;
//     the others are linked) and topics.parquet.
//
// The merge policy (delta_merge.go) may add whole segments to the touched
// documents, and the documents whose licence depends on the date always
// are.

// errNoDelta means the previous snapshot cannot take a delta build (it was
// written before the files a delta build reads existed).
var errNoDelta = errors.New("index: the previous snapshot cannot take a delta build")

// delta is a delta build's state besides the Builder's.
type delta struct {
	segs []*oldSegment
	// removed are, by topic, the documents whose bundle lines go (the
	// touched documents' old copies); added are the new segment's
	// scratch bundles by topic (delta_bundles.go).
	removed map[string]map[string]bool
	added   map[string]string
	// licences counts the removed or replaced documents by licence.
	licences map[string]int64
	// prevFiles are the previous manifest's files by name (prevFile).
	prevFiles map[string]snapshot.File
}

// oldSegment is a segment of the previous snapshot.
type oldSegment struct {
	snapshot.Segment
	dir   string          // its directory in the previous snapshot
	files []snapshot.File // names relative to dir
	cat   *catalog.Reader
	con   *content.Reader
	// deleted are its documents the new snapshot does not serve: the
	// previous snapshot's deletions and the documents this run touched.
	deleted []int32
	// touched are the live documents this run touches, increasing.
	touched []int32
	// merged means the new segment takes all its live documents and the
	// segment leaves the snapshot (the merge policy, delta_merge.go).
	merged bool
	// rec are its records (records.go), nil when it has none; dead are
	// its groups later builds took, and groups those this build takes,
	// both increasing.
	rec    *recordStore
	dead   []int32
	groups []int32
}

// deltaCapable reports whether every segment of prev has the files a delta
// build reads (the citation keys stand for them: they came together).
func deltaCapable(prev *snapshot.Snapshot) bool {
	for _, dir := range segmentDirs(prev) {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(citeKeysFile))); err != nil {
			return false
		}
	}
	return true
}

// searchFormatCurrent reports whether every segment of s has a search
// index of the current format: a delta build would leave the others
// unreadable to the server, so a build over them is a full merge.
func searchFormatCurrent(s *snapshot.Snapshot) bool {
	for _, dir := range segmentDirs(s) {
		ok, err := isearch.CurrentFormat(filepath.Join(dir, filepath.FromSlash(isearch.File)))
		if err != nil || !ok {
			return false
		}
	}
	return true
}

// segmentDirs lists the directories of a snapshot's segments, oldest first.
func segmentDirs(s *snapshot.Snapshot) []string {
	if !s.Segmented() {
		return []string{s.Dir}
	}
	dirs := make([]string, len(s.Manifest.Segments))
	for i, g := range s.Manifest.Segments {
		dirs[i] = s.SegmentDir(g.ID)
	}
	return dirs
}

// archiveFile reports whether a file of a snapshot's top directory belongs
// to the whole archive rather than to its one segment (a snapshot without
// segments becomes a segment of the next one without these).
func archiveFile(name string) bool {
	switch name {
	case snapshot.Rejects + ".parquet", snapshot.Topics + ".parquet", snapshot.Citations + ".parquet":
		return true
	}
	return strings.HasPrefix(name, snapshot.BundlesDir+"/") || strings.HasPrefix(name, recordsDeadDir+"/")
}

// openSegments opens the segments of the previous snapshot.
func openSegments(prev *snapshot.Snapshot) ([]*oldSegment, error) {
	var segs []*oldSegment
	ok := false
	defer func() {
		if !ok {
			closeSegments(segs)
		}
	}()
	infos := prev.Manifest.Segments
	if !prev.Segmented() {
		infos = []snapshot.Segment{{ID: prev.ID, Documents: prev.Manifest.Counts.Accepted}}
	}
	for i, info := range infos {
		g := &oldSegment{Segment: info, dir: segmentDirs(prev)[i]}
		prefix := ""
		if prev.Segmented() {
			prefix = snapshot.SegmentsDir + "/segment=" + info.ID + "/"
		}
		for _, f := range prev.Manifest.Files {
			if prev.Segmented() {
				name, found := strings.CutPrefix(f.Name, prefix)
				if !found {
					continue
				}
				f.Name = name
			} else if archiveFile(f.Name) {
				continue
			}
			g.files = append(g.files, f)
		}
		segs = append(segs, g)
		var err error
		if g.cat, err = catalog.Open(filepath.Join(g.dir, filepath.FromSlash(catalog.File))); err != nil {
			return nil, err
		}
		if g.con, err = content.Open(filepath.Join(g.dir, filepath.FromSlash(content.File))); err != nil {
			return nil, err
		}
		if int64(g.cat.Len()) != g.Documents || g.con.Len() != g.cat.Len() {
			return nil, fmt.Errorf("%w: segment %s holds %d documents, its manifest says %d", errNoDelta, g.ID, g.cat.Len(), g.Documents)
		}
		if g.Deleted > 0 {
			if g.deleted, err = snapshot.ReadDeletions(prev.DeletionsPath(g.ID), int32(g.cat.Len())); err != nil {
				return nil, err
			}
		}
		if g.rec, err = openRecords(g.dir); err != nil {
			return nil, err
		}
		if g.rec != nil && prev.Segmented() {
			g.dead, err = snapshot.ReadDeletions(deadGroupsPath(prev.Dir, g.ID), g.rec.len())
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
	}
	ok = true
	return segs, nil
}

func closeSegments(segs []*oldSegment) {
	for _, g := range segs {
		if g.cat != nil {
			g.cat.Close()
		}
		if g.con != nil {
			g.con.Close()
		}
		if g.rec != nil {
			g.rec.Close()
		}
	}
}

func (g *oldSegment) live(d int32) bool {
	_, found := slices.BinarySearch(g.deleted, d)
	return !found
}

// buildDelta is Build for a delta build (b.delta set).
func buildDelta(ctx context.Context, b *Builder, feed Feed) (*snapshot.Manifest, error) {
	cfg := b.cfg
	segs, err := openSegments(b.prev)
	if err != nil {
		return nil, err
	}
	defer closeSegments(segs)
	b.delta.segs = segs
	b.delta.removed, b.delta.added, b.delta.licences = map[string]map[string]bool{}, map[string]string{}, map[string]int64{}
	var joined []string
	for i, merge := range cfg.Tiers.plan(segs) {
		segs[i].merged = merge
		if !merge {
			joined = append(joined, segs[i].dir)
		}
	}
	// The new segment's word pairs follow the segments it joins
	// (pairsample.go).
	if err := b.joinPairs(joined); err != nil {
		return nil, err
	}
	mc := ingest.MergeConfig{Dir: b.WorkDir(), Now: cfg.Now, Decide: cfg.Decide, Problem: cfg.Problem, Logger: cfg.Logger}
	run, err := ingest.NewMerger(mc)
	if err != nil {
		return nil, err
	}
	defer run.Close()
	if feed != nil {
		if err := withProvenance(feed, cfg.Now)(ctx, run); err != nil {
			return nil, fmt.Errorf("index: feed: %w", err)
		}
	}
	if cfg.FeedInputs != nil {
		b.cfg.Inputs = cfg.FeedInputs()
	}
	if err := b.touch(run); err != nil {
		return nil, err
	}
	mc.Problem = nil // the run's problems were reported once
	mc.Records = cfg.Records
	m, err := ingest.NewMerger(mc)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	n, err := b.carryTouched(ctx, m)
	if err != nil {
		return nil, err
	}
	if err := run.Replay(ctx, m); err != nil {
		return nil, err
	}
	run.Close()
	merged := 0
	for _, g := range segs {
		if g.merged {
			merged++
		}
	}
	cfg.Logger.Info("index: delta build", "previous", b.prev.ID, "segments", len(segs), "merged", merged, "carried", n)
	if err := addMerged(ctx, b, m); err != nil {
		return nil, err
	}
	st := m.Stats()
	// Every previous document is carried over, shared or merged again.
	st.Read, st.Carried = run.Stats().Read, b.prev.Manifest.Counts.Accepted
	b.SetMergeStats(st)
	return b.Finish(ctx)
}

// touch finds the live documents of the previous snapshot that the new
// segment takes: those the run's records or deletions name, those whose
// licence decision depends on the date, and all of the segments merged.
// In a segment with records it takes works (groups), rejected ones too,
// and also those Config.Touch names.
func (b *Builder) touch(run *ingest.Merger) error {
	var hashes []uint64
	name := func(id string) error {
		for _, g := range b.delta.segs {
			if d := g.cat.Lookup(id); d >= 0 && g.live(d) {
				g.touched = append(g.touched, d)
			}
		}
		hashes = append(hashes, idHash(id))
		return nil
	}
	if err := run.IDs(name); err != nil {
		return err
	}
	for _, id := range b.cfg.Touch {
		name(id)
	}
	slices.Sort(hashes)
	for _, g := range b.delta.segs {
		if g.merged {
			g.touched = g.touched[:0]
			for d := range int32(g.cat.Len()) {
				if g.live(d) {
					g.touched = append(g.touched, d)
				}
			}
		}
		dated, err := readDated(g.dir)
		if err != nil {
			return err
		}
		for _, id := range dated {
			if d := g.cat.Find(id); d >= 0 && g.live(d) {
				g.touched = append(g.touched, d)
			}
		}
		if g.rec != nil {
			// Rejected works are dated too (build.go): found by id.
			segHashes := slices.Clone(hashes)
			for _, id := range dated {
				segHashes = append(segHashes, idHash(id))
			}
			slices.Sort(segHashes)
			if err := g.touchGroups(segHashes); err != nil {
				return err
			}
		}
		slices.Sort(g.touched)
		g.touched = slices.Compact(g.touched)
	}
	return nil
}

// touchGroups finds the live groups of g the build takes: those of the
// touched documents, those holding an id of hashes, all when the segment
// is merged. Their documents are touched too.
func (g *oldSegment) touchGroups(hashes []uint64) error {
	if g.merged {
		for gr := range g.rec.len() {
			if g.liveGroup(gr) {
				g.groups = append(g.groups, gr)
			}
		}
	} else {
		found, err := g.rec.lookup(hashes)
		if err != nil {
			return err
		}
		byDoc := g.rec.groupsOfDocs(g.cat.Len())
		for _, d := range g.touched {
			if gr := byDoc[d]; gr >= 0 {
				found = append(found, gr)
			}
		}
		for _, gr := range found {
			if g.liveGroup(gr) {
				g.groups = append(g.groups, gr)
			}
		}
		slices.Sort(g.groups)
		g.groups = slices.Compact(g.groups)
	}
	for _, gr := range g.groups {
		if d := g.rec.doc(gr); d >= 0 {
			g.touched = append(g.touched, d)
		}
	}
	return nil
}

// carryTouched carries the touched documents into m (their records, in a
// segment that keeps them) and marks them deleted in their segments.
func (b *Builder) carryTouched(ctx context.Context, m *ingest.Merger) (int64, error) {
	var n int64
	for _, g := range b.delta.segs {
		for _, d := range g.touched {
			if n%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return n, err
				}
			}
			n++
			if g.rec != nil {
				// Carried below, as records: only what leaves is needed.
				cd, err := g.con.Document(int(d))
				if err != nil {
					return n, fmt.Errorf("index: segment %s: %w", g.ID, err)
				}
				b.removeDoc(cd.ID, cd.Topics, cd.License)
				continue
			}
			doc, err := readSegmentDoc(g.con, int(d))
			if err != nil {
				return n, fmt.Errorf("index: segment %s: %w", g.ID, err)
			}
			b.removeDoc(doc.ID, doc.Topics, string(doc.Licence.Family))
			if err := m.Carry(doc); err != nil {
				return n, err
			}
		}
		for _, gr := range g.groups {
			if err := carryGroup(g, gr, b.cfg.KeepRecord, m); err != nil {
				return n, err
			}
		}
		g.deleted = mergeSorted(g.deleted, g.touched)
		g.dead = mergeSorted(g.dead, g.groups)
	}
	return n, nil
}

// removeDoc notes a previous document the new snapshot no longer serves
// as it was: its topics' bundles lose its line, its licence a count.
func (b *Builder) removeDoc(id string, topics []string, licence string) {
	for _, t := range topics {
		if b.delta.removed[t] == nil {
			b.delta.removed[t] = map[string]bool{}
		}
		b.delta.removed[t][id] = true
	}
	b.delta.licences[licence]++
}

// readContentStores streams the live documents of a snapshot (segmented or
// not) in id order, from its segments' content stores.
func readContentStores(ctx context.Context, s *snapshot.Snapshot, fn func(*ingest.Document) error) (int64, error) {
	segs, err := openSegments(s)
	if err != nil {
		return 0, err
	}
	defer closeSegments(segs)
	cats := make([]*catalog.Reader, len(segs))
	cons := make([]*content.Reader, len(segs))
	deleted := make([][]int32, len(segs))
	for i, g := range segs {
		cats[i], cons[i], deleted[i] = g.cat, g.con, g.deleted
	}
	cat, err := catalog.NewMulti(cats, deleted)
	if err != nil {
		return 0, err
	}
	con, err := content.NewMulti(cons, cat.Numbering())
	if err != nil {
		return 0, err
	}
	for d := range cat.Len() {
		if d%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return int64(d), err
			}
		}
		doc, err := readSegmentDoc(con, d)
		if err != nil {
			return int64(d), err
		}
		if err := fn(doc); err != nil {
			return int64(d), err
		}
	}
	return int64(cat.Len()), nil
}

// contentStore is a content store of one segment or of several.
type contentStore interface {
	Document(doc int) (*content.Document, error)
	Sections(doc int) ([]content.Section, error)
	References(doc int) ([]content.Reference, error)
}

func readSegmentDoc(con contentStore, d int) (*ingest.Document, error) {
	cd, err := con.Document(d)
	if err != nil {
		return nil, err
	}
	secs, err := con.Sections(d)
	if err != nil {
		return nil, err
	}
	refs, err := con.References(d)
	if err != nil {
		return nil, err
	}
	return documentFromContent(cd, secs, refs)
}

// mergeSorted returns the increasing union of two increasing lists.
func mergeSorted(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// finishDelta completes a delta build's snapshot once the new segment's
// files are written: it links the previous segments, writes the
// deletions and the archive-wide files, and returns the files to list in
// the manifest (the segment's own, files, renamed into its directory).
func (b *Builder) finishDelta(ctx context.Context, files []snapshot.File) ([]snapshot.File, error) {
	b.delta.segs = slices.DeleteFunc(slices.Clone(b.delta.segs), func(g *oldSegment) bool { return g.merged })
	files, newCat, err := b.placeSegment(files)
	if err != nil {
		return nil, err
	}
	if newCat != nil {
		defer newCat.Close()
	}
	var (
		cats    []snapshot.SegmentIDs
		deleted [][]int32
		dirs    []string
		segs    []snapshot.Segment
	)
	for _, g := range b.delta.segs {
		dir := filepath.Join(b.tmp, snapshot.SegmentsDir, "segment="+g.ID)
		linked, err := linkSegment(g, dir)
		if err != nil {
			return nil, err
		}
		files = append(files, linked...)
		g.Segment.Deleted = int64(len(g.deleted))
		segs, cats, deleted, dirs = append(segs, g.Segment), append(cats, g.cat), append(deleted, g.deleted), append(dirs, dir)
	}
	if newCat != nil {
		segs, cats, deleted = append(segs, snapshot.Segment{ID: b.id, Documents: b.ndocs}), append(cats, newCat), append(deleted, nil)
		dirs = append(dirs, b.dir)
	}
	b.segments = segs
	if b.cfg.hook != nil {
		b.cfg.hook("linked")
	}
	more, err := b.writeDeletions()
	if err != nil {
		return nil, err
	}
	files = append(files, more...)
	num, err := snapshot.NewNumbering(cats, deleted)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if newCat != nil {
		f, err := b.writeFirst(ctx, dirs, num)
		if err != nil {
			return nil, err
		}
		if f.Name != "" {
			files = append(files, f)
		}
	}
	if more, err = b.writeArchiveCitations(ctx, dirs, num); err != nil {
		return nil, err
	}
	files = append(files, more...)
	if more, err = b.writeArchiveTopics(); err != nil {
		return nil, err
	}
	files = append(files, more...)
	b.countLive(num.Len())
	return files, nil
}

// placeSegment names the new segment's files as the manifest lists them
// and opens its catalog; a segment without documents is left out (its
// files removed) unless it would be the only one.
func (b *Builder) placeSegment(files []snapshot.File) ([]snapshot.File, *catalog.Reader, error) {
	if b.ndocs == 0 && b.ngroups == 0 && len(b.delta.segs) > 0 {
		if err := os.RemoveAll(b.dir); err != nil {
			return nil, nil, fmt.Errorf("index: %w", err)
		}
		files = slices.DeleteFunc(files, func(f snapshot.File) bool { return f.Name != snapshot.Rejects+".parquet" })
		return files, nil, nil
	}
	prefix := snapshot.SegmentsDir + "/segment=" + b.id + "/"
	for i, f := range files {
		if f.Name != snapshot.Rejects+".parquet" {
			files[i].Name = prefix + f.Name
		}
	}
	cat, err := catalog.Open(filepath.Join(b.dir, filepath.FromSlash(catalog.File)))
	return files, cat, err
}

// countLive sets the manifest's counts of published documents: live, and
// by licence the previous snapshot's minus the documents the build took
// out plus the new segment's.
func (b *Builder) countLive(live int32) {
	b.counts.Accepted = int64(live)
	byLicence := map[string]int64{}
	for l, n := range b.prev.Manifest.Counts.AcceptedByLicence {
		byLicence[l] = n - b.delta.licences[l]
	}
	for l, n := range b.counts.AcceptedByLicence {
		byLicence[l] += n
	}
	for l, n := range byLicence {
		if n == 0 {
			delete(byLicence, l)
		}
	}
	b.counts.AcceptedByLicence = byLicence
}

// linkSegment hard-links the files of an old segment into dir and returns
// them named as in the new snapshot.
func linkSegment(g *oldSegment, dir string) ([]snapshot.File, error) {
	prefix := snapshot.SegmentsDir + "/segment=" + g.ID + "/"
	out := make([]snapshot.File, 0, len(g.files))
	for _, f := range g.files {
		dst := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
		if err := os.Link(filepath.Join(g.dir, filepath.FromSlash(f.Name)), dst); err != nil {
			return nil, fmt.Errorf("index: link segment %s: %w", g.ID, err)
		}
		f.Name = prefix + f.Name
		out = append(out, f)
	}
	return out, nil
}

// deletionRow is a row of deletions.parquet: a document of a segment that
// the snapshot does not serve.
type deletionRow struct {
	Segment string `parquet:"segment,dict"`
	ID      string `parquet:"id"`
}

// writeDeletions writes deletions/<segment>.bin for every segment with
// deleted documents, and deletions.parquet.
func (b *Builder) writeDeletions() ([]snapshot.File, error) {
	t, err := newTable[deletionRow](b.tmp, snapshot.DeletionsTable+".parquet", 1_000_000)
	if err != nil {
		return nil, err
	}
	var files []snapshot.File
	for _, g := range b.delta.segs {
		if len(g.deleted) == 0 {
			continue
		}
		f, err := writeNumbers(b.tmp, snapshot.DeletionsDir+"/"+g.ID+snapshot.DeletionsExt, g.deleted)
		if err != nil {
			t.abort()
			return nil, err
		}
		files = append(files, f)
		for _, d := range g.deleted {
			id := string(g.cat.ID(d))
			if err := t.write(deletionRow{Segment: g.ID, ID: id}, len(id)+32); err != nil {
				t.abort()
				return nil, err
			}
		}
		if len(g.dead) == 0 {
			continue
		}
		if f, err = writeNumbers(b.tmp, recordsDeadDir+"/"+g.ID+snapshot.DeletionsExt, g.dead); err != nil {
			t.abort()
			return nil, err
		}
		files = append(files, f)
	}
	f, err := t.close()
	if err != nil {
		return nil, err
	}
	return append(files, f), nil
}

// writeNumbers writes a list of document or group numbers of a segment in
// the deletions' encoding.
func writeNumbers(dir, name string, list []int32) (snapshot.File, error) {
	enc, err := snapshot.EncodeDeletions(list)
	if err != nil {
		return snapshot.File{}, err
	}
	return writeWholeFile(dir, name, enc, int64(len(list)))
}

// writeWholeFile writes a small file of the snapshot in one go.
func writeWholeFile(dir, name string, data []byte, rows int64) (snapshot.File, error) {
	out, err := createHashFile(dir, name)
	if err != nil {
		return snapshot.File{}, fmt.Errorf("index: %s: %w", name, err)
	}
	if _, err := out.Write(data); err != nil {
		out.abort()
		return snapshot.File{}, fmt.Errorf("index: %s: %w", name, err)
	}
	return out.close(rows)
}

// writeFirst writes, beside the new segment's search index, what first
// searches over the snapshot's segments need (search.FirstFile): its
// words' deleted documents and its prefixes' expansions, which a search
// would otherwise count over the segments' lists and dictionaries. No
// file (a zero File) if the snapshot needs none.
func (b *Builder) writeFirst(ctx context.Context, dirs []string, num *snapshot.Numbering) (snapshot.File, error) {
	ids := make([]string, len(b.segments))
	segs := make([]isearch.Segment, len(dirs))
	for i, dir := range dirs {
		ids[i] = b.segments[i].ID
		ix, err := isearch.OpenFile(filepath.Join(dir, filepath.FromSlash(isearch.File)), "", isearch.Options{Sets: -1})
		if err != nil {
			return snapshot.File{}, err
		}
		defer ix.Close()
		segs[i] = isearch.Segment{Index: ix, Deleted: num.Deleted(i), Docs: num.Docs(i)}
	}
	data, err := isearch.MakeFirst(ctx, ids, segs)
	if err != nil || data == nil {
		return snapshot.File{}, err
	}
	f, err := writeWholeFile(b.dir, isearch.FirstFile, data, 0)
	f.Name = snapshot.SegmentsDir + "/segment=" + b.id + "/" + f.Name
	return f, err
}
