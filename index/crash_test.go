package index

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/snapshot"
)

const (
	crashDirEnv  = "OPENSHELF_INDEX_CRASH_DIR"
	crashModeEnv = "OPENSHELF_INDEX_CRASH_MODE"
)

// crashChild runs in the re-executed test binary: it starts a build and
// announces "ready" at the point where the parent kills it.
func crashChild(dir, mode string) {
	ready := func() {
		fmt.Println("ready")
		time.Sleep(time.Minute) // the parent kills us long before
		os.Exit(3)
	}
	cfg := testConfig(dir)
	cfg.Now = testNow.Add(time.Hour)
	switch mode {
	case "feed": // killed while records stream in
		Build(context.Background(), cfg, func(ctx context.Context, sink ingest.Sink) error {
			for i := 100; i < 400; i++ {
				sink.Document(synth(i, "cc-by"))
			}
			ready()
			return nil
		})
	case "write": // killed while tables are being written
		b, err := NewBuilder(cfg)
		if err != nil {
			panic(err)
		}
		for i := 100; i < 400; i++ {
			b.Add(synth(i, "cc-by"))
		}
		ready()
	case "delta-linked", "delta-switch": // a delta build killed while it links segments, or before the switch
		cfg.hook = func(stage string) {
			if "delta-"+stage == mode {
				ready()
			}
		}
		Build(context.Background(), cfg, feedDocs(synth(100, "cc-by"), synth(2, "cc-by-nc")))
	case "switch": // killed after the rename, before current switches
		b, err := NewBuilder(cfg)
		if err != nil {
			panic(err)
		}
		b.Add(synth(100, "cc-by"))
		b.testHook = ready
		b.Finish(context.Background())
	}
	os.Exit(4)
}

func TestCrashSafety(t *testing.T) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		crashChild(dir, os.Getenv(crashModeEnv))
		return
	}
	for _, mode := range []string{"feed", "write", "switch", "delta-linked", "delta-switch"} {
		t.Run(mode, func(t *testing.T) {
			data := t.TempDir()
			var docs []*ingest.Document
			for i := 0; i < 5; i++ {
				docs = append(docs, synth(i, "cc-by"))
			}
			old := build(t, testConfig(data), feedDocs(docs...))

			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashSafety$", "-test.count=1")
			cmd.Env = append(os.Environ(), crashDirEnv+"="+data, crashModeEnv+"="+mode)
			cmd.Stderr = os.Stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(out)
			gotReady := false
			for sc.Scan() {
				if strings.TrimSpace(sc.Text()) == "ready" {
					gotReady = true
					break
				}
			}
			cmd.Process.Signal(syscall.SIGKILL)
			err = cmd.Wait()
			if !gotReady {
				t.Fatalf("child never got ready: %v", err)
			}
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("child not killed by SIGKILL: %v", cmd.ProcessState)
			}

			// The previous snapshot is still current and whole.
			s, err := snapshot.Open(data)
			if err != nil {
				t.Fatal(err)
			}
			if s.ID != old.ID {
				t.Fatalf("current is %s, want %s", s.ID, old.ID)
			}
			db := duck(t)
			if n := queryInt(t, db, "SELECT count(*) FROM "+tbl(s, snapshot.Documents)); n != 5 {
				t.Errorf("current has %d documents after the crash", n)
			}
			dirs := snapshotDirs(t, data)
			leftover := slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(d, snapshot.TmpPrefix) })
			switched := strings.HasSuffix(mode, "switch")
			if !switched && !leftover {
				t.Errorf("expected a .tmp directory from the killed run, have %q", dirs)
			}
			if switched && len(dirs) != 2 {
				t.Errorf("expected the unpublished snapshot beside the current one, have %q", dirs)
			}

			// The next run cleans up and publishes.
			cfg := testConfig(data)
			cfg.Now = testNow.Add(2 * time.Hour)
			next := build(t, cfg, feedDocs(synth(50, "cc-by")))
			s2 := open(t, data)
			if n := queryInt(t, db, "SELECT count(*) FROM "+tbl(s2, snapshot.Documents)); n != 6 {
				t.Errorf("next run serves %d documents, want 6", n)
			}
			if s2.ID != next.ID || next.Counts.Accepted != 6 {
				t.Errorf("next run: current %s, manifest %+v", s2.ID, next.Counts)
			}
			for _, d := range snapshotDirs(t, data) {
				if strings.HasPrefix(d, ".") {
					t.Errorf("leftover %s after the next run", d)
				}
			}
			if _, err := os.Stat(filepath.Join(data, snapshot.LockFile)); err != nil {
				t.Errorf("lock file: %v", err)
			}
		})
	}
}
