package finance

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/finance/edgar"
)

// Config configures the company tools. The zero value is the production
// setup, without website health (Family.Open sets Website).
type Config struct {
	// EDGAR configures the EDGAR client: base URLs, User-Agent, rate.
	EDGAR edgar.Config
	// ArchiveURL is the base of filing links; default
	// edgar.DefaultArchiveURL. Links are returned, never fetched.
	ArchiveURL string
	// Website checks a company's website for company_snapshot; nil leaves
	// the website section out with a note. Family.Open builds it from the
	// server's shared probe (web.SharedProbe) and WebsiteURL.
	Website *Website
	// WebsiteURL builds the URL checked for the domain input; default
	// "https://" + domain + "/" (tests point it at a local server). The
	// website EDGAR records is checked as recorded.
	WebsiteURL func(domain string) string
	Logger     *slog.Logger
}

// Tools serves finance_snapshot and company_snapshot.
type Tools struct {
	sec *edgar.Client
	cfg Config
	log *slog.Logger

	// memo keeps the fundamentals read from each cached companyfacts
	// value, so a warm call does not walk the facts again. An entry is
	// valid while the client returns the same *CompanyFacts.
	memoMu sync.Mutex
	memo   map[edgar.CIK]memoEntry
}

type memoEntry struct {
	facts *edgar.CompanyFacts
	fund  *Fundamentals
}

// maxMemo bounds memo; past it the map starts afresh.
const maxMemo = 1024

// New returns the tools with its EDGAR client.
func New(cfg Config) *Tools {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.ArchiveURL == "" {
		cfg.ArchiveURL = edgar.DefaultArchiveURL
	}
	cfg.ArchiveURL = strings.TrimRight(cfg.ArchiveURL, "/")
	ec := cfg.EDGAR
	ec.KeepConcept = keepConcept
	if ec.Logger == nil {
		ec.Logger = cfg.Logger
	}
	return &Tools{sec: edgar.New(ec), cfg: cfg, log: cfg.Logger, memo: map[edgar.CIK]memoEntry{}}
}

// Close releases the EDGAR client's connections.
func (f *Tools) Close() error {
	f.sec.Close()
	return nil
}

// FundamentalsInput is the input of finance_snapshot.
type FundamentalsInput struct {
	Ticker string `json:"ticker" doc:"Stock ticker as listed by the SEC, such as AAPL or BRK.B (case-insensitive)." minLength:"1" maxLength:"10" pattern:"^[A-Za-z0-9][A-Za-z0-9./-]*$"`
}

// CompanyInput is the input of company_snapshot.
type CompanyInput struct {
	Ticker string `json:"ticker" doc:"Stock ticker as listed by the SEC, such as AAPL or BRK.B (case-insensitive)." minLength:"1" maxLength:"10" pattern:"^[A-Za-z0-9][A-Za-z0-9./-]*$"`
	Domain string `json:"domain,omitempty" doc:"Website to check instead of the one EDGAR records, as a host name or URL." maxLength:"253"`
}

// Validate normalises Domain and refuses names that are not public.
func (in *CompanyInput) Validate() error {
	if in.Domain == "" {
		return nil
	}
	d, err := normalizeDomain(in.Domain)
	if err != nil {
		return err
	}
	in.Domain = d
	return nil
}

// FundamentalsOutput is the answer of finance_snapshot.
type FundamentalsOutput struct {
	Ticker       string        `json:"ticker"`
	CIK          string        `json:"cik"`
	Name         string        `json:"name"`
	Fundamentals *Fundamentals `json:"fundamentals"`
	Ratios       Ratios        `json:"ratios"`
	// PERatio and MarketCap need a share price, which EDGAR does not
	// publish: always null.
	PERatio   *float64 `json:"pe_ratio"`
	MarketCap *float64 `json:"market_cap"`
	Note      string   `json:"note"`
	Source    Source   `json:"source"`
}

// Source says where the figures come from.
type Source struct {
	Name    string `json:"name"`
	URL     string `json:"url"`
	Licence string `json:"licence"`
}

const marketNote = "pe_ratio and market_cap need a market price, which SEC EDGAR does not publish; they are null."

