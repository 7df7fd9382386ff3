package finance_test

// End-to-end tests of finance_snapshot and company_snapshot through the
// whole server (router, validation, x402 payments with the local
// facilitator) against a local EDGAR that replays real EDGAR JSON from the
// shared fixtures, read in place, plus the hand-written samples of
// samples_test.go for the shapes the fixtures lack.

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/servetest"
	"github.com/openshelf/openshelf/serve/tools/finance"
	"github.com/openshelf/openshelf/serve/tools/finance/edgar"
	"github.com/openshelf/openshelf/serve/tools/web"
	"github.com/openshelf/openshelf/serve/tools/web/webtest"
)

// fakeEDGAR serves the ticker map, submissions and companyfacts files by
// path, counts requests per path, and can be told to fail a path.
type fakeEDGAR struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string][]byte
	fail  map[string]int // path → status to answer instead
	hits  map[string]int
	uas   map[string]bool
}

func newFakeEDGAR(t testing.TB) *fakeEDGAR {
	t.Helper()
	fx := func(name string) []byte {
		b, err := os.ReadFile(fixtures.Path(t, "upstreams", "sec-edgar", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// The real ticker map with the two sample filers added under new keys,
	// in the same {"0":{...}} shape.
	var tickers map[string]json.RawMessage
	if err := json.Unmarshal(fx("company_tickers.json"), &tickers); err != nil {
		t.Fatal(err)
	}
	i := len(tickers)
	for _, entry := range finance.SampleTickers {
		tickers[fmt.Sprint(i)] = json.RawMessage(entry)
		i++
	}
	tb, _ := json.Marshal(tickers)
	f := &fakeEDGAR{
		files: map[string][]byte{
			"/files/company_tickers.json":                     tb,
			"/submissions/CIK0000320193.json":                 fx("submissions_CIK0000320193.json"),
			"/submissions/CIK0000350001.json":                 fx("submissions_CIK0000350001_no_filings.json"),
			"/api/xbrl/companyfacts/CIK0000320193.json":       fx("companyfacts_CIK0000320193.trimmed.json"),
			"/api/xbrl/companyfacts/CIK0001835632.json":       fx("companyfacts_CIK0001835632.json"),
			"/api/xbrl/companyfacts/CIK0009900001.json":       []byte(finance.SampleIFRSFacts),
			"/api/xbrl/companyfacts/CIK0009900002.json":       []byte(finance.SampleRestatedFacts),
			"/api/xbrl/companyfacts/CIK0009900004.json":       []byte(finance.SampleAmendedFacts),
			"/submissions/CIK0009900004.json":                 []byte(finance.SampleAmendedSubmissions),
			"/submissions/CIK0001318605-submissions-001.json": fx("submissions_CIK0001318605-submissions-001.json"),
		},
		fail: map[string]int{}, hits: map[string]int{}, uas: map[string]bool{},
	}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeEDGAR) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.hits[r.URL.Path]++
	f.uas[r.Header.Get("User-Agent")] = true
	status, failing := f.fail[r.URL.Path]
	body, ok := f.files[r.URL.Path]
	f.mu.Unlock()
	if failing {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(status)
		return
	}
	if !ok {
		// EDGAR's 404 is an XML error document.
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code></Error>`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", fmt.Sprintf(`"%x"`, len(body)))
	if r.Header.Get("If-None-Match") == w.Header().Get("ETag") {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(body)
}

func (f *fakeEDGAR) hitsOf(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[path]
}

// setFile serves body at path from now on.
func (f *fakeEDGAR) setFile(path string, body []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[path] = body
}

func (f *fakeEDGAR) failPath(path string, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[path] = status
}

const testUA = "openshelf-tests tests@openshelf.example"

// newEnv runs the server with finance pointed at fake; mod adjusts more.
func newEnv(t testing.TB, fake *fakeEDGAR, mod func(*finance.Config, *web.ProbeConfig)) *servetest.Env {
	return servetest.New(t, func(c *serve.Config) {
		fc := finance.Config{EDGAR: edgar.Config{TickersURL: fake.URL + "/files/company_tickers.json", DataURL: fake.URL,
			UserAgent: testUA, Backoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}}
		var pc web.ProbeConfig
		if mod != nil {
			mod(&fc, &pc)
		}
		c.Use(&web.Family{Probe: pc})
		c.Use(&finance.Family{Config: fc})
	})
}

func TestFinanceSnapshotPaid(t *testing.T) {
	fake := newFakeEDGAR(t)
	env := newEnv(t, fake, nil)
	tests := []struct {
		ticker, name, standard, revenueConcept, form string
		revenue                                      float64
	}{
		{"aapl", "Apple Inc.", "us-gaap", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "10-K", 416161000000},
		{"MRVL", "Marvell Technology, Inc.", "us-gaap", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "10-K", 8194600000},
		{"XFPI", "EXAMPLE FOREIGN ISSUER N.V.", "ifrs-full", "ifrs-full:Revenue", "20-F", 30400000000},
		{"xrst", "EXAMPLE RESTATING CORP", "us-gaap", "us-gaap:Revenues", "10-K/A", 950000000},
	}
	for _, tc := range tests {
		t.Run(tc.ticker, func(t *testing.T) {
			in := map[string]any{"ticker": tc.ticker}
			m := env.PaidCall(t, http.MethodGet, "/v1/finance", in)
			if m["name"] != tc.name || m["ticker"] != strings.ToUpper(tc.ticker) || len(m["cik"].(string)) != 10 {
				t.Errorf("header: %v %v %v", m["ticker"], m["name"], m["cik"])
			}
			if _, ok := m["pe_ratio"]; !ok || m["pe_ratio"] != nil || m["market_cap"] != nil {
				t.Errorf("pe_ratio %v market_cap %v: want present and null", m["pe_ratio"], m["market_cap"])
			}
			fund := m["fundamentals"].(map[string]any)
			rev := fund["revenue"].(map[string]any)
			if fund["standard"] != tc.standard || rev["value"] != tc.revenue || rev["concept"] != tc.revenueConcept || rev["form"] != tc.form {
				t.Errorf("standard %v revenue %v", fund["standard"], rev)
			}
			filing := fund["filing"].(map[string]any)
			if !strings.HasPrefix(filing["url"].(string), edgar.DefaultArchiveURL+"/") || !strings.HasSuffix(filing["url"].(string), "-index.htm") {
				t.Errorf("filing url %v", filing["url"])
			}
			nm := m["ratios"].(map[string]any)["net_margin"].(map[string]any)
			if nm["value"] == nil || nm["formula"] != "net_income / revenue" {
				t.Errorf("net_margin %v", nm)
			}
		})
	}
	if !fake.uas[testUA] || len(fake.uas) != 1 {
		t.Errorf("User-Agents seen by EDGAR: %v", fake.uas)
	}
	// The ticker map was fetched once for all calls (Check and Handle, four
	// tickers): it is cached for a day.
	if n := fake.hitsOf("/files/company_tickers.json"); n != 1 {
		t.Errorf("ticker map fetched %d times, want 1", n)
	}
}

// A 20-F amended twice: once on the cover page (the share count cites that
// 20-F/A), once with exhibits only (no XBRL; only the filing list names
// it). finance_snapshot lists both as amendments of the year, each with its
// link, and keeps the 20-F as the filing; company_snapshot answers the same.
func TestFinanceSnapshotAmendments(t *testing.T) {
	fake := newFakeEDGAR(t)
	env := newEnv(t, fake, nil)
	for _, path := range []string{"/v1/finance", "/v1/company-snapshot"} {
		m := env.PaidCall(t, http.MethodGet, path, map[string]any{"ticker": "XAMD"})
		fund := m["fundamentals"].(map[string]any)
		filing := fund["filing"].(map[string]any)
		if filing["form"] != "20-F" || filing["accession"] != "0009900004-25-000012" {
			t.Errorf("%s: filing %v", path, filing)
		}
		var amendments []string
		for _, a := range fund["amendments"].([]any) {
			a := a.(map[string]any)
			amendments = append(amendments, a["form"].(string)+" "+a["accession"].(string)+" "+a["filed"].(string))
			if !strings.HasSuffix(a["url"].(string), a["accession"].(string)+"-index.htm") {
				t.Errorf("%s: amendment link %v", path, a["url"])
			}
		}
		want := []string{"20-F/A 0009900004-25-000031 2025-06-20", "20-F/A 0009900004-25-000044 2025-09-02"}
		if fmt.Sprint(amendments) != fmt.Sprint(want) {
			t.Errorf("%s: amendments %v, want %v", path, amendments, want)
		}
		shares := fund["shares_outstanding"].(map[string]any)
		if shares["accession"] != "0009900004-25-000031" || shares["value"] != 251300000.0 {
			t.Errorf("%s: shares_outstanding %v", path, shares)
		}
	}
}

func TestFinanceRefusedBeforePayment(t *testing.T) {
	fake := newFakeEDGAR(t)
	env := newEnv(t, fake, nil)
	tests := []struct {
		in     map[string]any
		status int
		code   string
	}{
		{map[string]any{"ticker": "NOSUCHTKR"}, http.StatusNotFound, "unknown_ticker"},
		{map[string]any{"ticker": "ABCDEFGHIJK"}, http.StatusBadRequest, "invalid_input"},
		{map[string]any{"ticker": "A B"}, http.StatusBadRequest, "invalid_input"},
		{map[string]any{}, http.StatusBadRequest, "invalid_input"},
	}
	for _, path := range []string{"/v1/finance", "/v1/company-snapshot"} {
		for _, tc := range tests {
			res, m := env.Call(t, http.MethodGet, path, tc.in, "")
			if res.StatusCode != tc.status || servetest.ErrCode(m) != tc.code {
				t.Errorf("%s %v: %d %v, want %d %s", path, tc.in, res.StatusCode, m, tc.status, tc.code)
			}
		}
	}
	// A private name as the website to check is refused before payment too.
	res, m := env.Call(t, http.MethodGet, "/v1/company-snapshot", map[string]any{"ticker": "AAPL", "domain": "intranet.local"}, "")
	if res.StatusCode != http.StatusBadRequest || servetest.ErrCode(m) != "invalid_input" {
		t.Errorf("private domain: %d %v", res.StatusCode, m)
	}
	if n := env.Settlements(t); n != 0 {
		t.Errorf("%d settlements", n)
	}
}

// A company in the ticker map without XBRL facts (EDGAR answers 404): the
// paid call fails with 404 and is not charged.
func TestFinanceNoFactsNotCharged(t *testing.T) {
	fake := newFakeEDGAR(t)
	env := newEnv(t, fake, nil)
	in := map[string]any{"ticker": "TSLA"} // no companyfacts file in the fake
	res, m := env.Call(t, http.MethodGet, "/v1/finance", in, env.Pay(t, http.MethodGet, "/v1/finance", in))
	if res.StatusCode != http.StatusNotFound || servetest.ErrCode(m) != "no_financial_data" {
		t.Fatalf("%d %v", res.StatusCode, m)
	}
	if n := env.Settlements(t); n != 0 {
		t.Errorf("%d settlements, want 0", n)
	}
}

// EDGAR answering 429 or 503 is retried, then the caller gets a 503 and
// pays nothing.
func TestFinanceUpstreamBusyNotCharged(t *testing.T) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			fake := newFakeEDGAR(t)
			env := newEnv(t, fake, nil)
			const path = "/api/xbrl/companyfacts/CIK0000320193.json"
			fake.failPath(path, status)
			in := map[string]any{"ticker": "AAPL"}
			res, m := env.Call(t, http.MethodGet, "/v1/finance", in, env.Pay(t, http.MethodGet, "/v1/finance", in))
			want := map[int]string{429: "upstream_rate_limited", 503: "upstream_unavailable"}[status]
			if res.StatusCode != http.StatusServiceUnavailable || servetest.ErrCode(m) != want {
				t.Fatalf("%d %v, want 503 %s", res.StatusCode, m, want)
			}
			if res.Header.Get("Retry-After") == "" {
				t.Error("no Retry-After")
			}
			if n := fake.hitsOf(path); n != 3 {
				t.Errorf("EDGAR asked %d times, want 3 (the default attempts)", n)
			}
			if n := env.Settlements(t); n != 0 {
				t.Errorf("%d settlements, want 0", n)
			}
		})
	}
}

func TestCompanySnapshotPaid(t *testing.T) {
	fake := newFakeEDGAR(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Server", "nginx")
		fmt.Fprint(w, "<!doctype html><html><head><title>Example</title></head><body>hi</body></html>")
	}))
	t.Cleanup(site.Close)
	dns := webtest.StartDNS(t, "example.com. 300 IN A 93.184.215.14\nexample.com. 300 IN NS a.iana-servers.net.")
	env := newEnv(t, fake, func(c *finance.Config, p *web.ProbeConfig) {
		c.WebsiteURL = func(d string) string { return site.URL + "/" + d }
		p.DNSServer = dns.Addr
		p.RDAPBootstrapURL = site.URL + "/no-bootstrap.json" // registration fails; dns and tech answer
		p.HomepageURL = func(d string) string { return site.URL + "/" + d }
	})
	in := map[string]any{"ticker": "AAPL", "domain": "https://Example.COM/about"}
	m := env.PaidCall(t, http.MethodGet, "/v1/company-snapshot", in)

	p := m["profile"].(map[string]any)
	if p["name"] != "Apple Inc." || p["cik"] != "0000320193" || p["sic"] != "3571" || p["sic_description"] != "Electronic Computers" ||
		p["state_of_incorporation"] != "CA" || p["fiscal_year_end"] != "0926" {
		t.Errorf("profile %v", p)
	}
	listings := p["listings"].([]any)
	if len(listings) != 1 || listings[0].(map[string]any)["exchange"] != "Nasdaq" {
		t.Errorf("listings %v", listings)
	}
	if fn := p["former_names"].([]any); len(fn) < 2 || fn[0].(map[string]any)["name"] != "APPLE INC" || fn[0].(map[string]any)["to"] != "2019-08-05" {
		t.Errorf("former names %v", fn)
	}
	if a := p["addresses"].([]any); len(a) != 2 || a[0].(map[string]any)["city"] != "CUPERTINO" {
		t.Errorf("addresses %v", a)
	}
	filings := m["recent_filings"].([]any)
	if len(filings) != 10 {
		t.Fatalf("%d recent filings", len(filings))
	}
	f0 := filings[0].(map[string]any)
	if f0["accession"] != "0001059235-26-000004" || f0["form"] != "4" || f0["filing_date"] != "2026-02-26" ||
		f0["document_url"] != edgar.DefaultArchiveURL+"/320193/000105923526000004/xslF345X05/wk-form4_1772148856.xml" {
		t.Errorf("first filing %v", f0)
	}
	fund := m["fundamentals"].(map[string]any)
	if fund["net_income"].(map[string]any)["value"] != 112010000000.0 || m["ratios"] == nil {
		t.Errorf("fundamentals %v", fund["net_income"])
	}
	w := m["website"].(map[string]any)
	if w["domain"] != "example.com" || w["source"] != "input" || w["up"] != true {
		t.Fatalf("website %v", w)
	}
	ping := w["ping"].(map[string]any)
	if ping["status"] != 200.0 || ping["reachable"] != true {
		t.Errorf("ping %v", ping)
	}
	intel := w["domain_intel"].(map[string]any)
	dnsInfo := intel["dns"].(map[string]any)
	if a := dnsInfo["a"].([]any); len(a) != 1 || a[0] != "93.184.215.14" {
		t.Errorf("dns %v", dnsInfo)
	}
	if reg := intel["registration"].(map[string]any); reg["error"] == "" || reg["error"] == nil {
		t.Errorf("registration should report its failure: %v", reg)
	}
}

// Apple records no website and no domain is given: the snapshot says so
// and still answers.
func TestCompanySnapshotWithoutWebsite(t *testing.T) {
	fake := newFakeEDGAR(t)
	env := newEnv(t, fake, nil)
	m := env.PaidCall(t, http.MethodGet, "/v1/company-snapshot", map[string]any{"ticker": "AAPL"})
	if m["website"] != nil || !strings.Contains(m["website_note"].(string), "no website") {
		t.Errorf("website %v note %v", m["website"], m["website_note"])
	}
}

// withWebsite is the real Apple submissions file with its website field
// set, as EDGAR records one for companies that gave it (a URL string); the
// rest of the file is unchanged.
func withWebsite(t *testing.T, website string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, "upstreams", "sec-edgar", "submissions_CIK0000320193.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sub map[string]json.RawMessage
	if err := json.Unmarshal(b, &sub); err != nil {
		t.Fatal(err)
	}
	sub["website"], _ = json.Marshal(website)
	out, err := json.Marshal(sub)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The website EDGAR records is checked as recorded: its scheme, host and
// port, through the guarded client (which the test server admits loopback
// targets through, its documented test option). An address is checked too,
// without domain_intel; a refused target is an error of the check, never
// "no website".
func TestCompanySnapshotRecordedWebsite(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.Host+r.URL.Path]++
		mu.Unlock()
		w.Header().Set("X-Content-Type-Options", "nosniff")
		fmt.Fprint(w, "<!doctype html><title>Investor relations</title>")
	}))
	t.Cleanup(site.Close)
	port := site.Listener.Addr().(*net.TCPAddr).Port
	tests := []struct {
		website, domain string
		up              any    // true, or nil when the check could not run
		hit             string // what the site saw, "" for nothing
		errs            []string
	}{
		{fmt.Sprintf("http://localhost:%d/investors", port), "localhost", true, fmt.Sprintf("localhost:%d/investors", port),
			[]string{"domain_intel: not run: localhost"}},
		{fmt.Sprintf("http://127.0.0.1:%d/", port), "127.0.0.1", true, fmt.Sprintf("127.0.0.1:%d/", port),
			[]string{"domain_intel: not run: 127.0.0.1 is an IP address"}},
		{"http://10.20.30.40:8080/", "10.20.30.40", nil, "",
			[]string{"domain_intel: not run: 10.20.30.40 is an IP address", "ping_status: "}},
	}
	for _, tc := range tests {
		t.Run(tc.website, func(t *testing.T) {
			// A fresh server each time: the EDGAR client caches the file.
			fake := newFakeEDGAR(t)
			fake.setFile("/submissions/CIK0000320193.json", withWebsite(t, tc.website))
			env := newEnv(t, fake, nil)
			m := env.PaidCall(t, http.MethodGet, "/v1/company-snapshot", map[string]any{"ticker": "AAPL"})
			if m["profile"].(map[string]any)["website"] != tc.website {
				t.Errorf("profile website %v", m["profile"].(map[string]any)["website"])
			}
			w, ok := m["website"].(map[string]any)
			if !ok || m["website_note"] != nil {
				t.Fatalf("website %v, note %v: a recorded website must be checked", m["website"], m["website_note"])
			}
			if w["source"] != "edgar" || w["url"] != tc.website || w["domain"] != tc.domain || w["up"] != tc.up {
				t.Errorf("website %v", w)
			}
			if tc.up == true && w["ping"].(map[string]any)["status"] != 200.0 {
				t.Errorf("ping %v", w["ping"])
			}
			if w["domain_intel"] != nil {
				t.Errorf("domain_intel ran on %s: %v", tc.domain, w["domain_intel"])
			}
			errs := fmt.Sprint(w["errors"])
			for _, e := range tc.errs {
				if !strings.Contains(errs, e) {
					t.Errorf("errors %s lack %q", errs, e)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.hit != "" && hits[tc.hit] == 0 {
				t.Errorf("the site was not asked for %s: %v", tc.hit, hits)
			}
		})
	}
}

// EDGAR's test entity has no filings and no XBRL facts: company_snapshot
// still answers (and is charged) with the profile, an empty filing list and
// a note instead of fundamentals.
func TestCompanySnapshotNoFilings(t *testing.T) {
	fake := newFakeEDGAR(t)
	env := newEnv(t, fake, nil)
	m := env.PaidCall(t, http.MethodGet, "/v1/company-snapshot", map[string]any{"ticker": "xnof"})
	p := m["profile"].(map[string]any)
	if !strings.HasPrefix(p["name"].(string), "Company Name Three") || p["cik"] != "0000350001" || len(p["listings"].([]any)) != 0 {
		t.Errorf("profile %v", p)
	}
	if m["fundamentals"] != nil || m["ratios"] != nil || !strings.Contains(m["fundamentals_note"].(string), "no XBRL") {
		t.Errorf("fundamentals %v note %v", m["fundamentals"], m["fundamentals_note"])
	}
	if f := m["recent_filings"].([]any); len(f) != 0 {
		t.Errorf("recent filings %v", f)
	}
}
