package index

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestMergeBundle rewrites a bundle of thousands of lines after random
// additions, revisions and removals, and checks it against the bundle
// written from scratch of the final lines: the same bytes and frames, with
// most frames copied.
func TestMergeBundle(t *testing.T) {
	line := func(i, version int) []byte {
		return fmt.Appendf(nil, `{"id":"pmc-%07d","title":"document %d version %d %s"}`+"\n", i, i, version,
			bytes.Repeat([]byte("x"), i%300))
	}
	write := func(dir string, lines map[int][]byte) (string, []bundleFrame) {
		bu, err := createBundle(dir, "topic")
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range slices.Sorted(func(yield func(int) bool) {
			for i := range lines {
				if !yield(i) {
					return
				}
			}
		}) {
			if err := bu.add(lines[i]); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := bu.close(); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, bundleName("topic")), bu.frames
	}
	for _, seed := range []uint64{1, 2, 3} {
		rng := rand.New(rand.NewPCG(seed, 0))
		lines := map[int][]byte{}
		for i := range 5000 {
			lines[2*i] = line(2*i, 0)
		}
		prevPath, prevFrames := write(t.TempDir(), lines)
		var added bundleLines
		removed := map[string]bool{}
		changes := map[int][]byte{}
		// Removing a frame's last line joins it with the next frame.
		for _, k := range []int{3, 10, 11} {
			var i int
			fmt.Sscanf(prevFrames[k].last, "pmc-%d", &i)
			delete(lines, i)
			removed[prevFrames[k].last] = true
		}
		for range 60 {
			i := rng.IntN(10000)
			id := fmt.Sprintf("pmc-%07d", i)
			switch _, ok := lines[i]; {
			case ok && rng.IntN(2) == 0:
				removed[id] = true
				delete(lines, i)
				delete(changes, i)
			case ok:
				removed[id] = true
				lines[i], changes[i] = line(i, 1), line(i, 1)
			default:
				lines[i], changes[i] = line(i, 1), line(i, 1)
			}
		}
		for _, i := range slices.Sorted(func(yield func(int) bool) {
			for i := range changes {
				if !yield(i) {
					return
				}
			}
		}) {
			added.ids = append(added.ids, fmt.Sprintf("pmc-%07d", i))
			added.lines = append(added.lines, changes[i])
		}
		wantPath, wantFrames := write(t.TempDir(), lines)
		b := &Builder{tmp: t.TempDir()}
		f, _, err := b.mergeBundle("topic", prevPath, added, removed)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(b.tmp, f.Name))
		want, _ := os.ReadFile(wantPath)
		if !bytes.Equal(got, want) || f.Rows != int64(len(lines)) {
			t.Fatalf("seed %d: merged bundle of %d bytes, %d lines; want %d bytes, %d lines", seed, len(got), f.Rows, len(want), len(lines))
		}
		gotFrames, err := readFrames(filepath.Join(b.tmp, "bundles", "topic"+framesExt))
		if err != nil || !slices.Equal(gotFrames, wantFrames) {
			t.Fatalf("seed %d: frames differ (%v)", seed, err)
		}
		dirty := dirtyFrames(prevFrames, added.ids, removed)
		if n := len(slices.DeleteFunc(dirty, func(d bool) bool { return !d })); n == 0 || n > len(prevFrames)/2 {
			t.Errorf("seed %d: %d of %d frames rewritten for 60 changes", seed, n, len(prevFrames))
		}
	}
}
