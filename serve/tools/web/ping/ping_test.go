package ping

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/tools/web/webtest"
)

func pingDefaults(u string) *Input {
	return &Input{URL: u, Method: "HEAD", CheckSSL: true, FollowRedirects: true}
}

func TestPingUpWithRedirectsAndSecurityHeaders(t *testing.T) {
	var methods []string
	mux := http.NewServeMux()
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/new", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/new", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/final", http.StatusFound)
	})
	mux.HandleFunc("/final", func(w http.ResponseWriter, r *http.Request) {
		methods = append(methods, r.Method)
		w.Header().Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "strict-origin-when-cross-origin")
		w.Header().Set("Strict-Transport-Security", "max-age=63072000")
		w.Header().Set("X-Custom", "yes")
		w.WriteHeader(http.StatusOK)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	p := newLoopbackTool(t, fetch.Config{}, Config{})
	out, err := p.ping(context.Background(), pingDefaults(srv.URL+"/old"))
	if err != nil {
		t.Fatal(err)
	}
	if !out.Up || !out.Reachable || out.Status != 200 || out.StatusText != "OK" {
		t.Fatalf("got up=%v reachable=%v status=%d %q", out.Up, out.Reachable, out.Status, out.StatusText)
	}
	if out.FinalURL != srv.URL+"/final" {
		t.Errorf("final_url = %q", out.FinalURL)
	}
	if len(out.Redirects) != 2 || out.Redirects[0].Status != 301 || out.Redirects[0].Location != "/new" ||
		out.Redirects[1].Status != 302 || out.Redirects[1].URL != srv.URL+"/new" {
		t.Errorf("redirects = %+v", out.Redirects)
	}
	if out.Method != "HEAD" || len(methods) != 1 || methods[0] != "HEAD" {
		t.Errorf("method %q, server saw %v", out.Method, methods)
	}
	if out.Headers["x-custom"] != "yes" {
		t.Errorf("headers = %v", out.Headers)
	}
	if out.TLS != nil {
		t.Error("tls reported for an http URL")
	}
	present := map[string]string{}
	for _, h := range out.Security.Present {
		present[h.Name] = h.Note
	}
	// HSTS over http is noted as ignored; XFO is covered by frame-ancestors.
	if note, ok := present["Strict-Transport-Security"]; !ok || !strings.Contains(note, "ignore") {
		t.Errorf("HSTS over http: %q, %v", note, ok)
	}
	if _, ok := present["X-Frame-Options"]; !ok {
		t.Errorf("X-Frame-Options should count as covered by frame-ancestors: %+v", out.Security)
	}
	want := []string{"Permissions-Policy", "Cross-Origin-Opener-Policy", "Cross-Origin-Embedder-Policy", "Cross-Origin-Resource-Policy"}
	if strings.Join(out.Security.Missing, ",") != strings.Join(want, ",") {
		t.Errorf("missing = %v, want %v", out.Security.Missing, want)
	}
}

