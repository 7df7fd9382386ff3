package fetch_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
)

func loopbackClient(t *testing.T, cfg fetch.Config) *fetch.Client {
	t.Helper()
	cfg.AllowLoopback = true
	c := fetch.New(cfg)
	t.Cleanup(c.Close)
	return c
}

func TestGetBasics(t *testing.T) {
	var gotUA, gotAccept string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		gotUA, gotAccept = r.Header.Get("User-Agent"), r.Header.Get("Accept")
		w.Header().Set("Content-Type", "text/HTML; charset=UTF-8")
		fmt.Fprint(w, "<p>hello</p>")
	}))
	defer srv.Close()
	c := loopbackClient(t, fetch.Config{})
	resp, err := c.Get(context.Background(), srv.URL+"/a?b=1", fetch.Options{Header: http.Header{"Accept": {"text/html"}, "User-Agent": {"spoof"}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 || string(resp.Body) != "<p>hello</p>" || resp.Truncated {
		t.Errorf("resp = %d %q truncated=%v", resp.Status, resp.Body, resp.Truncated)
	}
	if resp.MediaType() != "text/html" {
		t.Errorf("MediaType = %q", resp.MediaType())
	}
	if resp.FinalURL.String() != srv.URL+"/a?b=1" || len(resp.Redirects) != 0 {
		t.Errorf("final %v redirects %v", resp.FinalURL, resp.Redirects)
	}
	if gotUA != fetch.DefaultUserAgent || gotAccept != "text/html" {
		t.Errorf("UA %q Accept %q", gotUA, gotAccept)
	}
	if err := resp.CheckStatus(); err != nil {
		t.Errorf("CheckStatus: %v", err)
	}
}

func TestStatusErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		http.Error(w, "gone", http.StatusGone)
	}))
	defer srv.Close()
	c := loopbackClient(t, fetch.Config{})
	resp, err := c.Get(context.Background(), srv.URL+"/x", fetch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusGone {
		t.Fatalf("status %d", resp.Status)
	}
	err = resp.CheckStatus()
	assertAPI(t, "410", err, http.StatusBadGateway, "upstream_status")
	if !errors.Is(err, fetch.ErrUpstreamStatus) || !errors.Is(err, apierr.ErrUpstream) {
		t.Errorf("%v is not ErrUpstreamStatus", err)
	}
}

func TestSizeCap(t *testing.T) {
	big := strings.Repeat("x", 10_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/chunked":
			// No Content-Length: the cap must hold while reading.
			for i := 0; i < 10; i++ {
				fmt.Fprint(w, big[:1000])
				w.(http.Flusher).Flush()
			}
		case "/gzip":
			// 10 MB of zeros in a few KB: the cap counts decoded bytes.
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			zw.Write(make([]byte, 10<<20))
			zw.Close()
		default:
			fmt.Fprint(w, big)
		}
	}))
	defer srv.Close()
	c := loopbackClient(t, fetch.Config{MaxBytes: 4096})
	ctx := context.Background()
	for _, p := range []string{"/length", "/chunked", "/gzip"} {
		_, err := c.Get(ctx, srv.URL+p, fetch.Options{})
		assertAPI(t, p, err, http.StatusBadGateway, "upstream_too_large")
		if !errors.Is(err, fetch.ErrTooLarge) {
			t.Errorf("%s: %v is not ErrTooLarge", p, err)
		}
		resp, err := c.Get(ctx, srv.URL+p, fetch.Options{AllowTruncated: true})
		if err != nil {
			t.Fatalf("%s truncated: %v", p, err)
		}
		if !resp.Truncated || len(resp.Body) != 4096 {
			t.Errorf("%s: truncated=%v len=%d", p, resp.Truncated, len(resp.Body))
		}
	}
	// A per-request cap above the body size lets it through whole.
	resp, err := c.Get(ctx, srv.URL+"/length", fetch.Options{MaxBytes: 20_000})
	if err != nil || resp.Truncated || len(resp.Body) != len(big) {
		t.Errorf("MaxBytes option: %v", err)
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/slow-body" {
			w.Write([]byte("start"))
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := loopbackClient(t, fetch.Config{Timeout: 100 * time.Millisecond})
	for _, p := range []string{"/slow-headers", "/slow-body"} {
		_, err := c.Get(context.Background(), srv.URL+p, fetch.Options{})
		assertAPI(t, p, err, http.StatusGatewayTimeout, "upstream_timeout")
		if !errors.Is(err, fetch.ErrTimeout) {
			t.Errorf("%s: %v is not ErrTimeout", p, err)
		}
	}
}

