package web_test

// End-to-end tests of the six live tools (extract_webpage, site_metadata,
// read_feed, extract_tables, ping_status, domain_intel) through the real
// HTTP server with x402 payments, against local stand-ins for the web: a
// site with real-world shaped pages and feeds, a TLS server with a test CA,
// a DNS server and an RDAP registry. Nothing leaves loopback.

import (
	"context"
	"crypto/ecdsa"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/servetest"
	"github.com/openshelf/openshelf/serve/tools/web"
	"github.com/openshelf/openshelf/serve/tools/web/webtest"
	"github.com/openshelf/openshelf/serve/x402"
)

// ltTestdataDir holds the pages, feeds and RDAP answer the family's unit
// tests use too.
const ltTestdataDir = "testdata"

// liveTool is a tool's route and price; amount is the price in atomic
// USDC units, as PAYMENT-REQUIRED states it.
type liveTool struct{ name, method, path, price, amount string }

// The tools, their routes and prices, as the issue fixes them.
var liveTools = []liveTool{
	{"extract_webpage", http.MethodPost, "/v1/extract", "0.001", "1000"},
	{"site_metadata", http.MethodGet, "/v1/metadata", "0.0002", "200"},
	{"read_feed", http.MethodGet, "/v1/feed-reader", "0.0003", "300"},
	{"extract_tables", http.MethodPost, "/v1/pdf-tables", "0.001", "1000"},
	{"ping_status", http.MethodPost, "/v1/ping-status", "0.0002", "200"},
	{"domain_intel", http.MethodPost, "/v1/domain", "0.0004", "400"},
}

// ltZone: the names the tests reach, all on loopback, and example.com
// as domain_intel sees it.
const ltZone = `
site.example.com. 60 IN A 127.0.0.1
secure.example.com. 60 IN A 127.0.0.1
down.example.com. 60 IN A 127.0.0.1
example.com. 300 IN A 93.184.215.14
example.com. 300 IN AAAA 2606:2800:21f:cb07:6820:80da:af6b:8b2c
example.com. 300 IN MX 10 aspmx.l.google.com.
example.com. 300 IN MX 20 alt1.aspmx.l.google.com.
example.com. 300 IN NS kim.ns.cloudflare.com.
example.com. 300 IN NS ns-123.awsdns-45.com.
example.com. 300 IN TXT "v=spf1 include:_spf.google.com include:sendgrid.net ~all"
example.com. 300 IN CAA 0 issue "letsencrypt.org"
example.com. 300 IN SOA ns-123.awsdns-45.com. awsdns-hostmaster.amazon.com. 2024081402 7200 900 1209600 86400
_dmarc.example.com. 300 IN TXT "v=DMARC1; p=reject; rua=mailto:dmarc@example.com"
`

// ltTablesPage is an HTML page with boilerplate around a table whose header
// and body use rowspan and colspan.
const ltTablesPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Branches | City Library</title></head>
<body><nav><a href="/">Home</a> <a href="/visit">Visit</a></nav>
<main><h1>Opening hours</h1><p>Hours change in the holidays.</p>
<table>
<caption>Opening hours by branch</caption>
<thead>
<tr><th rowspan="2">Branch</th><th colspan="2">Weekdays</th><th rowspan="2">Weekend</th></tr>
<tr><th>Open</th><th>Close</th></tr>
</thead>
<tbody>
<tr><td rowspan="2">Central</td><td>08:00</td><td>20:00</td><td>closed</td></tr>
<tr><td colspan="2">by appointment</td><td>10:00-14:00</td></tr>
<tr><td>Harbour</td><td>09:00</td><td>17:00</td><td>10:00-16:00</td></tr>
</tbody>
</table></main>
<footer>© City Library</footer></body></html>`

// ltSite is a web site on loopback, reached as site.example.com. Routes
// can be added while it runs; every request is counted.
type ltSite struct {
	srv      *httptest.Server
	base     string // http://site.example.com:PORT
	requests atomic.Int64

	mu     sync.Mutex
	routes map[string]ltRoute
}

type ltRoute struct {
	contentType string
	status      int
	location    string
	body        []byte
	// hang: never answer until the client goes away.
	hang bool
}

func ltStartSite(t *testing.T) *ltSite {
	t.Helper()
	w := &ltSite{routes: map[string]ltRoute{}}
	w.srv = httptest.NewServer(http.HandlerFunc(w.serve))
	t.Cleanup(w.srv.Close)
	w.base = "http://site.example.com:" + strconv.Itoa(webtest.Port(w.srv))
	// robots.txt: /private/ is closed except /private/open/ (the longer
	// match wins, RFC 9309).
	w.add("/robots.txt", ltRoute{contentType: "text/plain",
		body: []byte("User-agent: *\nDisallow: /private/\nAllow: /private/open/\n")})
	news := ltTestdata(t, "webpages", "news_article.html")
	html := "text/html; charset=utf-8"
	w.add("/old-link", ltRoute{status: http.StatusMovedPermanently, location: "/science/2026/tidal-lagoon-approved"})
	w.add("/science/2026/tidal-lagoon-approved", ltRoute{contentType: html, body: news})
	w.add("/private/open/lagoon", ltRoute{contentType: html, body: news})
	w.add("/feeds/rss2.xml", ltRoute{contentType: "application/rss+xml; charset=utf-8", body: ltTestdata(t, "feeds", "rss2.xml")})
	w.add("/feeds/rss1.rdf", ltRoute{contentType: "application/rdf+xml", body: ltTestdata(t, "feeds", "rss1.rdf")})
	w.add("/feeds/atom.xml", ltRoute{contentType: "application/atom+xml", body: ltTestdata(t, "feeds", "atom.xml")})
	w.add("/feeds/feed.json", ltRoute{contentType: "application/feed+json", body: ltTestdata(t, "feeds", "feed.json")})
	w.add("/branches", ltRoute{contentType: html, body: []byte(ltTablesPage)})
	return w
}

func (w *ltSite) add(path string, r ltRoute) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.routes[path] = r
}

func (w *ltSite) serve(rw http.ResponseWriter, r *http.Request) {
	w.requests.Add(1)
	w.mu.Lock()
	rt, ok := w.routes[r.URL.Path]
	w.mu.Unlock()
	if !ok {
		http.NotFound(rw, r)
		return
	}
	if rt.hang {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		return
	}
	if rt.contentType != "" {
		rw.Header().Set("Content-Type", rt.contentType)
	}
	if rt.location != "" {
		rw.Header().Set("Location", rt.location)
	}
	if rt.status != 0 {
		rw.WriteHeader(rt.status)
	}
	rw.Write(rt.body)
}

func ltTestdata(t *testing.T, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{ltTestdataDir}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ltRDAP serves an IANA-style bootstrap file and the Verisign-shaped
// answer for example.com.
func ltRDAP(t *testing.T) *httptest.Server {
	t.Helper()
	answer := ltTestdata(t, "rdap", "example.com.json")
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/rdap/dns.json":
			json.NewEncoder(w).Encode(map[string]any{
				"description": "RDAP bootstrap file for Domain Name System registrations",
				"publication": "2025-11-20T17:00:01Z", "version": "1.0",
				"services": [][][]string{{{"com", "net"}, {srv.URL + "/com/v1/"}}},
			})
		case "/com/v1/domain/outage.net":
			http.Error(w, "registry maintenance", http.StatusServiceUnavailable)
		case "/com/v1/domain/example.com":
			w.Header().Set("Content-Type", "application/rdap+json")
			w.Write(answer)
		default:
			w.Header().Set("Content-Type", "application/rdap+json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"errorCode":404,"title":"Not Found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// ltHomepages serves the homepage domain_intel reads for its tech check.
func ltHomepages(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/example.com" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Server", "nginx/1.25.3")
		w.Header().Set("X-Powered-By", "PHP/8.2.1")
		fmt.Fprint(w, `<!doctype html><html><head><meta name="generator" content="WordPress 6.4.2">
<link rel="stylesheet" href="/wp-content/themes/twentytwenty/style.css">
<script src="/wp-includes/js/jquery/jquery-3.7.1.min.js"></script></head><body><p>Hello</p></body></html>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// ltEnv is an app whose live tools reach the local stand-ins.
type ltEnv struct {
	app     *serve.App
	web     *ltSite
	dns     *webtest.DNS
	tlsURL  string // https://secure.example.com:PORT/, certificate from a test CA
	downURL string // a name on a port nobody listens on
	key     *ecdsa.PrivateKey
}

// newLiveToolsApp builds the app with the loopback exception (tests only),
// the test DNS server as resolver, a 2 s fetch time cap and a 256 KiB
// extract cap.
func newLiveToolsApp(t *testing.T) *ltEnv {
	t.Helper()
	e := &ltEnv{web: ltStartSite(t), dns: webtest.StartDNS(t, ltZone)}
	ca := webtest.NewCA(t)
	secure := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		fmt.Fprint(w, "ok")
	}))
	secure.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Leaf(t, "secure.example.com", 90)}}
	secure.StartTLS()
	t.Cleanup(secure.Close)
	e.tlsURL = "https://secure.example.com:" + strconv.Itoa(webtest.Port(secure)) + "/"
	e.downURL = "http://down.example.com:" + strconv.Itoa(ltClosedPort(t)) + "/"
	rdap := ltRDAP(t)
	home := ltHomepages(t)

	e.app = servetest.New(t, func(c *serve.Config) {
		c.Fetch = fetch.Config{AllowLoopback: true, Resolver: e.dns.Resolver(), Timeout: 2 * time.Second, RootCAs: ca.Pool}
		c.Use(&web.Family{
			Probe: web.ProbeConfig{
				PingTimeout:      5 * time.Second,
				RootCAs:          ca.Pool,
				DNSServer:        e.dns.Addr,
				RDAPBootstrapURL: rdap.URL + "/rdap/dns.json",
				HomepageURL:      func(d string) string { return home.URL + "/" + d },
			},
			Tools: web.ToolsConfig{ExtractMaxBytes: 256 << 10},
		})
	}).App
	var err error
	if e.key, err = crypto.GenerateKey(); err != nil {
		t.Fatal(err)
	}
	return e
}

// ltClosedPort is a loopback port nothing listens on.
func ltClosedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return p
}

// ltCall sends in to a tool: as a JSON body for POST, as the query
// string for GET. payment is a PAYMENT-SIGNATURE value or "".
func ltCall(t *testing.T, h http.Handler, name string, in map[string]any, payment string) (*http.Response, map[string]any) {
	t.Helper()
	tool := ltTool(t, name)
	hdr := map[string]string{}
	if payment != "" {
		hdr[x402.HeaderPaymentSignature] = payment
	}
	if tool.method == http.MethodGet {
		q := url.Values{}
		for k, v := range in {
			q.Set(k, fmt.Sprint(v))
		}
		return servetest.Do(t, h, tool.method, tool.path+"?"+q.Encode(), "", hdr)
	}
	body, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	hdr["Content-Type"] = "application/json"
	return servetest.Do(t, h, tool.method, tool.path, string(body), hdr)
}

func ltTool(t *testing.T, name string) liveTool {
	t.Helper()
	for _, tl := range liveTools {
		if tl.name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return liveTools[0]
}

// ltPay does what a client does: the call without payment must be a 402
// stating the tool's price for a resource bound to this input; it returns
// a fresh authorization signed for those requirements.
func ltPay(t *testing.T, h http.Handler, key *ecdsa.PrivateKey, name string, in map[string]any) string {
	t.Helper()
	tool := ltTool(t, name)
	res, m := ltCall(t, h, name, in, "")
	if res.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("%s %v without payment: %d %v, want 402", name, in, res.StatusCode, m)
	}
	req, err := x402.DecodeRequiredHeader(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil {
		t.Fatalf("%s: 402 without a readable PAYMENT-REQUIRED: %v", name, err)
	}
	// One payment buys one call with one input: the resource is the
	// route plus a digest of the input.
	if len(req.Accepts) == 0 || req.Accepts[0].Amount != tool.amount ||
		!strings.HasPrefix(req.Resource.URL, servetest.Base+tool.path+"?input=") {
		t.Fatalf("%s: requirements %+v, want amount %s for %s?input=...", name, req, tool.amount, servetest.Base+tool.path)
	}
	return ltSign(t, key, *req)
}

// payment is ltPay on e's app with e's wallet.
func (e *ltEnv) payment(t *testing.T, name string, in map[string]any) string {
	t.Helper()
	return ltPay(t, e.app.HTTP, e.key, name, in)
}

func ltSign(t *testing.T, key *ecdsa.PrivateKey, req x402.PaymentRequired) string {
	t.Helper()
	p, err := x402.NewPayment(key, req, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return x402.EncodeHeader(p)
}

// ltSettlements is how many payments the ledger has settled.
func ltSettlements(t *testing.T, a *serve.App) int {
	t.Helper()
	n, unknown, err := a.Payments.Core.Config().Ledger.CountSettlements(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if unknown != 0 {
		t.Errorf("%d settlements with an unknown outcome", unknown)
	}
	return n
}

// paidCall runs the x402 dance over HTTP: the call without payment must be
// a 402 naming the tool's price; paid with a signed authorization from
// those requirements it must succeed, carry a receipt and settle once.
func (e *ltEnv) paidCall(t *testing.T, name string, in map[string]any) map[string]any {
	t.Helper()
	tool := ltTool(t, name)
	before := ltSettlements(t, e.app)
	res, m := ltCall(t, e.app.HTTP, name, in, e.payment(t, name, in))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s paid: %d %v", name, res.StatusCode, m)
	}
	receipt, err := x402.DecodeSettlementHeader(res.Header.Get(x402.HeaderPaymentResponse))
	if err != nil || !receipt.Success || receipt.Amount != tool.amount {
		t.Fatalf("%s: receipt %+v (%v)", name, receipt, err)
	}
	if got := ltSettlements(t, e.app); got != before+1 {
		t.Fatalf("%s: settlements %d -> %d, want +1", name, before, got)
	}
	return m
}

func ltStr(v any) string { s, _ := v.(string); return s }

func ltList(v any) []any { l, _ := v.([]any); return l }

func ltObj(v any) map[string]any { m, _ := v.(map[string]any); return m }

// ltRows turns a JSON array of string arrays into [][]string.
func ltRows(v any) [][]string {
	var out [][]string
	for _, r := range ltList(v) {
		var row []string
		for _, c := range ltList(r) {
			row = append(row, ltStr(c))
		}
		out = append(out, row)
	}
	return out
}

func ltStrs(v any) []string {
	var out []string
	for _, x := range ltList(v) {
		out = append(out, ltStr(x))
	}
	return out
}

// TestLiveToolsPaid: each tool, paid through x402 over HTTP, answers with
// the content of the local upstream, and each paid call settles once.
func TestLiveToolsPaid(t *testing.T) {
	e := newLiveToolsApp(t)
	base := e.web.base

	t.Run("extract_webpage", func(t *testing.T) {
		m := e.paidCall(t, "extract_webpage", map[string]any{"url": base + "/old-link"})
		if m["url"] != base+"/science/2026/tidal-lagoon-approved" || m["title"] != "Tidal energy scheme cleared for Severn estuary" {
			t.Errorf("url %q title %q", m["url"], m["title"])
		}
		md := ltStr(m["markdown"])
		for _, want := range []string{
			"Ministers have approved a three-gigawatt tidal lagoon",
			"## Conditions for wildlife",
			"A public inquiry into the access routes will open in the autumn.",
			"[full list of conditions](" + base + "/documents/lagoon-conditions.pdf)",
			"(" + base + "/media/2026/lagoon-hero.jpg)",
		} {
			if !strings.Contains(md, want) {
				t.Errorf("markdown lacks %q", want)
			}
		}
		for _, junk := range []string{"Skip to content", "Most read", "All rights reserved", "Advertisement", "Subscribe", "Load more comments"} {
			if strings.Contains(md, junk) {
				t.Errorf("markdown keeps boilerplate %q", junk)
			}
		}
		if strings.Contains(md, "](/") {
			t.Errorf("relative link in markdown:\n%s", md)
		}
		if wc, _ := m["word_count"].(float64); wc < 350 || wc > 500 {
			t.Errorf("word_count %v", m["word_count"])
		}
	})

	t.Run("site_metadata", func(t *testing.T) {
		m := e.paidCall(t, "site_metadata", map[string]any{"url": base + "/science/2026/tidal-lagoon-approved"})
		og := ltObj(m["open_graph"])
		if og["og:title"] != "Tidal energy scheme cleared for Severn estuary" || og["og:type"] != "article" ||
			og["og:site_name"] != "The Riverside Chronicle" || og["og:image"] != base+"/media/2026/lagoon-hero.jpg" {
			t.Errorf("open_graph %v", og)
		}
		if ltObj(m["twitter"])["twitter:card"] != "summary_large_image" || m["lang"] != "en-GB" ||
			m["canonical"] != base+"/science/2026/tidal-lagoon-approved" {
			t.Errorf("twitter %v lang %v canonical %v", m["twitter"], m["lang"], m["canonical"])
		}
		if len(ltList(m["json_ld"])) != 3 || m["json_ld_errors"] != 1.0 {
			t.Errorf("json_ld %d entries, %v errors", len(ltList(m["json_ld"])), m["json_ld_errors"])
		}
	})

	t.Run("read_feed", func(t *testing.T) {
		tests := []struct {
			path, format, version, title, firstItem string
			items                                   int
		}{
			{"/feeds/rss2.xml", "rss", "2.0", "The Long Field & Other Stories", "Episode 42: Cover crops, cautiously", 3},
			{"/feeds/rss1.rdf", "rss", "1.0", "Stadsbibliotekets nyheter", "Ny utställning: Gamla kartor över Skåne", 2},
			{"/feeds/atom.xml", "atom", "1.0", "Notes from the Workshop", "Cutting dovetails & other joints by hand", 0},
			{"/feeds/feed.json", "json", "1.1", "Microcast Weekly", "Why magpies swoop", 2},
		}
		for _, tt := range tests {
			m := e.paidCall(t, "read_feed", map[string]any{"url": base + tt.path})
			f := ltObj(m["feed"])
			items := ltList(m["items"])
			if f["format"] != tt.format || f["version"] != tt.version || f["title"] != tt.title || f["url"] != base+tt.path {
				t.Errorf("%s: feed %v", tt.path, f)
			}
			if len(items) == 0 || ltObj(items[0])["title"] != tt.firstItem {
				t.Errorf("%s: items %v", tt.path, items)
				continue
			}
			if tt.items > 0 && (len(items) != tt.items || m["total_items"] != float64(tt.items)) {
				t.Errorf("%s: %d items, total %v, want %d", tt.path, len(items), m["total_items"], tt.items)
			}
			if p := ltStr(ltObj(items[0])["published"]); !strings.HasSuffix(p, "Z") {
				t.Errorf("%s: published %q is not UTC", tt.path, p)
			}
		}
		// limit cuts the items, not the count.
		m := e.paidCall(t, "read_feed", map[string]any{"url": base + "/feeds/rss2.xml", "limit": 1})
		if len(ltList(m["items"])) != 1 || m["total_items"] != 3.0 {
			t.Errorf("limit 1: %d items of %v", len(ltList(m["items"])), m["total_items"])
		}
	})

	t.Run("extract_tables html", func(t *testing.T) {
		m := e.paidCall(t, "extract_tables", map[string]any{"url": base + "/branches"})
		tabs := ltList(m["tables"])
		if m["type"] != "html" || len(tabs) != 1 {
			t.Fatalf("type %v, %d tables: %v", m["type"], len(tabs), m)
		}
		tb := ltObj(tabs[0])
		if want := []string{"Branch", "Weekdays / Open", "Weekdays / Close", "Weekend"}; !slices.Equal(ltStrs(tb["columns"]), want) {
			t.Errorf("columns %q, want %q", ltStrs(tb["columns"]), want)
		}
		want := [][]string{
			{"Central", "08:00", "20:00", "closed"},
			{"Central", "by appointment", "by appointment", "10:00-14:00"},
			{"Harbour", "09:00", "17:00", "10:00-16:00"},
		}
		if got := ltRows(tb["rows"]); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("rows %q, want %q", got, want)
		}
		recs := ltList(tb["records"])
		if tb["caption"] != "Opening hours by branch" || len(recs) != 3 || ltObj(recs[1])["Weekdays / Close"] != "by appointment" {
			t.Errorf("caption %v records %v", tb["caption"], recs)
		}
	})

	t.Run("extract_tables pdf", func(t *testing.T) {
		// Rendered by Chromium now.
		pdf := webtest.PrintToPDF(t, webtest.TablesDoc())
		e.web.add("/report.pdf", ltRoute{contentType: "application/pdf", body: pdf})
		m := e.paidCall(t, "extract_tables", map[string]any{"url": base + "/report.pdf", "pages": "1-2"})
		tabs := ltList(m["tables"])
		if m["type"] != "pdf" || m["page_count"] != 32.0 || len(tabs) != 3 {
			t.Fatalf("type %v page_count %v, %d tables", m["type"], m["page_count"], len(tabs))
		}
		ruled, aligned := ltObj(tabs[0]), ltObj(tabs[1])
		if ruled["method"] != "ruled" || ruled["page"] != 1.0 || ruled["caption"] != "Table 1: Quarterly sales by region" ||
			!slices.Equal(ltStrs(ruled["columns"]), []string{"Region", "2024 / Q1", "2024 / Q2"}) {
			t.Errorf("ruled table %v", ruled)
		}
		// The colspan cell is expanded into both columns.
		if want := [][]string{{"North", "10", "12"}, {"South", "not reported", "not reported"}, {"East", "", "4"}}; !slices.EqualFunc(ltRows(ruled["rows"]), want, slices.Equal) {
			t.Errorf("ruled rows %q, want %q", ltRows(ruled["rows"]), want)
		}
		if ltObj(ltList(ruled["records"])[0])["2024 / Q2"] != "12" {
			t.Errorf("ruled records %v", ruled["records"])
		}
		if aligned["method"] != "aligned" || !slices.Equal(ltStrs(aligned["columns"]), []string{"Item", "Count", "Share"}) {
			t.Errorf("unruled table %v", aligned)
		}
		if want := [][]string{{"Widgets large", "1,200", "45.5%"}, {"Gadgets", "87", "3.2%"}, {"Sprockets", "15,003", "51.3%"}, {"Bücher & Co", "4", "0.0%"}}; !slices.EqualFunc(ltRows(aligned["rows"]), want, slices.Equal) {
			t.Errorf("unruled rows %q, want %q", ltRows(aligned["rows"]), want)
		}
		if p := ltObj(tabs[2]); p["page"] != 2.0 || !slices.Equal(ltStrs(p["columns"]), []string{"Code", "Name"}) {
			t.Errorf("page 2 table %v", p)
		}
	})

	t.Run("ping_status", func(t *testing.T) {
		m := e.paidCall(t, "ping_status", map[string]any{"url": e.tlsURL, "method": "GET"})
		ti := ltObj(m["tls"])
		if m["up"] != true || m["status"] != 200.0 || ti["chain_verified"] != true || ti["subject"] != "CN=secure.example.com" ||
			!strings.Contains(ltStr(ti["issuer"]), "Openshelf Test Root CA") {
			t.Errorf("tls target: up %v status %v tls %v", m["up"], m["status"], ti)
		}
		present := map[string]bool{}
		for _, h := range ltList(ltObj(m["security_headers"])["present"]) {
			present[ltStr(ltObj(h)["name"])] = true
		}
		if !present["Strict-Transport-Security"] || !present["X-Content-Type-Options"] {
			t.Errorf("security headers %v", m["security_headers"])
		}
		// A target that is down is an answer, and paid for like any other.
		m = e.paidCall(t, "ping_status", map[string]any{"url": e.downURL})
		if m["up"] != false || m["reachable"] != false || m["error_kind"] != "connect" || ltStr(m["error"]) == "" {
			t.Errorf("down target: %v", m)
		}
	})

	t.Run("domain_intel", func(t *testing.T) {
		m := e.paidCall(t, "domain_intel", map[string]any{"domain": "Example.COM."})
		if m["domain"] != "example.com" || !slices.Equal(ltStrs(m["checks"]), []string{"registration", "dns", "tech"}) {
			t.Errorf("domain %v checks %v", m["domain"], m["checks"])
		}
		reg := ltObj(m["registration"])
		if reg["found"] != true || ltObj(reg["registrar"])["name"] != "RESERVED-Internet Assigned Numbers Authority" ||
			reg["created"] != "1995-08-14T04:00:00Z" {
			t.Errorf("registration %v", reg)
		}
		d := ltObj(m["dns"])
		if !slices.Equal(ltStrs(d["a"]), []string{"93.184.215.14"}) || len(ltList(d["mx"])) != 2 ||
			!strings.HasPrefix(ltStr(d["dmarc"]), "v=DMARC1") || ltObj(d["soa"])["serial"] != 2024081402.0 {
			t.Errorf("dns %v", d)
		}
		var techs []string
		for _, x := range ltList(ltObj(m["tech"])["technologies"]) {
			techs = append(techs, ltStr(ltObj(x)["name"]))
		}
		for _, want := range []string{"WordPress", "PHP", "Nginx"} {
			if !slices.Contains(techs, want) {
				t.Errorf("tech %v lacks %s", techs, want)
			}
		}
	})
}

// TestLiveToolsValidation: bad input is 400 invalid_input naming the field,
// before payment is asked and before anything is fetched, and a payment
// sent along is neither settled nor used up. The server admits loopback
// (the test option), so the refused addresses are other private ones,
// written in the encodings that fool naive checks.
func TestLiveToolsValidation(t *testing.T) {
	e := newLiveToolsApp(t)
	base := e.web.base
	long := base + "/" + strings.Repeat("a", 2049-len(base)-1)
	if len(long) != 2049 {
		t.Fatalf("long URL has %d characters", len(long))
	}
	tests := []struct {
		tool  string
		in    map[string]any
		field string
		rule  string // part of the message
	}{
		{"extract_webpage", map[string]any{}, "url", "required"},
		{"extract_webpage", map[string]any{"url": ""}, "url", "empty"},
		{"extract_webpage", map[string]any{"url": "ftp://example.com/file.html"}, "url", "http"},
		{"extract_webpage", map[string]any{"url": long}, "url", "2048"},
		{"extract_webpage", map[string]any{"url": base + "/x", "css": "main"}, "css", "unknown parameter; allowed: url"},
		{"extract_webpage", map[string]any{"url": "http://10.0.0.1/"}, "url", ""},
		{"extract_webpage", map[string]any{"url": "http://167772161/"}, "url", ""},
		{"extract_webpage", map[string]any{"url": "http://0xa.0.0.1/"}, "url", ""},
		{"extract_webpage", map[string]any{"url": "http://[::ffff:169.254.169.254]/"}, "url", ""},
		{"extract_webpage", map[string]any{"url": "http://user:pw@site.example.com/"}, "url", ""},
		{"site_metadata", map[string]any{}, "url", "required"},
		{"site_metadata", map[string]any{"url": "http://192.168.1.1/"}, "url", ""},
		{"site_metadata", map[string]any{"url": "http://printer.internal/"}, "url", ""},
		{"site_metadata", map[string]any{"url": "http://0300.0250.0.1/"}, "url", ""},
		{"site_metadata", map[string]any{"url": "javascript:alert(1)"}, "url", ""},
		{"read_feed", map[string]any{"url": base + "/feeds/rss2.xml", "limit": 0}, "limit", "at least 1"},
		{"read_feed", map[string]any{"url": base + "/feeds/rss2.xml", "limit": 101}, "limit", "at most 100"},
		{"read_feed", map[string]any{"url": base + "/feeds/rss2.xml", "limit": "ten"}, "limit", "integer"},
		{"read_feed", map[string]any{"url": "http://[fd00::1]/feed"}, "url", ""},
		{"read_feed", map[string]any{"url": "file:///etc/passwd"}, "url", ""},
		{"extract_tables", map[string]any{"url": base + "/branches", "pages": "one"}, "pages", "must match"},
		{"extract_tables", map[string]any{"url": base + "/branches", "pages": "5-2"}, "pages", ""},
		{"extract_tables", map[string]any{"url": base + "/branches", "pages": "0"}, "pages", ""},
		{"extract_tables", map[string]any{"url": base + "/branches", "pages": strings.Repeat("1,", 32) + "1"}, "pages", "at most 64"},
		{"extract_tables", map[string]any{"url": base + "/branches", "max_tables": 201}, "max_tables", "at most 200"},
		{"extract_tables", map[string]any{"url": "http://169.254.169.254/latest/meta-data/"}, "url", ""},
		{"ping_status", map[string]any{"url": base + "/", "method": "POST"}, "method", "one of"},
		{"ping_status", map[string]any{"url": base + "/", "check_ssl": "yes"}, "check_ssl", ""},
		{"ping_status", map[string]any{"url": "http://[fd00:ec2::254]/"}, "url", ""},
		{"domain_intel", map[string]any{"domain": "example.com", "checks": []string{"whois"}}, "checks[0]", "one of"},
		{"domain_intel", map[string]any{"domain": "example.com", "checks": []string{"dns", "dns", "tech", "registration"}}, "checks", "at most 3"},
		{"domain_intel", map[string]any{"domain": "localhost"}, "domain", ""},
		{"domain_intel", map[string]any{"domain": strings.Repeat("a", 250) + ".com"}, "domain", "at most 253"},
		{"domain_intel", map[string]any{"domain": "10.0.0.1"}, "domain", "IP address"},
		{"domain_intel", map[string]any{"domain": "metadata.google.internal"}, "domain", ""},
		{"domain_intel", map[string]any{}, "domain", "required"},
	}
	// One valid authorization per tool (for a good input), offered with
	// every bad request: none may be claimed or settled, since validation
	// comes before the payment is even looked at.
	good := map[string]map[string]any{
		"extract_webpage": {"url": base + "/science/2026/tidal-lagoon-approved"},
		"site_metadata":   {"url": base + "/science/2026/tidal-lagoon-approved"},
		"read_feed":       {"url": base + "/feeds/atom.xml"},
		"extract_tables":  {"url": base + "/branches"},
		"ping_status":     {"url": e.tlsURL},
		"domain_intel":    {"domain": "example.com"},
	}
	payments := map[string]string{}
	for _, tl := range liveTools {
		payments[tl.name] = e.payment(t, tl.name, good[tl.name])
	}
	before := ltSettlements(t, e.app)
	for _, tt := range tests {
		for _, pay := range []string{"", payments[tt.tool]} {
			res, m := ltCall(t, e.app.HTTP, tt.tool, tt.in, pay)
			what := fmt.Sprintf("%s %v (paid=%v)", tt.tool, tt.in, pay != "")
			if len(what) > 160 {
				what = what[:160]
			}
			ae := ltObj(m["error"])
			code := "invalid_input"
			if strings.HasPrefix(tt.rule, "unknown parameter") {
				code = "unknown_parameter"
			}
			if res.StatusCode != http.StatusBadRequest || ae["code"] != code || ae["field"] != tt.field ||
				!strings.Contains(ltStr(ae["message"]), tt.rule) || !strings.HasPrefix(ltStr(ae["message"]), tt.field+": ") {
				t.Errorf("%s: %d %v, want 400 invalid_input field %q rule %q", what, res.StatusCode, ae, tt.field, tt.rule)
			}
			if res.Header.Get(x402.HeaderPaymentRequired) != "" || res.Header.Get(x402.HeaderPaymentResponse) != "" {
				t.Errorf("%s: validation error carries payment headers", what)
			}
		}
	}
	if got := ltSettlements(t, e.app); got != before {
		t.Errorf("validation errors settled %d payments", got-before)
	}
	if n := e.web.requests.Load(); n != 0 {
		t.Errorf("validation errors made %d requests to the site", n)
	}
	// The authorizations offered above are still good.
	for _, tl := range liveTools {
		res, m := ltCall(t, e.app.HTTP, tl.name, good[tl.name], payments[tl.name])
		if res.StatusCode != http.StatusOK || res.Header.Get(x402.HeaderPaymentResponse) == "" {
			t.Errorf("%s: payment after validation errors: %d %v", tl.name, res.StatusCode, m)
		}
	}
	if got := ltSettlements(t, e.app); got != before+len(liveTools) {
		t.Errorf("settlements +%d, want +%d", got-before, len(liveTools))
	}
}

// TestLiveToolsFailuresNotCharged: upstream failures and refusals are
// answered with a stable code and a message and are not charged. The claim
// on the authorization is released: the same payment sent again gets the
// same answer (not a 402 for a payment in use), and once the upstream
// works it pays for the call, once.
func TestLiveToolsFailuresNotCharged(t *testing.T) {
	e := newLiveToolsApp(t)
	base := e.web.base
	html := "text/html; charset=utf-8"
	news := ltRoute{contentType: html, body: ltTestdata(t, "webpages", "news_article.html")}
	feed := ltRoute{contentType: "application/rss+xml", body: ltTestdata(t, "feeds", "rss2.xml")}
	huge := ltRoute{contentType: html, body: []byte("<html><body><article>" +
		strings.Repeat("<p>A long paragraph that goes on and on about nothing at all.</p>", 5000) + "</article></body></html>")}
	if len(huge.body) <= 256<<10 {
		t.Fatalf("huge page of %d bytes is under the extract cap", len(huge.body))
	}
	tests := []struct {
		name, tool string
		in         map[string]any
		status     int
		code       string
		// The upstream at path answers route (none when nil) until it
		// is fixed to answer fix (no fix when nil).
		path       string
		route, fix *ltRoute
	}{
		{"upstream 500", "extract_webpage", map[string]any{"url": base + "/flaky/500"}, 502, "upstream_status",
			"/flaky/500", &ltRoute{contentType: html, status: 500, body: []byte("<h1>Internal Server Error</h1>")}, &news},
		{"upstream 404", "site_metadata", map[string]any{"url": base + "/flaky/missing"}, 502, "upstream_status",
			"/flaky/missing", nil, &news},
		{"timeout", "extract_webpage", map[string]any{"url": base + "/flaky/slow"}, 504, "upstream_timeout",
			"/flaky/slow", &ltRoute{hang: true}, &news},
		{"oversized body", "extract_webpage", map[string]any{"url": base + "/flaky/huge"}, 502, "upstream_too_large",
			"/flaky/huge", &huge, &news},
		{"page without a feed", "read_feed", map[string]any{"url": base + "/flaky/feedless"}, 400, "no_feed_found",
			"/flaky/feedless", &ltRoute{contentType: html, body: []byte(ltTablesPage)}, &feed},
		{"broken feed", "read_feed", map[string]any{"url": base + "/flaky/broken.xml"}, 400, "invalid_feed",
			"/flaky/broken.xml", &ltRoute{contentType: "application/rss+xml",
				body: []byte(`<?xml version="1.0"?><rss version="2.0"><channel><title>Broken</title><item><title>x</item></channel>`)}, &feed},
		{"tables upstream 503", "extract_tables", map[string]any{"url": base + "/flaky/tables"}, 502, "upstream_status",
			"/flaky/tables", &ltRoute{status: 503}, &ltRoute{contentType: html, body: []byte(ltTablesPage)}},
		// Failures of the connection itself are remembered by the
		// robots.txt cache for a while, so these are not fixed here.
		{"nxdomain", "extract_webpage", map[string]any{"url": "http://nowhere.example.com:" + strconv.Itoa(ltClosedPort(t)) + "/"}, 502, "upstream_error",
			"", nil, nil},
		{"connection refused", "site_metadata", map[string]any{"url": e.downURL}, 502, "upstream_error", "", nil, nil},
		{"robots disallow", "extract_webpage", map[string]any{"url": base + "/private/lagoon"}, 403, "robots_disallowed",
			"/private/lagoon", &news, nil},
		{"every domain check fails", "domain_intel", map[string]any{"domain": "outage.net", "checks": []string{"registration"}}, 502, "upstream_error",
			"", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.route != nil {
				e.web.add(tt.path, *tt.route)
			}
			pay := e.payment(t, tt.tool, tt.in)
			before := ltSettlements(t, e.app)
			for try := range 2 {
				res, m := ltCall(t, e.app.HTTP, tt.tool, tt.in, pay)
				ae := ltObj(m["error"])
				if res.StatusCode != tt.status || ae["code"] != tt.code || ltStr(ae["message"]) == "" {
					t.Fatalf("try %d: %d %v, want %d %s with a message", try, res.StatusCode, m, tt.status, tt.code)
				}
				if res.Header.Get(x402.HeaderPaymentResponse) != "" || res.Header.Get(x402.HeaderPaymentRequired) != "" {
					t.Errorf("try %d: failure carries payment headers", try)
				}
				if got := ltSettlements(t, e.app); got != before {
					t.Fatalf("try %d: failure settled %d payments", try, got-before)
				}
			}
			if tt.fix == nil {
				return
			}
			e.web.add(tt.path, *tt.fix)
			res, m := ltCall(t, e.app.HTTP, tt.tool, tt.in, pay)
			if res.StatusCode != http.StatusOK || res.Header.Get(x402.HeaderPaymentResponse) == "" {
				t.Fatalf("same payment once the upstream works: %d %v", res.StatusCode, m)
			}
			if got := ltSettlements(t, e.app); got != before+1 {
				t.Errorf("settlements +%d, want +1", got-before)
			}
		})
	}

	// robots.txt allows /private/open/ (the longer Allow rule wins over
	// Disallow: /private/).
	m := e.paidCall(t, "extract_webpage", map[string]any{"url": base + "/private/open/lagoon"})
	if !strings.Contains(ltStr(m["markdown"]), "Ministers have approved") {
		t.Errorf("allowed page: %v", m)
	}
}

