package extract_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/web/extract"
)

func TestExtractNewsArticle(t *testing.T) {
	srv := fakeSite(t, map[string]route{
		"/old-link":                           {Status: http.StatusMovedPermanently, Location: "/science/2026/tidal-lagoon-approved"},
		"/science/2026/tidal-lagoon-approved": {File: "webpages/news_article.html", ContentType: "text/html; charset=utf-8"},
	})
	tools := newTool(t, extract.Config{})
	out, err := tools.Extract(context.Background(), extract.Input{URL: srv.URL + "/old-link"})
	if err != nil {
		t.Fatal(err)
	}
	if out.URL != srv.URL+"/science/2026/tidal-lagoon-approved" {
		t.Errorf("URL = %q", out.URL)
	}
	if out.Title != "Tidal energy scheme cleared for Severn estuary" {
		t.Errorf("Title = %q", out.Title)
	}
	contains(t, "Byline", out.Byline, "Priya Natarajan")
	if out.SiteName != "The Riverside Chronicle" || out.Language != "en-GB" || out.Charset != "utf-8" {
		t.Errorf("site %q lang %q charset %q", out.SiteName, out.Language, out.Charset)
	}
	if out.Published != "2026-03-14T07:30:00Z" {
		t.Errorf("Published = %q", out.Published)
	}
	if out.Image != srv.URL+"/media/2026/lagoon-hero.jpg" {
		t.Errorf("Image = %q", out.Image)
	}
	contains(t, "Excerpt", out.Excerpt, "3 GW")
	md := out.Markdown
	contains(t, "Markdown", md,
		"Ministers have approved a three-gigawatt tidal lagoon",
		"## Conditions for wildlife",
		"## Cost and financing",
		"“The conditions are the strongest we have seen for any marine project,”",
		"[full list of conditions]("+srv.URL+"/documents/lagoon-conditions.pdf)",
		"("+srv.URL+"/media/2026/lagoon-hero.jpg)",
		"| Existing offshore wind farm | 1.2 GW   | 1 million     |",
		"A public inquiry into the access routes will open in the autumn.",
	)
	// Boilerplate around the article is gone.
	lacks(t, "Markdown", md,
		"Most read", "Council tax", "Load more comments", "tidewatcher", "Who is paying",
		"Advertisement", "ads.example.net", "All rights reserved", "Sign up", "Skip to content",
		"Subscribe", "dataLayer", "Share on Facebook",
	)
	// Relative links never survive.
	if strings.Contains(md, "](/") {
		t.Errorf("relative link in Markdown:\n%s", md)
	}
	// The article has about 420 words; boilerplate would add hundreds.
	if out.WordCount < 350 || out.WordCount > 500 {
		t.Errorf("WordCount = %d", out.WordCount)
	}
}