func TestRedirects(t *testing.T) {
	var authSeen []string
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/post", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/echo", http.StatusSeeOther) })
	mux.HandleFunc("/keep", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/echo", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		authSeen = append(authSeen, r.Header.Get("Authorization"))
		fmt.Fprintf(w, "%s %s", r.Method, b.String())
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		authSeen = append(authSeen, "other:"+r.Header.Get("Authorization"))
		http.Redirect(w, r, srv.URL+"/echo", http.StatusFound)
	}))
	defer other.Close()

	c := loopbackClient(t, fetch.Config{MaxRedirects: 3})
	ctx := context.Background()
	_, err := c.Get(ctx, srv.URL+"/loop", fetch.Options{})
	assertAPI(t, "loop", err, http.StatusBadGateway, "too_many_redirects")

	resp, err := c.Do(ctx, http.MethodPost, srv.URL+"/post", fetch.Options{Body: []byte("payload")})
	if err != nil || string(resp.Body) != "GET " {
		t.Errorf("303 after POST: %v %q", err, resp.Body)
	}
	resp, err = c.Do(ctx, http.MethodPost, srv.URL+"/keep", fetch.Options{Body: []byte("payload")})
	if err != nil || string(resp.Body) != "POST payload" {
		t.Errorf("307 after POST: %v %q", err, resp.Body)
	}
	resp, err = c.Get(ctx, srv.URL+"/keep", fetch.Options{NoFollow: true})
	if err != nil || resp.Status != http.StatusTemporaryRedirect || len(resp.Redirects) != 0 {
		t.Errorf("NoFollow: %v %+v", err, resp)
	}

	authSeen = nil
	_, err = c.Get(ctx, other.URL+"/start", fetch.Options{Header: http.Header{"Authorization": {"Bearer s3cret"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(authSeen) != 2 || authSeen[0] != "other:Bearer s3cret" || authSeen[1] != "" {
		t.Errorf("Authorization across origins: %q", authSeen)
	}
}

func TestUpstreamFailures(t *testing.T) {
	// A port with nothing listening.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/"
	ln.Close()
	ns := startDNS(t, nil)
	c := loopbackClient(t, fetch.Config{Resolver: ns.Resolver(), Timeout: 5 * time.Second})
	ctx := context.Background()
	_, err = c.Get(ctx, dead, fetch.Options{IgnoreRobots: true})
	assertAPI(t, "refused", err, http.StatusBadGateway, "upstream_error")
	_, err = c.Get(ctx, "http://nxdomain.test/", fetch.Options{})
	assertAPI(t, "nxdomain", err, http.StatusBadGateway, "upstream_error")
	if ae := apierr.From(err); !strings.Contains(ae.Message, "resolve") {
		t.Errorf("nxdomain message %q", ae.Message)
	}
}

func TestTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
			return
		}
		fmt.Fprint(w, "secure")
	}))
	defer srv.Close()
	// Without the test CA the certificate is refused.
	c := loopbackClient(t, fetch.Config{})
	_, err := c.Get(context.Background(), srv.URL+"/", fetch.Options{})
	assertAPI(t, "untrusted cert", err, http.StatusBadGateway, "upstream_error")

	c = loopbackClient(t, fetch.Config{RootCAs: poolOf(srv)})
	resp, err := c.Get(context.Background(), srv.URL+"/", fetch.Options{})
	if err != nil || string(resp.Body) != "secure" {
		t.Fatalf("%v %v", resp, err)
	}
	_, err = c.Get(context.Background(), srv.URL+"/private/x", fetch.Options{})
	assertAPI(t, "https robots", err, http.StatusForbidden, "robots_disallowed")
}

// TestLoopbackNeedsOption: the same loopback server is refused without
// AllowLoopback, by literal and by name, at the default ports and others.
func TestLoopbackNeedsOption(t *testing.T) {
	srv, cnt := startCounting(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	ns := startDNS(t, map[string][][]netip.Addr{"lo.test": {addrs("127.0.0.1")}})
	p := portOf(t, srv)
	c := fetch.New(fetch.Config{Resolver: ns.Resolver()})
	_, err := c.Get(context.Background(), srv.URL, fetch.Options{})
	assertAPI(t, srv.URL, err, http.StatusBadRequest, "invalid_input")
	_, err = c.Get(context.Background(), "http://lo.test:"+p+"/", fetch.Options{})
	assertAPI(t, "port", err, http.StatusBadRequest, "invalid_input")
	_, err = c.Get(context.Background(), "http://lo.test/", fetch.Options{})
	assertAPI(t, "name", err, http.StatusForbidden, "forbidden_target")
	if cnt.n.Load() != 0 {
		t.Errorf("%d connections reached the server", cnt.n.Load())
	}
}

func TestErrorsMapToAPI(t *testing.T) {
	_, err := fetch.CheckURL("http://127.0.0.1/")
	ae := apierr.From(err)
	if ae.Status != 400 || ae.Code != "invalid_input" || ae.Field != "url" || !strings.HasPrefix(ae.Message, "url: ") {
		t.Errorf("From = %+v", ae)
	}
	if !errors.Is(ae, apierr.ErrInvalidInput) {
		t.Errorf("converted error lost its kind")
	}
}