// ltSSRFZone: names that resolve to addresses that are not public.
const ltSSRFZone = `
evil.example.com. 60 IN A 127.0.0.1
evil6.example.com. 60 IN AAAA ::1
meta.example.com. 60 IN A 169.254.169.254
private.example.com. 60 IN A 10.0.0.1
mixed.example.com. 60 IN A 10.0.0.1
mixed.example.com. 60 IN A 127.0.0.1
mapped.example.com. 60 IN AAAA ::ffff:127.0.0.1
nat64.example.com. 60 IN AAAA 64:ff9b::7f00:1
ula.example.com. 60 IN AAAA fd00:ec2::254
alias.example.com. 60 IN CNAME evil.example.com.
`

// TestLiveToolsSSRF runs hostile targets through /v1/extract and
// /v1/metadata of an app with the production policy (no loopback
// exception). A target the URL text gives away is 400 invalid_input before
// payment; a name that resolves to a non-public address is 403
// forbidden_target at dial time, after payment was offered, and not
// charged. The loopback listeners standing in for internal services never
// see a connection.
func TestLiveToolsSSRF(t *testing.T) {
	secret := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "internal secret") })
	h4, c4 := webtest.StartCounting(t, "127.0.0.1:0", secret)
	p4 := strconv.Itoa(webtest.Port(h4))
	h6, c6 := webtest.StartCounting(t, "[::1]:0", secret)
	p6 := p4
	if h6 != nil {
		p6 = strconv.Itoa(webtest.Port(h6))
	}
	ns := webtest.StartDNS(t, ltSSRFZone)
	ports := []int{80, 443}
	for _, p := range []string{p4, p6} {
		n, _ := strconv.Atoi(p)
		ports = append(ports, n)
	}
	a := servetest.New(t, func(c *serve.Config) {
		c.Fetch = fetch.Config{Resolver: ns.Resolver(), AllowedPorts: ports, Timeout: 5 * time.Second}
	}).App
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}

	hp := func(host, port string) string { return "http://" + host + ":" + port + "/" }
	const invalid, forbidden = "invalid_input", "forbidden_target"
	cases := []struct{ name, url, code string }{
		// Literal addresses in every spelling, and names that only mean
		// something inside a private network.
		{"dotted loopback", hp("127.0.0.1", p4), invalid},
		{"other loopback", hp("127.0.0.2", p4), invalid},
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
		{"percent-encoded", hp("%31%32%37%2e%30%2e%30%2e%31", p4), invalid},
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
		{"userinfo confusion", "http://evil.example.com:" + p4 + "@127.0.0.1:" + p4 + "/", invalid},
		{"file scheme", "file:///etc/passwd", invalid},
		{"gopher scheme", "gopher://127.0.0.1:" + p4 + "/_SET", invalid},
		{"dict scheme", "dict://127.0.0.1:" + p4 + "/info", invalid},
		{"port not allowed", "http://evil.example.com:6379/", invalid},

		// Names whose answers are not public: refused when dialling.
		{"name to loopback", hp("evil.example.com", p4), forbidden},
		{"name to ::1", hp("evil6.example.com", p6), forbidden},
		{"name to metadata", "http://meta.example.com/latest/meta-data/", forbidden},
		{"name to rfc1918", hp("private.example.com", p4), forbidden},
		{"name to several private", hp("mixed.example.com", p4), forbidden},
		{"name to mapped v6", hp("mapped.example.com", p4), forbidden},
		{"name to nat64", hp("nat64.example.com", p4), forbidden},
		{"name to ula", hp("ula.example.com", p4), forbidden},
		{"cname to loopback", hp("alias.example.com", p4), forbidden},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d hostile targets", len(cases))
	}
	// A valid authorization (for a harmless input) offered with the
	// literal cases: they are refused before it is looked at.
	payments := map[string]string{}
	for _, tool := range []string{"extract_webpage", "site_metadata"} {
		payments[tool] = ltPay(t, a.HTTP, key, tool, map[string]any{"url": "https://www.example.com/"})
	}
	before := ltSettlements(t, a)
	for _, tool := range []string{"extract_webpage", "site_metadata"} {
		for _, tc := range cases {
			t.Run(tool+"/"+tc.name, func(t *testing.T) {
				in := map[string]any{"url": tc.url}
				pay := payments[tool]
				if tc.code == invalid {
					// Refused before payment is even asked for.
					res, m := ltCall(t, a.HTTP, tool, in, "")
					ae := ltObj(m["error"])
					if res.StatusCode != http.StatusBadRequest || ae["code"] != invalid || ae["field"] != "url" {
						t.Errorf("%d %v, want 400 invalid_input on url", res.StatusCode, ae)
					}
					if res.Header.Get(x402.HeaderPaymentRequired) != "" {
						t.Errorf("a literal refusal asks for payment")
					}
				} else {
					// Only dialling tells, so the call is paid for first
					// (ltPay checks the 402).
					pay = ltPay(t, a.HTTP, key, tool, in)
				}
				res, m := ltCall(t, a.HTTP, tool, in, pay)
				ae := ltObj(m["error"])
				want := http.StatusBadRequest
				if tc.code == forbidden {
					want = http.StatusForbidden
				}
				if res.StatusCode != want || ae["code"] != tc.code || ltStr(ae["message"]) == "" {
					t.Errorf("paid: %d %v, want %d %s", res.StatusCode, ae, want, tc.code)
				}
				// A name's refusal must not say what it resolved to (the
				// API would be an oracle for internal DNS).
				if msg := ltStr(ae["message"]); tc.code == forbidden && (strings.Contains(msg, "127.0.0.1") ||
					strings.Contains(msg, "10.0.0.1") || strings.Contains(msg, "::1") || strings.Contains(msg, "169.254")) {
					t.Errorf("message names the internal address: %q", msg)
				}
				if res.Header.Get(x402.HeaderPaymentResponse) != "" {
					t.Errorf("refusal carries a receipt")
				}
			})
		}
	}
	if got := ltSettlements(t, a); got != before {
		t.Errorf("refusals settled %d payments", got-before)
	}
	if n := c4.Count(); n != 0 {
		t.Errorf("IPv4 internal listener accepted %d connections", n)
	}
	if c6 != nil && c6.Count() != 0 {
		t.Errorf("IPv6 internal listener accepted %d connections", c6.Count())
	}
	if ns.Queries() == 0 {
		t.Error("no name was resolved: the dial-time cases proved nothing")
	}
}

