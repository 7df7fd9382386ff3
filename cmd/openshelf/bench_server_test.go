package main

import (
	"context"
	"strings"
	"testing"
)

// TestBenchUsage: the read-server benchmark rejects bad flags before it
// builds or starts anything.
func TestBenchUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "-n", "0", "-dir", t.TempDir()}, "N must be positive"},
		{[]string{"bench", "-dir", t.TempDir(), "stray"}, "unexpected arguments"},
		{[]string{"bench", "-duration", "soon"}, "invalid value"},
		{[]string{"bench", "-log-level", "loud"}, "-log-level"},
	} {
		e, _, errb := testEnv(nil)
		if code := dispatch(context.Background(), e, tt.args); code != exitUsage || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tt.args, code, errb.String(), exitUsage, tt.want)
		}
	}
	e, _, errb := testEnv(nil)
	if code := dispatch(context.Background(), e, []string{"bench", "-h"}); code != exitOK || !strings.Contains(errb.String(), "OPENSHELF_CONCURRENCY") {
		t.Errorf("bench -h: %d %q", code, errb.String())
	}
}
