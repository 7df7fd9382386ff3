package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
	fake "github.com/openshelf/openshelf/internal/upstreamfake"
)

// TestIngestNightlyOutput: on a terminal the run draws one progress line
// per source; otherwise every stderr line is a JSON log record. Both end
// with the per-source summary on stdout.
func TestIngestNightlyOutput(t *testing.T) {
	fix := fixtures.Dir(t)
	for _, tty := range []bool{true, false} {
		srv := fake.New()
		defer srv.Close()
		if err := srv.Night1(fix); err != nil {
			t.Fatal(err)
		}
		pipeline, err := srv.WritePipeline(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		e, out, errb := testEnv(nil)
		e.stderrTTY = tty
		code := runIngest(context.Background(), e, []string{"-data", filepath.Join(t.TempDir(), "data"),
			"-pipeline", pipeline, "-now", fake.Night1Now, "-retries", "1"})
		if code != exitOK {
			t.Fatalf("tty %v: exit %d\n%s\n%s", tty, code, out, errb)
		}
		if !strings.Contains(out.String(), "nightly nightly-test: ok") || !strings.Contains(out.String(), "rejected before download") {
			t.Errorf("tty %v: summary:\n%s", tty, out)
		}
		if tty {
			for _, want := range []string{"pmc-oa", "crossref-works", "files", "MB/s", "done", "\x1b[2K"} {
				if !strings.Contains(errb.String(), want) {
					t.Errorf("terminal display lacks %q:\n%s", want, errb)
				}
			}
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(errb.Bytes()))
		n := 0
		for sc.Scan() {
			var rec map[string]any
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil || rec["msg"] == nil {
				t.Errorf("not a JSON log line: %s", sc.Text())
			}
			n++
		}
		if n == 0 || !strings.Contains(errb.String(), `"msg":"nightly: published"`) {
			t.Errorf("JSON logs (%d lines):\n%s", n, errb)
		}
	}
}
