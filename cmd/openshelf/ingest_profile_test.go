package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
)

// TestIngestCPUProfile ingests the PLOS fixtures with -cpuprofile and
// checks that a profile was written (a gzipped protocol buffer, as
// runtime/pprof writes them); a profile that cannot be created fails the
// run.
func TestIngestCPUProfile(t *testing.T) {
	dir := fixtures.Dir(t)
	prof := filepath.Join(t.TempDir(), "cpu.pprof")
	e, _, errb := testEnv(nil)
	if code := dispatch(context.Background(), e, []string{"ingest", "-data", t.TempDir(), "-progress", "never", "-log-level", "error",
		"-cpuprofile", prof, filepath.Join(dir, "jats", "plos")}); code != exitOK {
		t.Fatalf("ingest: %d %s", code, errb.String())
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the profile is not gzipped: %v", err)
	}
	if n, err := io.Copy(io.Discard, zr); err != nil || n == 0 {
		t.Fatalf("the profile: %d bytes, %v", n, err)
	}

	e, _, errb = testEnv(nil)
	if code := dispatch(context.Background(), e, []string{"ingest", "-data", t.TempDir(), "-progress", "never",
		"-cpuprofile", filepath.Join(t.TempDir(), "missing", "cpu.pprof"), filepath.Join(dir, "jats", "plos")}); code != exitFailure {
		t.Errorf("ingest with an unwritable -cpuprofile: exit %d, want %d: %s", code, exitFailure, errb)
	}
}
