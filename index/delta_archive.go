package index

import (
	"bufio"
	"bytes"
	"container/heap"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/openshelf/openshelf/index/bundle"
	isearch "github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/snapshot"
)

// What belongs to the whole archive is written by a delta build from every
// segment's files, so that it equals what one full build of the live
// documents writes: the citations (from the segments' citation keys) and
// the topics' bundles (from the segments' own bundles).

// citeCursor walks one segment's citation keys.
type citeCursor struct {
	seg  int
	r    *citeKeyReader
	rec  []byte // current record
	key  []byte
	kind byte
	doc  int32
	id   []byte
}

func (c *citeCursor) advance() error {
	rec, err := c.r.next()
	if err != nil || rec == nil {
		c.rec = nil
		return err
	}
	i := bytes.IndexByte(rec, 0)
	if i < 0 || len(rec) < i+6 {
		return fmt.Errorf("index: %s: malformed record", citeKeysFile)
	}
	c.rec = rec
	c.key, c.kind = rec[:i], rec[i+1]
	c.doc, c.id = int32(binary.BigEndian.Uint32(rec[i+2:])), rec[i+6:]
	return nil
}

// citeHeap orders cursors as one build's sorted records would be: by key,
// kind, then document (id order, the same in every segment).
type citeHeap []*citeCursor

