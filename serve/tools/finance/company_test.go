package finance

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/serve/tools/finance/edgar"
)

func TestRecordedDomain(t *testing.T) {
	tests := []struct {
		website, investor, want string
	}{
		{"", "", ""},
		{"https://www.Example.com/about", "", "www.example.com"},
		{"example.org", "", "example.org"},
		{"", "investor.example.net", "investor.example.net"},
		{"http://localhost/", "", ""}, // a private name is never checked
		{"https://10.0.0.1/", "", ""}, // nor an address
		{"not a url", "ir.example.com", "ir.example.com"},
	}
	for _, tc := range tests {
		got, src := recordedDomain(&edgar.Submissions{Website: tc.website, InvestorWebsite: tc.investor})
		if got != tc.want || (got != "" && src != "edgar") {
			t.Errorf("recordedDomain(%q, %q) = %q %q, want %q", tc.website, tc.investor, got, src, tc.want)
		}
	}
}

// The EDGAR test entity with no filings, no tickers and odd characters in
// its name still makes a profile.
func TestProfileNoFilings(t *testing.T) {
	b, err := os.ReadFile(fixtures.Path(t, "upstreams", "sec-edgar", "submissions_CIK0000350001_no_filings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s edgar.Submissions
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	f := New(Config{})
	p := f.profile(&s, edgar.Ticker{CIK: 350001, Ticker: "X"})
	if p.Name != s.Name || p.CIK != "0000350001" || p.SIC != "6189" || len(p.Listings) != 0 || len(p.Addresses) != 2 ||
		len(p.FormerNames) != len(s.FormerNames) || p.FormerNames[0].From != "2003-10-15" {
		t.Errorf("profile %+v", p)
	}
	if got := f.recent(350001, &s.Filings.Recent); len(got) != 0 {
		t.Errorf("%d recent filings", len(got))
	}
}
