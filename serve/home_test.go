package serve

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/needs"
	"github.com/openshelf/openshelf/internal/testsnap"
)

// findChromium returns Debian's Chromium (scripts/setup.sh installs it).
func findChromium(t *testing.T) string {
	t.Helper()
	needs.Heavy(t, "Chromium")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium not found; run scripts/setup.sh (apt-get install chromium)")
	return ""
}

var hrefRE = regexp.MustCompile(`(?i)\b(?:href|src)="([^"]*)"`)

// TestHomePageChromium renders / in headless Chromium from the app served
// on a loopback port: it answers 200 with HTML, the browser logs nothing to
// the console (the page has no script, so any message is an error: a
// failed load, a blocked resource), and every same-origin link on it
// answers 200. Links to other sites (x402, MCP, licences) are not fetched:
// tests have no network.
func TestHomePageChromium(t *testing.T) {
	bin := findChromium(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	a := newTestApp(t, testsnap.Fixtures(t), func(c *Config) { c.BaseURL = base })
	srv := &http.Server{Handler: a.HTTP, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	res, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("/: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}

	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--disable-extensions", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--enable-logging=stderr", "--v=0", "--dump-dom", base+"/")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.Bytes())
	}
	dom := stdout.String()
	if !strings.Contains(dom, "<h1>openshelf</h1>") || !strings.Contains(dom, "get_catalog_page") {
		t.Fatalf("rendered page lacks its heading or tools:\n%.2000s", dom)
	}
	for line := range strings.SplitSeq(stderr.String(), "\n") {
		if strings.Contains(line, "CONSOLE") {
			t.Errorf("console message: %s", line)
		}
	}

	links := map[string]bool{}
	for _, m := range hrefRE.FindAllStringSubmatch(dom, -1) {
		u, err := url.Parse(strings.ReplaceAll(m[1], "&amp;", "&"))
		if err != nil {
			t.Errorf("bad link %q", m[1])
			continue
		}
		if u.Scheme == "data" {
			continue
		}
		abs := res.Request.URL.ResolveReference(u)
		if abs.Host != res.Request.URL.Host {
			continue
		}
		abs.Fragment = ""
		links[abs.String()] = true
	}
	if len(links) < 6 {
		t.Fatalf("only %d same-origin links: %v", len(links), links)
	}
	for l := range links {
		r, err := http.Get(l)
		if err != nil {
			t.Errorf("%s: %v", l, err)
			continue
		}
		r.Body.Close()
		if r.StatusCode != 200 {
			t.Errorf("%s: %d", l, r.StatusCode)
		}
	}
}

// TestHomePageTopicPrices: every topic row of the page shows the bundle
// price /api/topics gives for it.
func TestHomePageTopicPrices(t *testing.T) {
	a := newTestApp(t, testsnap.Fixtures(t), nil)
	_, m := getJSON(t, a.HTTP, "/api/topics")
	topics, _ := m["topics"].([]any)
	if len(topics) == 0 {
		t.Fatalf("/api/topics: %v", m)
	}
	rec := httptest.NewRecorder()
	a.HTTP.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	page := rec.Body.String()
	for _, tp := range topics {
		tp := tp.(map[string]any)
		price, _ := tp["bundle_price"].(string)
		if price == "" {
			t.Fatalf("/api/topics gives no price: %v", tp)
		}
		row := regexp.MustCompile(`<tr><td>[^<]*<code>` + regexp.QuoteMeta(tp["slug"].(string)) + `</code></td><td>\d+</td><td>([^<]*)</td></tr>`)
		got := row.FindStringSubmatch(page)
		if got == nil || got[1] != price {
			t.Errorf("topic %s: page row %q, want price %s", tp["slug"], got, price)
		}
	}
}
