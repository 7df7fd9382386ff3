package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
)

type echoInput struct {
	Name  string `json:"name" in:"path" pattern:"^[a-z]{1,10}$"`
	Times int    `json:"times,omitempty" min:"1" max:"3" default:"1"`
}

type postInput struct {
	Text string `json:"text" minLength:"1" maxLength:"10"`
}

func testRegistry() *registry.Registry {
	reg := registry.New()
	reg.Add(
		registry.Spec[echoInput]{
			Name: "echo", Method: http.MethodGet, Path: "/echo/:name", Group: registry.GroupDiscovery,
			Summary: "Echo.",
			Check: func(_ context.Context, in *echoInput) error {
				if in.Name == "missing" {
					return apierr.NotFound("thing_not_found", "no such thing")
				}
				return nil
			},
			Handle: func(_ context.Context, in *echoInput) (*registry.Result, error) {
				if in.Name == "boom" {
					panic("boom")
				}
				if in.Name == "fail" {
					return nil, io.ErrUnexpectedEOF
				}
				if in.Name == "leak" {
					return nil, fmt.Errorf("open /var/lib/openshelf/secret.db at 10.1.2.3:5432: %w", apierr.ErrUnavailable)
				}
				return &registry.Result{Value: map[string]any{"name": strings.Repeat(in.Name, in.Times)}}, nil
			},
		}.Endpoint(),
		registry.Spec[postInput]{
			Name: "shout", Method: http.MethodPost, Path: "/shout", Group: registry.GroupTools,
			Summary: "Shout.",
			Handle: func(_ context.Context, in *postInput) (*registry.Result, error) {
				return &registry.Result{Value: map[string]any{"text": strings.ToUpper(in.Text)}}, nil
			},
		}.Endpoint(),
	)
	return reg
}

func do(t *testing.T, h http.Handler, method, target, body string, hdr map[string]string) (*http.Response, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	req.RemoteAddr = "192.0.2.1:1234"
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	var m map[string]any
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
			t.Fatalf("%s %s: body is not JSON: %v", method, target, err)
		}
	}
	return res, m
}

func errCode(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func TestEndpointAdapter(t *testing.T) {
	s := NewHTTP(HTTPConfig{BaseURL: "https://example.test"}, testRegistry(), nil)
	tests := []struct {
		method, target, body string
		status               int
		code                 string
	}{
		{"GET", "/echo/abc?times=2", "", 200, ""},
		{"GET", "/echo/abc?times=4", "", 400, "invalid_input"},
		{"GET", "/echo/abc?times=x", "", 400, "invalid_input"},
		{"GET", "/echo/ABC", "", 400, "invalid_input"},
		{"GET", "/echo/missing", "", 404, "thing_not_found"},
		{"GET", "/echo/fail", "", 500, "internal_error"},
		{"GET", "/echo/leak", "", 503, "unavailable"},
		{"GET", "/echo/boom", "", 500, "internal_error"},
		{"GET", "/nowhere", "", 404, "not_found"},
		{"POST", "/echo/abc", "", 405, "method_not_allowed"},
		{"POST", "/shout", `{"text":"hi"}`, 200, ""},
		{"POST", "/shout", `{"text":""}`, 400, "invalid_input"},
		{"POST", "/shout", `{"text":"hi","x":1}`, 400, "unknown_parameter"},
		{"GET", "/echo/abc?page=2", "", 400, "unknown_parameter"},
		{"POST", "/shout", `{`, 400, "invalid_input"},
		{"POST", "/shout", `"` + strings.Repeat("a", maxBody) + `"`, 413, "body_too_large"},
	}
	for _, tt := range tests {
		res, m := do(t, s, tt.method, tt.target, tt.body, nil)
		if res.StatusCode != tt.status || errCode(m) != tt.code {
			t.Errorf("%s %s: got %d %q, want %d %q (%v)", tt.method, tt.target, res.StatusCode, errCode(m), tt.status, tt.code, m)
		}
	}
	res, m := do(t, s, "GET", "/echo/abc?times=2", "", nil)
	if m["name"] != "abcabc" || res.Header.Get("X-Request-Id") == "" {
		t.Errorf("echo = %v", m)
	}
	res, _ = do(t, s, "DELETE", "/shout", "", nil)
	if got := res.Header.Get("Allow"); !strings.Contains(got, "POST") {
		t.Errorf("405 Allow = %q", got)
	}
	res, _ = do(t, s, "POST", "/shout", `{"text":"hi"}`, map[string]string{"Content-Type": "text/plain"})
	if res.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain body: %d", res.StatusCode)
	}
}

