package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/openshelf/openshelf/index/bundle"
	"github.com/openshelf/openshelf/snapshot"
)

// A delta build rewrites a changed topic's bundle (package bundle) from
// the previous snapshot's: the frames none of whose lines changed are
// kept, the others decoded, merged with the new segment's lines of the
// topic without the removed documents, and cut again.
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

// writeFrames writes the frames list of the bundle named name (its file,
// or a bundle kept in packs).
func writeFrames(dir, name string, frames []bundle.Frame) (snapshot.File, error) {
	list := bundle.AppendFrames(nil, name, frames)
	return writeWholeFile(dir, bundle.FramesPath(name), list, int64(len(frames)))
}

// readFrames reads the frames list of the bundle whose file is file
// (named name in its snapshot).
func readFrames(file, name string) ([]bundle.Frame, error) {
	data, err := os.ReadFile(bundle.FramesPath(file))
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	frames, err := bundle.ParseFrames(data, name)
	if err != nil {
		return nil, fmt.Errorf("index: %s: %w", file, err)
	}
	return frames, nil
}

// prevBundle is a topic's bundle in the previous snapshot.
type prevBundle struct {
	dir    string // the previous snapshot's directory
	id     string // its id
	frames []bundle.Frame
	files  map[string]snapshot.File // the previous manifest's files by name
}

// packName is the name in the new snapshot of a pack of the previous
// bundle of slug: its bundle file becomes a pack named after the
// previous snapshot.
func (p *prevBundle) packName(slug, pack string) string {
	if pack == bundle.Name(slug) {
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
// topic, in id order). A stale previous bundle (bundle.Stale) is cut
// again whole.
func (b *Builder) mergeBundle(slug string, prev *prevBundle, added bundle.Lines, removed map[string]bool, stale bool) (topicBundle, error) {
	var frames []bundle.Frame
	if prev != nil {
		frames = prev.frames
	}
	dirty := bundle.Dirty(frames, added.IDs, removed)
	if stale {
		for i := range dirty {
			dirty[i] = true
		}
	}
	keep, err := keptPacks(prev, frames, dirty)
	if err != nil {
		return topicBundle{}, err
	}
	name := bundle.Name(slug)
	if len(keep) > 0 {
		name = path.Join(snapshot.BundlesDir, slug, b.id+".zst")
	}
	out, err := createHashFile(b.tmp, name)
	if err != nil {
		return topicBundle{}, fmt.Errorf("index: bundle %s: %w", slug, err)
	}
	m := &bundleMerge{bu: &bundleFile{out: out, w: bundle.NewWriter(out, name)}, prev: prev, slug: slug, packs: map[string]*os.File{}}
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
func keptPacks(prev *prevBundle, frames []bundle.Frame, dirty []bool) (map[string]bool, error) {
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
	bu      *bundleFile
	prev    *prevBundle
	slug    string
	packs   map[string]*os.File // the previous bundle's packs, opened
	out     []bundle.Frame      // the new bundle's frames
	kept    map[string]bool     // the packs out refers to (new names)
	written int                 // frames of bu moved to out
	docs    int64               // lines of out
}

// readFrame reads a frame stored in the snapshot directory dir.
func readFrame(dir string, f bundle.Frame) ([]byte, error) {
	pf, err := os.Open(filepath.Join(dir, filepath.FromSlash(f.Pack)))
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	defer pf.Close()
	raw := make([]byte, f.Bytes)
	if _, err := pf.ReadAt(raw, f.Offset); err != nil {
		return nil, fmt.Errorf("index: bundle %s: %w", f.Pack, err)
	}
	return raw, nil
}

// read reads a frame of the previous bundle.
func (m *bundleMerge) read(f bundle.Frame) ([]byte, error) {
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
	for frames := m.bu.w.Frames(); m.written < len(frames); m.written++ {
		f := frames[m.written]
		m.docs += f.Lines
		m.out = append(m.out, f)
	}
}

func (m *bundleMerge) merge(frames []bundle.Frame, dirty []bool, keep map[string]bool, added bundle.Lines, removed map[string]bool) error {
	bu := m.bu.w
	next := 0 // added lines written so far
	addUpTo := func(last string, all bool) error {
		for ; next < len(added.IDs) && (all || added.IDs[next] <= last); next++ {
			if err := bu.Add(added.Lines[next]); err != nil {
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
			if bu.Pending() {
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
			if err := bu.WriteFrame(raw, f.Lines, f.Last); err != nil {
				return err
			}
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
			if plain, err = bundle.Decode(raw, plain); err != nil {
				return fmt.Errorf("index: %s: %w", frames[j].Pack, err)
			}
		}
		last, all := frames[j-1].Last, j == len(frames)
		for line := range bytes.Lines(plain) {
			id, err := bundle.LineID(line)
			if err != nil {
				return err
			}
			if err := addUpTo(id, false); err != nil {
				return err
			}
			if removed[id] {
				continue
			}
			if err := bu.Add(line); err != nil {
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
	if err := m.bu.w.Flush(); err != nil {
		m.bu.abort()
		return topicBundle{}, err
	}
	m.sync()
	var tb topicBundle
	if m.bu.w.Size() > 0 {
		f, err := m.bu.out.close(m.bu.w.Docs())
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
	idx, err := writeFrames(m.bu.out.dir, bundle.Name(m.slug), m.out)
	if err != nil {
		return topicBundle{}, err
	}
	tb.files = append(tb.files, idx)
	// The bundle as served: the frames read back in order.
	h := sha256.New()
	var size int64
	r, err := bundle.Open(&snapshot.Snapshot{Dir: m.bu.out.dir}, m.slug)
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
