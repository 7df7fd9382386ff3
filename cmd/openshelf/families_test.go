package main

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/serve"
)

// TestServeFamilyFlags checks that openshelf serve offers every flag of
// every tool family as the family registers it: same name, argument,
// environment variable, help text and default.
func TestServeFamilyFlags(t *testing.T) {
	e, _, errb := testEnv(nil)
	if code := dispatch(context.Background(), e, []string{"serve", "-h"}); code != exitOK {
		t.Fatalf("openshelf serve -h: exit %d: %s", code, errb)
	}
	help := errb.String()
	for _, f := range serve.Families() {
		fs := flag.NewFlagSet(f.Name(), flag.ContinueOnError)
		f.RegisterFlags(fs)
		var b bytes.Buffer
		flagUsage(fs, &b, "")()
		// Each flag prints two lines: "  -name arg  [ENV]" and its help
		// with the default.
		lines := strings.SplitAfter(b.String(), "\n")
		n := 0
		for i := range lines {
			if !strings.HasPrefix(lines[i], "  -") || i+1 >= len(lines) {
				continue
			}
			n++
			if want := lines[i] + lines[i+1]; !strings.Contains(help, want) {
				t.Errorf("openshelf serve -h lacks the %s family's flag as it registers it:\n%s", f.Name(), want)
			}
		}
		count := 0
		fs.VisitAll(func(*flag.Flag) { count++ })
		if n != count {
			t.Errorf("%s family: read %d flags from its usage, it registers %d", f.Name(), n, count)
		}
	}
}