func TestExtractCharsets(t *testing.T) {
	srv := fakeSite(t, map[string]route{
		// Declared only in <meta http-equiv>; the header has no charset.
		"/recipe": {File: "webpages/recipe_windows1252.html", ContentType: "text/html"},
		// Declared only in <meta charset>.
		"/kyoto": {File: "webpages/kyoto_shiftjis.html", ContentType: "text/html"},
		// Declared only in the Content-Type header.
		"/buns": {File: "webpages/buns_latin1.html", ContentType: "text/html; charset=ISO-8859-1"},
		// No declaration at all and no Content-Type: sniffed as HTML,
		// decoded as UTF-8 because it is valid UTF-8 throughout.
		"/bridge": {File: "webpages/base_href.html"},
	})
	tools := newTool(t, extract.Config{})
	tests := []struct {
		path, charset, title string
		body                 []string
	}{
		{"/recipe", "windows-1252", "La crème brûlée de grand-mère – Recettes d’autrefois",
			[]string{"six jaunes d’œufs", "« C’est le contraste", "environ – la crème", "disait-elle…"}},
		{"/kyoto", "shift_jis", "京都の紅葉の名所 ― 旅のしおり",
			[]string{"東福寺の通天橋", "「もみじの永観堂」", "大原の三千院"}},
		{"/buns", "windows-1252", "Årets bästa kanelbullar",
			[]string{"tjugo bagerier i Göteborg och Malmö", "pärlsocker"}},
		{"/bridge", "utf-8", "Die Geschichte der Brücke",
			[]string{"über den Fluss", "Straßenbahn"}},
	}
	for _, tt := range tests {
		out, err := tools.Extract(context.Background(), extract.Input{URL: srv.URL + tt.path})
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		if out.Charset != tt.charset {
			t.Errorf("%s: charset %q, want %q", tt.path, out.Charset, tt.charset)
		}
		if !strings.Contains(out.Title, strings.Split(tt.title, " – ")[0]) && out.Title != tt.title {
			t.Errorf("%s: title %q, want %q", tt.path, out.Title, tt.title)
		}
		contains(t, tt.path, out.Markdown, tt.body...)
		if strings.ContainsRune(out.Markdown, '\uFFFD') {
			t.Errorf("%s: replacement characters in %q", tt.path, out.Markdown)
		}
		lacks(t, tt.path, out.Markdown, "Accueil", "ホーム", "Kontakta redaktionen")
	}
}

func TestExtractBaseHref(t *testing.T) {
	srv := fakeSite(t, map[string]route{"/bridge": {File: "webpages/base_href.html", ContentType: "text/html"}})
	out, err := newTool(t, extract.Config{}).Extract(context.Background(), extract.Input{URL: srv.URL + "/bridge"})
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "Markdown", out.Markdown,
		"(https://static.example.org/archiv/2025/plaene/1890.pdf)",
		"![Der mittlere Bogen](https://static.example.org/archiv/2025/bilder/bogen.jpg)")
	if out.Language != "de" {
		t.Errorf("Language = %q", out.Language)
	}
}

func TestExtractRefusals(t *testing.T) {
	srv := fakeSite(t, map[string]route{
		"/paper.pdf":     {Body: "%PDF-1.7\n...", ContentType: "application/pdf"},
		"/data.json":     {Body: `{"a":1}`, ContentType: "application/json"},
		"/private/page":  {File: "webpages/news_article.html", ContentType: "text/html"},
		"/big":           {File: "webpages/news_article.html", ContentType: "text/html"},
		"/server-error":  {Body: "oops", Status: http.StatusServiceUnavailable, ContentType: "text/html"},
		"/empty":         {Body: "<html><head><title>x</title></head><body></body></html>", ContentType: "text/html"},
		"/image.png":     {Body: "\x89PNG\r\n\x1a\n....", ContentType: ""},
		"/text-as-plain": {Body: "just words, no markup", ContentType: "text/plain"},
	})
	tools := newTool(t, extract.Config{MaxBytes: 4096})
	ctx := context.Background()
	tests := []struct {
		path   string
		status int
		code   string
	}{
		{"/paper.pdf", http.StatusBadRequest, "unsupported_content_type"},
		{"/data.json", http.StatusBadRequest, "unsupported_content_type"},
		{"/image.png", http.StatusBadRequest, "unsupported_content_type"},
		{"/text-as-plain", http.StatusBadRequest, "unsupported_content_type"},
		{"/missing", http.StatusBadGateway, "upstream_status"},
		{"/server-error", http.StatusBadGateway, "upstream_status"},
		{"/private/page", http.StatusForbidden, "robots_disallowed"},
		{"/big", http.StatusBadGateway, "upstream_too_large"},
		{"/empty", http.StatusBadRequest, "no_readable_content"},
	}
	for _, tt := range tests {
		_, err := tools.Extract(ctx, extract.Input{URL: srv.URL + tt.path})
		wantAPI(t, tt.path, err, tt.status, tt.code)
	}
}

