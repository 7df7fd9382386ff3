// Package testsnap builds a snapshot of the shared fixture corpus through
// the real pipeline, for server tests: once per `go test` invocation.
//
// The test binaries that one `go test` command runs are its children, and
// they were all built from the same code, so the first of them to need the
// snapshot builds it in a directory named after that go command (its pid
// and start time) and the others, waiting on a lock, reuse it. Each process
// then works on a copy of its own, since servers opened on it write their
// ledgers and keys beside the snapshot. A binary run by anything else (a
// shell, a debugger) builds its own, since the code may have changed since
// a directory was left. Each process's copy is named after the process
// too, so that one killed before Cleanup (a crash test's child, a package
// without a TestMain) is still removed: a directory whose go command or
// process has exited is removed by the next process that needs a snapshot.
package testsnap

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/pipelines/run"
)

// Now is the run time of the fixture snapshot, fixed so licence embargo
// decisions do not change with the calendar.
var Now = time.Date(2026, 11, 22, 3, 15, 0, 0, time.UTC)

// prefix names the shared directories under the temporary directory, and
// ownPrefix follows it in the name of a process's own copy.
const (
	prefix    = "openshelf-testsnap-"
	ownPrefix = "own-"
)

var (
	once    sync.Once
	dataDir string
	private string // this process's directory, removed by Cleanup
	err     error
)

// Fixtures returns a data directory whose current snapshot holds the whole
// fixture corpus. It is shared by the tests of one package: do not write
// to it; use Copy for a private one.
func Fixtures(tb testing.TB) string {
	tb.Helper()
	once.Do(func() { dataDir, err = ownCopy() })
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

// Cleanup removes this process's data directory; call it from TestMain
// after m.Run. The invocation's shared snapshot outlives the process.
func Cleanup() {
	if private != "" {
		os.RemoveAll(private)
	}
}

// ownCopy returns this process's data directory: a copy of the
// invocation's shared snapshot, or one built here outside `go test`.
func ownCopy() (string, error) {
	self, err := processKey(os.Getpid())
	if err != nil {
		return "", err
	}
	sweep(self)
	dir := filepath.Join(os.TempDir(), prefix+ownPrefix+self)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	private = dir
	data := filepath.Join(dir, "data")
	key, ok := invocation()
	if !ok {
		return data, build(data)
	}
	shared, err := locate(key)
	if err != nil {
		return "", err
	}
	if out, err := exec.Command("cp", "-a", shared, data).CombinedOutput(); err != nil {
		return "", fmt.Errorf("copy: %v: %s", err, out)
	}
	return data, nil
}

// locate returns the shared snapshot of invocation key, building it if
// this process is the first to ask.
func locate(key string) (string, error) {
	dir := filepath.Join(os.TempDir(), prefix+key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	data := filepath.Join(dir, "data")
	if _, err := os.Stat(filepath.Join(dir, "built")); err == nil {
		return data, nil
	}
	sweep(key)
	os.RemoveAll(data) // a build killed half-way
	if err := build(data); err != nil {
		return "", err
	}
	return data, os.WriteFile(filepath.Join(dir, "built"), nil, 0o644)
}

// build ingests the fixture corpus into dataDir.
func build(dataDir string) error {
	corpus, err := fixtures.FindCorpus()
	if err != nil {
		return err
	}
	var inputs []run.Input
	for _, p := range corpus {
		inputs = append(inputs, run.Input{Path: p})
	}
	_, err = run.Run(context.Background(), run.Config{DataDir: dataDir, Inputs: inputs, Now: Now, Workers: 2})
	return err
}

// invocation names the `go test` command running this binary, "pid-start",
// or reports that the parent is not the go command.
func invocation() (string, bool) {
	ppid := os.Getppid()
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", ppid))
	if err != nil || strings.TrimSpace(string(comm)) != "go" {
		return "", false
	}
	key, err := processKey(ppid)
	return key, err == nil
}

// processKey names a live process, "pid-start".
func processKey(pid int) (string, error) {
	start, err := startTime(pid)
	if err != nil {
		return "", err
	}
	return strconv.Itoa(pid) + "-" + start, nil
}

// startTime is a process's start time in clock ticks since boot (field 22
// of /proc/PID/stat), which tells a process from a later one given the
// same pid.
func startTime(pid int) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return "", errors.New("testsnap: unreadable /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return "", errors.New("testsnap: short /proc stat")
	}
	return f[19], nil // field 22 overall; f[0] is field 3
}

// sweep removes the shared directories of go commands, and the own copies
// of processes, that have exited.
func sweep(keep string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
	for _, d := range dirs {
		key := strings.TrimPrefix(strings.TrimPrefix(filepath.Base(d), prefix), ownPrefix)
		pid, start, ok := strings.Cut(key, "-")
		if !ok || key == keep {
			continue
		}
		n, err := strconv.Atoi(pid)
		if err != nil {
			continue
		}
		if s, err := startTime(n); err != nil || s != start {
			os.RemoveAll(d)
		}
	}
}
