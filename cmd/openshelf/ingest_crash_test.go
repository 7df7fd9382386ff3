package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/snapshot"
)

// readable checks with DuckDB that the current snapshot of data reads and
// holds want documents, each with its full text table row count intact,
// and returns its id.
func readable(t *testing.T, data string, want int64) string {
	t.Helper()
	s, err := snapshot.Open(data)
	if err != nil {
		t.Fatalf("current snapshot: %v", err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := func(query string, from string) int64 {
		var n int64
		if err := db.QueryRow(strings.ReplaceAll(query, "TABLE", from)).Scan(&n); err != nil {
			t.Fatalf("%s of %s: %v", query, from, err)
		}
		return n
	}
	if n := q("SELECT count(*) FROM TABLE", s.TableSQL(snapshot.Documents)); n != want {
		t.Errorf("current snapshot %s has %d documents, want %d", s.ID, n, want)
	}
	for _, f := range s.Manifest.Files {
		if !strings.HasSuffix(f.Name, ".parquet") {
			continue
		}
		path := filepath.Join(s.Dir, filepath.FromSlash(f.Name))
		if n := q("SELECT count(*) FROM TABLE", "read_parquet('"+strings.ReplaceAll(path, "'", "''")+"')"); n != f.Rows {
			t.Errorf("%s: %d rows, manifest says %d", f.Name, n, f.Rows)
		}
	}
	return s.ID
}

// TestIngestKilled is the crash test of issue 2 at the command level: a
// real `openshelf ingest` process is killed with SIGKILL in the middle of
// a large run, while it reads and while it publishes; DATA/current must
// still point at the last good snapshot, which DuckDB still reads, and the
// next run must clean up and succeed.
func TestIngestKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and ingests a generated corpus")
	}
	bin := openshelfBinary(t)
	fix := fixtures.Dir(t)
	ts, err := corpus.LoadJATSTemplates(context.Background(), fix)
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(t.TempDir(), "corpus")
	if _, err := corpus.WriteJATS(context.Background(), corpus.JATSConfig{Dir: big, N: 1500, Seed: 3, Templates: ts}); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		// after is the log message after which the run is killed.
		after string
	}{
		{"reading", `msg="ingest: found"`},
		{"publishing", `msg="ingest: read"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			ingest := func(args ...string) *exec.Cmd {
				c := exec.Command(bin, append([]string{"ingest", "-data", data, "-progress", "never", "-log-level", "info"}, args...)...)
				c.Env = append(os.Environ(), "OPENSHELF_DATA=")
				return c
			}
			// A good snapshot of the 14 eLife articles.
			first := ingest(filepath.Join(fix, "jats", "elife"))
			if out, err := first.CombinedOutput(); err != nil {
				t.Fatalf("first ingest: %v\n%s", err, out)
			}
			good := readable(t, data, 14)

			// A large run, killed once it logs tc.after.
			run := ingest(big)
			stderr, err := run.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := run.Start(); err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			sc := bufio.NewScanner(io.TeeReader(stderr, &log))
			reached := false
			for sc.Scan() {
				if strings.Contains(sc.Text(), tc.after) {
					reached = true
					break
				}
			}
			if !reached {
				run.Wait()
				t.Fatalf("the run ended before logging %s:\n%s", tc.after, log.String())
			}
			if tc.name == "reading" {
				time.Sleep(300 * time.Millisecond) // into the files, with records spilled
			}
			run.Process.Signal(syscall.SIGKILL)
			go io.Copy(io.Discard, stderr)
			err = run.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the run was not killed by SIGKILL (%v); it finished too fast to test:\n%s", err, log.String())
			}

			// current is untouched and reads; the killed run left its
			// temporary snapshot behind.
			if id := readable(t, data, 14); id != good {
				t.Fatalf("current is %s after the crash, want %s", id, good)
			}
			if !hasTmp(t, data) {
				t.Error("no temporary snapshot left by the killed run: was it killed mid-way?")
			}

			// The next run removes the leftovers and publishes.
			next := ingest(filepath.Join(fix, "jats", "f1000"))
			out, err := next.CombinedOutput()
			if err != nil {
				t.Fatalf("next ingest: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "removed leftover of an interrupted run") {
				t.Errorf("the next run did not report removing the leftovers:\n%s", out)
			}
			// The two F1000 articles join the carried-over eLife ones.
			if id := readable(t, data, 16); id == good {
				t.Error("the next run did not switch current")
			}
			if hasTmp(t, data) {
				t.Error("a temporary snapshot is left after the next run")
			}
		})
	}
}

func hasTmp(t *testing.T, data string) bool {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(data, snapshot.SnapshotsDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			return true
		}
	}
	return false
}
