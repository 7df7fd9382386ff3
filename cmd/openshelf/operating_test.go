package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the flag tables of docs/operating.md")

// docFlag is one flag as `openshelf CMD -h` prints it.
type docFlag struct {
	name, arg, env, def, usage string
}

// helpFlags runs `openshelf <args> -h` and reads back the flags it prints
// (flagUsage's format: "  -name arg  [ENV]" then "    \tusage (default "x")").
func helpFlags(t *testing.T, args ...string) []docFlag {
	t.Helper()
	e, _, errb := testEnv(nil)
	if code := dispatch(context.Background(), e, append(args, "-h")); code != exitOK {
		t.Fatalf("openshelf %s -h: exit %d: %s", strings.Join(args, " "), code, errb)
	}
	var flags []docFlag
	sc := bufio.NewScanner(errb)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "  -"):
			head, env, _ := strings.Cut(strings.TrimPrefix(line, "  -"), "  [")
			name, arg, _ := strings.Cut(strings.TrimSpace(head), " ")
			flags = append(flags, docFlag{name: name, arg: arg, env: strings.TrimSuffix(env, "]")})
		case strings.HasPrefix(line, "    \t") && len(flags) > 0:
			f := &flags[len(flags)-1]
			text := strings.TrimPrefix(line, "    \t")
			if i := strings.LastIndex(text, " (default "); i >= 0 && strings.HasSuffix(text, ")") {
				f.def = strings.Trim(text[i+len(" (default "):len(text)-1], `"`)
				text = text[:i]
			}
			f.usage = strings.TrimSpace(f.usage + " " + text)
		}
	}
	if len(flags) == 0 {
		t.Fatalf("openshelf %s -h printed no flags: %s", strings.Join(args, " "), errb)
	}
	return flags
}

// flagTable renders one command's flags as the Markdown table of
// docs/operating.md.
func flagTable(flags []docFlag) string {
	var b strings.Builder
	b.WriteString("| flag | environment | default | meaning |\n|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, f := range flags {
		name := "`-" + f.name
		if f.arg != "" {
			name += " " + f.arg
		}
		def := ""
		if f.def != "" {
			def = "`" + f.def + "`"
		}
		fmt.Fprintf(&b, "| %s` | `%s` | %s | %s |\n", name, f.env, cell(def), cell(f.usage))
	}
	return b.String()
}

// TestOperatingFlags keeps the flag tables of docs/operating.md equal to
// the commands' flag sets: each table sits between
// <!-- flags:COMMAND --> and <!-- /flags --> and is rewritten by
// go test -run TestOperatingFlags -update.
func TestOperatingFlags(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "operating.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	for n := range benchModes {
		names = append(names, "bench "+n)
	}
	slices.Sort(names)
	out := doc
	for _, name := range names {
		open := []byte("<!-- flags:" + name + " -->\n")
		start := bytes.Index(out, open)
		if start < 0 {
			t.Errorf("docs/operating.md has no flag table for `openshelf %s` (add %q and run with -update)", name, strings.TrimSpace(string(open)))
			continue
		}
		start += len(open)
		end := bytes.Index(out[start:], []byte("<!-- /flags -->"))
		if end < 0 {
			t.Fatalf("docs/operating.md: the table of %s is not closed by <!-- /flags -->", name)
		}
		table := flagTable(helpFlags(t, strings.Fields(name)...))
		out = slices.Concat(out[:start], []byte(table), out[start+end:])
	}
	if bytes.Equal(out, doc) {
		return
	}
	if *update {
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/operating.md's flag tables differ from the commands' flags; run go test ./cmd/openshelf -run TestOperatingFlags -update and read the diff")
}
