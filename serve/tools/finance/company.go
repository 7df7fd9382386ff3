package finance

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/finance/edgar"
)

// CompanyOutput is the answer of company_snapshot.
type CompanyOutput struct {
	Ticker  string  `json:"ticker"`
	Profile Profile `json:"profile"`
	// Fundamentals and Ratios are null when the company has no annual
	// report with XBRL data; FundamentalsNote then says so.
	Fundamentals     *Fundamentals `json:"fundamentals"`
	Ratios           *Ratios       `json:"ratios"`
	FundamentalsNote string        `json:"fundamentals_note,omitempty"`
	PERatio          *float64      `json:"pe_ratio"`
	MarketCap        *float64      `json:"market_cap"`
	RecentFilings    []FilingLink  `json:"recent_filings"`
	// Website is null when no domain was given and EDGAR records no
	// website; WebsiteNote then says so.
	Website     *WebsiteHealth `json:"website"`
	WebsiteNote string         `json:"website_note,omitempty"`
	Note        string         `json:"note"`
	Source      Source         `json:"source"`
}

// Profile is the company as EDGAR registers it.
type Profile struct {
	Name                 string `json:"name"`
	CIK                  string `json:"cik"`
	EntityType           string `json:"entity_type,omitempty"`
	Category             string `json:"category,omitempty"`
	SIC                  string `json:"sic,omitempty"`
	SICDescription       string `json:"sic_description,omitempty"`
	StateOfIncorporation string `json:"state_of_incorporation,omitempty"`
	// FiscalYearEnd is EDGAR's MMDD, e.g. "0926".
	FiscalYearEnd   string       `json:"fiscal_year_end,omitempty"`
	EIN             string       `json:"ein,omitempty"`
	LEI             string       `json:"lei,omitempty"`
	Phone           string       `json:"phone,omitempty"`
	Website         string       `json:"website,omitempty"`
	InvestorWebsite string       `json:"investor_website,omitempty"`
	Addresses       []Address    `json:"addresses"`
	FormerNames     []FormerName `json:"former_names"`
	Listings        []Listing    `json:"listings"`
	EDGARURL        string       `json:"edgar_url"`
}

// Address is a mailing or business address.
type Address struct {
	Type      string `json:"type"` // mailing or business
	Street1   string `json:"street1,omitempty"`
	Street2   string `json:"street2,omitempty"`
	City      string `json:"city,omitempty"`
	State     string `json:"state_or_country,omitempty"`
	StateName string `json:"state_or_country_description,omitempty"`
	ZipCode   string `json:"zip_code,omitempty"`
	Country   string `json:"country,omitempty"`
	Foreign   bool   `json:"foreign"`
}

