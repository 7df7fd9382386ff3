package pipelines

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/licence"
)

func TestFixturesPipeline(t *testing.T) {
	p, err := Load("fixtures.toml")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "fixtures" || len(p.Sources) != 1 || p.Sources[0].Kind != Local {
		t.Fatalf("parsed %+v", p)
	}
	// Relative to the file's directory: pipelines/../../shared/fixtures/*,
	// the corpus directories and not the upstream API samples.
	paths := p.LocalPaths()
	want := fixtures.Corpus(t)
	if len(paths) != len(want) {
		t.Fatalf("LocalPaths = %v, want %v", paths, want)
	}
	for i := range paths {
		got, err := filepath.EvalSymlinks(paths[i])
		if err != nil {
			t.Fatalf("fixtures path %s: %v", paths[i], err)
		}
		w, _ := filepath.EvalSymlinks(want[i])
		if got != w {
			t.Errorf("fixtures.toml path %d resolves to %s, want %s", i, got, w)
		}
	}
	if !slices.Equal(p.AcceptedFamilies(), licence.Families) {
		t.Errorf("AcceptedFamilies = %v", p.AcceptedFamilies())
	}
}

func TestNightlyPipeline(t *testing.T) {
	p, err := Load("nightly.toml")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[SourceKind]string{}
	for _, s := range p.Sources {
		kinds[s.Kind] = s.Name
		if !s.Kind.Remote() || s.Cursor == nil || s.URL == "" {
			t.Errorf("source %s: want a remote source with url and cursor: %+v", s.Name, s)
		}
	}
	for _, k := range []SourceKind{S3Inventory, FileSequence, S3Partitions, RESTCursor} {
		if kinds[k] == "" {
			t.Errorf("no %s source", k)
		}
	}
	if len(p.LocalPaths()) != 0 {
		t.Errorf("nightly has local paths %v", p.LocalPaths())
	}
	if p.Schedule == "" {
		t.Error("nightly has no schedule")
	}
}

func TestParseErrors(t *testing.T) {
	const head = "name = \"t\"\n"
	const local = "[[source]]\nname = \"a\"\nkind = \"local\"\npaths = [\"x\"]\n"
	const remote = "[[source]]\nname = \"r\"\nkind = \"rest-cursor\"\nurl = \"https://api.example.org/works\"\n"
	tests := []struct {
		name, toml, want string
	}{
		{"ok local", head + local, ""},
		{"ok remote", head + remote + "[source.cursor]\nkind = \"index-date\"\nstart = \"2026-01-02\"\noverlap = \"48h\"\n", ""},
		{"syntax", "name = \n", "line 1"},
		{"unknown key", head + "colour = \"red\"\n" + local, "unknown keys colour"},
		{"unknown source key", head + local + "pth = [\"y\"]\n", "source.pth"},
		{"bad name", "name = \"Nightly Run\"\n" + local, "slug"},
		{"no sources", head, "no [[source]]"},
		{"missing kind", head + "[[source]]\nname = \"a\"\n", "kind missing"},
		{"bad kind", head + "[[source]]\nname = \"a\"\nkind = \"ftp\"\n", `kind "ftp"`},
		{"local without paths", head + "[[source]]\nname = \"a\"\nkind = \"local\"\n", "needs paths"},
		{"local with url", head + local + "url = \"https://x.org/\"\n", "not url"},
		{"remote without url", head + "[[source]]\nname = \"r\"\nkind = \"s3-inventory\"\n", "url"},
		{"remote bad url", head + "[[source]]\nname = \"r\"\nkind = \"s3-inventory\"\nurl = \"ftp://x\"\n", "url"},
		{"remote without cursor", head + remote, "cursor"},
		{"wrong cursor kind", head + remote + "[source.cursor]\nkind = \"sequence\"\n", "index-date"},
		{"bad overlap", head + remote + "[source.cursor]\nkind = \"index-date\"\noverlap = \"two days\"\n", "overlap"},
		{"bad start", head + remote + "[source.cursor]\nkind = \"index-date\"\nstart = \"yesterday\"\n", "YYYY-MM-DD"},
		{"duplicate source", head + local + local, "twice"},
		{"bad format", head + local + "format = \"pdf\"\n", "format"},
		{"bad family", "name = \"t\"\nlicences = [\"CC-BY-NC\"]\n" + local, "CC-BY-NC"},
		{"source widens licences", "name = \"t\"\nlicences = [\"CC0\"]\n" + local + "licences = [\"CC-BY\"]\n", "narrow"},
		{"bad schedule", "name = \"t\"\nschedule = \"nightly\"\n" + local, "cron"},
		{"bad glob", head + local + "include = [\"[\"]\n", "glob"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse([]byte(tt.toml), "/etc/openshelf/test.toml")
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if p.Sources[0].Format != "auto" {
					t.Errorf("default format %q", p.Sources[0].Format)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrInvalid mentioning %q", err, tt.want)
			}
			if err != nil && !strings.Contains(err.Error(), "/etc/openshelf/test.toml") {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	p, err := Parse([]byte("name = \"t\"\n[[source]]\nname = \"a\"\nkind = \"local\"\npaths = [\"in\", \"/abs/x\"]\n[[source]]\nname = \"b\"\nkind = \"local\"\nenabled = false\npaths = [\"off\"]\n"), "/srv/p/t.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.FromSlash("/srv/p/in"), filepath.FromSlash("/abs/x")}
	if got := p.LocalPaths(); !slices.Equal(got, want) {
		t.Errorf("LocalPaths = %v, want %v (disabled sources excluded)", got, want)
	}
}

func TestLoadMissing(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "none.toml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v", err)
	}
}
