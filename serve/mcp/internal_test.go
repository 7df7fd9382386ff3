package mcp

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
)

func TestNormOrigin(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"https://openshelf.example", "https://openshelf.example", true},
		{"HTTPS://OpenShelf.Example:443", "https://openshelf.example", true},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", true},
		{"http://example.com:80/", "http://example.com", true},
		{"http://[::1]:3000", "http://[::1]:3000", true},
		{"null", "", false},
		{"", "", false},
		{"file:///etc", "", false},
		{"https://a.example/path", "", false},
		{"https://user@a.example", "", false},
		{"https://a.example?x=1", "", false},
	}
	for _, tt := range tests {
		got, ok := normOrigin(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("normOrigin(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestAccepts(t *testing.T) {
	tests := []struct {
		in        string
		json, sse bool
	}{
		{"application/json, text/event-stream", true, true},
		{"text/event-stream;q=0.9,application/json", true, true},
		{"*/*", true, true},
		{"application/*", true, false},
		{"Application/JSON", true, false},
		{"text/*", false, true},
		{"application/json;q=0", false, false},
		{"application/json; q=0.0, */*;q=0", false, false},
		{"application/json;charset=utf-8;q=0.5", true, false},
		{"", false, false},
		{"text/html", false, false},
	}
	for _, tt := range tests {
		j, s := accepts([]string{tt.in})
		if j != tt.json || s != tt.sse {
			t.Errorf("accepts(%q) = %v, %v; want %v, %v", tt.in, j, s, tt.json, tt.sse)
		}
	}
}

func TestRenderCuts(t *testing.T) {
	// Three-byte runes: a cut at the limit always lands inside one unless
	// it is moved back.
	value := map[string]string{"s": strings.Repeat("✓", 2000)}
	res := func() *registry.Result { return &registry.Result{Value: value} }
	whole, err := render(res(), nil, 1<<20)
	if err != nil || whole.page != nil || whole.structured == nil {
		t.Fatalf("whole: %+v, %v", whole, err)
	}
	var joined strings.Builder
	var cur *cursor
	for i := 0; ; i++ {
		p, err := render(res(), cur, 1024)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(p.text) || len(p.text) > 1024 || p.structured != nil {
			t.Fatalf("part %d: %d bytes, valid %v", i, len(p.text), utf8.ValidString(p.text))
		}
		joined.WriteString(p.text)
		if p.page.NextCursor == "" {
			break
		}
		if cur, err = parseCursor(p.page.NextCursor); err != nil {
			t.Fatal(err)
		}
	}
	if joined.String() != whole.text {
		t.Error("parts do not join to the whole")
	}
	// An offset inside a rune is refused even with the right digest.
	bad := &cursor{offset: 8, sum: digest(whole.text)}
	if _, err := render(res(), bad, 1024); !errors.Is(err, apierr.ErrInvalidInput) {
		t.Errorf("mid-rune cursor: %v", err)
	}
}

func TestRenderBodies(t *testing.T) {
	tests := []struct {
		ct, body, want string
		object, fails  bool
	}{
		{"application/json", "{ \"a\" : 1 }\n", `{"a":1}`, true, false},
		{"application/json", "[1, 2]", `[1,2]`, false, false},
		{"text/markdown; charset=utf-8", "# T\n", "# T\n", false, false},
		{"application/x-ndjson", "{}\n{}\n", "{}\n{}\n", false, false},
		{"application/pdf", "%PDF", "", false, true},
		{"text/plain", "\xff\xfe", "", false, true},
	}
	for _, tt := range tests {
		p, err := render(&registry.Result{Body: nopCloser{strings.NewReader(tt.body)}, ContentType: tt.ct}, nil, 1<<20)
		if tt.fails {
			if err == nil {
				t.Errorf("%s: no error", tt.ct)
			}
			continue
		}
		if err != nil || p.text != tt.want || (p.structured != nil) != tt.object {
			t.Errorf("%s: %+v, %v", tt.ct, p, err)
		}
	}
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }

func TestCursorRoundTrip(t *testing.T) {
	c := cursor{offset: 65536, sum: "0123456789abcdef"}
	got, err := parseCursor(c.String())
	if err != nil || *got != c {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for _, s := range []string{"", "abc", c.String() + "x", strings.Repeat("A", 300),
		cursor{offset: 0, sum: c.sum}.String(), cursor{offset: 5, sum: "XYZ"}.String()} {
		if _, err := parseCursor(s); err == nil {
			t.Errorf("parseCursor(%q) accepted", s)
		}
	}
}

// FuzzParseCursor: a client-supplied cursor never panics, and what parses
// prints back to itself.
func FuzzParseCursor(f *testing.F) {
	f.Add(cursor{offset: 1024, sum: "0123456789abcdef"}.String())
	f.Add("djE6MTA6MDEyMzQ1Njc4OWFiY2RlZg")
	f.Add("")
	f.Add("%%%")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseCursor(s)
		if err != nil {
			if ae, ok := errors.AsType[*apierr.Error](err); !ok || ae.Field != CursorArgument {
				t.Fatalf("error %v does not name the cursor", err)
			}
			return
		}
		if c.offset <= 0 || len(c.sum) != 16 {
			t.Fatalf("parsed %+v", c)
		}
		if c.String() != s {
			t.Fatalf("%q parsed to %+v which prints %q", s, c, c.String())
		}
	})
}

// FuzzAccepts: any Accept header is parsed without panicking, and a header
// listing application/json first is always accepted.
func FuzzAccepts(f *testing.F) {
	for _, s := range []string{"application/json, text/event-stream", "*/*;q=0", ";;;=,", "text/*;q=abc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		accepts([]string{s})
		h := http.Header{}
		h.Add("Accept", "application/json")
		h.Add("Accept", s)
		if j, _ := accepts(h.Values("Accept")); !j {
			t.Fatalf("application/json plus %q is not accepted", s)
		}
	})
}
