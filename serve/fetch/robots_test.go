package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve/fetch"
)

// robotsServer serves robots.txt from a swappable (status, body) and counts
// robots fetches.
type robotsServer struct {
	*httptest.Server
	mu     sync.Mutex
	status int
	body   string
	hits   atomic.Int64
	pages  atomic.Int64
}

func newRobotsServer(t *testing.T, status int, body string) *robotsServer {
	rs := &robotsServer{status: status, body: body}
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			rs.hits.Add(1)
			rs.mu.Lock()
			st, b := rs.status, rs.body
			rs.mu.Unlock()
			switch st {
			case -1: // drop the connection without an answer
				conn, _, _ := w.(http.Hijacker).Hijack()
				conn.Close()
			case 301:
				http.Redirect(w, r, b, st)
			default:
				w.WriteHeader(st)
				fmt.Fprint(w, b)
			}
		case "/moved-robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /moved-private\n")
		default:
			rs.pages.Add(1)
			fmt.Fprint(w, "page")
		}
	}))
	t.Cleanup(rs.Close)
	return rs
}

func (rs *robotsServer) set(status int, body string) {
	rs.mu.Lock()
	rs.status, rs.body = status, body
	rs.mu.Unlock()
}

const robotsFile = `# a realistic file
User-agent: Googlebot
Disallow: /nogoogle

User-agent: *
Disallow: /
Allow: /public
Disallow: /*?session=

User-agent: openshelf-fetch
Allow: /
Disallow: /private
Disallow: /*.pdf$
Disallow: /search?

Sitemap: https://example.com/sitemap.xml
`

func TestRobotsRules(t *testing.T) {
	rs := newRobotsServer(t, 200, robotsFile)
	c := loopbackClient(t, fetch.Config{})
	ctx := context.Background()
	tests := []struct {
		path    string
		allowed bool
	}{
		{"/", true},                  // our group allows what * disallows
		{"/nogoogle", true},          // another bot's group does not apply
		{"/private", false},          // our group's Disallow
		{"/private/deep?x=1", false}, // prefix match
		{"/privateer", false},        // plain prefix, as RFC 9309 says
		{"/paper.pdf", false},        // $ anchor
		{"/paper.pdf?dl=1", true},    // $ anchors at the end only
		{"/search?q=go", false},      // query is part of the match
		{"/search", true},
		{"/Private", true}, // paths are case-sensitive
	}
	for _, tt := range tests {
		_, err := c.Get(ctx, rs.URL+tt.path, fetch.Options{})
		if tt.allowed && err != nil {
			t.Errorf("%s: %v", tt.path, err)
		}
		if !tt.allowed {
			assertAPI(t, tt.path, err, http.StatusForbidden, "robots_disallowed")
			if !errors.Is(err, fetch.ErrRobotsDisallowed) {
				t.Errorf("%s: %v is not ErrRobotsDisallowed", tt.path, err)
			}
		}
	}
	if n := rs.hits.Load(); n != 1 {
		t.Errorf("robots.txt fetched %d times, want 1 (cached)", n)
	}
	// IgnoreRobots (webhooks) skips it.
	if _, err := c.Get(ctx, rs.URL+"/private", fetch.Options{IgnoreRobots: true}); err != nil {
		t.Errorf("IgnoreRobots: %v", err)
	}
}

func TestRobotsWildcardGroupForOthers(t *testing.T) {
	rs := newRobotsServer(t, 200, "User-agent: *\nDisallow: /\nAllow: /public\n")
	c := loopbackClient(t, fetch.Config{})
	if _, err := c.Get(context.Background(), rs.URL+"/public/a", fetch.Options{}); err != nil {
		t.Errorf("allowed path: %v", err)
	}
	_, err := c.Get(context.Background(), rs.URL+"/other", fetch.Options{})
	assertAPI(t, "star group", err, http.StatusForbidden, "robots_disallowed")
	if rs.pages.Load() != 1 {
		t.Errorf("%d page requests reached the server, want 1", rs.pages.Load())
	}
}

