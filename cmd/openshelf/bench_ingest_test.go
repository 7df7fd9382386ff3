package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/fixtures"
)

// helperEnv makes the test binary act as the openshelf command: the
// benchmark's child processes are this binary running dispatch.
const helperEnv = "OPENSHELF_TEST_HELPER_MAIN"

func TestBenchIngest(t *testing.T) {
	t.Setenv(helperEnv, "1")
	exe := []string{os.Args[0], "--"}
	dir := t.TempDir()
	e, out, errb := testEnv(nil)
	args := []string{"-docs", "30", "-runs", "2", "-dir", dir, "-fixtures", fixtures.Dir(t), "-layout", "tar.gz", "-per-file", "8"}
	if code := runBenchIngestWith(context.Background(), e, args, exe); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errb)
	}
	for _, want := range []string{
		"corpus: 30 JATS articles (tar.gz), 4 files",
		"run 1/2: ", "run 2/2: ", "documents/s", "peak RSS", "read ", "publish ",
		"best of 2: ", "targets: >= 60 MB/s", "peak < 1 GiB met",
		"| date | corpus | docs/s | MB/s | peak RSS |", "| 30 docs, ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Nothing is left behind without -keep.
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left in -dir: %v", ents)
	}

	// -keep keeps the corpus, and the next invocation reuses it.
	e, out, errb = testEnv(nil)
	args = []string{"-docs", "12", "-runs", "1", "-dir", dir, "-fixtures", fixtures.Dir(t), "-keep"}
	for i := 0; i < 2; i++ {
		if code := runBenchIngestWith(context.Background(), e, args, exe); code != exitOK {
			t.Fatalf("exit %d\n%s\n%s", code, out, errb)
		}
	}
	if n := strings.Count(errb.String(), "generating 12 JATS articles"); n != 1 {
		t.Errorf("generated the corpus %d times, want once:\n%s", n, errb)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != "corpus-files-12-s1" {
		t.Errorf("-keep left %v, want the corpus only", ents)
	}
}

func TestParseBenchIngest(t *testing.T) {
	e, _, _ := testEnv(map[string]string{"OPENSHELF_DOCS": "77"})
	c, err := parseBenchIngest(e, []string{"-runs", "5"})
	if err != nil || c.Docs != 77 || c.Runs != 5 || c.Layout != "files" {
		t.Errorf("%+v %v", c, err)
	}
	for _, args := range [][]string{
		{"-docs", "0"}, {"-runs", "0"}, {"-layout", "zip"}, {"-per-file", "0"}, {"-workers", "-1"}, {"extra"}, {"-dir", ""},
	} {
		e, _, _ := testEnv(nil)
		if _, err := parseBenchIngest(e, args); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
	e, _, errb := testEnv(nil)
	if code := dispatch(context.Background(), e, []string{"bench", "ingest", "-runs", "0"}); code != exitUsage ||
		!strings.Contains(errb.String(), "-runs 0") {
		t.Errorf("bench ingest -runs 0: exit %d, %s", code, errb)
	}
}

func TestIngestPhases(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	log := `time=2026-11-22T10:00:00.500Z level=INFO msg="ingest: found" files=3 workers=2
time=2026-11-22T10:00:01Z level=INFO msg="index: removed leftover of an interrupted run" path=x
time=2026-11-22T10:00:04.500Z level=INFO msg="ingest: read" data_files=3
time=2026-11-22T10:00:06Z level=INFO msg="index: snapshot published" id=x
`
	got := ingestPhases(start, 6500*time.Millisecond, strings.NewReader(log))
	want := []phase{{"start+walk", 500 * time.Millisecond}, {"read", 4 * time.Second}, {"publish", 1500 * time.Millisecond}, {"exit", 500 * time.Millisecond}}
	if !slices.Equal(got, want) {
		t.Errorf("phases %v, want %v", got, want)
	}
	if got := ingestPhases(start, time.Second, strings.NewReader("no log\n")); got != nil {
		t.Errorf("phases of an empty log: %v", got)
	}
}

func TestBenchIngestLeavesForeignDirs(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "corpus-files-5-s1")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "precious"), []byte("x"), 0o644)
	e, _, errb := testEnv(nil)
	args := []string{"-docs", "5", "-runs", "1", "-dir", dir, "-fixtures", fixtures.Dir(t)}
	if code := runBenchIngestWith(context.Background(), e, args, []string{"false"}); code != exitUsage {
		t.Errorf("exit %d, want %d (the corpus directory holds something else)\n%s", code, exitUsage, errb)
	}
	if _, err := os.Stat(filepath.Join(foreign, "precious")); err != nil {
		t.Errorf("a directory the benchmark did not create was touched: %v", err)
	}
}