func (h citeHeap) Len() int { return len(h) }
func (h citeHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if c := bytes.Compare(a.key, b.key); c != 0 {
		return c < 0
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return bytes.Compare(a.id, b.id) < 0
}
func (h citeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *citeHeap) Push(x any)   { *h = append(*h, x.(*citeCursor)) }
func (h *citeHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// mergedTable answers num.Merged without a search of the deletions: a
// segment's citation keys name its documents in key order, each many
// times.
type mergedTable struct {
	docs [][]int32  // num.Docs
	dead [][]uint64 // a bit a document of each segment, set if deleted
}

func newMergedTable(num *snapshot.Numbering) mergedTable {
	t := mergedTable{docs: make([][]int32, num.Segments()), dead: make([][]uint64, num.Segments())}
	for seg := range t.docs {
		t.docs[seg] = num.Docs(seg)
		t.dead[seg] = make([]uint64, (len(t.docs[seg])+63)/64)
		for _, d := range num.Deleted(seg) {
			t.dead[seg][d/64] |= 1 << (d % 64)
		}
	}
	return t
}

// of is num.Merged(seg, d): document d's merged number, -1 if deleted
// (or out of range).
func (t mergedTable) of(seg int, d int32) int32 {
	if d < 0 || int(d) >= len(t.docs[seg]) || t.dead[seg][d/64]&(1<<(d%64)) != 0 {
		return -1
	}
	return t.docs[seg][d]
}

// writeArchiveCitations resolves the citations of the live documents of
// every segment (dirs, oldest first; num their merged numbering) and
// writes citations.parquet and the search's citations.bin.
func (b *Builder) writeArchiveCitations(ctx context.Context, dirs []string, num *snapshot.Numbering) ([]snapshot.File, error) {
	pairs := newSorter(b.work, b.cfg.SortMemory/4)
	defer pairs.cleanup()
	h := &citeHeap{}
	defer func() {
		for _, c := range *h {
			c.r.close()
		}
	}()
	for i, dir := range dirs {
		r, err := openCiteKeys(dir)
		if err != nil {
			return nil, err
		}
		c := &citeCursor{seg: i, r: r}
		if err := c.advance(); err != nil {
			r.close()
			return nil, err
		}
		if c.rec == nil {
			r.close()
			continue
		}
		*h = append(*h, c)
	}
	heap.Init(h)
	merged := newMergedTable(num)
	var key, ownerID []byte
	owner := int32(-1)
	var rec []byte
	for n := 0; h.Len() > 0; n++ {
		if n%1_000_000 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		c := (*h)[0]
		if !bytes.Equal(c.key, key) {
			key, owner = append(key[:0], c.key...), -1
		}
		if d := merged.of(c.seg, c.doc); d >= 0 {
			switch {
			case c.kind == 0 && owner < 0:
				owner, ownerID = d, append(ownerID[:0], c.id...)
			case c.kind == 1 && owner >= 0 && owner != d:
				// The pair sorts by its numbers; it carries the ids that
				// citations.parquet names, so that writing it does not look
				// every document up in the catalogs.
				rec = binary.BigEndian.AppendUint32(rec[:0], uint32(owner))
				rec = binary.BigEndian.AppendUint32(rec, uint32(d))
				rec = append(append(append(rec, ownerID...), 0), c.id...)
				if err := pairs.add(rec); err != nil {
					return nil, err
				}
			}
		}
		if err := c.advance(); err != nil {
			return nil, err
		}
		if c.rec == nil {
			c.r.close()
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	t, err := newTable[citationRow](b.tmp, snapshot.Citations+".parquet", 1_000_000)
	if err != nil {
		return nil, err
	}
	cw := isearch.NewCitationWriter(num.Len())
	var last [8]byte
	first, citedID := true, ""
	err = pairs.iterate(func(p []byte) error {
		if !first && string(p[:8]) == string(last[:]) {
			return nil // one work cited by DOI and PMID: one pair
		}
		cut := bytes.IndexByte(p[8:], 0)
		if cut < 0 {
			return fmt.Errorf("index: malformed citation pair")
		}
		newCited := first || string(p[:4]) != string(last[:4])
		first = false
		copy(last[:], p)
		cited, citing := int32(binary.BigEndian.Uint32(p)), int32(binary.BigEndian.Uint32(p[4:]))
		if err := cw.Add(cited, citing); err != nil {
			return err
		}
		if newCited { // the pairs come in cited order
			citedID = string(p[8 : 8+cut])
		}
		citingID := string(p[8+cut+1:])
		return t.write(citationRow{Cited: citedID, Citing: citingID}, len(citedID)+len(citingID)+24)
	})
	if err != nil {
		t.abort()
		return nil, err
	}
	f, err := t.close()
	if err != nil {
		return nil, err
	}
	out, err := createHashFile(b.tmp, isearch.CitationsFile)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriter(out)
	if _, err := cw.WriteTo(bw); err != nil {
		out.abort()
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		out.abort()
		return nil, err
	}
	cf, err := out.close(f.Rows)
	if err != nil {
		return nil, err
	}
	return []snapshot.File{f, cf}, nil
}

// writeArchiveTopics writes the bundles and topics.parquet of a delta
// build: a topic none of whose documents changed keeps the previous
// snapshot's bundle (linked); the others are rewritten from it
// (mergeBundle), byte for byte what a full build writes.
func (b *Builder) writeArchiveTopics() ([]snapshot.File, error) {
	prev := map[string]topicRow{} // the topics with a bundle in the previous snapshot
	err := snapshot.ReadParquet[topicRow](b.prev.Path(snapshot.Topics), func(rows []topicRow) error {
		for _, r := range rows {
			r.Slug, r.BundlePath, r.BundleSHA256 = strings.Clone(r.Slug), strings.Clone(r.BundlePath), strings.Clone(r.BundleSHA256)
			prev[r.Slug] = r
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	known := map[string]Topic{}
	slugs := map[string]bool{}
	for _, t := range b.cfg.Topics {
		known[t.Slug] = t
		slugs[t.Slug] = true
	}
	for s := range prev {
		slugs[s] = true
	}
	for s := range b.delta.added {
		slugs[s] = true
	}
	tt, err := newTable[topicRow](b.tmp, snapshot.Topics+".parquet", 0)
	if err != nil {
		return nil, err
	}
	b.counts.Topics = 0
	var files []snapshot.File
	for _, slug := range slices.Sorted(maps.Keys(slugs)) {
		tb, err := b.archiveBundle(slug, prev)
		if err != nil {
			tt.abort()
			return nil, err
		}
		if _, ok := known[slug]; !ok && tb.bundle.Rows == 0 {
			// Neither in the taxonomy nor with a document: a full build
			// has no bundle for it.
			for _, f := range tb.files {
				os.Remove(filepath.Join(b.tmp, filepath.FromSlash(f.Name)))
			}
			continue
		}
		files = append(files, tb.files...)
		if err := b.writeTopic(tt, known, slug, tb.bundle); err != nil {
			tt.abort()
			return nil, err
		}
	}
	f, err := tt.close()
	if err != nil {
		return nil, err
	}
	return append(files, f), nil
}

// archiveBundle writes or links the bundle of slug and its frames.
func (b *Builder) archiveBundle(slug string, prev map[string]topicRow) (topicBundle, error) {
	row, had := prev[slug]
	removed, add := b.delta.removed[slug], b.delta.added[slug]
	var pb *prevBundle
	stale := false
	if had {
		b.prevFile("") // fills b.delta.prevFiles
		pb = &prevBundle{dir: b.prev.Dir, id: b.prev.ID, files: b.delta.prevFiles}
		var err error
		name := bundle.Name(slug)
		if pb.frames, err = readFrames(filepath.Join(b.prev.Dir, filepath.FromSlash(name)), name); err != nil {
			return topicBundle{}, err
		}
		stale, err = bundle.Stale(pb.frames, func(f bundle.Frame) ([]byte, error) { return readFrame(b.prev.Dir, f) })
		if err != nil {
			return topicBundle{}, fmt.Errorf("index: bundle %s: %w", slug, err)
		}
		if !stale && len(removed) == 0 && add == "" {
			return b.linkBundle(slug, row)
		}
	}
	var lines bundle.Lines
	if add != "" {
		var err error
		if lines, err = bundle.ReadLines(add); err != nil {
			return topicBundle{}, err
		}
	}
	return b.mergeBundle(slug, pb, lines, removed, stale)
}

// linkBundle links the previous snapshot's bundle of slug into the new
// one: its file or its packs, and its frames list, described as the
// previous manifest and topics.parquet (row) describe them.
func (b *Builder) linkBundle(slug string, row topicRow) (topicBundle, error) {
	name := bundle.Name(slug)
	frames := bundle.FramesPath(name)
	names := []string{frames}
	if _, ok := b.prevFile(name); ok {
		names = append(names, name)
	} else {
		list, err := readFrames(filepath.Join(b.prev.Dir, filepath.FromSlash(name)), name)
		if err != nil {
			return topicBundle{}, err
		}
		for _, f := range list {
			if !slices.Contains(names, f.Pack) {
				names = append(names, f.Pack)
			}
		}
	}
	tb := topicBundle{bundle: snapshot.File{Name: row.BundlePath, Rows: row.Documents, Bytes: row.BundleBytes, SHA256: row.BundleSHA256}}
	for _, n := range names {
		f, ok := b.prevFile(n)
		if !ok {
			return topicBundle{}, fmt.Errorf("index: previous snapshot %s does not list %s", b.prev.ID, n)
		}
		if err := linkFile(filepath.Join(b.prev.Dir, filepath.FromSlash(n)), filepath.Join(b.tmp, filepath.FromSlash(n))); err != nil {
			return topicBundle{}, err
		}
		tb.files = append(tb.files, f)
	}
	return tb, nil
}

// prevFile finds a file of the previous snapshot's manifest.
func (b *Builder) prevFile(name string) (snapshot.File, bool) {
	if b.delta.prevFiles == nil {
		b.delta.prevFiles = make(map[string]snapshot.File, len(b.prev.Manifest.Files))
		for _, f := range b.prev.Manifest.Files {
			b.delta.prevFiles[f.Name] = f
		}
	}
	f, ok := b.delta.prevFiles[name]
	return f, ok
}

// linkFile hard-links src to dst, creating dst's directory.
func linkFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	if err := os.Link(src, dst); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	return nil
}
