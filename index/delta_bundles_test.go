package index

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/index/bundle"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/snapshot"
)

// sameFrame compares frames by their contents, not where they are kept.
func sameFrame(a, b bundle.Frame) bool {
	return a.Last == b.Last && a.Bytes == b.Bytes && a.Lines == b.Lines
}

// servedBundle reads a topic's bundle of the snapshot directory dir as
// served.
func servedBundle(t testing.TB, dir, slug string) []byte {
	t.Helper()
	r, err := bundle.Open(&snapshot.Snapshot{Dir: dir}, slug)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMergeBundle rewrites a bundle of thousands of lines after random
// additions, revisions and removals, and checks it against the bundle
// written from scratch of the final lines: the same bytes and frames, with
// most frames kept in the previous bundle's file (linked, not copied),
// and the same again from a previous bundle of which less than a quarter
// stays: then one file.
func TestMergeBundle(t *testing.T) {
	line := func(i, version int) []byte {
		return fmt.Appendf(nil, `{"id":"pmc-%07d","title":"document %d version %d %s"}`+"\n", i, i, version,
			bytes.Repeat([]byte("x"), i%300))
	}
	write := func(dir string, lines map[int][]byte) (string, []bundle.Frame) {
		t.Helper()
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
			if err := bu.w.Add(lines[i]); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := bu.close(); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, bundle.Name("topic"))
		frames, err := readFrames(p, bundle.Name("topic"))
		if err != nil {
			t.Fatal(err)
		}
		return p, frames
	}
	for _, seed := range []uint64{1, 2, 3} {
		rng := rand.New(rand.NewPCG(seed, 0))
		lines := map[int][]byte{}
		for i := range 5000 {
			lines[2*i] = line(2*i, 0)
		}
		prevPath, prevFrames := write(t.TempDir(), lines)
		var added bundle.Lines
		removed := map[string]bool{}
		changes := map[int][]byte{}
		// Removing a frame's last line joins it with the next frame.
		for _, k := range []int{3, 10, 11} {
			var i int
			fmt.Sscanf(prevFrames[k].Last, "pmc-%d", &i)
			delete(lines, i)
			removed[prevFrames[k].Last] = true
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
			added.IDs = append(added.IDs, fmt.Sprintf("pmc-%07d", i))
			added.Lines = append(added.Lines, changes[i])
		}
		wantPath, wantFrames := write(t.TempDir(), lines)
		want, _ := os.ReadFile(wantPath)
		fi, err := os.Stat(prevPath)
		if err != nil {
			t.Fatal(err)
		}
		prev := &prevBundle{dir: filepath.Dir(filepath.Dir(prevPath)), id: "S1", frames: prevFrames,
			files: map[string]snapshot.File{bundle.Name("topic"): {Name: bundle.Name("topic"), Bytes: fi.Size()}}}
		b := &Builder{tmp: t.TempDir(), id: "S2"}
		tb, err := b.mergeBundle("topic", prev, added, removed, false)
		if err != nil {
			t.Fatal(err)
		}
		got := servedBundle(t, b.tmp, "topic")
		if !bytes.Equal(got, want) || tb.bundle.Rows != int64(len(lines)) || tb.bundle.Bytes != int64(len(want)) {
			t.Fatalf("seed %d: merged bundle of %d bytes, %d lines; want %d bytes, %d lines", seed, len(got), tb.bundle.Rows, len(want), len(lines))
		}
		gotFrames, err := readFrames(filepath.Join(b.tmp, "bundles", "topic"+snapshot.BundleExt), bundle.Name("topic"))
		if err != nil || !slices.EqualFunc(gotFrames, wantFrames, sameFrame) {
			t.Fatalf("seed %d: frames differ (%v)", seed, err)
		}
		// The new pack holds the rewritten frames only.
		var own int64
		for _, f := range tb.files {
			if f.Name == "bundles/topic/S2.zst" {
				own = f.Bytes
			}
		}
		if own == 0 || 2*own > int64(len(want)) {
			t.Errorf("seed %d: the build's pack holds %d bytes of a bundle of %d", seed, own, len(want))
		}
		if fi, err := os.Stat(filepath.Join(b.tmp, "bundles", "topic", "S1.zst")); err != nil || linkCount(fi) < 2 {
			t.Errorf("seed %d: the previous bundle is not linked as a pack (%v)", seed, err)
		}
		dirty := bundle.Dirty(prevFrames, added.IDs, removed)
		if n := len(slices.DeleteFunc(dirty, func(d bool) bool { return !d })); n == 0 || n > len(prevFrames)/2 {
			t.Errorf("seed %d: %d of %d frames rewritten for 60 changes", seed, n, len(prevFrames))
		}
		// A third build from the packed bundle, of which less than a
		// quarter stays live: one file again.
		removed = map[string]bool{}
		for i := range lines {
			if i%3 != 0 {
				removed[fmt.Sprintf("pmc-%07d", i)] = true
				delete(lines, i)
			}
		}
		b2 := &Builder{tmp: t.TempDir(), id: "S3"}
		prev2 := &prevBundle{dir: b.tmp, id: "S2", frames: gotFrames, files: map[string]snapshot.File{}}
		for _, f := range tb.files {
			prev2.files[f.Name] = f
		}
		tb2, err := b2.mergeBundle("topic", prev2, bundle.Lines{}, removed, false)
		if err != nil {
			t.Fatal(err)
		}
		wantPath2, _ := write(t.TempDir(), lines)
		want2, _ := os.ReadFile(wantPath2)
		if got2, _ := os.ReadFile(filepath.Join(b2.tmp, tb2.bundle.Name)); !bytes.Equal(got2, want2) || tb2.bundle.Name != bundle.Name("topic") {
			t.Fatalf("seed %d: bundle %s of %d bytes after removals, want %d bytes", seed, tb2.bundle.Name, len(got2), len(want2))
		}
	}
}

