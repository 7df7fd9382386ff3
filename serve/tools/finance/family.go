package finance

import (
	"context"
	"flag"

	"github.com/openshelf/openshelf/serve/tools"
	"github.com/openshelf/openshelf/serve/tools/finance/edgar"
	"github.com/openshelf/openshelf/serve/tools/web"
)

// Family plugs the company tools into the server. Its Config's zero value
// is the production setup; an empty Website is made from the server's
// shared web probe (web.SharedProbe) and WebsiteURL.
type Family struct {
	Config Config
}

// Name is the family's name.
func (*Family) Name() string { return "finance" }

// RegisterFlags registers the EDGAR flags (-sec-*).
func (f *Family) RegisterFlags(fs *flag.FlagSet) {
	c := &f.Config
	fs.StringVar(&c.EDGAR.UserAgent, "sec-user-agent", "", `User-Agent for SEC EDGAR: "Company Name contact@example.com" (the SEC requires one)`)
	fs.StringVar(&c.EDGAR.TickersURL, "sec-tickers-url", edgar.DefaultTickersURL, "SEC ticker map (company_tickers.json)")
	fs.StringVar(&c.EDGAR.DataURL, "sec-data-url", edgar.DefaultDataURL, "base URL of EDGAR submissions/ and api/xbrl/")
	fs.StringVar(&c.ArchiveURL, "sec-archive-url", edgar.DefaultArchiveURL, "base URL of EDGAR filing links in answers")
	fs.Float64Var(&c.EDGAR.Rate, "sec-rate", edgar.MaxRate, "requests per second to EDGAR, process-wide (at most 8)")
}

// Open builds the tools; it warns when no User-Agent is set, which EDGAR
// may refuse.
func (f *Family) Open(_ context.Context, deps tools.Deps) ([]tools.Tools, error) {
	cfg := f.Config
	if cfg.Logger == nil {
		cfg.Logger = deps.Logger
	}
	if cfg.Website == nil {
		probe, err := web.SharedProbe(deps, web.ProbeConfig{Logger: deps.Logger})
		if err != nil {
			return nil, err
		}
		cfg.Website = NewWebsite(probe, cfg.WebsiteURL)
	}
	if cfg.EDGAR.UserAgent == "" {
		cfg.Logger.Warn("no -sec-user-agent: EDGAR may refuse the default; set \"Company Name contact@example.com\"")
	}
	return []tools.Tools{New(cfg)}, nil
}
