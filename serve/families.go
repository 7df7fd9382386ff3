package serve

import (
	"context"
	"fmt"

	"github.com/openshelf/openshelf/serve/tools"
	"github.com/openshelf/openshelf/serve/tools/browser"
	"github.com/openshelf/openshelf/serve/tools/crypto"
	"github.com/openshelf/openshelf/serve/tools/data"
	"github.com/openshelf/openshelf/serve/tools/finance"
	"github.com/openshelf/openshelf/serve/tools/knowledge"
	"github.com/openshelf/openshelf/serve/tools/place"
	"github.com/openshelf/openshelf/serve/tools/web"
)

// Families returns a new instance of every family of live tools, each
// with its zero configuration, in the order the server opens them and
// lists their endpoints. This list is the one place that names them:
// adding a family is its package under serve/tools and one line here
// (see package tools). openshelf serve registers each one's flags.
func Families() []tools.Family {
	return []tools.Family{
		&web.Family{},
		&finance.Family{}, // after web: company_snapshot shares its probe
		&place.Family{},
		&data.Family{},
		&knowledge.Family{},
		&crypto.Family{},
		&browser.Family{},
	}
}

// Use puts f in the place of the family of the same name in c.Families
// (every family of Families, while c.Families is nil), or adds it when
// there is none: this is how a test configures one family.
func (c *Config) Use(f tools.Family) {
	if c.Families == nil {
		c.Families = Families()
	}
	for i, g := range c.Families {
		if g.Name() == f.Name() {
			c.Families[i] = f
			return
		}
	}
	c.Families = append(c.Families, f)
}

// openFamilies opens every family of cfg in order with the shared deps;
// what they open is closed with the App, the shared values last.
func (a *App) openFamilies(ctx context.Context, cfg Config, deps tools.Deps) ([]tools.Tools, error) {
	fams := cfg.Families
	if fams == nil {
		fams = Families()
	}
	deps.Shared = &tools.Shared{}
	a.closers = append(a.closers, deps.Shared.Close)
	var out []tools.Tools
	for _, f := range fams {
		ts, err := f.Open(ctx, deps)
		if err != nil {
			return nil, fmt.Errorf("serve: %s tools: %w", f.Name(), err)
		}
		for _, t := range ts {
			if c, ok := t.(tools.Closer); ok {
				a.closers = append(a.closers, c.Close)
			}
		}
		out = append(out, ts...)
	}
	return out, nil
}
