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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/internal/fixtures"
	fake "github.com/openshelf/openshelf/internal/upstreamfake"
)

// BenchmarkNightlyFetchIngest measures the nightly job end to end against a
// local server: the PMC OA adapter reads an inventory of N generated JATS
// articles (internal/corpus, the corpus of `openshelf bench ingest`),
// fetches every metadata file and article over HTTP with verification, and
// the build publishes the snapshot; beside it, in the same run, the
// local-file ingest of the same files. Reported: MB/s of article bytes,
// documents/s and the child's peak RSS for both.
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
	cor, err := corpus.WriteJATS(ctx, corpus.JATSConfig{Dir: dir, N: n, Seed: 7, Templates: ts})
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
		remote := timed(b, bin, "ingest", "-progress", "never", "-log-level", "warn", "-data", filepath.Join(b.TempDir(), "remote"), "-pipeline", pipeline)
		mb := float64(cor.Bytes) / 1e6
		b.ReportMetric(mb/local.wall.Seconds(), "local-MB/s")
		b.ReportMetric(float64(n)/local.wall.Seconds(), "local-docs/s")
		b.ReportMetric(float64(local.rss)/(1<<20), "local-peak-MiB")
		b.ReportMetric(mb/remote.wall.Seconds(), "fetch+ingest-MB/s")
		b.ReportMetric(float64(n)/remote.wall.Seconds(), "fetch+ingest-docs/s")
		b.ReportMetric(float64(remote.rss)/(1<<20), "fetch+ingest-peak-MiB")
		b.Logf("corpus %d articles, %.1f MB; local %s (%.1f MB/s), fetch+ingest %s (%.1f MB/s); server requests %d",
			n, mb, local.wall.Round(time.Millisecond), mb/local.wall.Seconds(), remote.wall.Round(time.Millisecond),
			mb/remote.wall.Seconds(), srv.HitsPrefix("/pmc/"))
	}
}

type timing struct {
	wall time.Duration
	rss  int64
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
	return timing{wall, rss}
}
