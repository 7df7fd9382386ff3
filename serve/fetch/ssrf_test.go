package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
)

// TestSSRFSuite throws hostile targets at a production-policy client (no
// AllowLoopback) and checks each is refused with 400 invalid_input (the URL
// text gives it away) or 403 forbidden_target (only resolution or a redirect
// does), and that no refused request ever opened a connection to the
// loopback listeners standing in for internal services.
//
// One loopback address, 127.0.0.1:PUB, is declared "public" through the
// test-only hook so that the redirect and DNS-rebinding paths can be driven
// from a server the client is allowed to reach.
func TestSSRFSuite(t *testing.T) {
	secret := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "internal secret") })
	h4, c4 := startCounting(t, "127.0.0.1:0", secret)
	p4 := portOf(t, h4)
	h6, c6 := startCounting(t, "[::1]:0", secret)
	p6 := p4
	if h6 != nil {
		p6 = portOf(t, h6)
	}

	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		// Close the connection so the next request dials (and resolves)
		// again: the rebinding case depends on it.
		w.Header().Set("Connection", "close")
		http.NotFound(w, r)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "public page") })
	pub, cpub := startCounting(t, "127.0.0.1:0", mux)
	pp := portOf(t, pub)
	publicAddr := netip.MustParseAddrPort(pub.Listener.Addr().String())
	// The rebinding target: same port, another loopback address.
	_, crebind := startCounting(t, "127.0.0.2:"+pp, secret)

	ns := startDNS(t, map[string][][]netip.Addr{
		"public.test":  {addrs("127.0.0.1")},
		"evil.test":    {addrs("127.0.0.1")},
		"evil6.test":   {addrs("::1")},
		"meta.test":    {addrs("169.254.169.254")},
		"private.test": {addrs("10.0.0.1")},
		"mixed.test":   {addrs("10.0.0.1", "127.0.0.1")},
		"mapped.test":  {addrs("::ffff:127.0.0.1")},
		"nat64.test":   {addrs("64:ff9b::7f00:1")},
		"ula.test":     {addrs("fd00:ec2::254")},
		"rebind.test":  {addrs("127.0.0.1"), addrs("127.0.0.2")},
	})
	ports := []int{80, 443}
	for _, p := range []string{p4, p6, pp} {
		n, _ := strconv.Atoi(p)
		ports = append(ports, n)
	}
	cfg := fetch.Config{AllowedPorts: ports, Resolver: ns.Resolver(), Timeout: 5 * time.Second}
	fetch.SetTestPublic(&cfg, func(ap netip.AddrPort) bool { return ap == publicAddr })
	c := fetch.New(cfg)
	defer c.Close()
	ctx := context.Background()

	// The setup must let a public request through, or every refusal below
	// would prove nothing.
	resp, err := c.Get(ctx, "http://public.test:"+pp+"/page", fetch.Options{})
	if err != nil || string(resp.Body) != "public page" {
		t.Fatalf("public page: %v %v", resp, err)
	}
	if cpub.n.Load() == 0 {
		t.Fatal("public server saw no connection")
	}

	hp := func(host, port string) string { return "http://" + host + ":" + port + "/" }
	redirect := func(target string) string {
		return "http://public.test:" + pp + "/redirect?to=" + url.QueryEscape(target)
	}
	const invalid, forbidden = "invalid_input", "forbidden_target"
	cases := []struct {
		name, url, code string
	}{
		// Literal addresses in every spelling: refused before any I/O.
		{"dotted loopback", hp("127.0.0.1", p4), invalid},
		{"other loopback", hp("127.0.0.2", pp), invalid},
		{"decimal", hp("2130706433", p4), invalid},
		{"octal", hp("0177.0.0.1", p4), invalid},
		{"octal whole", hp("017700000001", p4), invalid},
		{"zero padded", hp("127.000.000.001", p4), invalid},
		{"hex short", hp("0x7f.1", p4), invalid},
		{"hex whole", hp("0x7f000001", p4), invalid},
		{"hex dotted", hp("0x7f.0x0.0x0.0x1", p4), invalid},
		{"short 127.1", hp("127.1", p4), invalid},
		{"short 127.0.1", hp("127.0.1", p4), invalid},
		{"short 10.1", hp("10.1", p4), invalid},
		{"trailing dot", hp("127.0.0.1.", p4), invalid},
		{"full width", hp("１２７．０．０．１", p4), invalid},
		{"ideographic dot", hp("127。0。0。1", p4), invalid},
		{"zero", hp("0", p4), invalid},
		{"unspecified", hp("0.0.0.0", p4), invalid},
		{"rfc1918 10", hp("10.0.0.1", p4), invalid},
		{"rfc1918 172", hp("172.16.5.4", p4), invalid},
		{"rfc1918 192", hp("192.168.1.1", p4), invalid},
		{"metadata", "http://169.254.169.254/latest/meta-data/", invalid},
		{"link-local", hp("169.254.1.1", p4), invalid},
		{"cgnat", hp("100.64.0.1", p4), invalid},
		{"multicast", hp("224.0.0.1", p4), invalid},
		{"broadcast", hp("255.255.255.255", p4), invalid},
		{"documentation", hp("192.0.2.10", p4), invalid},
		{"benchmark", hp("198.18.0.1", p4), invalid},
		{"reserved", hp("240.0.0.1", p4), invalid},
		{"ipv6 loopback", hp("[::1]", p6), invalid},
		{"ipv6 unspecified", hp("[::]", p6), invalid},
		{"ipv4-mapped dotted", hp("[::ffff:127.0.0.1]", p4), invalid},
		{"ipv4-mapped hex", hp("[::ffff:7f00:1]", p4), invalid},
		{"ipv4-compatible", hp("[::127.0.0.1]", p4), invalid},
		{"nat64 loopback", hp("[64:ff9b::7f00:1]", p4), invalid},
		{"nat64 private", hp("[64:ff9b::10.0.0.1]", p4), invalid},
		{"6to4 loopback", hp("[2002:7f00:1::]", p4), invalid},
		{"aws metadata v6", "http://[fd00:ec2::254]/latest/meta-data/", invalid},
		{"unique local", hp("[fc00::1]", p6), invalid},
		{"ipv6 link-local", hp("[fe80::1]", p6), invalid},
		{"zone id", hp("[fe80::1%25lo]", p6), invalid},
		{"ipv6 multicast", hp("[ff02::1]", p6), invalid},
		{"ipv6 documentation", hp("[2001:db8::1]", p6), invalid},
		{"localhost", hp("localhost", p4), invalid},
		{"localhost upper dot", hp("LOCALHOST.", p4), invalid},
		{"sub.localhost", hp("app.localhost", p4), invalid},
		{"gcp metadata name", "http://metadata.google.internal/computeMetadata/v1/", invalid},
		{"mdns", hp("printer.local", p4), invalid},
		{"single label", "http://metadata/", invalid},
		{"userinfo confusion", "http://public.test:" + pp + "@127.0.0.1:" + p4 + "/", invalid},
		{"file scheme", "file:///etc/passwd", invalid},
		{"gopher scheme", "gopher://127.0.0.1:" + p4 + "/_SET", invalid},
		{"port not allowed", "http://public.test:6379/", invalid},

		// Names that resolve to non-public addresses: refused at dial.
		{"name to loopback", hp("evil.test", p4), forbidden},
		{"name to ::1", hp("evil6.test", p6), forbidden},
		{"name to metadata", "http://meta.test/latest/meta-data/", forbidden},
		{"name to rfc1918", hp("private.test", p4), forbidden},
		{"name to several private", hp("mixed.test", p4), forbidden},
		{"name to mapped v6", hp("mapped.test", p4), forbidden},
		{"name to nat64", hp("nat64.test", p4), forbidden},
		{"name to ula", hp("ula.test", p4), forbidden},
		{"dns rebinding", "http://rebind.test:" + pp + "/page", forbidden},

		// Redirects from the public server into refused targets.
		{"redirect to literal", redirect(hp("127.0.0.1", p4)), forbidden},
		{"redirect to hex", redirect(hp("0x7f.1", p4)), forbidden},
		{"redirect to v6", redirect(hp("[::1]", p6)), forbidden},
		{"redirect to mapped", redirect(hp("[::ffff:127.0.0.1]", p4)), forbidden},
		{"redirect to localhost", redirect(hp("localhost", p4)), forbidden},
		{"redirect to metadata", redirect("http://169.254.169.254/latest/meta-data/"), forbidden},
		{"redirect to name", redirect(hp("evil.test", p4)), forbidden},
		{"redirect to file", redirect("file:///etc/passwd"), forbidden},
		{"redirect chain", redirect("/redirect?to=" + url.QueryEscape(redirect(hp("evil.test", p4)))), forbidden},
		{"redirect to port", redirect("http://public.test:22/"), forbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := c.Get(ctx, tc.url, fetch.Options{})
			if err == nil {
				t.Fatalf("%s fetched (status %d, %q)", tc.url, resp.Status, resp.Body)
			}
			want := http.StatusBadRequest
			if tc.code == forbidden {
				want = http.StatusForbidden
				if !errors.Is(err, fetch.ErrForbiddenTarget) || !errors.Is(err, apierr.ErrForbidden) || errors.Is(err, apierr.ErrInvalidInput) {
					t.Errorf("not (only) ErrForbiddenTarget: %v", err)
				}
			}
			assertAPI(t, tc.url, err, want, tc.code)
		})
	}
	if n := c4.n.Load(); n != 0 {
		t.Errorf("IPv4 internal listener accepted %d connections", n)
	}
	if c6 != nil && c6.n.Load() != 0 {
		t.Errorf("IPv6 internal listener accepted %d connections", c6.n.Load())
	}
	if crebind != nil && crebind.n.Load() != 0 {
		t.Errorf("rebinding target accepted %d connections", crebind.n.Load())
	}
	if len(cases) < 40 {
		t.Errorf("only %d hostile cases", len(cases))
	}
}

