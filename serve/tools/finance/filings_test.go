package finance

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/serve/tools/finance/edgar"
)

func accessions(refs []FilingRef) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.Form + " " + r.Accession
	}
	return out
}

// The amendments of the reported fiscal year are every annual form the
// filing list dates to its year end, whether it carried XBRL figures or
// not; the filing is the original report even when only its amendment
// carried figures.
func TestWithFilings(t *testing.T) {
	var sub edgar.Submissions
	if err := json.Unmarshal([]byte(SampleAmendedSubmissions), &sub); err != nil {
		t.Fatal(err)
	}
	amended, err := fundamentals(readFacts(t, []byte(SampleAmendedFacts)))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		fund       *Fundamentals
		filing     string
		amendments []string
	}{
		{"20-F with a cover-page 20-F/A and an exhibits-only 20-F/A", amended,
			"20-F 0009900004-25-000012", []string{"20-F/A 0009900004-25-000031", "20-F/A 0009900004-25-000044"}},
		{"original 20-F without XBRL: the facts name only its 20-F/A",
			&Fundamentals{FiscalYearEnd: "2024-12-31", Amendments: []FilingRef{},
				Filing: FilingRef{Form: "20-F/A", Accession: "0009900004-25-000031", Filed: "2025-06-20"}},
			"20-F 0009900004-25-000012", []string{"20-F/A 0009900004-25-000031", "20-F/A 0009900004-25-000044"}},
		{"another year: its own 20-F/A only", &Fundamentals{FiscalYearEnd: "2023-12-31", Amendments: []FilingRef{},
			Filing: FilingRef{Form: "20-F", Accession: "0009900004-24-000011", Filed: "2024-04-12"}},
			"20-F 0009900004-24-000011", []string{"20-F/A 0009900004-24-000027"}},
	}
	f := New(Config{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := accessions(tc.fund.Amendments)
			got, err := f.withFilings(context.Background(), tc.fund, 9900004, &sub)
			if err != nil {
				t.Fatal(err)
			}
			if g := got.Filing.Form + " " + got.Filing.Accession; g != tc.filing {
				t.Errorf("filing %s, want %s", g, tc.filing)
			}
			if g := accessions(got.Amendments); !slices.Equal(g, tc.amendments) {
				t.Errorf("amendments %v, want %v", g, tc.amendments)
			}
			for _, a := range got.Amendments {
				if a.URL != edgar.DefaultArchiveURL+"/9900004/"+strings.ReplaceAll(a.Accession, "-", "")+"/"+a.Accession+"-index.htm" {
					t.Errorf("amendment link %s", a.URL)
				}
			}
			if !slices.Equal(accessions(tc.fund.Amendments), before) {
				t.Error("the shared fundamentals were modified")
			}
		})
	}
}

// A filing list whose recent part does not reach back to the fiscal year
// end is completed from the older page that covers it (Tesla's real page:
// the 10-K for 2011 and its 10-K/A); a page that ends before the year end
// is not read.
func TestWithFilingsOlderPage(t *testing.T) {
	page, err := os.ReadFile(fixtures.Path(t, "upstreams", "sec-edgar", "submissions_CIK0001318605-submissions-001.json"))
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		if r.URL.Path != "/submissions/CIK0001318605-submissions-001.json" {
			http.NotFound(w, r)
			return
		}
		w.Write(page)
	}))
	defer srv.Close()
	f := New(Config{EDGAR: edgar.Config{DataURL: srv.URL, Backoff: time.Millisecond}})
	defer f.Close()
	sub := &edgar.Submissions{}
	sub.Filings.Recent = edgar.Filings{AccessionNumber: []string{"0001628280-18-002309"}, FilingDate: []string{"2018-02-23"},
		ReportDate: []string{"2017-12-31"}, Form: []string{"10-K"}}
	sub.Filings.Files = []edgar.FilesPage{
		{Name: "CIK0001318605-submissions-001.json", FilingFrom: "2005-02-17", FilingTo: "2018-02-12"},
		{Name: "CIK0001318605-submissions-002.json", FilingFrom: "2001-01-01", FilingTo: "2005-02-16"},
	}
	fund := &Fundamentals{FiscalYearEnd: "2011-12-31", Amendments: []FilingRef{},
		Filing: FilingRef{Form: "10-K", Accession: "0001193125-12-081990", Filed: "2012-02-27"}}
	got, err := f.withFilings(context.Background(), fund, 1318605, sub)
	if err != nil {
		t.Fatal(err)
	}
	if got.Filing.Accession != "0001193125-12-081990" || !slices.Equal(accessions(got.Amendments), []string{"10-K/A 0001193125-12-137560"}) {
		t.Errorf("filing %+v amendments %v", got.Filing, accessions(got.Amendments))
	}
	if !slices.Equal(asked, []string{"/submissions/CIK0001318605-submissions-001.json"}) {
		t.Errorf("pages read: %v", asked)
	}
}
