package browser

import (
	"context"
	"flag"
	"time"

	"github.com/openshelf/openshelf/serve/tools"
)

// Family plugs screenshot, site_speed, site_audit and render_document into
// the server. Its Config's zero value is the production setup; an empty
// RenderDir (under the data directory), BaseURL, Logger and Now are the
// server's.
type Family struct {
	Config Config
}

// Name is the family's name.
func (*Family) Name() string { return "browser" }

// RegisterFlags registers Chromium's, the pool's and axe-core's flags.
func (f *Family) RegisterFlags(fs *flag.FlagSet) {
	c := &f.Config
	fs.StringVar(&c.ChromiumPath, "chromium", "chromium", "Chromium binary for screenshot, site_speed, site_audit and PDF rendering")
	fs.IntVar(&c.Concurrency, "browser-concurrency", 2, "pages open in the browser at once (about one per core)")
	fs.DurationVar(&c.CallTimeout, "browser-timeout", 45*time.Second, "deadline of one browser tool call")
	fs.StringVar(&c.AxePath, "axe", DefaultAxePath, "axe-core's axe.min.js, run in pages by site_audit (npm package installed by scripts/setup.sh)")
}

// Open builds the tools; Chromium starts on the first call.
func (f *Family) Open(_ context.Context, deps tools.Deps) ([]tools.Tools, error) {
	b := f.Config
	if b.RenderDir == "" {
		b.RenderDir = RenderDirFor(deps.DataDir)
	}
	if b.BaseURL == "" {
		b.BaseURL = deps.BaseURL
	}
	if b.Logger == nil {
		b.Logger = deps.Logger
	}
	if b.Now == nil {
		b.Now = deps.Now
	}
	return []tools.Tools{New(deps.Fetch, b)}, nil
}
