package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/internal/pgtest"
	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/pipelines/run"
	"github.com/openshelf/openshelf/snapshot"
)

func testEnv(vars map[string]string) (*env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &env{stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }}, &out, &errb
}

func TestParseIngestPrecedence(t *testing.T) {
	e, _, _ := testEnv(map[string]string{"OPENSHELF_DATA": "/env/data", "OPENSHELF_WORKERS": "3", "OPENSHELF_FRESH": "true"})
	c, err := parseIngest(e, []string{"-workers", "5", "in"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Data != "/env/data" || c.Workers != 5 || !c.Fresh || c.Paths[0] != "in" || c.levelSet {
		t.Errorf("flag > environment > default violated: %+v", c)
	}
	e, _, _ = testEnv(nil)
	c, err = parseIngest(e, []string{"-log-level", "debug", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Data != "data" || c.Workers != 0 || !c.levelSet {
		t.Errorf("defaults: %+v", c)
	}
}

func TestParseIngestErrors(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"nothing", nil, nil, "nothing to ingest"},
		{"bad env int", map[string]string{"OPENSHELF_WORKERS": "many"}, []string{"x"}, "OPENSHELF_WORKERS"},
		{"bad flag", nil, []string{"-colour", "x"}, "colour"},
		{"negative", nil, []string{"-workers", "-1", "x"}, "negative"},
		{"bad progress", nil, []string{"-progress", "sometimes", "x"}, "progress"},
		{"bad level", map[string]string{"OPENSHELF_LOG_LEVEL": "loud"}, []string{"x"}, "log-level"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _, errb := testEnv(tt.env)
			_, err := parseIngest(e, tt.args)
			if err == nil || !strings.Contains(err.Error()+errb.String(), tt.want) {
				t.Errorf("err = %v (stderr %q), want %q", err, errb.String(), tt.want)
			}
		})
	}
}

func TestDispatch(t *testing.T) {
	register(command{name: "zz-test", summary: "test command", run: func(ctx context.Context, e *env, args []string) int {
		return len(args)
	}})
	defer delete(commands, "zz-test")
	e, out, errb := testEnv(nil)
	if code := dispatch(context.Background(), e, []string{"zz-test", "a", "b"}); code != 2 {
		t.Errorf("dispatch returned %d, want the command's 2", code)
	}
	if code := dispatch(context.Background(), e, []string{"nope"}); code != exitUsage || !strings.Contains(errb.String(), `unknown command "nope"`) {
		t.Errorf("unknown command: %d %q", code, errb.String())
	}
	if code := dispatch(context.Background(), e, nil); code != exitUsage {
		t.Errorf("no command: %d", code)
	}
	if code := dispatch(context.Background(), e, []string{"help"}); code != exitOK || !strings.Contains(out.String(), "ingest") || !strings.Contains(out.String(), "zz-test") {
		t.Errorf("help: %d %q", code, out.String())
	}
	out.Reset()
	errb.Reset()
	if code := dispatch(context.Background(), e, []string{"ingest", "-h"}); code != exitOK || !strings.Contains(errb.String(), "OPENSHELF_DATA") {
		t.Errorf("ingest -h: %d %q", code, errb.String())
	}
}

func TestIngestExitCode(t *testing.T) {
	ctx := context.Background()
	for err, want := range map[error]int{
		run.ErrRemoteNotImplemented: exitNotImplemented,
		run.ErrConfig:               exitUsage,
		run.ErrInput:                exitUsage,
		run.ErrData:                 exitFailure,
		errors.New("boom"):          exitFailure,
	} {
		if got := ingestExitCode(ctx, err); got != want {
			t.Errorf("%v: exit %d, want %d", err, got, want)
		}
	}
}

// TestBinary builds openshelf and runs it as an operator would.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	root, err := fixtures.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := openshelfBinary(t)
	fix := fixtures.Dir(t)
	cmd := func(env []string, args ...string) (int, string, string) {
		c := exec.Command(bin, args...)
		c.Dir = tmp // not the repository: relative paths must not depend on it
		c.Env = append(os.Environ(), env...)
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		err := c.Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0, out.String(), errb.String()
		case errors.As(err, &ee):
			return ee.ExitCode(), out.String(), errb.String()
		}
		t.Fatal(err)
		return 0, "", ""
	}

	// A directory of eLife articles, data directory from the environment.
	data := filepath.Join(tmp, "data")
	code, out, errs := cmd([]string{"OPENSHELF_DATA=" + data}, "ingest", "-now", "2026-06-01T00:00:00Z", filepath.Join(fix, "jats", "elife"))
	if code != 0 {
		t.Fatalf("ingest elife: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"ingest summary", "accepted   14: CC-BY 12, CC0 2", "skipped", "SOURCES.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Readlink(filepath.Join(data, "current")); err != nil {
		t.Errorf("no DATA/current: %v", err)
	}
	if !strings.Contains(errs, "level=INFO") {
		t.Errorf("no log lines on stderr without a terminal:\n%s", errs)
	}

	// The fixtures pipeline, from another directory, as JSON.
	code, out, errs = cmd(nil, "ingest", "-data", filepath.Join(tmp, "data2"), "-json", "-fresh",
		"-pipeline", filepath.Join(root, "pipelines", "fixtures.toml"))
	if code != 0 {
		t.Fatalf("ingest -pipeline fixtures.toml: exit %d\n%s\n%s", code, out, errs)
	}
	var sum run.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("-json output: %v\n%s", err, out)
	}
	if sum.Skipped != 9 || sum.Accepted == 0 || sum.Rejected == 0 || sum.Snapshot == "" || sum.Problems != 0 {
		t.Errorf("fixtures pipeline summary: %+v", sum)
	}

	// A pipeline with remote sources is the nightly job: a source that
	// cannot be reached fails the run (exit 1), nothing is published.
	data3 := filepath.Join(tmp, "data3")
	unreachable := filepath.Join(tmp, "unreachable.toml")
	os.WriteFile(unreachable, []byte(`name = "unreachable"
[[source]]
name = "pubmed-updates"
kind = "file-sequence"
url = "http://127.0.0.1:1/pubmed/updatefiles/"
format = "pubmed"
[source.cursor]
kind = "sequence"
`), 0o644)
	code, out, errs = cmd(nil, "ingest", "-data", data3, "-retries", "0", "-pipeline", unreachable)
	if code != exitFailure || !strings.Contains(errs, "a source failed: pubmed-updates") || !strings.Contains(out, "FAILED") {
		t.Errorf("unreachable nightly source: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if _, err := snapshot.Current(data3); err == nil {
		t.Error("a failed nightly run published a snapshot")
	}

	// Usage errors.
	for _, args := range [][]string{{"ingest"}, {"ingest", "-bogus", "x"}, {"ingest", filepath.Join(tmp, "missing")}, {"frobnicate"}} {
		if code, _, errs := cmd(nil, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitUsage, errs)
		}
	}
	// DATA that cannot be created is a failure.
	blocker := filepath.Join(tmp, "file")
	os.WriteFile(blocker, nil, 0o644)
	if code, _, errs := cmd(nil, "ingest", "-data", filepath.Join(blocker, "data"), filepath.Join(fix, "jats", "f1000")); code != exitFailure {
		t.Errorf("unwritable data: exit %d, want %d\n%s", code, exitFailure, errs)
	}
}

// TestMain runs the command instead of the tests when a test starts this
// binary as its child, so no separate build is needed (a helper process is
// not a test, so it must not show as a skipped one): the ingest benchmark
// sets helperEnv and passes "-- ARGS", the bomb test sets
// OPENSHELF_TEST_AS_CLI=1 and passes the arguments as they are. After the
// tests it stops what they started once for the whole package.
func TestMain(m *testing.M) {
	if os.Getenv("OPENSHELF_TEST_AS_CLI") == "1" {
		main()
		return
	}
	if os.Getenv(helperEnv) != "" {
		i := slices.Index(os.Args, "--")
		e := &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
		os.Exit(dispatch(context.Background(), e, os.Args[i+1:]))
	}
	code := m.Run()
	pgtest.Stop()
	testsnap.Cleanup()
	removeBinary()
	os.Exit(code)
}
