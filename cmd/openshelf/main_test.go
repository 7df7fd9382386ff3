package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/pipelines/run"
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
	bin := filepath.Join(tmp, "openshelf")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join(root, "cmd", "openshelf")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
	// The ten SOURCES.md of the corpus are skipped; the shared fixtures'
	// upstreams/ folder (other tools' upstream responses) is not corpus.
	corpusSkips := 0
	for _, s := range sum.SkippedFiles {
		if !strings.Contains(filepath.ToSlash(s.Path), "/upstreams/") {
			corpusSkips++
		}
	}
	if corpusSkips != 10 || sum.Accepted == 0 || sum.Rejected == 0 || sum.Snapshot == "" || sum.Problems != 0 {
		t.Errorf("fixtures pipeline summary: %d corpus files skipped, %+v", corpusSkips, sum)
	}

	// Remote sources are refused with their own exit code, DATA untouched.
	data3 := filepath.Join(tmp, "data3")
	code, _, errs = cmd(nil, "ingest", "-data", data3, "-pipeline", filepath.Join(root, "pipelines", "nightly.toml"))
	if code != exitNotImplemented || !strings.Contains(errs, "remote sources are not implemented yet") {
		t.Errorf("nightly: exit %d, stderr:\n%s", code, errs)
	}
	if _, err := os.Stat(data3); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("nightly touched the data directory: %v", err)
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
