package fetch

import (
	"net/netip"
	"strings"
	"testing"
)

// FuzzCheckURL: CheckURL never panics, and whatever it accepts is an
// http(s) URL without userinfo whose host is a public IP literal or a
// domain name that cannot be read as an IPv4 address, and accepting is
// stable: the canonical form checks to itself.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"http://example.com/", "https://bücher.example/x?y#z", "http://127.0.0.1/",
		"http://0x7f.1/", "http://2130706433/", "http://0177.0.0.1/", "http://[::ffff:127.0.0.1]/",
		"http://[64:ff9b::a00:1]/", "http://[fe80::1%25eth0]/", "http://localhost./",
		"http://a.localhost/", "http://１２７.０.０.１/", "http://127。0。0。1/", "http://u:p@example.com/",
		"http://example.com:8080/", "http://1.1.1.1./", "http://[2606:4700::1111]:443/", "http://x.internal/",
		"http://0x/", "http://0x.0x/", "http://09/", "http://example.com.:80/", "HTTP://EXAMPLE.COM",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := CheckURL(raw)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.User != nil || u.Host == "" {
			t.Fatalf("accepted %q as %q", raw, u)
		}
		host := u.Hostname()
		if a, err := netip.ParseAddr(host); err == nil {
			if nonPublic(a) != "" {
				t.Fatalf("accepted non-public %s from %q", a, raw)
			}
		} else {
			if endsInNumber(host) || host == "localhost" || strings.HasSuffix(host, ".localhost") || !strings.Contains(host, ".") {
				t.Fatalf("accepted host %q from %q", host, raw)
			}
			if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
				t.Fatalf("bracketless v6 %q", host)
			}
		}
		again, err := CheckURL(u.String())
		if err != nil {
			t.Fatalf("canonical %q of %q refused: %v", u, raw, err)
		}
		if again.String() != u.String() {
			t.Fatalf("not stable: %q -> %q -> %q", raw, u, again)
		}
	})
}
