package browser

import (
	"context"
	"flag"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve/fetch"
)

// webaudit is the npm tree scripts/setup.sh installs axe-core and
// Lighthouse into.
const webaudit = "../../../webaudit/node_modules"

var testAxePath = filepath.Join(webaudit, "axe-core", "axe.min.js")

// shared is one Tools (one Chromium) for the tests that do not need their
// own; starting Chromium costs about a second.
var shared *Tools

func TestMain(m *testing.M) {
	// The browser tests mostly wait (timers, network idle, the browser's
	// own processes), so more of them run at once than there are cores,
	// unless -parallel says otherwise.
	flag.Parse()
	if testing.Short() {
		// The inner loop (go test -short) leaves the family out: its
		// tests drive Chromium, which the full run has.
		os.Exit(0)
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "4")
	}
	dir, err := os.MkdirTemp("", "browser-test")
	if err != nil {
		panic(err)
	}
	// The tests mostly wait (timers, network idle), so four pages at once
	// fit on two cores.
	shared = newTestTools(dir, Config{Concurrency: 4})
	code := m.Run()
	shared.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

// newTestTools builds Tools whose guarded client may reach loopback (the
// documented test option of package fetch).
func newTestTools(dir string, cfg Config) *Tools {
	fc := fetch.New(fetch.Config{AllowLoopback: true, Timeout: 10 * time.Second})
	if cfg.RenderDir == "" {
		cfg.RenderDir = dir
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://api.openshelf.test"
	}
	if cfg.CallTimeout == 0 {
		cfg.CallTimeout = 20 * time.Second
	}
	if cfg.WaitTimeout == 0 {
		cfg.WaitTimeout = 5 * time.Second
	}
	if cfg.AxePath == "" {
		cfg.AxePath = testAxePath
	}
	return New(fc, cfg)
}

// site serves pages from a map of path to handler.
func site(t *testing.T, routes map[string]http.HandlerFunc) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for p, h := range routes {
		mux.HandleFunc(p, h)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func html(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(body))
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	t.Cleanup(cancel)
	return c
}

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }
