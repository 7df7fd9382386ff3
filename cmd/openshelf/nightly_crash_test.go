package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/openshelf/openshelf/ingest/remote/nightly"
	"github.com/openshelf/openshelf/internal/fixtures"
	fake "github.com/openshelf/openshelf/internal/upstreamfake"
	"github.com/openshelf/openshelf/snapshot"
)

// TestNightlyKilled runs the real binary on a pipeline of the four remote
// sources (a local fake upstream replaying the real formats) and kills it
// with SIGKILL mid-download, mid-publish (the build writing the snapshot)
// and just after publishing (before the commit). The next run must resume
// without fetching again what the killed one had, and the night must end
// with exactly one published snapshot.
func TestNightlyKilled(t *testing.T) {
	bin := openshelfBinary(t)
	fix := fixtures.Dir(t)
	for _, tc := range []struct {
		name string
		hold string // OPENSHELF_NIGHTLY_HOLD
		// hang is the download left half-done when the process is killed.
		hang string
	}{
		{name: "download", hang: "/pubmed/updatefiles/pubmed26n1001.xml.gz"},
		{name: "publish", hold: "publish"},
		{name: "published", hold: "published"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake.New()
			defer srv.Close()
			defer srv.Release()
			if err := srv.Night1(fix); err != nil {
				t.Fatal(err)
			}
			pipeline, err := srv.WritePipeline(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			data := filepath.Join(t.TempDir(), "data")
			ingest := func(hold string) *exec.Cmd {
				c := exec.Command(bin, "ingest", "-data", data, "-pipeline", pipeline, "-progress", "never",
					"-now", fake.Night1Now, "-json", "-retries", "2")
				c.Env = append(os.Environ(), "OPENSHELF_DATA=", "OPENSHELF_NIGHTLY_HOLD="+hold)
				return c
			}
			if tc.hang != "" {
				srv.Hang(tc.hang)
			}
			killed := ingest(tc.hold)
			stderr, err := killed.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := killed.Start(); err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			lines := make(chan string)
			go func() {
				sc := bufio.NewScanner(io.TeeReader(stderr, &log))
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			// Wait for the moment to kill: the hold, or the four other
			// sources fetched and the hung download half-way.
			fetched, hung, holding := 0, false, false
			ready := func() bool {
				if tc.hold != "" {
					return holding
				}
				return hung && fetched == 4
			}
			for !ready() {
				select {
				case l, ok := <-lines:
					if !ok {
						killed.Wait()
						t.Fatalf("the run ended before the kill point:\n%s", log.String())
					}
					fetched += strings.Count(l, `"msg":"nightly: source fetched"`)
					holding = holding || strings.Contains(l, "holding for a test")
				case <-srv.Hung:
					hung = true
				}
			}
			killed.Process.Signal(syscall.SIGKILL)
			go func() {
				for range lines {
				}
			}()
			err = killed.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("not killed by SIGKILL (%v):\n%s", err, log.String())
			}
			srv.Release()

			published := ""
			if tc.hold == "published" {
				if published, err = snapshot.Current(data); err != nil {
					t.Fatalf("killed after publishing, but no current snapshot: %v", err)
				}
			} else if _, err := snapshot.Current(data); err == nil {
				t.Fatal("the killed run published a snapshot")
			}

			// What the killed run had finished must not be fetched again.
			before := dataHits(srv)
			out, err := ingest("").Output()
			if err != nil {
				t.Fatalf("resumed run: %v\n%s", err, out)
			}
			var sum nightly.Summary
			if err := json.Unmarshal(out, &sum); err != nil {
				t.Fatalf("summary: %v\n%s", err, out)
			}
			after := dataHits(srv)
			for p, n := range after {
				if p == tc.hang {
					if n != before[p]+1 {
						t.Errorf("%s: fetched %d times by the resumed run, want once", p, n-before[p])
					}
					// It continues where the killed run stopped.
					rs := srv.Ranges(p)
					if last := rs[len(rs)-1]; !strings.HasPrefix(last, "bytes=") || last == "bytes=0-" {
						t.Errorf("%s: resumed with Range %q, want the bytes after the half on disk", p, last)
					}
					continue
				}
				if n != before[p] {
					t.Errorf("%s fetched again by the resumed run", p)
				}
			}
			if tc.hold != "" && !sum.Resumed {
				t.Error("the run after a kill in the publish phase did not say it resumed")
			}

			// Exactly one snapshot, current, and the sources committed.
			ents, err := os.ReadDir(filepath.Join(data, snapshot.SnapshotsDir))
			if err != nil {
				t.Fatal(err)
			}
			var snaps []string
			for _, e := range ents {
				if snapshot.ValidID(e.Name()) {
					snaps = append(snaps, e.Name())
				}
			}
			cur, err := snapshot.Current(data)
			if err != nil || len(snaps) != 1 || snaps[0] != cur || (published != "" && cur != published) {
				t.Errorf("snapshots %v, current %s (%v), published before the kill %q: want exactly one", snaps, cur, err, published)
			}
			for _, dir := range []string{"pmc-oa-inventory", "pubmed-baseline", "pubmed-updatefiles", "openalex-works", "crossref-works"} {
				d := filepath.Join(data, nightly.StateDir, dir)
				if _, err := os.Stat(filepath.Join(d, "state.json")); err != nil {
					t.Errorf("%s not committed: %v", dir, err)
				}
				if _, err := os.Stat(filepath.Join(d, "commit.json")); err == nil {
					t.Errorf("%s: staged commit.json left behind", dir)
				}
			}
			if _, err := os.Stat(filepath.Join(data, nightly.StateDir, "run.json")); err == nil {
				t.Error("run.json left behind")
			}
			// The PMC checkpoint's files are the ones its state names,
			// none left by the killed run.
			pmc := filepath.Join(data, nightly.StateDir, "pmc-oa-inventory")
			var st struct {
				Keys     string `json:"keys"`
				Articles string `json:"articles_file"`
				Live     string `json:"live"`
			}
			b, err := os.ReadFile(filepath.Join(pmc, "state.json"))
			if err == nil {
				err = json.Unmarshal(b, &st)
			}
			if err != nil || st.Keys == "" || st.Articles == "" || st.Live == "" {
				t.Fatalf("pmc-oa state %+v (%v): want its keys, articles and live files named", st, err)
			}
			for _, pattern := range []string{"keys-*", "articles-*", "live-*"} {
				files, _ := filepath.Glob(filepath.Join(pmc, pattern))
				if len(files) != 1 || !slices.Contains([]string{st.Keys, st.Articles, st.Live}, filepath.Base(files[0])) {
					t.Errorf("pmc-oa %s files %v, want only the one state.json names", pattern, files)
				}
			}
		})
	}
}

// dataHits counts the requests for the data files (articles, metadata,
// update files, parts, API pages), not listings and manifests that every
// run reads again.
func dataHits(srv *fake.Server) map[string]int {
	m := map[string]int{}
	for _, p := range []string{
		"/pmc/PMC5828200.1/PMC5828200.1.xml", "/pmc/PMC6398430.1/PMC6398430.1.xml",
		"/pmc/metadata/PMC5828200.1.json", "/pmc/metadata/PMC6398430.1.json",
		"/pubmed/updatefiles/pubmed26n1001.xml.gz",
		fake.OpenAlexNight1Part,
	} {
		m[p] = srv.Hits(p)
	}
	m["/crossref/"] = srv.HitsPrefix("/crossref/")
	return m
}

// TestNightlyKilledDuringDelta kills the second night, a delta build, while
// it publishes and just after. The previous snapshot stays current until
// the resumed run publishes, which then publishes the same documents as a
// night that was never killed.
func TestNightlyKilledDuringDelta(t *testing.T) {
	bin := openshelfBinary(t)
	fix := fixtures.Dir(t)
	for _, hold := range []string{"publish", "published"} {
		t.Run(hold, func(t *testing.T) {
			srv := fake.New()
			defer srv.Close()
			if err := srv.Night1(fix); err != nil {
				t.Fatal(err)
			}
			pipeline, err := srv.WritePipeline(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			killedData, cleanData := filepath.Join(t.TempDir(), "data"), filepath.Join(t.TempDir(), "data")
			ingest := func(data, now, hold string) *exec.Cmd {
				c := exec.Command(bin, "ingest", "-data", data, "-pipeline", pipeline, "-progress", "never",
					"-now", now, "-json", "-retries", "2")
				c.Env = append(os.Environ(), "OPENSHELF_DATA=", "OPENSHELF_NIGHTLY_HOLD="+hold)
				return c
			}
			for _, data := range []string{killedData, cleanData} {
				if out, err := ingest(data, fake.Night1Now, "").CombinedOutput(); err != nil {
					t.Fatalf("night 1: %v\n%s", err, out)
				}
			}
			night1, err := snapshot.Current(killedData)
			if err != nil {
				t.Fatal(err)
			}
			if err := srv.Night2(fix); err != nil {
				t.Fatal(err)
			}
			if out, err := ingest(cleanData, fake.Night2Now, "").CombinedOutput(); err != nil {
				t.Fatalf("night 2: %v\n%s", err, out)
			}

			killed := ingest(killedData, fake.Night2Now, hold)
			stderr, err := killed.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := killed.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stderr)
			for sc.Scan() && !strings.Contains(sc.Text(), "holding for a test") {
			}
			killed.Process.Signal(syscall.SIGKILL)
			go io.Copy(io.Discard, stderr)
			killed.Wait()
			cur, err := snapshot.Current(killedData)
			if err != nil {
				t.Fatal(err)
			}
			if hold == "publish" && cur != night1 {
				t.Fatalf("killed while publishing: current is %s, want night 1's %s", cur, night1)
			}
			if out, err := ingest(killedData, fake.Night2Now, "").CombinedOutput(); err != nil {
				t.Fatalf("resumed night 2: %v\n%s", err, out)
			}
			got, want := openSnapshot(t, killedData), openSnapshot(t, cleanData)
			if !got.Segmented() {
				t.Fatal("night 2 was not a delta build")
			}
			if got.Manifest.Counts.Accepted != want.Manifest.Counts.Accepted || len(got.Manifest.Segments) != len(want.Manifest.Segments) {
				t.Errorf("resumed night 2: %d documents in %d segments, the night never killed %d in %d",
					got.Manifest.Counts.Accepted, len(got.Manifest.Segments), want.Manifest.Counts.Accepted, len(want.Manifest.Segments))
			}
		})
	}
}

func openSnapshot(t *testing.T, data string) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
