package page

import (
	"net/url"
	"testing"
)

// The tools' tests exercise these helpers on real-shaped pages; these pin
// the edge cases each tool relies on.

func TestDecode(t *testing.T) {
	for _, tt := range []struct {
		name, body, contentType, wantText, wantCharset string
	}{
		{"header wins", "<p>caf\xe9</p>", "text/html; charset=iso-8859-1", "<p>café</p>", "windows-1252"},
		{"meta charset", `<meta charset="windows-1252"><p>caf` + "\xe9</p>", "text/html", `<meta charset="windows-1252"><p>café</p>`, "windows-1252"},
		{"valid UTF-8 without label", "<p>café</p>", "text/html", "<p>café</p>", "utf-8"},
		{"invalid UTF-8 without label", "<p>caf\xe9</p>", "text/html", "<p>café</p>", "windows-1252"},
		{"BOM stripped", "\xef\xbb\xbf<p>x</p>", "", "<p>x</p>", "utf-8"},
		{"UTF-16 meta read as UTF-8", `<meta charset="utf-16"><p>x</p>`, "text/html", `<meta charset="utf-16"><p>x</p>`, "utf-8"},
	} {
		got, cs := Decode([]byte(tt.body), tt.contentType)
		if string(got) != tt.wantText || cs != tt.wantCharset {
			t.Errorf("%s: %q %s, want %q %s", tt.name, got, cs, tt.wantText, tt.wantCharset)
		}
	}
}

func TestAbsURLAndBase(t *testing.T) {
	page, _ := url.Parse("https://example.com/dir/page.html")
	for ref, want := range map[string]string{
		"img.png":               "https://example.com/dir/img.png",
		" /a b ":                "https://example.com/a%20b",
		"//cdn.example.org/x":   "https://cdn.example.org/x",
		"javascript:alert(1)":   "",
		"data:image/png;base64": "",
		"":                      "",
	} {
		if got := AbsURL(page, ref); got != want {
			t.Errorf("AbsURL(%q) = %q, want %q", ref, got, want)
		}
	}
	if got := Base(page, "https://static.example.com/base/").String(); got != "https://static.example.com/base/" {
		t.Errorf("Base = %s", got)
	}
	if got := Base(page, "ftp://x/"); got != page {
		t.Errorf("Base accepted a non-http base: %s", got)
	}
}

func TestToText(t *testing.T) {
	in := "<p>One &amp; two</p><script>x()</script><ul><li>a</li><li>b  c</li></ul>"
	if got, want := ToText(in), "One & two\na\nb c"; got != want {
		t.Errorf("ToText = %q, want %q", got, want)
	}
}

func TestCountWords(t *testing.T) {
	for s, want := range map[string]int{
		"":                    0,
		"Hello, world!":       2,
		"don't stop-gap 2026": 3,
		"京都の紅葉":               5,
		"Tokyo 東京 in autumn":  5,
	} {
		if got := CountWords(s); got != want {
			t.Errorf("CountWords(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestClipAndCutBytes(t *testing.T) {
	if got, cut := Clip("héllo world", 5); got != "héllo…" || !cut {
		t.Errorf("Clip = %q %v", got, cut)
	}
	if got, cut := Clip("short", 5); got != "short" || cut {
		t.Errorf("Clip = %q %v", got, cut)
	}
	// "é" is two bytes: a cut inside it backs off to the rune start.
	if got := CutBytes("aé", 2); got != "a" {
		t.Errorf("CutBytes = %q", got)
	}
	if got := CutBytes("abc", 5); got != "abc" {
		t.Errorf("CutBytes = %q", got)
	}
	if got := FirstNonEmpty("", "", "x", "y"); got != "x" {
		t.Errorf("FirstNonEmpty = %q", got)
	}
}
