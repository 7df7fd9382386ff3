package replica

import (
	"context"
	"flag"
	"path/filepath"
	"testing"
	"time"
)

var benchDocs = flag.Int("replica-docs", 5000, "documents of the archive BenchmarkNight ships")

// BenchmarkNight measures what a night costs a replica. A first night of
// -replica-docs generated documents and a second one of a 1 % delta are
// built with the index package and published to a local S3 server; the
// second night is then pulled into a replica holding the first (what a
// replica ships each night) and into an empty one (a full copy). It
// reports the bytes downloaded and the wall time of both pulls, and what
// the second publication uploaded.
//
// Two kinds of night are measured: "delta", the default build, which
// writes one new segment and hard-links the others, and "merge", a full
// merge into one complete directory (`openshelf ingest -merge`), every
// file written again. For example
//
//	go test ./replica -run '^$' -bench Night -benchtime 1x -replica-docs 20000
//
// The store is on loopback, so the times are the replica's own work
// (requests, checksums, disk), not a network's.
func BenchmarkNight(b *testing.B) {
	type layout struct {
		name          string
		builder       string
		first, second string
	}
	var layouts []layout
	for _, merge := range []bool{false, true} {
		a := newNights(b, *benchDocs)
		a.merge = merge
		l := layout{name: "delta", builder: a.data}
		if merge {
			l.name = "merge"
		}
		l.first, l.second = a.build(b), a.build(b)
		layouts = append(layouts, l)
	}
	for b.Loop() {
		for _, l := range layouts {
			b.StopTimer()
			st := newTestStore(b)
			publish(b, st, l.builder, l.first)
			replica := filepath.Join(b.TempDir(), "replica")
			pullOK(b, st, replica)
			t0 := time.Now()
			pub := publish(b, st, l.builder, l.second)
			pubTime := time.Since(t0)
			b.StartTimer()
			t0 = time.Now()
			night := pullOK(b, st, replica)
			nightTime := time.Since(t0)
			t0 = time.Now()
			full := pullOK(b, st, filepath.Join(b.TempDir(), "empty"))
			fullTime := time.Since(t0)
			if night.ID != l.second || full.ID != l.second {
				b.Fatalf("pulled %s and %s, want %s", night.ID, full.ID, l.second)
			}
			p := l.name + "-"
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
