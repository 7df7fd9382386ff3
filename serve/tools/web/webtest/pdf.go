package webtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FindChromium returns the Chromium binary that renders test PDFs: the
// OPENSHELF_CHROMIUM variable, else the first of the usual names on PATH.
// scripts/setup.sh installs it: the PDF tests are the only check of the PDF
// reader on real producer output, so without it they fail.
func FindChromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("OPENSHELF_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium not found: the PDF table tests render their PDFs with Chromium; run scripts/setup.sh (apt-get install chromium) or set OPENSHELF_CHROMIUM")
	return ""
}

// PrintToPDF renders an HTML document to PDF with headless Chromium (a
// real PDF producer: fonts, text runs and ruling lines as browsers write
// them). It fails the test as FindChromium does.
func PrintToPDF(t testing.TB, doc string) []byte {
	t.Helper()
	bin := FindChromium(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "doc.html")
	out := filepath.Join(dir, "doc.pdf")
	if err := os.WriteFile(in, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--disable-extensions", "--no-pdf-header-footer", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--print-to-pdf="+out, "file://"+in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	pdf, err := os.ReadFile(out)
	if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("chromium wrote no PDF: %v\n%s", err, stderr.String())
	}
	return pdf
}

// TablesDoc is an HTML report for the table tests: page 1 has a ruled table with spans and a caption line, a
// two-column justified text (not a table) and an unruled table with
// right-aligned numbers; page 2 a ruled table with thead; pages 3 to 31
// filler; page 32 a last ruled table.
func TablesDoc() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><style>
body { font-family: sans-serif; font-size: 11px; }
table.r { border-collapse: collapse; margin: 10px 0; }
table.r td, table.r th { border: 1px solid #000; padding: 3px; }
table.u td, table.u th { padding: 1px 24px 1px 0; text-align: left; }
table.u td.n { text-align: right; }
.cols { column-count: 2; text-align: justify; }
.pb { page-break-before: always; }
</style></head><body>
<h1>Annual report</h1>
<p>Table 1: Quarterly sales by region</p>
<table class="r">
<tr><th rowspan="2">Region</th><th colspan="2">2024</th></tr>
<tr><th>Q1</th><th>Q2</th></tr>
<tr><td>North</td><td>10</td><td>12</td></tr>
<tr><td>South</td><td colspan="2">not reported</td></tr>
<tr><td>East</td><td></td><td>4</td></tr>
</table>
<div class="cols"><p>`)
	for range 6 {
		b.WriteString(`Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris. `)
	}
	b.WriteString(`</p></div>
<table class="u">
<tr><th>Item</th><th>Count</th><th>Share</th></tr>
<tr><td>Widgets large</td><td class="n">1,200</td><td class="n">45.5%</td></tr>
<tr><td>Gadgets</td><td class="n">87</td><td class="n">3.2%</td></tr>
<tr><td>Sprockets</td><td class="n">15,003</td><td class="n">51.3%</td></tr>
<tr><td>Bücher &amp; Co</td><td class="n">4</td><td class="n">0.0%</td></tr>
</table>
<div class="pb"></div><h2>Second page</h2>
<table class="r"><thead><tr><th>Code</th><th>Name</th></tr></thead>
<tbody><tr><td>A1</td><td>Alpha</td></tr><tr><td>B2</td><td>Beta</td></tr></tbody></table>
`)
	for p := 3; p <= 31; p++ {
		fmt.Fprintf(&b, `<div class="pb"></div><p>Filler page %d.</p>`, p)
	}
	b.WriteString(`<div class="pb"></div><table class="r"><tr><th>Last</th><th>Page</th></tr><tr><td>thirty</td><td>two</td></tr></table>
</body></html>`)
	return b.String()
}