// TestDeltaBuildKeepsBundleFrames makes small deltas of a topic of many
// frames: the delta builds' bundles are kept in packs, serve the bytes of
// a full build's and cost the disk of the frames they rewrite.
func TestDeltaBuildKeepsBundleFrames(t *testing.T) {
	revise := func(from, to int, day time.Duration) Feed {
		var docs []*ingest.Document
		for i := from; i < to; i += 97 {
			d := synth(i, "cc-by")
			d.Title, d.Updated = fmt.Sprintf("A revised title %d", day), testNow.Add(day)
			docs = append(docs, d)
		}
		return feedDocs(docs...)
	}
	cites := synth(1600, "cc-by")
	cites.References = append(cites.References, ingest.Reference{DOI: "10.1234/test.5"})
	runs := []Feed{
		func(ctx context.Context, sink ingest.Sink) error {
			if err := feedRange(0, 1500)(ctx, sink); err != nil {
				return err
			}
			return sink.Document(cites)
		},
		func(ctx context.Context, sink ingest.Sink) error {
			if err := revise(0, 1500, time.Hour)(ctx, sink); err != nil {
				return err
			}
			if err := feedRange(1500, 1503)(ctx, sink); err != nil {
				return err
			}
			return sink.Delete(ingest.Deletion{ID: "pmid-5700", Origin: "pubmed/deleted.xml"})
		},
		revise(40, 1500, 2*time.Hour),
		// Another topic only: the bundle in packs is linked as it is.
		feedDocs(synth(2000, "cc-by", "genetics")),
	}
	deltaDir, mergedDir := t.TempDir(), t.TempDir()
	for run, feed := range runs {
		for _, dir := range []string{deltaDir, mergedDir} {
			cfg := testConfig(dir)
			cfg.Now, cfg.Merge = testNow.Add(time.Duration(run)*24*time.Hour), dir == mergedDir
			build(t, cfg, feed)
		}
		got := open(t, deltaDir)
		compareSnapshots(t, got, open(t, mergedDir))
		if run == 0 {
			continue
		}
		packs, err := filepath.Glob(filepath.Join(got.Dir, snapshot.BundlesDir, "neuroscience", "*.zst"))
		if err != nil || len(packs) < 2 {
			t.Fatalf("run %d: the bundle is kept in %d packs (%v), want the previous one and the build's", run, len(packs), err)
		}
		var own, all int64
		for _, p := range packs {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			all += fi.Size()
			if linkCount(fi) == 1 {
				own += fi.Size()
			}
		}
		// The first delta rewrites about a third of the frames; later
		// ones may also copy the live frames of a pack mostly dead; the
		// last one links them all.
		if run == 3 {
			if own != 0 {
				t.Errorf("run %d: the build wrote %d bytes of packs of an unchanged topic", run, own)
			}
			continue
		}
		if own == 0 || own == all || run == 1 && 2*own > all {
			t.Errorf("run %d: the build wrote %d bytes of packs holding %d", run, own, all)
		}
	}
}