func TestPingNoFollowAndHeadFallback(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/nohead", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Write([]byte("hello"))
	})
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	p := newLoopbackTool(t, fetch.Config{}, Config{})

	in := pingDefaults(srv.URL + "/moved")
	in.FollowRedirects = false
	out, err := p.ping(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != 307 || !out.Up || len(out.Redirects) != 0 || out.Headers["location"] != "/elsewhere" {
		t.Errorf("no-follow: status %d up %v redirects %v headers %v", out.Status, out.Up, out.Redirects, out.Headers)
	}

	out, err = p.ping(context.Background(), pingDefaults(srv.URL+"/nohead"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != 200 || out.Method != "GET" || !out.HeadFallback {
		t.Errorf("fallback: status %d method %s fallback %v", out.Status, out.Method, out.HeadFallback)
	}

	out, err = p.ping(context.Background(), pingDefaults(srv.URL+"/broken"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Up || !out.Reachable || out.Status != 503 || out.ErrorKind != "http" {
		t.Errorf("503: %+v", out)
	}
}

func TestPingDownTargets(t *testing.T) {
	// A port nobody listens on: take one and close it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()

	// A server that accepts and never answers.
	hang, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hang.Close()
	go func() {
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()

	dnsSrv := webtest.StartDNS(t, "up.example.com. 60 IN A 127.0.0.1")
	p := newLoopbackTool(t, fetch.Config{Resolver: dnsSrv.Resolver()}, Config{Timeout: 500 * time.Millisecond})

	tests := []struct {
		name, url, kind string
	}{
		{"refused", "http://" + closed + "/", "connect"},
		{"nxdomain", "http://nowhere.example.com/", "dns"},
		{"timeout", "http://" + hang.Addr().String() + "/", "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := p.ping(context.Background(), pingDefaults(tt.url))
			if err != nil {
				t.Fatalf("a down target must be an answer, got error %v", err)
			}
			if out.Up || out.Reachable || out.Error == "" || out.ErrorKind != tt.kind {
				t.Errorf("got up=%v reachable=%v error=%q kind=%q, want kind %q", out.Up, out.Reachable, out.Error, out.ErrorKind, tt.kind)
			}
		})
	}
}

// TestPingGuardRefusal: a name that resolves to a private address, and a
// redirect into one, are 403 errors, never up=false; a literal private
// address is a 400 before payment.
func TestPingGuardRefusal(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	dnsSrv := webtest.StartDNS(t, "private.example.com. 60 IN A 127.0.0.1")

	// The production policy (loopback refused), on the test server's port.
	fc := fetch.New(fetch.Config{Resolver: dnsSrv.Resolver(), AllowedPorts: []int{port}})
	defer fc.Close()
	prod := New(fc, Config{})
	// Loopback allowed, so the redirect is what gets refused.
	loop := newLoopbackTool(t, fetch.Config{}, Config{})

	tests := []struct {
		name string
		p    *Tool
		url  string
	}{
		{"name resolving to loopback", prod, "http://private.example.com:" + strconv.Itoa(port) + "/"},
		{"redirect to metadata address", loop, srv.URL + "/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.p.ping(context.Background(), pingDefaults(tt.url))
			if err == nil {
				t.Fatalf("want a 403 error, got %+v", out)
			}
			if e := apierr.From(err); e.Status != http.StatusForbidden {
				t.Errorf("status %d (%v), want 403", e.Status, err)
			}
		})
	}

	ep := prod.Endpoint()
	err := ep.Check(context.Background(), pingDefaults("http://10.0.0.1/"))
	if e := apierr.From(err); err == nil || e.Status != http.StatusBadRequest || e.Field != "url" {
		t.Errorf("literal private address: %v", err)
	}
}

func TestPingTLS(t *testing.T) {
	ca := webtest.NewCA(t)
	now := time.Now()
	tests := []struct {
		name, cn string
		cert     tls.Certificate
		verified bool
		up       bool
	}{
		{"ca-signed", "good.test", ca.Leaf(t, "good.test", 30), true, true},
		{"self-signed", "self.test", (*webtest.CA)(nil).Leaf(t, "self.test", 30), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Strict-Transport-Security", "max-age=300")
				w.WriteHeader(http.StatusOK)
			}))
			srv.TLS = &tls.Config{Certificates: []tls.Certificate{tt.cert}}
			srv.StartTLS()
			defer srv.Close()
			p := newLoopbackTool(t, fetch.Config{}, Config{RootCAs: ca.Pool, Now: func() time.Time { return now }})
			out, err := p.ping(context.Background(), pingDefaults(srv.URL+"/"))
			if err != nil {
				t.Fatal(err)
			}
			if out.TLS == nil {
				t.Fatal("no tls info")
			}
			ti := out.TLS
			if ti.ChainVerified != tt.verified || (ti.VerifyError == "") == !tt.verified {
				t.Errorf("verified=%v error=%q", ti.ChainVerified, ti.VerifyError)
			}
			if out.Up != tt.up || out.Status != 200 || !out.Reachable {
				t.Errorf("up=%v status=%d", out.Up, out.Status)
			}
			if !tt.up && out.ErrorKind != "tls" {
				t.Errorf("error kind %q", out.ErrorKind)
			}
			if ti.Subject != "CN="+tt.cn {
				t.Errorf("subject %q", ti.Subject)
			}
			if ti.DaysLeft < 28 || ti.DaysLeft > 30 {
				t.Errorf("days_left = %d", ti.DaysLeft)
			}
			if !strings.HasPrefix(ti.Version, "TLS 1.") || ti.Cipher == "" || ti.KeyType != "ECDSA P-256" {
				t.Errorf("version %q cipher %q key %q", ti.Version, ti.Cipher, ti.KeyType)
			}
			if strings.Join(ti.SANs, ",") != "localhost,"+tt.cn+",127.0.0.1" {
				t.Errorf("sans = %v", ti.SANs)
			}
			if tt.verified && (!strings.Contains(ti.Issuer, "Openshelf Test Root CA") || len(ti.Chain) != 2) {
				t.Errorf("issuer %q chain %v", ti.Issuer, ti.Chain)
			}
			var hsts SecurityHeader
			for _, h := range out.Security.Present {
				if h.Name == "Strict-Transport-Security" {
					hsts = h
				}
			}
			if !strings.Contains(hsts.Note, "180 days") {
				t.Errorf("short HSTS max-age not noted: %+v", hsts)
			}
		})
	}
}

