package archdoc

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the package graph of docs/architecture.md")

const (
	module = "github.com/openshelf/openshelf/"
	doc    = "../../docs/architecture.md"
	begin  = "<!-- imports -->\n"
	end    = "<!-- /imports -->"
)

// imports lists, for every package of the module, the module's packages
// it imports (test files left out), as `go list` reports them.
func imports(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var b strings.Builder
	b.WriteString("```\n")
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		var own []string
		for _, imp := range f[1:] {
			if p, ok := strings.CutPrefix(imp, module); ok {
				own = append(own, p)
			}
		}
		slices.Sort(own)
		arrow := "(imports none of the module's packages)"
		if len(own) > 0 {
			arrow = "→ " + strings.Join(own, ", ")
		}
		fmt.Fprintf(&b, "%-32s %s\n", strings.TrimPrefix(f[0], module), arrow)
	}
	b.WriteString("```\n")
	return b.String()
}

// TestPackageGraph compares the graph between <!-- imports --> and
// <!-- /imports --> in docs/architecture.md with the real imports;
// go test ./internal/archdoc -update rewrites it.
func TestPackageGraph(t *testing.T) {
	text, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(text, []byte(begin))
	j := bytes.Index(text, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q block", doc, strings.TrimSpace(begin), end)
	}
	i += len(begin)
	want := imports(t)
	if string(text[i:j]) == want {
		return
	}
	if *update {
		if err := os.WriteFile(doc, slices.Concat(text[:i], []byte(want), text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the package graph of docs/architecture.md differs from the imports; run go test ./internal/archdoc -update and read the diff:\n%s", want)
}
