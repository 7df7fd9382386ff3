package domain

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/tools/web/webtest"
)

// The zone the fake resolver serves.
const testZone = `
example.com. 300 IN A 93.184.215.14
example.com. 300 IN AAAA 2606:2800:21f:cb07:6820:80da:af6b:8b2c
example.com. 300 IN MX 20 alt1.aspmx.l.google.com.
example.com. 300 IN MX 10 aspmx.l.google.com.
example.com. 300 IN NS ns-123.awsdns-45.com.
example.com. 300 IN NS kim.ns.cloudflare.com.
example.com. 300 IN TXT "v=spf1 include:_spf.google.com include:sendgrid.net ~all"
example.com. 300 IN TXT "google-site-verification=abc123"
example.com. 300 IN CAA 0 issue "letsencrypt.org"
example.com. 300 IN SOA ns-123.awsdns-45.com. awsdns-hostmaster.amazon.com. 2024081402 7200 900 1209600 86400
_dmarc.example.com. 300 IN TXT "v=DMARC1; p=reject; rua=mailto:dmarc@example.com"
www.example.com. 300 IN CNAME d111111abcdef8.cloudfront.net.
d111111abcdef8.cloudfront.net. 60 IN A 151.101.1.57
`

// rdapFake serves an IANA-style bootstrap file and Verisign-shaped domain
// answers for .com.
func rdapFake(t *testing.T) *httptest.Server {
	t.Helper()
	fixture, err := os.ReadFile("../testdata/rdap/example.com.json")
	if err != nil {
		t.Fatal(err)
	}
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/rdap/dns.json":
			boot := map[string]any{
				"description": "RDAP bootstrap file for Domain Name System registrations",
				"publication": "2025-11-20T17:00:01Z",
				"version":     "1.0",
				"services": [][][]string{
					{{"com", "net"}, {srv.URL + "/com/v1/"}},
					{{"org"}, {srv.URL + "/org/"}},
				},
			}
			json.NewEncoder(w).Encode(boot)
		case r.URL.Path == "/com/v1/domain/example.com":
			if a := r.Header.Get("Accept"); !strings.Contains(a, "application/rdap+json") {
				http.Error(w, "bad accept "+a, http.StatusNotAcceptable)
				return
			}
			w.Header().Set("Content-Type", "application/rdap+json")
			w.Write(fixture)
		default:
			w.Header().Set("Content-Type", "application/rdap+json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"errorCode":404,"title":"Not Found","description":["no such domain"]}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// homepageFake serves a homepage per domain: /<domain>.
func homepageFake(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch strings.TrimPrefix(r.URL.Path, "/") {
		case "example.com", "www.example.com":
			w.Header().Set("Server", "nginx/1.25.3")
			w.Header().Set("X-Powered-By", "PHP/8.2.1")
			w.Header().Add("Set-Cookie", "PHPSESSID=abc123; Path=/; HttpOnly")
			w.Header().Set("Link", `<https://example.com/wp-json/>; rel="https://api.w.org/"`)
			fmt.Fprint(w, `<!doctype html><html><head>
<meta name="generator" content="WordPress 6.4.2">
<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/bootstrap@5.3.0/dist/css/bootstrap.min.css">
<link rel="stylesheet" href="/wp-content/themes/twentytwenty/style.css">
<script src="/wp-includes/js/jquery/jquery-3.7.1.min.js"></script>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-ABC123"></script>
</head><body><p>Hello</p></body></html>`)
		case "next.example.org":
			w.Header().Set("X-Vercel-Id", "fra1::abc")
			w.Header().Set("Server", "Vercel")
			fmt.Fprint(w, `<html><head><script src="/_next/static/chunks/main-abc.js" defer></script></head>
<body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json">{}</script></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newDomainProbe(t *testing.T) *Tool {
	t.Helper()
	dnsSrv := webtest.StartDNS(t, testZone)
	rdap := rdapFake(t)
	home := homepageFake(t)
	now := time.Date(2025, 11, 22, 12, 0, 0, 0, time.UTC)
	return newLoopbackTool(t, fetch.Config{}, Config{
		DNSServer:        dnsSrv.Addr,
		RDAPBootstrapURL: rdap.URL + "/rdap/dns.json",
		HomepageURL:      func(d string) string { return home.URL + "/" + d },
		Now:              func() time.Time { return now },
	})
}

func TestDomainIntelExample(t *testing.T) {
	p := newDomainProbe(t)
	in := &Input{Domain: "Example.COM."}
	if err := in.Validate(); err != nil {
		t.Fatal(err)
	}
	out, err := p.domainIntel(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Domain != "example.com" || out.Registrable != "example.com" || len(out.Checks) != 3 {
		t.Errorf("domain %q registrable %q checks %v", out.Domain, out.Registrable, out.Checks)
	}

	reg := out.Registration
	if reg == nil || reg.Error != "" || !reg.Found {
		t.Fatalf("registration: %+v", reg)
	}
	if reg.Registrar == nil || reg.Registrar.Name != "RESERVED-Internet Assigned Numbers Authority" ||
		reg.Registrar.IANAID != "376" || reg.Registrar.AbuseEmail != "abuse@iana.org" || reg.Registrar.AbusePhone != "+1.3108239358" {
		t.Errorf("registrar: %+v", reg.Registrar)
	}
	if reg.Created != "1995-08-14T04:00:00Z" || reg.Expires != "2026-08-13T04:00:00Z" || reg.Updated != "2025-08-14T07:01:39Z" {
		t.Errorf("events: %q %q %q", reg.Created, reg.Updated, reg.Expires)
	}
	if reg.AgeDays == nil || *reg.AgeDays != 11058 || reg.ExpiresDays == nil || *reg.ExpiresDays != 263 {
		t.Errorf("age %v expires in %v", reg.AgeDays, reg.ExpiresDays)
	}
	if strings.Join(reg.Nameservers, ",") != "a.iana-servers.net,b.iana-servers.net" || len(reg.Status) != 6 {
		t.Errorf("nameservers %v status %v", reg.Nameservers, reg.Status)
	}
	if reg.DNSSEC == nil || !reg.DNSSEC.DelegationSigned || reg.DNSSEC.DSRecords != 1 {
		t.Errorf("dnssec %+v", reg.DNSSEC)
	}
	if !strings.HasSuffix(reg.Server, "/com/v1/") {
		t.Errorf("server %q", reg.Server)
	}

	d := out.DNS
	if d == nil || d.Error != "" || len(d.Errors) != 0 {
		t.Fatalf("dns: %+v", d)
	}
	if !slices.Equal(d.A, []string{"93.184.215.14"}) || len(d.AAAA) != 1 {
		t.Errorf("a %v aaaa %v", d.A, d.AAAA)
	}
	if len(d.MX) != 2 || d.MX[0].Host != "aspmx.l.google.com" || d.MX[0].Preference != 10 {
		t.Errorf("mx %+v", d.MX)
	}
	if !slices.Equal(d.NS, []string{"kim.ns.cloudflare.com", "ns-123.awsdns-45.com"}) {
		t.Errorf("ns %v", d.NS)
	}
	if !slices.Equal(d.SPFIncludes, []string{"_spf.google.com", "sendgrid.net"}) || !strings.HasPrefix(d.DMARC, "v=DMARC1") {
		t.Errorf("spf %q %v dmarc %q", d.SPF, d.SPFIncludes, d.DMARC)
	}
	if len(d.TXT) != 2 || len(d.CAA) != 1 || d.CAA[0].Tag != "issue" || d.CAA[0].Value != "letsencrypt.org" {
		t.Errorf("txt %v caa %+v", d.TXT, d.CAA)
	}
	if d.SOA == nil || d.SOA.Serial != 2024081402 || d.SOA.MName != "ns-123.awsdns-45.com" {
		t.Errorf("soa %+v", d.SOA)
	}
	providers := map[string]Provider{}
	for _, pr := range d.Providers {
		providers[pr.Role+"/"+pr.Name] = pr
	}
	for _, want := range []string{"dns/Amazon Route 53", "dns/Cloudflare", "email/Google Workspace", "email/SendGrid"} {
		if _, ok := providers[want]; !ok {
			t.Errorf("provider %s not found in %+v", want, d.Providers)
		}
	}
	if g := providers["email/Google Workspace"]; len(g.Evidence) != 3 {
		// Two MX hosts and the SPF include.
		t.Errorf("google evidence %v", g.Evidence)
	}

	tech := out.Tech
	if tech == nil || tech.Error != "" || tech.Status != 200 {
		t.Fatalf("tech: %+v", tech)
	}
	got := map[string]Technology{}
	for _, tc := range tech.Technologies {
		got[tc.Name] = tc
	}
	wantVersions := map[string]string{
		"Nginx": "1.25.3", "PHP": "8.2.1", "WordPress": "6.4.2", "jQuery": "3.7.1", "Bootstrap": "5.3.0",
		"Google Analytics": "", "MySQL": "",
	}
	for name, v := range wantVersions {
		tc, ok := got[name]
		if !ok {
			t.Errorf("%s not detected; got %v", name, tech.Technologies)
			continue
		}
		if tc.Version != v {
			t.Errorf("%s version %q, want %q", name, tc.Version, v)
		}
		if len(tc.Evidence) == 0 {
			t.Errorf("%s without evidence", name)
		}
	}
	if ev := got["MySQL"].Evidence; len(ev) != 1 || ev[0].Source != "implied" {
		t.Errorf("MySQL evidence %v", ev)
	}
	sources := map[string]bool{}
	for _, e := range got["PHP"].Evidence {
		sources[e.Source] = true
	}
	if !sources["header"] || !sources["cookie"] {
		t.Errorf("PHP evidence %v", got["PHP"].Evidence)
	}
	for _, absent := range []string{"Drupal", "React", "Shopify", "Cloudflare"} {
		if _, ok := got[absent]; ok {
			t.Errorf("%s detected without reason: %+v", absent, got[absent])
		}
	}
}

func TestDomainIntelSubdomainAndSubsets(t *testing.T) {
	p := newDomainProbe(t)
	out, err := p.domainIntel(context.Background(), &Input{Domain: "www.example.com", Checks: []string{"dns"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Registration != nil || out.Tech != nil || !slices.Equal(out.Checks, []string{"dns"}) {
		t.Errorf("only dns was asked for: %+v", out)
	}
	d := out.DNS
	if !slices.Equal(d.CNAME, []string{"d111111abcdef8.cloudfront.net"}) || !slices.Equal(d.A, []string{"151.101.1.57"}) {
		t.Errorf("cname %v a %v", d.CNAME, d.A)
	}
	// NS and SOA come from the apex.
	if len(d.NS) != 2 || d.SOA == nil {
		t.Errorf("apex ns %v soa %v", d.NS, d.SOA)
	}
	var hosting []string
	for _, pr := range d.Providers {
		if pr.Role == "hosting" {
			hosting = append(hosting, pr.Name)
		}
	}
	if !slices.Equal(hosting, []string{"Amazon CloudFront", "Fastly"}) {
		t.Errorf("hosting providers %v", hosting)
	}

	out, err = p.domainIntel(context.Background(), &Input{Domain: "next.example.org", Checks: []string{"tech", "registration"}})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tc := range out.Tech.Technologies {
		names[tc.Name] = true
	}
	if !names["Next.js"] || !names["React"] || !names["Vercel"] || names["WordPress"] {
		t.Errorf("next.example.org tech: %+v", out.Tech.Technologies)
	}
	// .org is in the bootstrap but the registry does not know the name.
	if out.Registration.Found || out.Registration.Error != "" {
		t.Errorf("unknown name: %+v", out.Registration)
	}
}

func TestDomainIntelMissingAndFailing(t *testing.T) {
	p := newDomainProbe(t)
	out, err := p.domainIntel(context.Background(), &Input{Domain: "nowhere.com"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Registration.Found || !out.DNS.NXDomain || out.Tech.Status != 404 {
		t.Errorf("nowhere.com: reg %+v nxdomain %v tech %+v", out.Registration, out.DNS.NXDomain, out.Tech)
	}
	out, err = p.domainIntel(context.Background(), &Input{Domain: "example.net.test", Checks: []string{"registration"}})
	if err == nil {
		t.Fatalf("a TLD without RDAP service is the only check and failed: want an error, got %+v", out.Registration)
	}

	// Every upstream down: the call fails instead of charging for nothing.
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadDNS := udp.LocalAddr().String()
	udp.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer broken.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadHTTP := "http://" + ln.Addr().String() + "/"
	ln.Close()
	dead := newLoopbackTool(t, fetch.Config{}, Config{
		DNSServer:        deadDNS,
		DNSTimeout:       300 * time.Millisecond,
		RDAPBootstrapURL: broken.URL + "/dns.json",
		HomepageURL:      func(string) string { return deadHTTP },
	})
	_, err = dead.domainIntel(context.Background(), &Input{Domain: "example.com"})
	if e := apierr.From(err); err == nil || e.Status != http.StatusBadGateway {
		t.Fatalf("all checks failing: %v", err)
	}
}

func TestNormalizeDomain(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"Example.COM.", "example.com"},
		{"  example.com ", "example.com"},
		{"bücher.de", "xn--bcher-kva.de"},
		{"https://www.Bücher.de/path?q=1", "www.xn--bcher-kva.de"},
		{"xn--bcher-kva.de", "xn--bcher-kva.de"},
		{"localhost", ""},
		{"metadata.google.internal", ""},
		{"printer.local", ""},
		{"93.184.215.14", ""},
		{"http://[::1]/", ""},
		{"com", ""},
		{"a..b.com", ""},
		{"exa mple.com", ""},
		{"example.com:8080", ""},
		{"user@example.com", ""},
		{strings.Repeat("a", 64) + ".com", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := normalizeDomain(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("normalizeDomain(%q) = %q, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("normalizeDomain(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	in := &Input{Domain: "localhost"}
	if e := apierr.From(in.Validate()); e.Status != http.StatusBadRequest || e.Field != "domain" {
		t.Errorf("Validate(localhost) = %+v", e)
	}
}

func TestTechRulesCompile(t *testing.T) {
	rules := compiledRules()
	names := map[string]bool{}
	for _, r := range rules {
		if names[r.rule.name] {
			t.Errorf("duplicate rule %s", r.rule.name)
		}
		names[r.rule.name] = true
	}
	for _, r := range techRules {
		for _, imp := range r.implies {
			if !names[imp] {
				t.Errorf("%s implies unknown %s", r.name, imp)
			}
		}
	}
}

func TestBootstrapBase(t *testing.T) {
	b := &rdapBootstrap{bases: map[string][]string{
		"com":   {"http://plain.example/", "https://secure.example/"},
		"co.uk": {"https://couk.example/"},
		"uk":    {"https://uk.example/"},
	}}
	for domain, want := range map[string]string{
		"example.com":   "https://secure.example/",
		"a.b.co.uk":     "https://couk.example/",
		"example.uk":    "https://uk.example/",
		"com":           "",
		"example.other": "",
	} {
		if got := b.base(domain); got != want {
			t.Errorf("base(%q) = %q, want %q", domain, got, want)
		}
	}
}

func TestDNSTruncatedFallsBackToTCP(t *testing.T) {
	var zone strings.Builder
	for i := range 40 {
		fmt.Fprintf(&zone, "big.example.com. 60 IN TXT \"record-%02d-%s\"\n", i, strings.Repeat("x", 60))
	}
	dnsSrv := webtest.StartDNS(t, zone.String())
	p := newLoopbackTool(t, fetch.Config{}, Config{DNSServer: dnsSrv.Addr})
	d := p.dnsInfo(context.Background(), "big.example.com", "example.com")
	if len(d.TXT) != 40 {
		t.Errorf("got %d TXT records, want 40 (errors %v)", len(d.TXT), d.Errors)
	}
}

func TestSPFIncludes(t *testing.T) {
	got := spfIncludes("v=spf1 ip4:1.2.3.4 include:_spf.google.com ~include:x.example -all redirect=_spf.example.net include:_spf.google.com")
	want := []string{"_spf.google.com", "x.example", "_spf.example.net"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestDomainThroughRegistry(t *testing.T) {
	p := newDomainProbe(t)
	ep := p.Endpoint()
	in := ep.NewInput()
	if err := ep.Input.DecodeJSON(in, []byte(`{"domain":"https://WWW.Example.com/about"}`), nil); err != nil {
		t.Fatal(err)
	}
	di := in.(*Input)
	if di.Domain != "www.example.com" || !slices.Equal(di.Checks, []string{"registration", "dns", "tech"}) {
		t.Fatalf("decoded %+v", di)
	}
	res, err := ep.Handle(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	out := res.Value.(*Output)
	if out.Registrable != "example.com" || !out.Registration.Found || out.Registration.Name != "example.com" {
		t.Errorf("registration of the registered domain: %+v", out.Registration)
	}
	for _, body := range []string{`{"domain":"localhost"}`, `{"domain":"example.com","checks":["whois"]}`, `{}`} {
		if err := ep.Input.DecodeJSON(ep.NewInput(), []byte(body), nil); err == nil {
			t.Errorf("%s accepted", body)
		}
	}
}
