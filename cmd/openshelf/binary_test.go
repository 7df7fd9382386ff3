package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
)

// builtBinary is the openshelf binary the tests run as a child process
// (TestBinary, the crash tests, the nightly benchmark). Linking it costs
// several CPU-seconds even on a warm build cache, and every caller runs
// the same code, so one test process builds it once; TestMain removes it.
var builtBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// openshelfBinary returns the path of the binary, building it on first use.
// Callers must not modify or move it.
func openshelfBinary(tb testing.TB) string {
	tb.Helper()
	builtBinary.once.Do(func() {
		root, err := fixtures.ModuleRoot()
		if err != nil {
			builtBinary.err = err
			return
		}
		if builtBinary.dir, err = os.MkdirTemp("", "openshelf-bin-"); err != nil {
			builtBinary.err = err
			return
		}
		builtBinary.path = filepath.Join(builtBinary.dir, "openshelf")
		build := exec.Command("go", "build", "-o", builtBinary.path, ".")
		build.Dir = filepath.Join(root, "cmd", "openshelf")
		if out, err := build.CombinedOutput(); err != nil {
			builtBinary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if builtBinary.err != nil {
		tb.Fatal(builtBinary.err)
	}
	return builtBinary.path
}

// removeBinary removes the built binary; TestMain calls it after the tests.
func removeBinary() {
	if builtBinary.dir != "" {
		os.RemoveAll(builtBinary.dir)
	}
}