// TestMergeBundleOlderCuts: a previous bundle cut by another rule (every
// 32 lines here) is written again whole, as a full build writes it now,
// not kept in part with its old frames.
func TestMergeBundleOlderCuts(t *testing.T) {
	dir := t.TempDir()
	bu, err := createBundle(dir, "topic")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	var lines bundle.Lines
	var chunk []byte
	for i := range 640 {
		id := fmt.Sprintf("pmc-%07d", i)
		lines.IDs = append(lines.IDs, id)
		lines.Lines = append(lines.Lines, fmt.Appendf(nil, `{"id":"%s","title":"document %d"}`+"\n", id, i))
		chunk = append(chunk, lines.Lines[i]...)
		if i%32 == 31 {
			if err := bu.w.WriteFrame(enc.EncodeAll(chunk, nil), 32, id); err != nil {
				t.Fatal(err)
			}
			chunk = chunk[:0]
		}
	}
	if _, _, err := bu.close(); err != nil {
		t.Fatal(err)
	}
	prevPath := filepath.Join(dir, bundle.Name("topic"))
	frames, err := readFrames(prevPath, bundle.Name("topic"))
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(prevPath)
	if err != nil {
		t.Fatal(err)
	}
	prev := &prevBundle{dir: dir, id: "S1", frames: frames,
		files: map[string]snapshot.File{bundle.Name("topic"): {Name: bundle.Name("topic"), Bytes: fi.Size()}}}
	b := &Builder{tmp: t.TempDir(), id: "S2"}
	removed := map[string]bool{lines.IDs[100]: true}
	stale, err := bundle.Stale(frames, func(f bundle.Frame) ([]byte, error) { return readFrame(dir, f) })
	if err != nil || !stale {
		t.Fatalf("frames of 32 lines: stale %v (%v), want true", stale, err)
	}
	tb, err := b.mergeBundle("topic", prev, bundle.Lines{}, removed, stale)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := createBundle(t.TempDir(), "topic")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range lines.Lines {
		if !removed[lines.IDs[i]] {
			if err := fresh.w.Add(line); err != nil {
				t.Fatal(err)
			}
		}
	}
	want, _, err := fresh.close()
	if err != nil {
		t.Fatal(err)
	}
	if tb.bundle.Name != bundle.Name("topic") || tb.bundle.SHA256 != want.SHA256 || tb.bundle.Rows != 639 {
		t.Errorf("bundle %+v, want one file as a full build writes it, %+v", tb.bundle, want)
	}
}

// TestDeltaBuildRecutsOlderBundles: a bundle of the previous snapshot cut
// into frames of 32 lines (an older rule) is written again as a full
// build cuts it, although none of its topic's documents changed.
func TestDeltaBuildRecutsOlderBundles(t *testing.T) {
	var docs []*ingest.Document
	for i := range 100 {
		docs = append(docs, synth(i, "cc-by", "genetics"))
	}
	cites := synth(500, "cc-by")
	cites.References = append(cites.References, ingest.Reference{DOI: "10.1234/test.5"})
	docs = append(docs, cites)
	runs := []Feed{feedDocs(docs...), feedDocs(synth(501, "cc-by"))} // the second: neuroscience only
	deltaDir, mergedDir := t.TempDir(), t.TempDir()
	for run, feed := range runs {
		if run == 1 {
			cutEvery32(t, open(t, deltaDir), "genetics")
		}
		for _, dir := range []string{deltaDir, mergedDir} {
			cfg := testConfig(dir)
			cfg.Now, cfg.Merge = testNow.Add(time.Duration(run)*24*time.Hour), dir == mergedDir
			build(t, cfg, feed)
		}
	}
	got := open(t, deltaDir)
	if !got.Segmented() {
		t.Fatal("the second build is not a delta build")
	}
	compareSnapshots(t, got, open(t, mergedDir))
}

// cutEvery32 writes the bundle of slug in the snapshot s again as frames
// of 32 lines, with its frames list.
func cutEvery32(t *testing.T, s *snapshot.Snapshot, slug string) {
	t.Helper()
	name := bundle.Name(slug)
	p := filepath.Join(s.Dir, filepath.FromSlash(name))
	lines, err := bundle.ReadLines(p)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	var frames []bundle.Frame
	for i := 0; i < len(lines.Lines); i += 32 {
		end := min(i+32, len(lines.Lines))
		frame := enc.EncodeAll(bytes.Join(lines.Lines[i:end], nil), nil)
		frames = append(frames, bundle.Frame{Last: lines.IDs[end-1], Bytes: int64(len(frame)), Lines: int64(end - i),
			Pack: name, Offset: int64(len(out))})
		out = append(out, frame...)
	}
	if len(frames) < 2 {
		t.Fatalf("bundle %s: %d frames of 32 lines", slug, len(frames))
	}
	// The files may be hard links of other snapshots': new files.
	for path, data := range map[string][]byte{p: out, bundle.FramesPath(p): bundle.AppendFrames(nil, name, frames)} {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