// TestRedirectToPublicFollowed is the control for the redirect cases: the
// same redirect endpoint into an allowed target works, with the hop
// recorded.
func TestRedirectToPublicFollowed(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusMovedPermanently)
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "landed") })
	pub, _ := startCounting(t, "127.0.0.1:0", mux)
	pp := portOf(t, pub)
	publicAddr := netip.MustParseAddrPort(pub.Listener.Addr().String())
	ns := startDNS(t, map[string][][]netip.Addr{"public.test": {addrs("127.0.0.1")}})
	n, _ := strconv.Atoi(pp)
	cfg := fetch.Config{AllowedPorts: []int{n}, Resolver: ns.Resolver()}
	fetch.SetTestPublic(&cfg, func(ap netip.AddrPort) bool { return ap == publicAddr })
	c := fetch.New(cfg)
	start := "http://public.test:" + pp + "/redirect?to=%2Fpage"
	resp, err := c.Get(context.Background(), start, fetch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "landed" || resp.FinalURL.Path != "/page" {
		t.Errorf("got %q at %v", resp.Body, resp.FinalURL)
	}
	if len(resp.Redirects) != 1 || resp.Redirects[0].Status != http.StatusMovedPermanently || resp.Redirects[0].URL != start {
		t.Errorf("redirects = %+v", resp.Redirects)
	}
}