// bigPage is a realistic large page: a long article inside heavy
// navigation, sidebars, a long comment thread and footer, over size bytes.
func bigPage(size int) []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A very long report | Example Times</title>` +
		`<meta property="og:site_name" content="Example Times"><link rel="stylesheet" href="/s.css"></head><body>`)
	b.WriteString(`<header><nav class="menu"><ul>`)
	for i := range 300 {
		fmt.Fprintf(&b, `<li><a href="/section/%d">Section %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></nav></header><main><article><h1>A very long report</h1><p class="byline">By A. Writer</p>`)
	para := 0
	for b.Len() < size*6/10 {
		para++
		if para%12 == 0 {
			fmt.Fprintf(&b, "<h2>Part %d</h2>", para/12)
		}
		fmt.Fprintf(&b, `<p>Paragraph %d of the report considers the evidence in detail, with a <a href="/ref/%d">reference</a> `+
			`to earlier work, figures that were checked twice, and a conclusion that follows from them. The committee noted `+
			`that the numbers had changed since the previous year and asked for the method to be published in full.</p>`, para, para)
		if para%40 == 0 {
			fmt.Fprintf(&b, `<figure><img src="/img/fig%d.png" alt="Figure %d"><figcaption>Figure %d</figcaption></figure>`, para, para, para)
		}
	}
	b.WriteString(`</article><section class="comments">`)
	for i := 0; b.Len() < size*9/10; i++ {
		fmt.Fprintf(&b, `<div class="comment"><p class="author">reader%d</p><p>I disagree with point %d; see my blog.</p><a href="/c/%d">reply</a></div>`, i, i, i)
	}
	b.WriteString(`</section></main><aside class="sidebar">`)
	for b.Len() < size {
		b.WriteString(`<div class="ad"><a href="https://ads.example/x"><img src="https://ads.example/b.gif"></a></div><ul><li><a href="/popular">Popular story</a></li></ul>`)
	}
	b.WriteString(`</aside><footer>© Example Times</footer></body></html>`)
	return []byte(b.String())
}

func TestExtractBigPage(t *testing.T) {
	page := bigPage(600 << 10)
	srv := fakeSite(t, map[string]route{"/report": {Body: string(page), ContentType: "text/html"}})
	out, err := newTool(t, extract.Config{}).Extract(context.Background(), extract.Input{URL: srv.URL + "/report"})
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "Markdown", out.Markdown, "Paragraph 1 of the report", "## Part 1", "("+srv.URL+"/ref/1)")
	lacks(t, "Markdown", out.Markdown, "reader1", "Popular story", "Section 299")
}

// BenchmarkExtract measures extract_webpage end to end (loopback fetch,
// charset, parse, readability, Markdown) on a 600 KB page. It reports
// pages/s and, on Linux, the peak resident set size of the process while
// the benchmark ran (peak-RSS-MB; the fake site runs in the same process).
// Numbers are in BENCHMARKS.md (Live tools, extract_webpage).
func BenchmarkExtract(b *testing.B) {
	page := bigPage(600 << 10)
	srv := fakeSite(b, map[string]route{"/report": {Body: string(page), ContentType: "text/html"}})
	tools := newTool(b, extract.Config{})
	in := extract.Input{URL: srv.URL + "/report"}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	resetPeakRSS()
	b.ResetTimer()
	for b.Loop() {
		if _, err := tools.Extract(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
	if peak := peakRSS(); peak > 0 {
		b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
	}
}

// resetPeakRSS restarts the kernel's peak RSS measurement of this process
// (Linux 4.0+: writing 5 to clear_refs), so the peak reported is the
// benchmark's rather than that of whatever ran before it. Elsewhere it
// does nothing.
func resetPeakRSS() {
	runtime.GC()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS is the peak resident set size of the process in bytes (VmHWM),
// or 0 where /proc/self/status does not exist.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest) // "34512 kB"
			if len(f) == 2 && f[1] == "kB" {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}
