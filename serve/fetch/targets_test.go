package fetch_test

import (
	"context"
	"net/http"
	"net/netip"
	"testing"

	"github.com/openshelf/openshelf/serve/fetch"
)

func TestParsePrefixes(t *testing.T) {
	tests := []struct {
		in, want string // want "" with wantErr
		wantErr  bool
	}{
		{in: "", want: ""},
		{in: "127.0.0.0/8,::1/128", want: "127.0.0.0/8,::1/128"},
		{in: " 10.9.0.0/16 , 10.9.1.1/16 ", want: "10.9.0.0/16"}, // host bits cleared, duplicates dropped
		{in: "169.254.169.254", want: "169.254.169.254/32"},
		{in: "fd00:ec2::254", want: "fd00:ec2::254/128"},
		{in: "::ffff:10.0.0.0/104", want: "10.0.0.0/8"},
		{in: "10.0.0.0/33", wantErr: true},
		{in: "example.com", wantErr: true},
		{in: "fe80::1%eth0", wantErr: true},
	}
	for _, tt := range tests {
		got, err := fetch.ParsePrefixes(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParsePrefixes(%q) = %v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || fetch.FormatPrefixes(got) != tt.want {
			t.Errorf("ParsePrefixes(%q) = %q, %v; want %q", tt.in, fetch.FormatPrefixes(got), err, tt.want)
		}
	}
}

// TestAllowTargetsCheckURL: listed prefixes are admitted by literal, and
// nothing else that is not public.
func TestAllowTargetsCheckURL(t *testing.T) {
	tests := []struct {
		name    string
		targets string
		ok, bad []string
	}{
		{
			name: "private network only", targets: "10.9.0.0/16",
			ok: []string{"http://10.9.0.1:8080/", "http://10.9.255.254/", "http://[::ffff:10.9.0.1]/", "http://svc.internal:81/", "http://printer/"},
			bad: []string{"http://10.8.0.1/", "http://127.0.0.1/", "http://localhost/", "http://169.254.169.254/",
				"http://[fd00:ec2::254]/", "http://192.168.0.1/", "http://example.com@10.9.0.1/"},
		},
		{
			name: "loopback and ipv6", targets: "127.0.0.0/8,::1/128,fd12::/16",
			ok:  []string{"http://127.0.0.1:1/", "http://127.1/", "http://2130706433:9/", "http://[::1]:3000/", "http://localhost:3000/", "http://[fd12::5]/"},
			bad: []string{"http://10.0.0.1/", "http://169.254.169.254/", "http://[fd13::5]/", "http://[fe80::1]/"},
		},
		{
			name: "one loopback address", targets: "127.0.0.2/32",
			ok:  []string{"http://127.0.0.2:8080/"},
			bad: []string{"http://127.0.0.1/", "http://localhost/", "http://svc.internal/", "http://printer/"},
		},
		{
			name: "metadata listed explicitly", targets: "169.254.169.254/32",
			ok:  []string{"http://169.254.169.254/latest/meta-data/"},
			bad: []string{"http://169.254.169.253/", "http://127.0.0.1/"},
		},
		{
			name: "none: production rules", targets: "",
			ok:  []string{"http://example.com/"},
			bad: []string{"http://10.9.0.1/", "http://127.0.0.1/", "http://localhost/", "http://svc.internal/", "http://printer/"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefixes, err := fetch.ParsePrefixes(tt.targets)
			if err != nil {
				t.Fatal(err)
			}
			c := fetch.New(fetch.Config{AllowTargets: prefixes})
			for _, u := range tt.ok {
				if _, err := c.CheckURL(u); err != nil {
					t.Errorf("client refused %s: %v", u, err)
				}
			}
			for _, u := range tt.bad {
				_, err := c.CheckURL(u)
				assertAPI(t, u, err, http.StatusBadRequest, "invalid_input")
			}
		})
	}
	if _, err := fetch.CheckURL("http://127.0.0.1/"); err == nil {
		t.Error("package CheckURL admits loopback")
	}
}

// TestAllowTargetsDial: after DNS, on redirects and through DialContext,
// only listed addresses are reached. Linux answers on all of 127.0.0.0/8,
// so 127.0.0.2 stands for a listed private server and 127.0.0.3 for an
// unlisted one.
func TestAllowTargetsDial(t *testing.T) {
	hit := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("listed"))
	})
	listed, _ := startCounting(t, "127.0.0.2:0", hit)
	unlisted, uc := startCounting(t, "127.0.0.3:0", hit)
	if listed == nil || unlisted == nil {
		t.Fatal("cannot listen on 127.0.0.2 and 127.0.0.3")
	}
	bounce, _ := startCounting(t, "127.0.0.2:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	}))
	lp, up := portOf(t, listed), portOf(t, unlisted)
	ns := startDNS(t, map[string][][]netip.Addr{
		"listed.test":   {addrs("127.0.0.2")},
		"unlisted.test": {addrs("127.0.0.3")},
		"meta.test":     {addrs("169.254.169.254")},
	})
	c := fetch.New(fetch.Config{AllowTargets: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}, Resolver: ns.Resolver()})
	ctx := context.Background()

	tests := []struct {
		url          string
		status       int // 0: success
		code         string
		redirectedTo string
	}{
		{url: listed.URL + "/"},
		{url: "http://listed.test:" + lp + "/"},
		{url: bounce.URL + "/?to=" + listed.URL + "/", redirectedTo: listed.URL + "/"},
		{url: unlisted.URL + "/", status: 400, code: "invalid_input"},
		{url: "http://unlisted.test:" + up + "/", status: 403, code: "forbidden_target"},
		{url: "http://meta.test/", status: 403, code: "forbidden_target"},
		{url: bounce.URL + "/?to=" + unlisted.URL + "/", status: 403, code: "forbidden_target"},
		{url: bounce.URL + "/?to=http://unlisted.test:" + up + "/", status: 403, code: "forbidden_target"},
	}
	for _, tt := range tests {
		resp, err := c.Get(ctx, tt.url, fetch.Options{})
		if tt.status != 0 {
			assertAPI(t, tt.url, err, tt.status, tt.code)
			continue
		}
		if err != nil || string(resp.Body) != "listed" {
			t.Errorf("%s: %v", tt.url, err)
		}
	}

	// The browser proxy dials through DialContext: the same rule.
	if conn, err := c.DialContext(ctx, "tcp", "127.0.0.2:"+lp); err != nil {
		t.Errorf("DialContext to a listed target: %v", err)
	} else {
		conn.Close()
	}
	if _, err := c.DialContext(ctx, "tcp", "unlisted.test:"+up); err == nil {
		t.Error("DialContext reached an unlisted target")
	} else {
		assertAPI(t, "DialContext", err, 403, "forbidden_target")
	}
	if n := uc.n.Load(); n != 0 {
		t.Errorf("%d connections reached the unlisted server", n)
	}
}
