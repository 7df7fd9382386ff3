package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
)

// TestExplain ingests the PLOS and Crossref fixtures and explains a
// published retraction notice and a rejected Crossref work (issue 13).
func TestExplain(t *testing.T) {
	dir := fixtures.Dir(t)
	data := t.TempDir()
	e, _, errb := testEnv(nil)
	if code := dispatch(context.Background(), e, []string{"ingest", "-data", data, "-progress", "never", "-log-level", "error",
		"-now", "2026-06-01T12:00:00Z", filepath.Join(dir, "jats", "plos"), filepath.Join(dir, "crossref")}); code != exitOK {
		t.Fatalf("ingest: %d %s", code, errb.String())
	}
	for _, tc := range []struct {
		id   string
		want []string
	}{
		{"10.1371/journal.ppat.1005207", []string{"PUBLISHED under Creative Commons Attribution 4.0", "jats-href at front/article-meta[1]/permissions[1]/license[1]/@xlink:href",
			`"http://creativecommons.org/licenses/by/4.0/"`, "CC-BY [CC-BY-4.0]", "journal.ppat.1005207.xml sha256:", "read 2026-06-01T12:00:00Z"}},
		{"doi-d3e8a89c8d2d741db86a", []string{"REJECTED (non-commercial)", "why: non-commercial: CC BY-NC-ND 4.0", "license[1].URL",
			"restriction: non-commercial [CC-BY-NC-ND-4.0], applies to vor, from 2016-10-07", "applies to tdm"}},
	} {
		e, out, errb := testEnv(nil)
		if code := dispatch(context.Background(), e, []string{"explain", "-data", data, tc.id}); code != exitOK {
			t.Fatalf("explain %s: %d %s", tc.id, code, errb.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("explain %s: no %q in\n%s", tc.id, w, out)
			}
		}
	}

	e, _, _ = testEnv(nil)
	if code := dispatch(context.Background(), e, []string{"explain", "-data", data, "-json", "PMC-nope"}); code != exitFailure {
		t.Errorf("unknown id: exit %d", code)
	}
	e, out, _ := testEnv(nil)
	if code := dispatch(context.Background(), e, []string{"explain", "-data", data, "-json", "10.1371/journal.pcbi.0030158"}); code != exitOK {
		t.Fatalf("explain -json: %d", code)
	}
	var x explanation
	if err := json.Unmarshal(out.Bytes(), &x); err != nil || !x.Published || x.License != "CC-BY" || len(x.Evidence) == 0 ||
		x.Evidence[0].InputSHA256 == "" {
		t.Errorf("json: %v %+v", err, x)
	}
}
