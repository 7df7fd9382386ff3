package replica

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/snapshot"
)

var benchDocs = flag.Int("replica-docs", 5000, "documents of the archive BenchmarkNight ships")

// BenchmarkNight measures what a night costs a replica. A first night of
// -replica-docs generated documents and a second one of a 1 % delta are
// built with the index package, published to a local S3 server, and the
// second night is pulled into a replica holding the first (what a replica
// ships each night) and into an empty one (a full copy). It reports the
// bytes downloaded and the wall time of both pulls, and what the second
// publication uploaded.
//
// Two layouts are measured. "complete" is the snapshot the index package
// writes today: every file is written again each night. "segmented" is the
// layout of docs/architecture.md ("Incremental snapshots") assembled from
// real builds: the first night's per-document files as segment 1, hard
// links of them plus a fresh build of the night's records alone as segment
// 2 the second night, and the whole-archive files (topics, citations,
// bundles, rejects) of the full second build. For example
//
//	go test ./replica -run '^$' -bench Night -benchtime 1x -replica-docs 20000
//
// The store is on loopback, so the times are the replica's own work
// (requests, checksums, disk), not a network's.
func BenchmarkNight(b *testing.B) {
	a := newArchive(b, *benchDocs)
	first := a.build(b)
	night1 := filepath.Join(b.TempDir(), "night1")
	if err := os.CopyFS(night1, os.DirFS(filepath.Join(a.data, snapshot.SnapshotsDir, first))); err != nil {
		b.Fatal(err)
	}
	second := a.build(b)
	delta := filepath.Join(b.TempDir(), "delta")
	deltaID := a.buildAt(b, delta, 1, true)

	seg := filepath.Join(b.TempDir(), "segmented")
	segment(b, seg, first, "", night1, map[string]string{"1": night1})
	segment(b, seg, second, first, filepath.Join(a.data, snapshot.SnapshotsDir, second),
		map[string]string{"2": filepath.Join(delta, snapshot.SnapshotsDir, deltaID)})

	for b.Loop() {
		for _, layout := range []struct{ name, builder string }{{"complete", a.data}, {"segmented", seg}} {
			b.StopTimer()
			st := newTestStore(b)
			publish(b, st, layout.builder, first)
			replica := filepath.Join(b.TempDir(), "replica")
			pullOK(b, st, replica)
			t0 := time.Now()
			pub := publish(b, st, layout.builder, second)
			pubTime := time.Since(t0)
			b.StartTimer()
			t0 = time.Now()
			night := pullOK(b, st, replica)
			nightTime := time.Since(t0)
			t0 = time.Now()
			full := pullOK(b, st, filepath.Join(b.TempDir(), "empty"))
			fullTime := time.Since(t0)
			if night.ID != second || full.ID != second {
				b.Fatalf("pulled %s and %s, want %s", night.ID, full.ID, second)
			}
			p := layout.name + "-"
			b.ReportMetric(float64(full.Bytes)/(1<<20), p+"snapshot-MiB")
			b.ReportMetric(float64(night.DownloadedBytes)/(1<<20), p+"night-MiB")
			b.ReportMetric(float64(full.DownloadedBytes)/(1<<20), p+"full-MiB")
			b.ReportMetric(float64(night.DownloadedBytes)/float64(full.DownloadedBytes), p+"night/full")
			b.ReportMetric(float64(night.Linked), p+"linked-files")
			b.ReportMetric(float64(night.Files), p+"files")
			b.ReportMetric(nightTime.Seconds(), p+"night-s")
			b.ReportMetric(fullTime.Seconds(), p+"full-s")
			b.ReportMetric(float64(pub.UploadedBytes)/(1<<20), p+"publish-MiB")
			b.ReportMetric(pubTime.Seconds(), p+"publish-s")
		}
	}
}

func publish(tb testing.TB, st *testStore, data, id string) *PublishStats {
	tb.Helper()
	s, err := Publish(context.Background(), st.Store, PublishConfig{DataDir: data, ID: id})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// wholeArchive are the files of a snapshot that describe the whole
// archive rather than its documents: a segmented snapshot writes them
// again each night.
var wholeArchive = []string{snapshot.ManifestFile, "topics.parquet", "citations.parquet", "rejects.parquet", "bundles/"}

func isWholeArchive(p string) bool {
	for _, w := range wholeArchive {
		if p == w || strings.HasSuffix(w, "/") && strings.HasPrefix(p, w) {
			return true
		}
	}
	return false
}

// segment writes snapshot id into data in the segmented layout: the
// segments of prev (hard links), the per-document files of each new
// segment's source directory under segments/segment=<name>/, and the
// whole-archive files of top.
func segment(tb testing.TB, data, id, prev, top string, segments map[string]string) {
	tb.Helper()
	dir := filepath.Join(data, snapshot.SnapshotsDir, id)
	put := func(src, rel string, link bool) {
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			tb.Fatal(err)
		}
		if link {
			if err := os.Link(src, dst); err != nil {
				tb.Fatal(err)
			}
			return
		}
		b, err := os.ReadFile(src)
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if prev != "" {
		old := filepath.Join(data, snapshot.SnapshotsDir, prev)
		for p := range treeFiles(tb, filepath.Join(old, "segments")) {
			put(filepath.Join(old, "segments", p), "segments/"+p, true)
		}
	}
	for name, src := range segments {
		for p := range treeFiles(tb, src) {
			if !isWholeArchive(p) {
				put(filepath.Join(src, p), "segments/segment="+name+"/"+p, false)
			}
		}
	}
	for p := range treeFiles(tb, top) {
		if isWholeArchive(p) {
			put(filepath.Join(top, p), p, false)
		}
	}
}
