package testsnap

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestFixturesHasCurrent(t *testing.T) {
	defer Cleanup()
	d := Fixtures(t)
	if _, err := os.Stat(filepath.Join(d, "current", "manifest.json")); err != nil {
		t.Fatalf("no current snapshot in %s: %v", d, err)
	}
	if Fixtures(t) != d {
		t.Error("Fixtures gave two directories in one process")
	}
}

func TestStartTime(t *testing.T) {
	s, err := startTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if n, err := strconv.ParseUint(s, 10, 64); err != nil || n == 0 {
		t.Errorf("start time %q", s)
	}
	if _, err := startTime(1 << 30); err == nil {
		t.Error("a pid that cannot exist has a start time")
	}
}

// TestSweep removes the directories of a go command or a process that
// has exited and keeps the live ones'.
func TestSweep(t *testing.T) {
	me, err := startTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(os.TempDir(), prefix+strconv.Itoa(os.Getpid())+"-"+me)
	dead := filepath.Join(os.TempDir(), prefix+strconv.Itoa(1<<30)+"-1")
	reused := filepath.Join(os.TempDir(), prefix+strconv.Itoa(os.Getpid())+"-1") // same pid, other start
	liveOwn := filepath.Join(os.TempDir(), prefix+ownPrefix+strconv.Itoa(os.Getpid())+"-"+me)
	deadOwn := filepath.Join(os.TempDir(), prefix+ownPrefix+strconv.Itoa(1<<30)+"-1")
	for _, d := range []string{live, dead, reused, liveOwn, deadOwn} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(d)
	}
	sweep("")
	for d, want := range map[string]bool{live: true, dead: false, reused: false, liveOwn: true, deadOwn: false} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(d), err == nil, want)
		}
	}
}