func TestRobotsStatuses(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		allowed bool
	}{
		{"404 allows all", 404, "", true},
		{"403 allows all", 403, "User-agent: *\nDisallow: /\n", true}, // the body of a 4xx is not a robots.txt
		{"401 allows all", 401, "", true},
		{"500 disallows all", 500, "", false},
		{"503 disallows all", 503, "", false},
		{"unreachable disallows all", -1, "", false},
		{"empty file allows all", 200, "", true},
		{"garbage allows all", 200, "\x00\xff<html>not robots</html>", true},
		{"redirected file followed", 301, "/moved-robots.txt", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRobotsServer(t, tt.status, tt.body)
			c := loopbackClient(t, fetch.Config{})
			_, err := c.Get(context.Background(), rs.URL+"/page", fetch.Options{})
			if tt.allowed && err != nil {
				t.Errorf("refused: %v", err)
			}
			if !tt.allowed {
				assertAPI(t, tt.name, err, http.StatusForbidden, "robots_disallowed")
				if rs.pages.Load() != 0 {
					t.Errorf("page fetched despite disallow")
				}
			}
		})
	}
	// The redirected file's rules apply.
	rs := newRobotsServer(t, 301, "/moved-robots.txt")
	c := loopbackClient(t, fetch.Config{})
	_, err := c.Get(context.Background(), rs.URL+"/moved-private", fetch.Options{})
	assertAPI(t, "moved rules", err, http.StatusForbidden, "robots_disallowed")
}

func TestRobotsCacheTTL(t *testing.T) {
	rs := newRobotsServer(t, 200, "User-agent: *\nDisallow: /x\n")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	cfg := fetch.Config{AllowLoopback: true, RobotsCacheTTL: time.Hour}
	fetch.SetClock(&cfg, func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	c := fetch.New(cfg)
	defer c.Close()
	ctx := context.Background()
	get := func(p string) error { _, err := c.Get(ctx, rs.URL+p, fetch.Options{}); return err }

	if err := get("/x"); err == nil {
		t.Fatal("/x allowed")
	}
	rs.set(200, "User-agent: *\nDisallow: /y\n")
	advance(59 * time.Minute)
	if err := get("/x"); err == nil {
		t.Error("cached rules not used before the TTL")
	}
	advance(2 * time.Minute)
	if err := get("/x"); err != nil {
		t.Errorf("new rules not fetched after the TTL: %v", err)
	}
	if n := rs.hits.Load(); n != 2 {
		t.Errorf("robots hits = %d, want 2", n)
	}

	// A server error is cached for five minutes at most.
	rs.set(503, "")
	advance(2 * time.Hour)
	if err := get("/ok"); err == nil {
		t.Fatal("503 robots did not disallow")
	}
	rs.set(404, "")
	advance(4 * time.Minute)
	if err := get("/ok"); err == nil {
		t.Error("failure not cached")
	}
	advance(2 * time.Minute)
	if err := get("/ok"); err != nil {
		t.Errorf("failure cached too long: %v", err)
	}
}

// TestRobotsPerRedirectHop: a redirect to another origin is checked against
// that origin's robots.txt.
func TestRobotsPerRedirectHop(t *testing.T) {
	target := newRobotsServer(t, 200, "User-agent: openshelf-fetch\nDisallow: /\n")
	start := newRobotsServer(t, 404, "")
	start.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, target.URL+"/article", http.StatusFound)
	})
	c := loopbackClient(t, fetch.Config{})
	_, err := c.Get(context.Background(), start.URL+"/go", fetch.Options{})
	assertAPI(t, "hop", err, http.StatusForbidden, "robots_disallowed")
	if target.pages.Load() != 0 {
		t.Error("disallowed redirect target was fetched")
	}
}
