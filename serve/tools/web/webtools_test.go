package web_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/tools/web"
)

// route is one canned response of the fake site.
type route struct {
	file        string // under testdata/
	body        string // used when file is empty
	contentType string
	status      int
	location    string
}

// fakeSite serves routes on loopback, with a robots.txt that disallows
// /private/ for everyone.
func fakeSite(t testing.TB, routes map[string]route) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("User-agent: *\nDisallow: /private/\n"))
			return
		}
		rt, ok := routes[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		body := []byte(rt.body)
		if rt.file != "" {
			b, err := os.ReadFile(filepath.Join("testdata", rt.file))
			if err != nil {
				t.Errorf("testdata: %v", err)
				http.Error(w, "missing", 500)
				return
			}
			body = b
		}
		if rt.contentType != "" {
			w.Header().Set("Content-Type", rt.contentType)
		}
		if rt.location != "" {
			w.Header().Set("Location", rt.location)
		}
		if rt.status != 0 {
			w.WriteHeader(rt.status)
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newTools(t testing.TB, cfg web.ToolsConfig) *web.Tools {
	t.Helper()
	fc := fetch.New(fetch.Config{AllowLoopback: true})
	t.Cleanup(fc.Close)
	return web.NewTools(fc, cfg)
}

// wantAPI checks the status and code an error maps to.
func wantAPI(t *testing.T, what string, err error, status int, code string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %d %s", what, status, code)
		return
	}
	ae := apierr.From(err)
	if ae.Status != status || ae.Code != code {
		t.Errorf("%s: got %d %s (%v), want %d %s", what, ae.Status, ae.Code, err, status, code)
	}
}

func contains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q", what, sub)
		}
	}
}

func lacks(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			t.Errorf("%s contains %q", what, sub)
		}
	}
}

func TestEndpoints(t *testing.T) {
	tools := newTools(t, web.ToolsConfig{})
	want := map[string][3]string{
		"extract_webpage": {http.MethodPost, "/v1/extract", "0.001"},
		"site_metadata":   {http.MethodGet, "/v1/metadata", "0.0002"},
		"read_feed":       {http.MethodGet, "/v1/feed-reader", "0.0003"},
	}
	eps := tools.Endpoints()
	if len(eps) != len(want) {
		t.Fatalf("%d endpoints", len(eps))
	}
	for _, e := range eps {
		w, ok := want[e.Name]
		if !ok || e.Method != w[0] || e.Path != w[1] || e.Price != w[2] {
			t.Errorf("endpoint %s %s %s %s", e.Name, e.Method, e.Path, e.Price)
		}
		if e.Input == nil || e.Tool == nil {
			t.Errorf("%s: no input schema or tool", e.Name)
		}
		// The pre-payment check uses the client's policy: a private
		// literal is refused, a loopback one (test client) is not.
		in := e.NewInput()
		setURL(in, "http://10.1.2.3/")
		wantAPI(t, e.Name+" check", e.Check(context.Background(), in), http.StatusBadRequest, "invalid_input")
		setURL(in, "http://127.0.0.1:8080/")
		if err := e.Check(context.Background(), in); err != nil {
			t.Errorf("%s check refused loopback on the test client: %v", e.Name, err)
		}
	}
}

func setURL(in any, u string) {
	switch x := in.(type) {
	case *web.ExtractInput:
		x.URL = u
	case *web.MetadataInput:
		x.URL = u
	case *web.FeedInput:
		x.URL = u
	}
}

func TestValidate(t *testing.T) {
	for _, v := range []interface{ Validate() error }{
		&web.ExtractInput{URL: "http://0x7f.1/"},
		&web.MetadataInput{URL: "http://[::ffff:169.254.169.254]/"},
		&web.FeedInput{URL: "file:///etc/passwd"},
	} {
		err := v.Validate()
		wantAPI(t, "validate", err, http.StatusBadRequest, "invalid_input")
		if ae := apierr.From(err); ae.Field != "url" {
			t.Errorf("field %q", ae.Field)
		}
	}
	// Ports are the client's policy, not Validate's.
	if err := (&web.ExtractInput{URL: "https://example.com:8443/a"}).Validate(); err != nil {
		t.Errorf("Validate refused a public URL: %v", err)
	}
}

func TestGuardAppliesToTools(t *testing.T) {
	// A production-policy client: nothing on loopback is reachable, and
	// nothing is fetched.
	fc := fetch.New(fetch.Config{})
	tools := web.NewTools(fc, web.ToolsConfig{})
	ctx := context.Background()
	_, err := tools.Extract(ctx, web.ExtractInput{URL: "http://127.0.0.1/"})
	wantAPI(t, "extract", err, http.StatusBadRequest, "invalid_input")
	_, err = tools.Metadata(ctx, web.MetadataInput{URL: "http://169.254.169.254/latest/meta-data/"})
	wantAPI(t, "metadata", err, http.StatusBadRequest, "invalid_input")
	_, err = tools.ReadFeed(ctx, web.FeedInput{URL: "http://localhost/feed"})
	wantAPI(t, "feed", err, http.StatusBadRequest, "invalid_input")
	if !errors.Is(err, fetch.ErrInvalidURL) {
		t.Errorf("%v is not ErrInvalidURL", err)
	}
}
