package web

import (
	"context"
	"flag"

	"github.com/openshelf/openshelf/serve/tools"
)

// Family plugs the web tools into the server: extract_webpage,
// site_metadata and read_feed (Tools), extract_tables, ping_status and
// domain_intel (Probe). The zero value is the production setup; the family
// has no flags.
type Family struct {
	Tools ToolsConfig
	Probe ProbeConfig
}

// Name is the family's name.
func (*Family) Name() string { return "web" }

// RegisterFlags registers nothing: every setting of the web tools has a
// default fit for production, and tests set the config.
func (*Family) RegisterFlags(*flag.FlagSet) {}

// Open builds the two groups over the guarded client. The probe is shared
// (SharedProbe): company_snapshot checks websites with it.
func (f *Family) Open(_ context.Context, deps tools.Deps) ([]tools.Tools, error) {
	pc := f.Probe
	if pc.Logger == nil {
		pc.Logger = deps.Logger
	}
	probe, err := SharedProbe(deps, pc)
	if err != nil {
		return nil, err
	}
	return []tools.Tools{NewTools(deps.Fetch, f.Tools), probe}, nil
}

// SharedProbe returns the server's one Probe, made with cfg by the first
// family asking (the web family, when the server has it), so that its RDAP
// bootstrap cache is shared too.
func SharedProbe(deps tools.Deps, cfg ProbeConfig) (*Probe, error) {
	return tools.Share(deps.Shared, "web/probe", func() (*Probe, func() error, error) {
		return NewProbe(deps.Fetch, cfg), nil, nil
	})
}
