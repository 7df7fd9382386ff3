package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/internal/fixtures"
	fake "github.com/openshelf/openshelf/internal/upstreamfake"
	"github.com/openshelf/openshelf/snapshot"
)

// BenchmarkNightlyFetchIngest measures the nightly job end to end against a
// local server: the PMC OA adapter reads an inventory of N generated JATS
// articles (internal/corpus, the corpus of `openshelf bench ingest`),
// fetches every metadata file and article over HTTP with verification, and
// the build publishes the snapshot; beside it, in the same run, the
// local-file ingest of the same files. Reported: MB/s of article bytes,
// documents/s and the child's peak RSS for both. Then a second night: a
// new inventory with 1 % of the articles in a new version and 0.5 % new
// articles, which the job builds as a delta (docs/nightly.md): its CPU
// (user+system) against the first night's.
//
//	go test -run '^$' -bench NightlyFetchIngest -benchtime 1x ./cmd/openshelf
func BenchmarkNightlyFetchIngest(b *testing.B) {
	const n = 5000
	bin := openshelfBinary(b)
	fix := fixtures.Dir(b)
	ctx := context.Background()
	ts, err := corpus.LoadJATSTemplates(ctx, fix)
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(b.TempDir(), "corpus")
	extra := n / 200 // the second night's new articles
	cor, err := corpus.WriteJATS(ctx, corpus.JATSConfig{Dir: dir, N: n + extra, Seed: 7, Templates: ts})
	if err != nil {
		b.Fatal(err)
	}
	srv := fake.New()
	defer srv.Close()
	var arts []fake.PMCArticle
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".xml") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		h := md5.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		arts = append(arts, fake.PMCArticle{PMCID: fmt.Sprintf("PMC%d", 900000000+len(arts)), Version: 1,
			LicenseCode: "CC BY", OpenAccess: true, File: p, MD5: hex.EncodeToString(h.Sum(nil))})
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	night2 := slices.Clone(arts)
	for i := 0; i < n; i += 100 {
		night2[i].Version = 2
	}
	arts = arts[:n]
	srv.PublishPMC("2026-11-24T01-00Z", arts)
	pipeline := filepath.Join(b.TempDir(), "pmc.toml")
	toml := fmt.Sprintf(`name = "bench"
[[source]]
name = "pmc-oa"
kind = "s3-inventory"
url = "s3://pmc-oa-opendata/"
format = "jats"
[source.params]
inventory = %q
https_mirror = "%s/pmc/"
[source.cursor]
kind = "inventory-etag"
`, fake.PMCInventoryPrefix, srv.URL)
	if err := os.WriteFile(pipeline, []byte(toml), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		local := timed(b, bin, "ingest", "-fresh", "-progress", "never", "-data", filepath.Join(b.TempDir(), "local"), dir)
		data := filepath.Join(b.TempDir(), "remote")
		remote := timed(b, bin, "ingest", "-progress", "never", "-log-level", "warn", "-data", data, "-pipeline", pipeline)
		srv.PublishPMC("2026-11-25T01-00Z", night2)
		delta := timed(b, bin, "ingest", "-progress", "never", "-log-level", "warn", "-data", data, "-pipeline", pipeline)
		srv.PublishPMC("2026-11-24T01-00Z", arts) // the next loop starts from night 1 again
		s, err := snapshot.Open(data)
		if err != nil {
			b.Fatal(err)
		}
		if !s.Segmented() || s.Manifest.Counts.Accepted != int64(n+extra) {
			b.Fatalf("night 2: %d documents, segmented %v; want a delta build of %d", s.Manifest.Counts.Accepted, s.Segmented(), n+extra)
		}
		b.ReportMetric(remote.cpu.Seconds(), "night1-cpu-s")
		b.ReportMetric(delta.cpu.Seconds(), "night2-cpu-s")
		b.ReportMetric(delta.cpu.Seconds()/remote.cpu.Seconds(), "night2/night1-cpu")
		// The local ingest reads every file, the first night n of them.
		mb := float64(cor.Bytes) * float64(n) / float64(n+extra) / 1e6
		b.ReportMetric(float64(cor.Bytes)/1e6/local.wall.Seconds(), "local-MB/s")
		b.ReportMetric(float64(n+extra)/local.wall.Seconds(), "local-docs/s")
		b.ReportMetric(float64(local.rss)/(1<<20), "local-peak-MiB")
		b.ReportMetric(mb/remote.wall.Seconds(), "fetch+ingest-MB/s")
		b.ReportMetric(float64(n)/remote.wall.Seconds(), "fetch+ingest-docs/s")
		b.ReportMetric(float64(remote.rss)/(1<<20), "fetch+ingest-peak-MiB")
		b.Logf("night 1: %d articles, %.1f MB; local %s, fetch+ingest %s (%.1f MB/s, %s CPU); night 2 (%d new versions, %d new articles) %s, %s CPU; server requests %d",
			n, mb, local.wall.Round(time.Millisecond), remote.wall.Round(time.Millisecond), mb/remote.wall.Seconds(),
			remote.cpu.Round(time.Millisecond), n/100, extra, delta.wall.Round(time.Millisecond), delta.cpu.Round(time.Millisecond),
			srv.HitsPrefix("/pmc/"))
	}
}

type timing struct {
	wall, cpu time.Duration
	rss       int64
}

// timed runs the binary and returns its wall time and peak RSS.
func timed(b *testing.B, bin string, args ...string) timing {
	b.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OPENSHELF_DATA=")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		b.Fatalf("%v: %v\n%s", args, err, tail(out, 4000))
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = maxRSSBytes(ru.Maxrss)
	}
	return timing{wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), rss}
}