// TestErrorsDoNotLeak: a server error's wrapped text (paths, addresses)
// goes to the log under the request id; the client gets the code, a plain
// message and the same id.
func TestErrorsDoNotLeak(t *testing.T) {
	var logged strings.Builder
	s := NewHTTP(HTTPConfig{Logger: slog.New(slog.NewTextHandler(&logged, nil))}, testRegistry(), nil)
	for _, target := range []string{"/echo/leak", "/echo/fail", "/echo/boom"} {
		res, m := do(t, s, "GET", target, "", nil)
		e, _ := m["error"].(map[string]any)
		id := res.Header.Get("X-Request-Id")
		if res.StatusCode < 500 || id == "" || e["request_id"] != id {
			t.Fatalf("%s: %d %v, X-Request-Id %q", target, res.StatusCode, m, id)
		}
		msg, _ := e["message"].(string)
		if strings.Contains(msg, "/var/lib") || strings.Contains(msg, "10.1.2.3") || strings.Contains(msg, "EOF") {
			t.Errorf("%s: message leaks internals: %q", target, msg)
		}
		if !strings.Contains(logged.String(), "request_id="+id) {
			t.Errorf("%s: log has no entry for request %s:\n%s", target, id, logged.String())
		}
	}
	if !strings.Contains(logged.String(), "/var/lib/openshelf/secret.db") {
		t.Errorf("the log lacks the wrapped error:\n%s", logged.String())
	}
	// A client error keeps its wrapping text: it describes the input.
	_, m := do(t, s, "GET", "/echo/missing", "", nil)
	if e, _ := m["error"].(map[string]any); e["message"] != "no such thing" || e["request_id"] == "" {
		t.Errorf("404 body = %v", m)
	}
}

func TestRateLimit(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	proxy := netip.MustParsePrefix("192.0.2.0/24")
	s := NewHTTP(HTTPConfig{
		RateLimit: RateLimit{PerSecond: 1, Burst: 2, TrustedProxies: []netip.Prefix{proxy}},
		Now:       func() time.Time { return now },
	}, testRegistry(), nil)
	client := map[string]string{"X-Forwarded-For": "203.0.113.9"}
	for i := 0; i < 2; i++ {
		res, _ := do(t, s, "GET", "/echo/abc", "", client)
		if res.StatusCode != 200 || res.Header.Get("RateLimit-Limit") != "2" {
			t.Fatalf("request %d: %d %v", i, res.StatusCode, res.Header)
		}
	}
	res, m := do(t, s, "GET", "/echo/abc", "", client)
	if res.StatusCode != 429 || errCode(m) != "rate_limited" || res.Header.Get("Retry-After") != "1" ||
		res.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("third request: %d %v %v", res.StatusCode, m, res.Header)
	}
	// Another client behind the same proxy has its own bucket.
	if res, _ := do(t, s, "GET", "/echo/abc", "", map[string]string{"X-Forwarded-For": "203.0.113.10"}); res.StatusCode != 200 {
		t.Fatalf("other client limited: %d", res.StatusCode)
	}
	now = now.Add(time.Second)
	if res, _ := do(t, s, "GET", "/echo/abc", "", client); res.StatusCode != 200 {
		t.Fatalf("after refill: %d", res.StatusCode)
	}
}

func TestClientIP(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	tests := []struct {
		remote, xff, want string
	}{
		{"198.51.100.1:5", "203.0.113.1", "198.51.100.1"}, // untrusted peer: header ignored
		{"10.0.0.1:5", "203.0.113.1", "203.0.113.1"},
		{"10.0.0.1:5", "1.1.1.1, 203.0.113.1, 10.0.0.2", "203.0.113.1"}, // rightmost untrusted
		{"10.0.0.1:5", "garbage", "10.0.0.1"},
		{"10.0.0.1:5", "", "10.0.0.1"},
		{"[::ffff:10.0.0.1]:5", "203.0.113.1", "203.0.113.1"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tt.remote
		if tt.xff != "" {
			r.Header.Set("X-Forwarded-For", tt.xff)
		}
		if got := clientIP(r, trusted).String(); got != tt.want {
			t.Errorf("clientIP(%s, %q) = %s, want %s", tt.remote, tt.xff, got, tt.want)
		}
	}
}

func TestAcceptsEncoding(t *testing.T) {
	for h, want := range map[string]bool{
		"zstd": true, "gzip, zstd;q=0.5": true, "gzip": false, "zstd;q=0": false, "*": true, "": false, "ZSTD": true,
	} {
		if got := acceptsEncoding(h, "zstd"); got != want {
			t.Errorf("acceptsEncoding(%q) = %v", h, got)
		}
	}
}