func TestDownReasonKinds(t *testing.T) {
	if _, kind := downReason(&net.OpError{Op: "dial", Err: errors.New("x")}); kind != "connect" {
		t.Errorf("dial error kind %q", kind)
	}
	if _, kind := downReason(context.DeadlineExceeded); kind != "timeout" {
		t.Errorf("deadline kind %q", kind)
	}
	if _, kind := downReason(&net.DNSError{IsNotFound: true}); kind != "dns" {
		t.Errorf("dns kind %q", kind)
	}
}

// TestPingThroughRegistry decodes a body as the server does, so the schema
// defaults (HEAD, check_ssl, follow_redirects) apply.
func TestPingThroughRegistry(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			http.Redirect(w, r, "/home", http.StatusFound)
			return
		}
		w.Header().Set("X-Method", r.Method)
	}))
	defer srv.Close()
	p := newLoopbackTool(t, fetch.Config{}, Config{})
	ep := p.Endpoint()
	in := ep.NewInput()
	if err := ep.Input.DecodeJSON(in, []byte(`{"url":"`+siteURL(srv)+`/"}`), nil); err != nil {
		t.Fatal(err)
	}
	pi := in.(*Input)
	if pi.Method != "HEAD" || !pi.CheckSSL || !pi.FollowRedirects {
		t.Fatalf("defaults not applied: %+v", pi)
	}
	if err := ep.Check(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	res, err := ep.Handle(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	out := res.Value.(*Output)
	if !out.Up || len(out.Redirects) != 1 || out.Headers["x-method"] != "HEAD" {
		t.Errorf("got %+v", out)
	}
	if err := ep.Input.DecodeJSON(ep.NewInput(), []byte(`{"url":"`+siteURL(srv)+`/","method":"POST"}`), nil); err == nil {
		t.Error("method POST accepted")
	}
	// Literal private addresses are refused by Check, before payment.
	in = ep.NewInput()
	if err := ep.Input.DecodeJSON(in, []byte(`{"url":"http://127.0.0.1/"}`), nil); err != nil {
		t.Fatal(err)
	}
	prod := fetch.New(fetch.Config{})
	t.Cleanup(prod.Close)
	err = New(prod, Config{}).Endpoint().Check(context.Background(), in)
	if e := apierr.From(err); err == nil || e.Status != http.StatusBadRequest || e.Field != "url" {
		t.Errorf("literal loopback: %v", err)
	}
}
