package snapshot

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A topic's bundle is stored in one of two ways (data/README.md,
// "bundles"): as the file bundles/<slug>.jsonl.zst, or, in a snapshot of
// a delta build, as frames kept in pack files that snapshots share by
// hard links, listed in order by bundles/<slug>.frames. The bundle is
// then the concatenation of the listed frames, byte for byte the file a
// full build writes.

// FramesExt is the extension of a bundle's frames list.
const FramesExt = ".frames"

// ErrBundle reports a bundle whose frames list is malformed or names a
// file outside the snapshot's bundles.
var ErrBundle = errors.New("snapshot: invalid bundle frames")

// BundleFrame is one zstd frame of a bundle, a line of its frames list:
// the id of its last line, its compressed bytes, its lines, and where it
// is stored: the file Pack (slash-separated, relative to the snapshot)
// at offset Offset.
type BundleFrame struct {
	Last   string
	Bytes  int64
	Lines  int64
	Pack   string
	Offset int64
}

// FramesPath is the path of the frames list of the bundle at bundle (a
// path ending in BundleExt).
func FramesPath(bundle string) string {
	return strings.TrimSuffix(bundle, BundleExt) + FramesExt
}

// ParseBundleFrames parses a frames list. A line of three fields (last
// id, bytes, lines) is a frame that follows the previous line's in the
// same file (the first line's: at the start of the bundle file itself,
// name); a line of five adds the file (a pack) and the offset of the
// frame in it. A bundle file's list is all of three fields; a bundle kept
// in packs has a line of five where a run of frames that follow each
// other in one pack starts.
func ParseBundleFrames(data []byte, name string) ([]BundleFrame, error) {
	var frames []BundleFrame
	pack, next := name, int64(0) // where a frame of three fields is
	for line := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 3 && len(f) != 5 {
			return nil, fmt.Errorf("%w: %q", ErrBundle, line)
		}
		n, err1 := strconv.ParseInt(f[1], 10, 64)
		l, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || n <= 0 || l <= 0 {
			return nil, fmt.Errorf("%w: %q", ErrBundle, line)
		}
		if len(f) == 5 {
			off, err := strconv.ParseInt(f[4], 10, 64)
			if err != nil || off < 0 || !validPack(f[3]) {
				return nil, fmt.Errorf("%w: %q", ErrBundle, line)
			}
			pack, next = f[3], off
		}
		frames = append(frames, BundleFrame{Last: f[0], Bytes: n, Lines: l, Pack: pack, Offset: next})
		next += n
	}
	return frames, nil
}

// validPack reports whether name is a file of the bundles directory that
// cannot escape it.
func validPack(name string) bool {
	rest, ok := strings.CutPrefix(name, BundlesDir+"/")
	return ok && fs.ValidPath(rest) && path.Clean(name) == name
}

// AppendBundleFrames appends the frames list of the bundle whose file is
// name (kept in that file or in packs): a frame that follows the
// previous one in the same file (the first: at the start of name) on a
// line of three fields, any other on a line of five.
func AppendBundleFrames(b []byte, name string, frames []BundleFrame) []byte {
	pack, next := name, int64(0)
	for _, f := range frames {
		if f.Pack == pack && f.Offset == next {
			b = fmt.Appendf(b, "%s\t%d\t%d\n", f.Last, f.Bytes, f.Lines)
		} else {
			b = fmt.Appendf(b, "%s\t%d\t%d\t%s\t%d\n", f.Last, f.Bytes, f.Lines, f.Pack, f.Offset)
		}
		pack, next = f.Pack, f.Offset+f.Bytes
	}
	return b
}

// OpenBundle opens a topic's bundle for reading: its file, or the
// concatenation of its frames. Every file is opened before it returns, so
// the bundle stays readable after the snapshot is pruned. The reader has
// a Stat method that reports its size.
func (s *Snapshot) OpenBundle(slug string) (io.ReadCloser, error) {
	p, err := s.BundlePath(slug)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	data, err := os.ReadFile(FramesPath(p))
	if err != nil {
		return nil, err
	}
	frames, err := ParseBundleFrames(data, path.Join(BundlesDir, slug+BundleExt))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", FramesPath(p), err)
	}
	r := &packedBundle{name: slug + BundleExt}
	open := map[string]*os.File{}
	var readers []io.Reader
	for _, run := range BundleRuns(frames) {
		pf, ok := open[run.Pack]
		if !ok {
			if pf, err = os.Open(filepath.Join(s.Dir, filepath.FromSlash(run.Pack))); err != nil {
				r.Close()
				return nil, err
			}
			open[run.Pack] = pf
			r.files = append(r.files, pf)
		}
		readers = append(readers, io.NewSectionReader(pf, run.Offset, run.Bytes))
		r.size += run.Bytes
	}
	r.Reader = io.MultiReader(readers...)
	return r, nil
}

// BundleRuns joins frames that follow each other in one file into one
// frame (its Last, Lines and Bytes those of the run), so that a bundle
// is read in as few reads as its frames list has lines of five fields.
func BundleRuns(frames []BundleFrame) []BundleFrame {
	var runs []BundleFrame
	for _, f := range frames {
		if n := len(runs); n > 0 && runs[n-1].Pack == f.Pack && runs[n-1].Offset+runs[n-1].Bytes == f.Offset {
			runs[n-1].Last, runs[n-1].Bytes, runs[n-1].Lines = f.Last, runs[n-1].Bytes+f.Bytes, runs[n-1].Lines+f.Lines
			continue
		}
		runs = append(runs, f)
	}
	return runs
}

// packedBundle reads a bundle from its frames.
type packedBundle struct {
	io.Reader
	name  string
	size  int64
	files []*os.File
}

func (b *packedBundle) Close() error {
	var err error
	for _, f := range b.files {
		err = errors.Join(err, f.Close())
	}
	return err
}

// Stat describes the bundle as a regular file of its size.
func (b *packedBundle) Stat() (os.FileInfo, error) { return bundleInfo{b}, nil }

type bundleInfo struct{ b *packedBundle }

func (i bundleInfo) Name() string       { return i.b.name }
func (i bundleInfo) Size() int64        { return i.b.size }
func (i bundleInfo) Mode() fs.FileMode  { return 0o444 }
func (i bundleInfo) ModTime() time.Time { return time.Time{} }
func (i bundleInfo) IsDir() bool        { return false }
func (i bundleInfo) Sys() any           { return nil }
