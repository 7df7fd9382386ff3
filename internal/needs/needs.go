// Package needs marks the tests that the inner loop (go test -short)
// leaves out: those that start PostgreSQL, Chromium or Node, or run for
// minutes. The full run (scripts/test.sh, CI) never passes -short, so
// every such test runs there; without -short nothing here skips.
package needs

import "testing"

// Heavy skips tb under -short, saying what it needs ("PostgreSQL",
// "Chromium", "Node and the npm clients", "minutes").
func Heavy(tb testing.TB, what string) {
	tb.Helper()
	if testing.Short() {
		tb.Skipf("-short: needs %s (the full run has it)", what)
	}
}