// FormerName is a name the company filed under before.
type FormerName struct {
	Name string `json:"name"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// Listing is a ticker and the exchange it trades on.
type Listing struct {
	Ticker   string `json:"ticker"`
	Exchange string `json:"exchange,omitempty"`
}

// FilingLink is one recent filing.
type FilingLink struct {
	Form        string `json:"form"`
	FilingDate  string `json:"filing_date"`
	ReportDate  string `json:"report_date,omitempty"`
	Accession   string `json:"accession"`
	Description string `json:"description,omitempty"`
	DocumentURL string `json:"document_url,omitempty"`
	IndexURL    string `json:"index_url"`
}

const recentFilings = 10

// Company runs company_snapshot: submissions and facts are read in
// parallel, then the website is checked.
func (f *Tools) Company(ctx context.Context, in *CompanyInput) (*CompanyOutput, error) {
	t, err := f.resolve(ctx, in.Ticker)
	if err != nil {
		return nil, err
	}
	var fund *Fundamentals
	var fundErr error
	var wg sync.WaitGroup
	wg.Go(func() { fund, fundErr = f.fundamentals(ctx, t.CIK) })
	sub, err := f.sec.Submissions(ctx, t.CIK)
	if errors.Is(err, edgar.ErrNotFound) {
		err = apierr.NotFound("company_not_found", "EDGAR has no submissions for CIK "+t.CIK.Padded())
	}
	if err != nil {
		wg.Wait()
		return nil, err
	}
	out := &CompanyOutput{Ticker: t.Ticker, Profile: f.profile(sub, t), RecentFilings: f.recent(t.CIK, &sub.Filings.Recent),
		Note: marketNote, Source: f.source(t.CIK)}
	website := recordedWebsite(sub)
	switch {
	case f.cfg.Website == nil:
		out.WebsiteNote = "website checks are not configured on this server"
	case in.Domain != "":
		out.Website = f.cfg.Website.Check(ctx, in.Domain)
	case website != "":
		out.Website = f.cfg.Website.CheckRecorded(ctx, website)
	default:
		out.WebsiteNote = "EDGAR records no website for this company; pass domain to check one"
	}
	wg.Wait()
	if fundErr == nil {
		fund, fundErr = f.withFilings(ctx, fund, t.CIK, sub)
	}
	switch {
	case fundErr == nil:
		r := ratios(fund)
		out.Fundamentals, out.Ratios = fund, &r
	case errors.Is(fundErr, apierr.ErrNotFound):
		out.FundamentalsNote = apierr.From(fundErr).Message
	default:
		return nil, fundErr
	}
	return out, nil
}

func (f *Tools) profile(s *edgar.Submissions, t edgar.Ticker) Profile {
	p := Profile{Name: s.Name, CIK: t.CIK.Padded(), EntityType: s.EntityType, Category: s.Category, SIC: s.SIC,
		SICDescription: s.SICDescription, StateOfIncorporation: s.StateOfIncorporation, FiscalYearEnd: s.FiscalYearEnd,
		EIN: s.EIN, LEI: s.LEI, Phone: s.Phone, Website: s.Website, InvestorWebsite: s.InvestorWebsite,
		Addresses: []Address{}, FormerNames: []FormerName{}, Listings: []Listing{},
		EDGARURL: "https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=" + t.CIK.Padded()}
	if p.Name == "" {
		p.Name = t.Title
	}
	for _, typ := range []string{"business", "mailing"} {
		a, ok := s.Addresses[typ]
		if !ok || (a.Street1 == "" && a.City == "") {
			continue
		}
		p.Addresses = append(p.Addresses, Address{Type: typ, Street1: a.Street1, Street2: a.Street2, City: a.City,
			State: a.StateOrCountry, StateName: a.StateOrCountryDescription, ZipCode: a.ZipCode,
			Country: a.Country, Foreign: a.IsForeignLocation != nil && *a.IsForeignLocation == 1})
	}
	for _, n := range s.FormerNames {
		p.FormerNames = append(p.FormerNames, FormerName{Name: n.Name, From: dateOnly(n.From), To: dateOnly(n.To)})
	}
	for i, tk := range s.Tickers {
		l := Listing{Ticker: tk}
		if i < len(s.Exchanges) {
			l.Exchange = s.Exchanges[i]
		}
		p.Listings = append(p.Listings, l)
	}
	return p
}

// dateOnly cuts EDGAR's "2007-01-10T00:00:00.000Z" to the date.
func dateOnly(s string) string {
	if len(s) >= 10 {
		return s[:10]
	}
	return s
}

func (f *Tools) recent(cik edgar.CIK, fl *edgar.Filings) []FilingLink {
	out := []FilingLink{}
	for i := 0; i < fl.Len() && len(out) < recentFilings; i++ {
		r := fl.At(i)
		l := FilingLink{Form: r.Form, FilingDate: r.FilingDate, ReportDate: r.ReportDate, Accession: r.AccessionNumber,
			Description: r.PrimaryDocDescription, IndexURL: f.filingIndex(cik, r.AccessionNumber)}
		if r.PrimaryDocument != "" {
			l.DocumentURL = f.filingDir(cik, r.AccessionNumber) + r.PrimaryDocument
		}
		out = append(out, l)
	}
	return out
}

// recordedWebsite is the website EDGAR records (the investor site when
// there is no other), as recorded; "https://" is added when it has no
// scheme. A value that is a URL with a host wins over one that is not; a
// value that is not is still returned (its check then fails and says why),
// so "no website" is only ever said of empty fields.
func recordedWebsite(s *edgar.Submissions) string {
	var first string
	for _, w := range []string{s.Website, s.InvestorWebsite} {
		w = strings.TrimSpace(w)
		if w == "" {
			continue
		}
		if !strings.Contains(w, "://") {
			w = "https://" + w
		}
		if u, err := url.Parse(w); err == nil && u.Host != "" {
			return w
		}
		if first == "" {
			first = w
		}
	}
	return first
}

// cikNumber is the CIK without padding, as in archive paths.
func cikNumber(c edgar.CIK) string { return strconv.FormatInt(int64(c), 10) }
