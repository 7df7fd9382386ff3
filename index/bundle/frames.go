package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/openshelf/openshelf/snapshot"
)

// FramesExt is the extension of a bundle's frames list.
const FramesExt = ".frames"

// ErrFrames reports a frames list that is malformed or names a file
// outside the snapshot's bundles.
var ErrFrames = errors.New("bundle: invalid frames list")

// Frame is one zstd frame of a bundle, a line of its frames list: the id
// of its last line, its compressed bytes, its lines, and where it is
// stored: the file Pack (slash-separated, relative to the snapshot) at
// offset Offset.
type Frame struct {
	Last   string
	Bytes  int64
	Lines  int64
	Pack   string
	Offset int64
}

// Name is the path of the bundle file of the topic slug, relative to the
// snapshot.
func Name(slug string) string {
	return path.Join(snapshot.BundlesDir, slug+snapshot.BundleExt)
}

// FramesPath is the path of the frames list of the bundle at bundle (a
// path ending in snapshot.BundleExt).
func FramesPath(bundle string) string {
	return strings.TrimSuffix(bundle, snapshot.BundleExt) + FramesExt
}

// ParseFrames parses the frames list of the bundle whose file is name. A
// line of three fields (last id, bytes, lines) is a frame that follows
// the previous line's in the same file (the first line's: at the start
// of name); a line of five adds the file (a pack) and the offset of the
// frame in it. A bundle file's list is all of three fields; a bundle kept
// in packs has a line of five where a run of frames that follow each
// other in one pack starts.
func ParseFrames(data []byte, name string) ([]Frame, error) {
	var frames []Frame
	pack, next := name, int64(0) // where a frame of three fields is
	for line := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 3 && len(f) != 5 {
			return nil, fmt.Errorf("%w: %q", ErrFrames, line)
		}
		n, err1 := strconv.ParseInt(f[1], 10, 64)
		l, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || n <= 0 || l <= 0 {
			return nil, fmt.Errorf("%w: %q", ErrFrames, line)
		}
		if len(f) == 5 {
			off, err := strconv.ParseInt(f[4], 10, 64)
			if err != nil || off < 0 || !validPack(f[3]) {
				return nil, fmt.Errorf("%w: %q", ErrFrames, line)
			}
			pack, next = f[3], off
		}
		frames = append(frames, Frame{Last: f[0], Bytes: n, Lines: l, Pack: pack, Offset: next})
		next += n
	}
	return frames, nil
}

// validPack reports whether name is a file of the bundles directory that
// cannot escape it.
func validPack(name string) bool {
	rest, ok := strings.CutPrefix(name, snapshot.BundlesDir+"/")
	return ok && fs.ValidPath(rest) && path.Clean(name) == name
}

// AppendFrames appends the frames list of the bundle whose file is name
// (kept in that file or in packs): a frame that follows the previous one
// in the same file (the first: at the start of name) on a line of three
// fields, any other on a line of five.
func AppendFrames(b []byte, name string, frames []Frame) []byte {
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

// Runs joins frames that follow each other in one file into one frame
// (its Last, Lines and Bytes those of the run), so that a bundle is read
// in as few reads as its frames list has lines of five fields.
func Runs(frames []Frame) []Frame {
	var runs []Frame
	for _, f := range frames {
		if n := len(runs); n > 0 && runs[n-1].Pack == f.Pack && runs[n-1].Offset+runs[n-1].Bytes == f.Offset {
			runs[n-1].Last, runs[n-1].Bytes, runs[n-1].Lines = f.Last, runs[n-1].Bytes+f.Bytes, runs[n-1].Lines+f.Lines
			continue
		}
		runs = append(runs, f)
	}
	return runs
}
