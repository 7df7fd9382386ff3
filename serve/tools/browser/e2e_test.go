package browser_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/servetest"
	"github.com/openshelf/openshelf/serve/tools/browser"
)

// newEnv runs the whole server with short browser deadlines.
func newEnv(t *testing.T) *servetest.Env {
	t.Helper()
	return servetest.New(t, func(c *serve.Config) {
		c.Use(&browser.Family{Config: browser.Config{CallTimeout: 15 * time.Second, WaitTimeout: 2 * time.Second}})
	})
}

// pages is the local "public" site of the end-to-end tests.
func pages(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	})
	mux.HandleFunc("/", page(`<!doctype html><title>Home</title><body style="margin:0;background:rgb(0,128,0)"><h1>Hello</h1></body>`))
	mux.HandleFunc("/private/page", page(`<p>robots say no</p>`))
	// A page that reaches for private addresses: an image from the cloud
	// metadata address, a fetch to an RFC 1918 address and a WebSocket.
	mux.HandleFunc("/ssrf", page(`<!doctype html><body><h1>Still here</h1>
<img src="http://169.254.169.254/latest/meta-data/">
<script>fetch("http://10.1.2.3/admin").catch(()=>{}); try { new WebSocket("ws://192.168.0.1/"); } catch (e) {}</script></body>`))
	mux.HandleFunc("/redirect-private", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	// The document arrives but never ends: load never fires.
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.Method == http.MethodHead {
			return
		}
		fmt.Fprint(w, `<!doctype html><body style="background:rgb(0,0,255)"><h1>Partial</h1>`)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	// HEAD answers at once, GET never does: the document never comes.
	mux.HandleFunc("/silent", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			return
		}
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestEndToEnd(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	site := pages(t)

	t.Run("paid", func(t *testing.T) {
		m := env.PaidCall(t, http.MethodPost, "/v1/screenshot", map[string]any{"url": site.URL + "/", "width": 800, "height": 600, "format": "png"})
		if m["width"] != 800.0 || m["height"] != 600.0 || m["content_type"] != "image/png" {
			t.Fatalf("%v", m["width"])
		}
		b, err := base64.StdEncoding.DecodeString(m["image"].(string))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if r, g, bl, _ := img.At(400, 500).RGBA(); r>>8 != 0 || g>>8 != 128 || bl>>8 != 0 {
			t.Errorf("background pixel %d,%d,%d", r>>8, g>>8, bl>>8)
		}
		if int(m["bytes"].(float64)) != len(b) {
			t.Errorf("bytes %v, image %d", m["bytes"], len(b))
		}
	})

	t.Run("bad input is a 400 before payment", func(t *testing.T) {
		for _, in := range []map[string]any{
			{"url": site.URL + "/", "width": 100},
			{"url": site.URL + "/", "format": "gif"},
			{"url": site.URL + "/", "quality": 10},
			{"url": site.URL + "/", "delay_ms": 6000},
			{"url": "http://169.254.169.254/"},
			{"url": "file:///etc/passwd"},
			{},
		} {
			res, m := env.Call(t, http.MethodPost, "/v1/screenshot", in, "")
			if res.StatusCode != 400 || servetest.ErrCode(m) != "invalid_input" {
				t.Errorf("%v: %d %v", in, res.StatusCode, m)
			}
		}
	})

	t.Run("private sub-requests are blocked, the tool answers", func(t *testing.T) {
		m := env.PaidCall(t, http.MethodPost, "/v1/screenshot", map[string]any{"url": site.URL + "/ssrf", "wait_until": "load"})
		blocked := fmt.Sprint(m["blocked"])
		for _, want := range []string{"169.254.169.254:80", "10.1.2.3:80", "192.168.0.1:80", "forbidden_target"} {
			if !strings.Contains(blocked, want) {
				t.Errorf("blocked %s lacks %s", blocked, want)
			}
		}
	})

	t.Run("redirect to a private address is refused and not charged", func(t *testing.T) {
		in := map[string]any{"url": site.URL + "/redirect-private"}
		before := env.Settlements(t)
		res, m := env.Call(t, http.MethodPost, "/v1/screenshot", in, env.Pay(t, http.MethodPost, "/v1/screenshot", in))
		if res.StatusCode != 403 || servetest.ErrCode(m) != "forbidden_target" {
			t.Fatalf("%d %v", res.StatusCode, m)
		}
		if env.Settlements(t) != before {
			t.Errorf("a refused call was charged")
		}
	})

	t.Run("robots.txt", func(t *testing.T) {
		in := map[string]any{"url": site.URL + "/private/page"}
		res, m := env.Call(t, http.MethodPost, "/v1/screenshot", in, env.Pay(t, http.MethodPost, "/v1/screenshot", in))
		if res.StatusCode != 403 || servetest.ErrCode(m) != "robots_disallowed" {
			t.Fatalf("%d %v", res.StatusCode, m)
		}
	})

	t.Run("a page that never finishes loading is captured at the wait limit", func(t *testing.T) {
		m := env.PaidCall(t, http.MethodPost, "/v1/screenshot", map[string]any{"url": site.URL + "/endless", "wait_until": "load", "width": 400, "height": 300})
		if m["wait_timed_out"] != true {
			t.Errorf("wait_timed_out %v", m["wait_timed_out"])
		}
		b, _ := base64.StdEncoding.DecodeString(m["image"].(string))
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if r, g, bl, _ := img.At(200, 250).RGBA(); r>>8 != 0 || g>>8 != 0 || bl>>8 != 255 {
			t.Errorf("the partial page was not rendered: %d,%d,%d", r>>8, g>>8, bl>>8)
		}
	})

	t.Run("render_document with a free download link", func(t *testing.T) { testRenderDocument(t, env) })

	t.Run("a document that never arrives is a 504, not charged", func(t *testing.T) {
		in := map[string]any{"url": site.URL + "/silent"}
		before := env.Settlements(t)
		res, m := env.Call(t, http.MethodPost, "/v1/screenshot", in, env.Pay(t, http.MethodPost, "/v1/screenshot", in))
		if res.StatusCode != 504 || servetest.ErrCode(m) != "upstream_timeout" {
			t.Fatalf("%d %v", res.StatusCode, m)
		}
		if env.Settlements(t) != before {
			t.Errorf("a failed call was charged")
		}
	})
}

func testRenderDocument(t *testing.T, env *servetest.Env) {
	md := "# Minutes\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nSee [the spec](https://example.org/spec).\n"
	m := env.PaidCall(t, http.MethodPost, "/v1/render-doc", map[string]any{"markdown": md, "format": "docx", "filename": "minutes"})
	link, _ := m["url"].(string)
	if !strings.HasPrefix(link, servetest.Base+"/v1/render-doc/") || m["filename"] != "minutes.docx" {
		t.Fatalf("%v", m)
	}
	// The link is free: no payment header.
	req := httptest.NewRequest(http.MethodGet, strings.TrimPrefix(link, servetest.Base), nil)
	req.RemoteAddr = "192.0.2.1:1234"
	rec := httptest.NewRecorder()
	env.App.HTTP.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("download: %d %s", rec.Code, rec.Body)
	}
	p := filepath.Join(t.TempDir(), "m.docx")
	os.WriteFile(p, rec.Body.Bytes(), 0o600)
	out, err := exec.Command("pandoc", "-f", "docx", "-t", "gfm", "--wrap=none", p).CombinedOutput()
	if err != nil {
		t.Fatalf("pandoc: %v %s", err, out)
	}
	for _, want := range []string{"# Minutes", "| a   | b   |", "| 1   | 2   |", "[the spec](https://example.org/spec)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	// The rendered file sits under the data directory's state.
	if files, _ := filepath.Glob(filepath.Join(env.App.Config.DataDir, "state", "renders", "*.bin")); len(files) != 1 {
		t.Errorf("render files %v", files)
	}

	// The specification's longest document reaches the tool (the endpoint
	// raises the server's 64 KiB body cap): 200,000 characters, several
	// bytes each, ask for payment; one more is refused before payment.
	long := strings.Repeat("é", 200000)
	if res, em := env.Call(t, http.MethodPost, "/v1/render-doc", map[string]any{"markdown": long, "format": "html"}, ""); res.StatusCode != http.StatusPaymentRequired {
		t.Errorf("200,000-character markdown: %d %v, want 402", res.StatusCode, em)
	}
	res, em := env.Call(t, http.MethodPost, "/v1/render-doc", map[string]any{"markdown": long + "a"}, "")
	if res.StatusCode != 400 || servetest.ErrCode(em) != "invalid_input" {
		t.Errorf("long markdown: %d %v", res.StatusCode, em)
	}
	res, em = env.Call(t, http.MethodPost, "/v1/render-doc", map[string]any{"markdown": "x", "page_size": "A3"}, "")
	if res.StatusCode != 400 {
		t.Errorf("A3: %d %v", res.StatusCode, em)
	}
}
