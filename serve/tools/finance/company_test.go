package finance

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/serve/tools/finance/edgar"
)

func TestRecordedWebsite(t *testing.T) {
	tests := []struct {
		website, investor, want string
	}{
		{"", "", ""},
		{"https://www.Example.com/about", "", "https://www.Example.com/about"},
		{"example.org", "", "https://example.org"},
		{"", "investor.example.net", "https://investor.example.net"},
		// Kept as recorded: scheme, port, an address or a private name are
		// the check's business, not a reason to say there is no website.
		{"http://www.example.com:8080/", "", "http://www.example.com:8080/"},
		{"http://93.184.215.14/", "ir.example.com", "http://93.184.215.14/"},
		{"http://localhost/", "", "http://localhost/"},
		{"not a url", "ir.example.com", "https://ir.example.com"},
		{"not a url", "", "https://not a url"},
	}
	for _, tc := range tests {
		got := recordedWebsite(&edgar.Submissions{Website: tc.website, InvestorWebsite: tc.investor})
		if got != tc.want {
			t.Errorf("recordedWebsite(%q, %q) = %q, want %q", tc.website, tc.investor, got, tc.want)
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
