package index

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/snapshot"
)

// A bundle's frames (bundles.go) are listed in bundles/<slug>.frames, one
// line a frame (snapshot.BundleFrame). A delta build rewrites a changed
// topic's bundle from the previous snapshot's: the frames none of whose
// lines changed are kept, the others decoded, merged with the new
// segment's lines of the topic without the removed documents, and cut
// again.
//
// The kept frames are not copied: the new frames go to a pack of the
// build, bundles/<slug>/<snapshot id>.zst, and the frames list names, for
// each frame, the pack holding it; the previous snapshot's packs (its
// bundle file among them) are hard-linked. A snapshot's own disk for a
// bundle is then its changed frames. A pack that would keep less than a
// quarter of its bytes live has its live frames copied into the new pack:
// a kept pack's dead frames are at most three times its live ones, and a
// copy frees at least three dead bytes for each byte it writes (at one
// half, one for one: later deltas owned half as much disk again). A
// bundle that keeps no pack is written as one file, as a full build does.

// bundleFrame is one frame of a bundle.
type bundleFrame = snapshot.BundleFrame

// writeFrames writes the frames list of the bundle named name (its file,
// or a bundle kept in packs).
func writeFrames(dir, name string, frames []bundleFrame) (snapshot.File, error) {
	list := snapshot.AppendBundleFrames(nil, name, frames)
	return writeWholeFile(dir, snapshot.FramesPath(name), list, int64(len(frames)))
}

// readFrames reads the frames list of the bundle at bundle (its path;
// named name in its snapshot).
func readFrames(bundle, name string) ([]bundleFrame, error) {
	data, err := os.ReadFile(snapshot.FramesPath(bundle))
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	frames, err := snapshot.ParseBundleFrames(data, name)
	if err != nil {
		return nil, fmt.Errorf("index: %s: %w", bundle, err)
	}
	return frames, nil
}

// bundleLines are lines of a bundle and their ids, in id order.
type bundleLines struct {
	ids   []string
	lines [][]byte
}

// readBundleLines decodes a bundle.
func readBundleLines(path string) (bundleLines, error) {
	f, err := os.Open(path)
	if err != nil {
		return bundleLines{}, err
	}
	defer f.Close()
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return bundleLines{}, err
	}
	defer zr.Close()
	var out bundleLines
	br := bufio.NewReaderSize(zr, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			id, lerr := lineID(line)
			if lerr != nil {
				return bundleLines{}, lerr
			}
			out.ids, out.lines = append(out.ids, id), append(out.lines, line)
		}
		if err != nil {
			break
		}
	}
	return out, nil
}

// prevBundle is a topic's bundle in the previous snapshot.
type prevBundle struct {
	dir    string // the previous snapshot's directory
	id     string // its id
	frames []bundleFrame
	files  map[string]snapshot.File // the previous manifest's files by name
}

// packName is the name in the new snapshot of a pack of the previous
// bundle of slug: its bundle file becomes a pack named after the
// previous snapshot.
func (p *prevBundle) packName(slug, pack string) string {
	if pack == bundleName(slug) {
		return path.Join(snapshot.BundlesDir, slug, p.id+".zst")
	}
	return pack
}

// topicBundle is a bundle written by a delta build.
type topicBundle struct {
	// bundle describes the bundle for topics.parquet: its file, or, kept
	// in packs, its bytes as served and its frames list's name.
	bundle snapshot.File
	files  []snapshot.File // the files the manifest lists
}

