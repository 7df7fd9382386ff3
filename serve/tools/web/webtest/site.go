package webtest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/serve/apierr"
)

// Route is one canned response of a fake site.
type Route struct {
	File        string // under the site's testdata directory
	Body        string // used when File is empty
	ContentType string
	Status      int
	Location    string
}

// StartSite serves routes on loopback, with a robots.txt that disallows
// /private/ for everyone. Route files are read from dir (the web family's
// shared testdata) when requested.
func StartSite(t testing.TB, dir string, routes map[string]Route) *httptest.Server {
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
		body := []byte(rt.Body)
		if rt.File != "" {
			b, err := os.ReadFile(filepath.Join(dir, rt.File))
			if err != nil {
				t.Errorf("testdata: %v", err)
				http.Error(w, "missing", 500)
				return
			}
			body = b
		}
		if rt.ContentType != "" {
			w.Header().Set("Content-Type", rt.ContentType)
		}
		if rt.Location != "" {
			w.Header().Set("Location", rt.Location)
		}
		if rt.Status != 0 {
			w.WriteHeader(rt.Status)
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// WantAPI checks the status and code an error maps to.
func WantAPI(t testing.TB, what string, err error, status int, code string) {
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

// Contains reports each of subs that s lacks.
func Contains(t testing.TB, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q", what, sub)
		}
	}
}

// Lacks reports each of subs that s contains.
func Lacks(t testing.TB, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			t.Errorf("%s contains %q", what, sub)
		}
	}
}