// Endpoints returns the registry entries of the two tools.
func (f *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{
		registry.Spec[FundamentalsInput]{
			Name: "finance_snapshot", Method: http.MethodGet, Path: "/v1/finance", Group: registry.GroupTools,
			Price:   "0.001",
			Summary: "Company fundamentals and ratios from the latest annual report filed with the SEC (10-K, 20-F or 40-F).",
			Description: "Revenue, gross profit, operating income, net income, EPS, assets, liabilities, equity, cash, debt, " +
				"operating cash flow, capex, free cash flow and shares outstanding, each with its XBRL concept, period, unit, " +
				"form and accession number; margins, ROE, ROA, debt to equity and current ratio with their formulas. " +
				"Restated figures resolve to the latest filing. P/E and market cap are null (EDGAR has no prices). " +
				"An unknown ticker is a 404 and is not charged.",
			Output: FundamentalsOutput{},
			Tool:   &registry.Tool{OpenWorld: true},
			Check: func(ctx context.Context, in *FundamentalsInput) error {
				_, err := f.resolve(ctx, in.Ticker)
				return err
			},
			Handle: func(ctx context.Context, in *FundamentalsInput) (*registry.Result, error) {
				out, err := f.Finance(ctx, in.Ticker)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
		registry.Spec[CompanyInput]{
			Name: "company_snapshot", Method: http.MethodGet, Path: "/v1/company-snapshot", Group: registry.GroupTools,
			Price:   "0.05",
			Summary: "Company due-diligence snapshot: SEC fundamentals and ratios, EDGAR profile, the 10 latest filings, and website health.",
			Description: "Profile: name, CIK, SIC and description, state of incorporation, fiscal year end, addresses, former " +
				"names, exchange listings. Website health checks the website EDGAR records, or the given domain: up or down, " +
				"status, TLS and security headers (ping_status), registration, DNS and tech stack (domain_intel). " +
				"An unknown ticker is a 404 and is not charged.",
			Output: CompanyOutput{},
			Tool:   &registry.Tool{OpenWorld: true},
			Check:  func(ctx context.Context, in *CompanyInput) error { _, err := f.resolve(ctx, in.Ticker); return err },
			Handle: func(ctx context.Context, in *CompanyInput) (*registry.Result, error) {
				out, err := f.Company(ctx, in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
	}
}

// resolve maps a ticker to its EDGAR entry; an unknown ticker is 404
// unknown_ticker.
func (f *Tools) resolve(ctx context.Context, ticker string) (edgar.Ticker, error) {
	t, ok, err := f.sec.Lookup(ctx, ticker)
	if err != nil {
		return edgar.Ticker{}, err
	}
	if !ok {
		return edgar.Ticker{}, apierr.NotFound("unknown_ticker", "no company with ticker "+strings.ToUpper(ticker)+" is listed by the SEC")
	}
	return t, nil
}

// Finance runs finance_snapshot: the facts and the filing list (for the
// year's amendments) are read in parallel.
func (f *Tools) Finance(ctx context.Context, ticker string) (*FundamentalsOutput, error) {
	t, err := f.resolve(ctx, ticker)
	if err != nil {
		return nil, err
	}
	var sub *edgar.Submissions
	var subErr error
	var wg sync.WaitGroup
	wg.Go(func() { sub, subErr = f.sec.Submissions(ctx, t.CIK) })
	fund, err := f.fundamentals(ctx, t.CIK)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	switch {
	case errors.Is(subErr, edgar.ErrNotFound):
		// No filing list: the filings the facts name.
	case subErr != nil:
		return nil, subErr
	default:
		if fund, err = f.withFilings(ctx, fund, t.CIK, sub); err != nil {
			return nil, err
		}
	}
	return &FundamentalsOutput{Ticker: t.Ticker, CIK: t.CIK.Padded(), Name: t.Title, Fundamentals: fund, Ratios: ratios(fund),
		Note: marketNote, Source: f.source(t.CIK)}, nil
}

// fundamentals reads the latest annual report of cik; 404
// no_financial_data when EDGAR has no XBRL facts or no annual report. The
// result is shared between calls and must not be modified.
func (f *Tools) fundamentals(ctx context.Context, cik edgar.CIK) (*Fundamentals, error) {
	cf, err := f.sec.CompanyFacts(ctx, cik)
	if errors.Is(err, edgar.ErrNotFound) {
		return nil, apierr.NotFound("no_financial_data", "EDGAR has no XBRL financial data for this company")
	}
	if err != nil {
		return nil, err
	}
	f.memoMu.Lock()
	m, ok := f.memo[cik]
	f.memoMu.Unlock()
	if ok && m.facts == cf {
		return m.fund, nil
	}
	fund, err := f.read(cik, cf)
	if err != nil {
		return nil, err
	}
	f.memoMu.Lock()
	if len(f.memo) >= maxMemo {
		clear(f.memo)
	}
	f.memo[cik] = memoEntry{facts: cf, fund: fund}
	f.memoMu.Unlock()
	return fund, nil
}

// read extracts the fundamentals and links the filings.
func (f *Tools) read(cik edgar.CIK, cf *edgar.CompanyFacts) (*Fundamentals, error) {
	fund, err := fundamentals(cf)
	if errors.Is(err, errNoAnnual) {
		return nil, apierr.NotFound("no_financial_data", "the company has filed no annual report (10-K, 20-F, 40-F) with XBRL financial data")
	}
	if err != nil {
		return nil, err
	}
	fund.Filing.URL = f.filingIndex(cik, fund.Filing.Accession)
	for i := range fund.Amendments {
		fund.Amendments[i].URL = f.filingIndex(cik, fund.Amendments[i].Accession)
	}
	return fund, nil
}

func (f *Tools) source(cik edgar.CIK) Source {
	return Source{Name: "SEC EDGAR XBRL company facts",
		URL:     "https://data.sec.gov/api/xbrl/companyfacts/CIK" + cik.Padded() + ".json",
		Licence: "U.S. government public data (SEC EDGAR), free to reuse"}
}

// filingIndex is the EDGAR index page of a filing.
func (f *Tools) filingIndex(cik edgar.CIK, accn string) string {
	if accn == "" {
		return ""
	}
	return f.filingDir(cik, accn) + accn + "-index.htm"
}

func (f *Tools) filingDir(cik edgar.CIK, accn string) string {
	return f.cfg.ArchiveURL + "/" + cikNumber(cik) + "/" + strings.ReplaceAll(accn, "-", "") + "/"
}
