package crossref

import (
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/pipelines"
)

func TestFromDate(t *testing.T) {
	now := time.Date(2026, 11, 25, 3, 30, 0, 0, time.UTC)
	tests := []struct {
		name   string
		cursor *pipelines.Cursor
		st     state
		want   string
	}{
		{"first run from start", &pipelines.Cursor{Start: "2026-01-01", Overlap: "48h"}, state{}, "2026-01-01"},
		{"last run minus overlap", &pipelines.Cursor{Start: "2026-01-01", Overlap: "48h"}, state{LastRun: "2026-11-24"}, "2026-11-22"},
		{"no overlap", &pipelines.Cursor{}, state{LastRun: "2026-11-24"}, "2026-11-24"},
		{"nothing: today minus overlap", &pipelines.Cursor{Overlap: "24h"}, state{}, "2026-11-24"},
	}
	for _, tc := range tests {
		env := &remote.Env{Source: pipelines.Source{Cursor: tc.cursor}, Now: now}
		got, err := fromDate(env, tc.st)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}