// TestLiveToolsSSRFRedirects: a public page that redirects into a refused
// target is 403 forbidden_target and not charged. The app allows loopback
// (the "public" site is a loopback server), so the targets are the other
// non-public classes.
func TestLiveToolsSSRFRedirects(t *testing.T) {
	e := newLiveToolsApp(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	pub := "http://site.example.com:" + strconv.Itoa(webtest.Port(srv))
	redirect := func(to string) string { return pub + "/redirect?to=" + url.QueryEscape(to) }
	targets := []struct {
		name, to string
		// scheme: not http(s), so nothing could be dialled. ping_status
		// reports such a redirect as the target being down.
		scheme bool
	}{
		{"metadata", "http://169.254.169.254/latest/meta-data/", false},
		{"rfc1918", "http://10.0.0.1/admin", false},
		{"hex rfc1918", "http://0xa000001/", false},
		{"mapped metadata", "http://[::ffff:169.254.169.254]/", false},
		{"aws metadata v6", "http://[fd00:ec2::254]/latest/meta-data/", false},
		{"gcp metadata name", "http://metadata.google.internal/computeMetadata/v1/", false},
		{"chain", redirect("http://192.168.1.1/"), false},
		{"file", "file:///etc/passwd", true},
		{"gopher", "gopher://10.0.0.1:6379/_SET", true},
	}
	for _, tool := range []string{"extract_webpage", "site_metadata", "read_feed", "extract_tables", "ping_status"} {
		for _, tc := range targets {
			in := map[string]any{"url": redirect(tc.to)}
			pay := e.payment(t, tool, in)
			before := ltSettlements(t, e.app)
			res, m := ltCall(t, e.app.HTTP, tool, in, pay)
			if tool == "ping_status" && tc.scheme {
				// A valid (paid) answer about the target.
				if res.StatusCode != http.StatusOK || m["up"] != false || m["error_kind"] != "redirect" {
					t.Errorf("%s redirect to %s: %d %v, want up=false error_kind=redirect", tool, tc.name, res.StatusCode, m)
				}
				continue
			}
			ae := ltObj(m["error"])
			if res.StatusCode != http.StatusForbidden || ae["code"] != "forbidden_target" {
				t.Errorf("%s redirect to %s: %d %v, want 403 forbidden_target", tool, tc.name, res.StatusCode, m)
			}
			if got := ltSettlements(t, e.app); got != before {
				t.Errorf("%s redirect to %s: refusal settled %d payments", tool, tc.name, got-before)
			}
		}
	}
}

// TestLiveToolsDiscovery: every tool is in /openapi.json with its price,
// in /.well-known/ai-data.json with price and MCP name, and in the MCP
// tool list.
func TestLiveToolsDiscovery(t *testing.T) {
	a := servetest.New(t, nil).App
	h := a.HTTP

	_, doc := servetest.Do(t, h, http.MethodGet, "/openapi.json", "", nil)
	paths := ltObj(doc["paths"])
	for _, tl := range liveTools {
		op := ltObj(ltObj(paths[tl.path])[strings.ToLower(tl.method)])
		pi := ltObj(op["x-payment-info"])
		if op == nil || pi["price"] != tl.price || pi["amount"] != tl.amount || ltObj(op["responses"])["402"] == nil {
			t.Errorf("openapi %s %s: x-payment-info %v", tl.method, tl.path, pi)
		}
	}

	_, ai := servetest.Do(t, h, http.MethodGet, "/.well-known/ai-data.json", "", nil)
	entries := map[string]map[string]any{}
	for _, x := range ltList(ai["endpoints"]) {
		entries[ltStr(ltObj(x)["name"])] = ltObj(x)
	}
	mcpTools := ltStrs(ltObj(ai["mcp"])["tools"])
	for _, tl := range liveTools {
		en := entries[tl.name]
		if en == nil || en["path"] != tl.path || en["method"] != tl.method || en["mcp_tool"] != tl.name ||
			ltObj(en["price"])["price"] != tl.price || ltObj(en["price"])["amount"] != tl.amount {
			t.Errorf("ai-data entry %s: %v", tl.name, en)
		}
		if !slices.Contains(mcpTools, tl.name) {
			t.Errorf("ai-data mcp.tools lacks %s", tl.name)
		}
	}

	res, m := servetest.Do(t, h, http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{
		"Content-Type":         "application/json",
		"Accept":               "application/json, text/event-stream",
		"MCP-Protocol-Version": "2025-06-18",
	})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("tools/list: %d %v", res.StatusCode, m)
	}
	listed := map[string]map[string]any{}
	for _, x := range ltList(ltObj(m["result"])["tools"]) {
		listed[ltStr(ltObj(x)["name"])] = ltObj(x)
	}
	for _, tl := range liveTools {
		tool := listed[tl.name]
		if tool == nil {
			t.Errorf("MCP tools/list lacks %s", tl.name)
			continue
		}
		props := ltObj(ltObj(tool["inputSchema"])["properties"])
		field := "url"
		if tl.name == "domain_intel" {
			field = "domain"
		}
		if props[field] == nil || !strings.Contains(ltStr(tool["description"]), tl.price) {
			t.Errorf("MCP tool %s: description %q, input %v", tl.name, tool["description"], props)
		}
		if ann := ltObj(tool["annotations"]); ann["openWorldHint"] != true {
			t.Errorf("MCP tool %s: annotations %v", tl.name, ann)
		}
	}
	// The registry agrees with what was listed.
	var regTools []string
	for _, ep := range a.Registry.Tools() {
		regTools = append(regTools, ep.ToolName())
	}
	for _, tl := range liveTools {
		ep := a.Registry.Lookup(tl.name)
		if ep == nil || ep.Price != tl.price || ep.Path != tl.path || ep.Method != tl.method || ep.Group != registry.GroupTools ||
			!slices.Contains(regTools, tl.name) {
			t.Errorf("registry %s: %+v", tl.name, ep)
		}
	}
}
