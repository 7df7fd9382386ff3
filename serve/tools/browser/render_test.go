package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// sampleMarkdown exercises what the DOCX writer and the PDF must keep.
const sampleMarkdown = `# Annual Report

Some *italic*, **bold**, ~~struck~~ and ` + "`code`" + ` text with a [link to Example](https://example.com/page).

## Results Table

| Name  | Qty | Price |
|-------|----:|------:|
| Apple | 3   | 1.20  |
| Pear  | 5   | 0.80  |

### Lists

- first bullet
- second bullet
  - nested bullet

1. one
2. two

> quoted text

` + "```go\nfunc main() {}\n```" + `

![remote image](https://images.example.com/x.png)
`

// download fetches a render through the store's download handler.
func download(t *testing.T, tools *Tools, link string) (*http.Response, []byte) {
	t.Helper()
	i := strings.Index(link, renderPath+"/")
	if i < 0 {
		t.Fatalf("link %q has no %s/", link, renderPath)
	}
	rec := httptest.NewRecorder()
	tools.store.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, link[i:], nil))
	res := rec.Result()
	return res, rec.Body.Bytes()
}

func writeTemp(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

func TestRenderDOCXReadBackByPandoc(t *testing.T) {
	t.Parallel()
	out, err := shared.Render(ctx(t), RenderInput{Markdown: sampleMarkdown, Format: "docx", Title: "Report", PageSize: "Letter", Filename: "report.docx"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Filename != "report.docx" || !strings.HasPrefix(out.URL, "https://api.openshelf.test/v1/render-doc/") {
		t.Fatalf("filename %q url %q", out.Filename, out.URL)
	}
	res, body := download(t, shared, out.URL)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != renderTypes["docx"] {
		t.Fatalf("download: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if !strings.Contains(res.Header.Get("Content-Disposition"), `filename="report.docx"`) {
		t.Errorf("disposition %q", res.Header.Get("Content-Disposition"))
	}
	md := run(t, "pandoc", "-f", "docx", "-t", "gfm", "--wrap=none", writeTemp(t, "r.docx", body))
	for _, want := range []string{
		"# Annual Report", "## Results Table", "### Lists",
		"*italic*", "**bold**", "~~struck~~", "`code`",
		"[link to Example](https://example.com/page)",
		"| Apple", "| Pear", "1.20", "0.80",
		"-   first bullet", "    -   nested bullet", "1.  one", "2.  two",
		"> quoted text", "func main() {}", "remote image",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("pandoc output lacks %q:\n%s", want, md)
		}
	}
	// The table has a header row and three columns.
	if !regexpMatch(`(?m)^\| Name +\| +Qty \| +Price \|$`, md) {
		t.Errorf("table header not read back:\n%s", md)
	}
	// Letter in twips, read from the XML pandoc saw.
	if xml := run(t, "unzip", "-p", writeTemp(t, "r2.docx", body), "word/document.xml"); !strings.Contains(xml, `<w:pgSz w:w="12240" w:h="15840"/>`) {
		t.Errorf("page size not Letter")
	}
}

func TestRenderDOCXImage(t *testing.T) {
	t.Parallel()
	img := image.NewRGBA(image.Rect(0, 0, 40, 20))
	for x := range 40 {
		for y := range 20 {
			img.Set(x, y, color.RGBA{0, 128, 0, 255})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	mdText := "Logo: ![green box](data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes()) + ")\n"
	out, err := shared.Render(ctx(t), RenderInput{Markdown: mdText, Format: "docx"})
	if err != nil {
		t.Fatal(err)
	}
	_, body := download(t, shared, out.URL)
	dir := t.TempDir()
	run(t, "pandoc", "-f", "docx", "-t", "gfm", "--extract-media="+dir, writeTemp(t, "i.docx", body))
	files, _ := filepath.Glob(filepath.Join(dir, "media", "*"))
	if len(files) != 1 {
		t.Fatalf("media extracted: %v", files)
	}
	got, _ := os.ReadFile(files[0])
	if !bytes.Equal(got, b.Bytes()) {
		t.Errorf("embedded image differs")
	}
}

func TestRenderPDFReadBack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		size string
		w, h string // points, as pdfinfo prints them
	}{
		{"A4", "595.92", "841.92"},
		{"Letter", "612", "792"},
		{"Legal", "612", "1008"},
	} {
		t.Run(tc.size, func(t *testing.T) {
			out, err := shared.Render(ctx(t), RenderInput{Markdown: sampleMarkdown, Title: "Quarterly", PageSize: tc.size,
				CSS: `body{font-size:11pt} @import url("http://127.0.0.1:1/x.css"); h1{background:url(http://127.0.0.1:1/bg.png)}`})
			if err != nil {
				t.Fatal(err)
			}
			if out.Format != "pdf" || out.Filename != "document.pdf" || out.Pages < 1 {
				t.Fatalf("%+v", out)
			}
			res, body := download(t, shared, out.URL)
			if res.StatusCode != 200 || !bytes.HasPrefix(body, []byte("%PDF-")) {
				t.Fatalf("download %d %q", res.StatusCode, body[:min(8, len(body))])
			}
			p := writeTemp(t, "r.pdf", body)
			text := run(t, "pdftotext", "-layout", p, "-")
			for _, want := range []string{"Annual Report", "Results Table", "Apple", "Pear", "1.20", "link to Example", "nested bullet", "func main() {}"} {
				if !strings.Contains(text, want) {
					t.Errorf("pdftotext lacks %q:\n%s", want, text)
				}
			}
			info := run(t, "pdfinfo", p)
			if !regexpMatch(`Page size:\s+`+regexp.QuoteMeta(tc.w+" x "+tc.h)+" pts", info) {
				t.Errorf("pdfinfo:\n%s", info)
			}
			if !regexpMatch(`Title:\s+Quarterly`, info) {
				t.Errorf("title missing:\n%s", info)
			}
			// The link survives as a URI annotation.
			if !bytes.Contains(body, []byte("https://example.com/page")) {
				t.Errorf("link annotation missing")
			}
		})
	}
}

func TestRenderHTML(t *testing.T) {
	t.Parallel()
	out, err := shared.Render(ctx(t), RenderInput{Markdown: "# Hi\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))\n", Format: "html",
		Title: "T <1>", CSS: "h1{color:red}</style><script>bad()</script>"})
	if err != nil {
		t.Fatal(err)
	}
	res, body := download(t, shared, out.URL)
	s := string(body)
	if res.Header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(res.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("headers %v", res.Header)
	}
	if strings.Contains(s, "<script>") || strings.Contains(s, "javascript:") {
		t.Errorf("raw HTML or a script URL passed through:\n%s", s)
	}
	if !strings.Contains(s, "<h1>Hi</h1>") || !strings.Contains(s, "<title>T &lt;1&gt;</title>") || !strings.Contains(s, "h1{color:red}") {
		t.Errorf("html:\n%s", s)
	}
}

// TestRenderLinkExpires checks the 24-hour lifetime with an injected clock:
// the link works just before, is refused just after, and the sweeper
// deletes the files.
func TestRenderLinkExpires(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	dir := t.TempDir()
	tools := newTestTools(dir, Config{Now: clock})
	defer tools.Close()
	out, err := tools.Render(context.Background(), RenderInput{Markdown: "# x", Format: "html"})
	if err != nil {
		t.Fatal(err)
	}
	if !out.ExpiresAt.Equal(now.Add(24 * time.Hour)) {
		t.Errorf("expires %v", out.ExpiresAt)
	}
	now = now.Add(24*time.Hour - time.Second)
	if res, _ := download(t, tools, out.URL); res.StatusCode != 200 {
		t.Fatalf("before expiry: %d", res.StatusCode)
	}
	if n := tools.store.sweep(); n != 0 {
		t.Fatalf("swept %d live renders", n)
	}
	now = now.Add(time.Second)
	res, body := download(t, tools, out.URL)
	if res.StatusCode != 404 || !strings.Contains(string(body), "render_not_found") {
		t.Fatalf("after expiry: %d %s", res.StatusCode, body)
	}
	if n := tools.store.sweep(); n != 1 {
		t.Fatalf("swept %d, want 1", n)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("files left: %v", files)
	}
	// A malformed or unknown token is the same 404.
	for _, p := range []string{"/v1/render-doc/x", "/v1/render-doc/" + strings.Repeat("A", 43), "/v1/render-doc/..%2f..%2fetc"} {
		rec := httptest.NewRecorder()
		tools.store.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		if rec.Code != 404 {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}
}

func TestCleanFilename(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "document",
		"report.pdf":       "report",
		"../../etc/passwd": "etc_passwd",
		"Bericht über Q3":  "Bericht über Q3",
		`a"b\c`:            "a_b_c",
	} {
		if got := cleanFilename(in); got != want {
			t.Errorf("cleanFilename(%q) = %q, want %q", in, got, want)
		}
	}
}
