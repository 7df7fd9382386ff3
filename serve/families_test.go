package serve

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFamilies keeps the list of Families complete: every package directly
// under serve/tools is a family of the list, once, under its directory's
// name, and its page docs/tools-NAME.md names every flag it registers.
func TestFamilies(t *testing.T) {
	entries, err := os.ReadDir("tools")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && hasGoFiles(t, filepath.Join("tools", e.Name())) {
			dirs = append(dirs, e.Name())
		}
	}
	var names []string
	for _, f := range Families() {
		name := f.Name()
		if slices.Contains(names, name) {
			t.Errorf("family %q is in Families twice", name)
		}
		names = append(names, name)
		const module = "github.com/openshelf/openshelf/serve/tools/"
		if pkg := reflect.TypeOf(f).Elem().PkgPath(); pkg != module+name {
			t.Errorf("family %q is declared in %s, want %s", name, pkg, module+name)
		}
		page, err := os.ReadFile(filepath.Join("..", "docs", "tools-"+name+".md"))
		if err != nil {
			t.Errorf("family %q has no page: %v", name, err)
			continue
		}
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		f.RegisterFlags(fs)
		fs.VisitAll(func(fl *flag.Flag) {
			// -name or --name, in code: `-name`, `--name FILE`.
			named := regexp.MustCompile("`--?" + regexp.QuoteMeta(fl.Name) + "[` ]")
			if !named.Match(page) {
				t.Errorf("docs/tools-%s.md does not name its flag -%s", name, fl.Name)
			}
		})
	}
	slices.Sort(names)
	if !slices.Equal(names, dirs) {
		t.Errorf("Families() = %v, packages under serve/tools = %v: add the missing family to Families", names, dirs)
	}
}

// hasGoFiles reports whether dir holds a Go package (a non-test file).
func hasGoFiles(t *testing.T, dir string) bool {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(m, func(p string) bool { return !strings.HasSuffix(p, "_test.go") })
}

// TestConfigUse replaces a family by name and keeps the others in order.
func TestConfigUse(t *testing.T) {
	var c Config
	all := Families()
	repl := Families()[2]
	c.Use(repl)
	if len(c.Families) != len(all) {
		t.Fatalf("Use kept %d families, want %d", len(c.Families), len(all))
	}
	for i, f := range c.Families {
		if f.Name() != all[i].Name() {
			t.Errorf("family %d is %q, want %q", i, f.Name(), all[i].Name())
		}
	}
	if c.Families[2] != repl {
		t.Errorf("Use did not put the given family in place of %q", repl.Name())
	}
}
