// Package testsnap builds, once per test process, a snapshot of the shared
// fixture corpus through the real pipeline, for server tests.
package testsnap

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/pipelines/run"
)

// Now is the run time of the fixture snapshot, fixed so licence embargo
// decisions do not change with the calendar.
var Now = time.Date(2026, 11, 22, 3, 15, 0, 0, time.UTC)

var (
	once    sync.Once
	dataDir string
	root    string
	err     error
)

// Fixtures returns a data directory whose current snapshot holds the whole
// fixture corpus. It is shared by the tests of one package: do not write
// to it; use Copy for a private one.
func Fixtures(tb testing.TB) string {
	tb.Helper()
	once.Do(func() {
		var corpus []string
		if corpus, err = fixtures.FindCorpus(); err != nil {
			return
		}
		var inputs []run.Input
		for _, p := range corpus {
			inputs = append(inputs, run.Input{Path: p})
		}
		if root, err = os.MkdirTemp("", "openshelf-testsnap-"); err != nil {
			return
		}
		dataDir = filepath.Join(root, "data")
		_, err = run.Run(context.Background(), run.Config{DataDir: dataDir, Inputs: inputs, Now: Now, Workers: 2})
	})
	if err != nil {
		tb.Fatalf("testsnap: building the fixture snapshot: %v", err)
	}
	return dataDir
}

// Copy returns a private copy of the fixture data directory.
func Copy(tb testing.TB) string {
	tb.Helper()
	src := Fixtures(tb)
	dst := filepath.Join(tb.TempDir(), "data")
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		tb.Fatalf("testsnap: copy: %v: %s", err, out)
	}
	return dst
}

// Cleanup removes the shared snapshot; call it from TestMain after m.Run.
func Cleanup() {
	if root != "" {
		os.RemoveAll(root)
	}
}