// mergeBundle writes the bundle of slug into the new snapshot: the
// previous snapshot's (nil for a new topic) without the removed
// documents' lines, with the added lines (the new segment's lines of the
// topic, in id order).
func (b *Builder) mergeBundle(slug string, prev *prevBundle, added bundleLines, removed map[string]bool) (topicBundle, error) {
	var frames []bundleFrame
	if prev != nil {
		frames = prev.frames
	}
	dirty := dirtyFrames(frames, added.ids, removed)
	if !cutFrames(frames) {
		// Cut by an older rule: every frame is written again.
		for i := range dirty {
			dirty[i] = true
		}
	}
	keep, err := keptPacks(prev, frames, dirty)
	if err != nil {
		return topicBundle{}, err
	}
	name := bundleName(slug)
	if len(keep) > 0 {
		name = path.Join(snapshot.BundlesDir, slug, b.id+".zst")
	}
	out, err := createHashFile(b.tmp, name)
	if err != nil {
		return topicBundle{}, fmt.Errorf("index: bundle %s: %w", slug, err)
	}
	m := &bundleMerge{bu: &bundle{out: out}, prev: prev, slug: slug, packs: map[string]*os.File{}}
	defer m.closePacks()
	if err := m.merge(frames, dirty, keep, added, removed); err != nil {
		m.bu.abort()
		return topicBundle{}, err
	}
	if len(keep) == 0 {
		f, idx, err := m.bu.close()
		return topicBundle{bundle: f, files: []snapshot.File{f, idx}}, err
	}
	return m.closePacked()
}

// keptPacks returns the previous bundle's packs whose frames the new one
// refers to: those of which at least a quarter of the bytes stay live.
func keptPacks(prev *prevBundle, frames []bundleFrame, dirty []bool) (map[string]bool, error) {
	live := map[string]int64{}
	for i, f := range frames {
		if !dirty[i] {
			live[f.Pack] += f.Bytes
		}
	}
	keep := map[string]bool{}
	for pack, n := range live {
		fi, err := os.Stat(filepath.Join(prev.dir, filepath.FromSlash(pack)))
		if err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
		if 4*n >= fi.Size() {
			keep[pack] = true
		}
	}
	return keep, nil
}

// bundleMerge is the state of mergeBundle.
type bundleMerge struct {
	bu      *bundle
	prev    *prevBundle
	slug    string
	packs   map[string]*os.File // the previous bundle's packs, opened
	out     []bundleFrame       // the new bundle's frames
	kept    map[string]bool     // the packs out refers to (new names)
	written int                 // frames of bu moved to out
	docs    int64               // lines of out
}

// read reads a frame of the previous bundle.
func (m *bundleMerge) read(f bundleFrame) ([]byte, error) {
	pf, ok := m.packs[f.Pack]
	if !ok {
		var err error
		if pf, err = os.Open(filepath.Join(m.prev.dir, filepath.FromSlash(f.Pack))); err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
		m.packs[f.Pack] = pf
	}
	raw := make([]byte, f.Bytes)
	if _, err := pf.ReadAt(raw, f.Offset); err != nil {
		return nil, fmt.Errorf("index: bundle %s: %w", f.Pack, err)
	}
	return raw, nil
}

func (m *bundleMerge) closePacks() {
	for _, f := range m.packs {
		f.Close()
	}
}

// sync moves the frames bu wrote since the last call to out.
func (m *bundleMerge) sync() {
	for ; m.written < len(m.bu.frames); m.written++ {
		f := m.bu.frames[m.written]
		m.docs += f.Lines
		m.out = append(m.out, f)
	}
}

func (m *bundleMerge) merge(frames []bundleFrame, dirty []bool, keep map[string]bool, added bundleLines, removed map[string]bool) error {
	bu := m.bu
	next := 0 // added lines written so far
	addUpTo := func(last string, all bool) error {
		for ; next < len(added.ids) && (all || added.ids[next] <= last); next++ {
			if err := bu.add(added.lines[next]); err != nil {
				return err
			}
		}
		m.sync()
		return nil
	}
	m.kept = map[string]bool{}
	for i := 0; i < len(frames); {
		if !dirty[i] {
			f := frames[i]
			if bu.lines != 0 {
				return fmt.Errorf("index: bundle %s: frames out of step", m.slug)
			}
			i++
			if keep[f.Pack] {
				m.sync()
				f.Pack = m.prev.packName(m.slug, f.Pack)
				m.kept[f.Pack] = true
				m.out = append(m.out, f)
				m.docs += f.Lines
				continue
			}
			raw, err := m.read(f)
			if err != nil {
				return err
			}
			if err := bu.frame(raw, f.Lines, f.Last); err != nil {
				return err
			}
			bu.docs += f.Lines
			m.sync()
			continue
		}
		var plain []byte
		j := i
		for ; j < len(frames) && dirty[j]; j++ {
			raw, err := m.read(frames[j])
			if err != nil {
				return err
			}
			if plain, err = bundleDecoder.DecodeAll(raw, plain); err != nil {
				return fmt.Errorf("index: bundle %s: %w", frames[j].Pack, err)
			}
		}
		last, all := frames[j-1].Last, j == len(frames)
		for line := range bytes.Lines(plain) {
			id, err := lineID(line)
			if err != nil {
				return err
			}
			if err := addUpTo(id, false); err != nil {
				return err
			}
			if removed[id] {
				continue
			}
			if err := bu.add(line); err != nil {
				return err
			}
		}
		if err := addUpTo(last, all); err != nil {
			return err
		}
		i = j
	}
	return addUpTo("", true)
}

