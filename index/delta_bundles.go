package index

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/snapshot"
)

// A bundle's frames (bundles.go) are listed in bundles/<slug>.frames, one
// line a frame: the id of its last line, its compressed bytes and its
// lines, tab-separated. A delta build rewrites a changed topic's bundle
// from the previous snapshot's: the frames none of whose lines changed are
// copied as they are, the others decoded, merged with the new segment's
// lines of the topic without the removed documents, and cut again.
const framesExt = ".frames"

// bundleFrame is one frame of a bundle.
type bundleFrame struct {
	last  string
	bytes int64
	lines int64
}

func writeFrames(dir, name string, frames []bundleFrame) (snapshot.File, error) {
	var b bytes.Buffer
	for _, f := range frames {
		fmt.Fprintf(&b, "%s\t%d\t%d\n", f.last, f.bytes, f.lines)
	}
	return writeWholeFile(dir, name, b.Bytes(), int64(len(frames)))
}

func readFrames(path string) ([]bundleFrame, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var frames []bundleFrame
	for line := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("index: %s: malformed line", path)
		}
		n, err1 := strconv.ParseInt(f[1], 10, 64)
		l, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || n <= 0 || l <= 0 {
			return nil, fmt.Errorf("index: %s: malformed line", path)
		}
		frames = append(frames, bundleFrame{last: f[0], bytes: n, lines: l})
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

// mergeBundle writes the bundle of slug into the new snapshot: the
// previous snapshot's (prev, with its frames; "" for a new topic) without
// the removed documents' lines, with the added lines (the new segment's
// lines of the topic, in id order).
func (b *Builder) mergeBundle(slug, prev string, added bundleLines, removed map[string]bool) (snapshot.File, snapshot.File, error) {
	bu, err := createBundle(b.tmp, slug)
	if err != nil {
		return snapshot.File{}, snapshot.File{}, err
	}
	fail := func(err error) (snapshot.File, snapshot.File, error) {
		bu.abort()
		return snapshot.File{}, snapshot.File{}, err
	}
	var frames []bundleFrame
	var in *os.File
	if prev != "" {
		if frames, err = readFrames(strings.TrimSuffix(prev, snapshot.BundleExt) + framesExt); err != nil {
			return fail(err)
		}
		if in, err = os.Open(prev); err != nil {
			return fail(err)
		}
		defer in.Close()
	}
	dirty := dirtyFrames(frames, added.ids, removed)
	next := 0 // added lines written so far
	addUpTo := func(last string, all bool) error {
		for ; next < len(added.ids) && (all || added.ids[next] <= last); next++ {
			if err := bu.add(added.lines[next]); err != nil {
				return err
			}
		}
		return nil
	}
	var off int64
	for i := 0; i < len(frames); {
		if !dirty[i] {
			f := frames[i]
			raw := make([]byte, f.bytes)
			if _, err := in.ReadAt(raw, off); err != nil {
				return fail(fmt.Errorf("index: bundle %s: %w", prev, err))
			}
			if bu.lines != 0 {
				return fail(fmt.Errorf("index: bundle %s: frames out of step", slug))
			}
			if err := bu.frame(raw, f.lines, f.last); err != nil {
				return fail(err)
			}
			bu.docs += f.lines
			off += f.bytes
			i++
			continue
		}
		j, size := i, int64(0)
		for j < len(frames) && dirty[j] {
			size += frames[j].bytes
			j++
		}
		raw := make([]byte, size)
		if _, err := in.ReadAt(raw, off); err != nil {
			return fail(fmt.Errorf("index: bundle %s: %w", prev, err))
		}
		plain, err := bundleDecoder.DecodeAll(raw, nil)
		if err != nil {
			return fail(fmt.Errorf("index: bundle %s: %w", prev, err))
		}
		off += size
		last, all := frames[j-1].last, j == len(frames)
		for line := range bytes.Lines(plain) {
			id, err := lineID(line)
			if err != nil {
				return fail(err)
			}
			if err := addUpTo(id, false); err != nil {
				return fail(err)
			}
			if removed[id] {
				continue
			}
			if err := bu.add(line); err != nil {
				return fail(err)
			}
		}
		if err := addUpTo(last, all); err != nil {
			return fail(err)
		}
		i = j
	}
	if err := addUpTo("", true); err != nil {
		return fail(err)
	}
	return bu.close()
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
		i, _ := slices.BinarySearchFunc(frames, id, func(f bundleFrame, id string) int { return strings.Compare(f.last, id) })
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
		if removed[frames[i].last] && i+1 < len(frames) {
			dirty[i+1] = true
		}
	}
	return dirty
}

// bundleFiles are the previous snapshot's bundle and frames files of slug.
func bundleFiles(prevDir, slug string) (bundle, frames string) {
	bundle = filepath.Join(prevDir, filepath.FromSlash(bundleName(slug)))
	return bundle, strings.TrimSuffix(bundle, snapshot.BundleExt) + framesExt
}