// closePacked completes a bundle kept in packs: the build's pack, the
// previous packs linked, and the frames list.
func (m *bundleMerge) closePacked() (topicBundle, error) {
	if err := m.bu.flush(); err != nil {
		m.bu.abort()
		return topicBundle{}, err
	}
	m.sync()
	var tb topicBundle
	if m.bu.size > 0 {
		f, err := m.bu.out.close(m.bu.docs)
		if err != nil {
			return topicBundle{}, err
		}
		tb.files = append(tb.files, f)
	} else {
		m.bu.abort()
		os.Remove(filepath.Join(m.bu.out.dir, filepath.FromSlash(m.bu.out.name)))
	}
	// The previous packs, under their new names.
	for _, f := range m.prev.frames {
		name := m.prev.packName(m.slug, f.Pack)
		if !m.kept[name] {
			continue
		}
		delete(m.kept, name)
		pf, ok := m.prev.files[f.Pack]
		if !ok {
			return topicBundle{}, fmt.Errorf("index: previous snapshot %s does not list %s", m.prev.id, f.Pack)
		}
		if err := linkFile(filepath.Join(m.prev.dir, filepath.FromSlash(f.Pack)), filepath.Join(m.bu.out.dir, filepath.FromSlash(name))); err != nil {
			return topicBundle{}, err
		}
		pf.Name = name
		tb.files = append(tb.files, pf)
	}
	idx, err := writeFrames(m.bu.out.dir, bundleName(m.slug), m.out)
	if err != nil {
		return topicBundle{}, err
	}
	tb.files = append(tb.files, idx)
	// The bundle as served: the frames read back in order.
	h := sha256.New()
	var size int64
	s := &snapshot.Snapshot{Dir: m.bu.out.dir}
	r, err := s.OpenBundle(m.slug)
	if err != nil {
		return topicBundle{}, err
	}
	defer r.Close()
	if size, err = io.Copy(h, r); err != nil {
		return topicBundle{}, fmt.Errorf("index: bundle %s: %w", m.slug, err)
	}
	tb.bundle = snapshot.File{Name: idx.Name, Rows: m.docs, Bytes: size, SHA256: hex.EncodeToString(h.Sum(nil))}
	return tb, nil
}

// bundleDecoder decodes bundle frames; DecodeAll is safe for concurrent
// use.
var bundleDecoder = func() *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		panic(err) // constant options
	}
	return d
}()

// dirtyFrames marks the frames a delta changes: those whose id range (after
// the previous frame's last id; the last frame's has no end) holds an added
// or a removed id, and the frame after one whose last line is removed
// (without its cut the two are one frame now).
func dirtyFrames(frames []bundleFrame, added []string, removed map[string]bool) []bool {
	dirty := make([]bool, len(frames))
	at := func(id string) int {
		i, _ := slices.BinarySearchFunc(frames, id, func(f bundleFrame, id string) int { return strings.Compare(f.Last, id) })
		return min(i, len(frames)-1)
	}
	if len(frames) == 0 {
		return dirty
	}
	for _, id := range added {
		dirty[at(id)] = true
	}
	for id := range removed {
		dirty[at(id)] = true
	}
	for i := range frames {
		if removed[frames[i].Last] && i+1 < len(frames) {
			dirty[i+1] = true
		}
	}
	return dirty
}
