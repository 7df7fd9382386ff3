package serve

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/openshelf/openshelf/serve/archive"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/tools"
	"github.com/openshelf/openshelf/serve/tools/browser"
	"github.com/openshelf/openshelf/serve/tools/crypto"
	"github.com/openshelf/openshelf/serve/tools/data"
	"github.com/openshelf/openshelf/serve/tools/finance"
	"github.com/openshelf/openshelf/serve/tools/knowledge"
	"github.com/openshelf/openshelf/serve/tools/knowledge/embed"
	"github.com/openshelf/openshelf/serve/tools/place"
	"github.com/openshelf/openshelf/serve/tools/place/geo"
	"github.com/openshelf/openshelf/serve/tools/web"
)

// toolFamilies builds every tool family from its config. Each is one
// package under serve/tools; the server needs only its registry entries
// (and its Start and Close, when it has them). Families share what they
// share here: the guarded client fc, the web probe (company_snapshot's
// website health), the offline place data (place tools and datasets).
func (a *App) toolFamilies(cfg *Config, fc *fetch.Client, arch *archive.Service) ([]tools.Family, error) {
	store := arch.Store
	if cfg.Probe.Logger == nil {
		cfg.Probe.Logger = cfg.Logger
	}
	probe := web.NewProbe(fc, cfg.Probe)

	if cfg.Finance.Logger == nil {
		cfg.Finance.Logger = cfg.Logger
	}
	if cfg.Finance.Website == nil {
		cfg.Finance.Website = finance.NewWebsite(probe, cfg.Finance.WebsiteURL)
	}

	// The offline place data is loaded on first use and shared by the
	// place tools and the datasets.
	if cfg.Datasets == "" {
		cfg.Datasets = "datasets"
	}
	geoData := &geo.Lazy{Dir: cfg.Datasets}
	a.closers = append(a.closers, geoData.Close)
	if cfg.Place.Logger == nil {
		cfg.Place.Logger = cfg.Logger
	}
	if cfg.Place.Now == nil {
		cfg.Place.Now = cfg.Now
	}
	placeTools, err := place.New(fc, geoData, cfg.Place)
	if err != nil {
		return nil, err
	}

	if cfg.Crypto.Logger == nil {
		cfg.Crypto.Logger = cfg.Logger
	}
	cryptoTools, err := crypto.New(cfg.Crypto)
	if err != nil {
		return nil, fmt.Errorf("serve: crypto tools: %w", err)
	}

	return []tools.Family{
		web.NewTools(fc, cfg.Tools),
		probe,
		finance.New(cfg.Finance),
		placeTools,
		data.New(geoData, func(ctx context.Context) ([]data.Topic, string, error) { return archiveTopics(store) }),
		knowledge.New(knowledge.ServiceArchive(arch), fc, knowledgeConfig(*cfg)),
		embed.New(embedConfig(*cfg)),
		cryptoTools,
		browser.New(fc, browserConfig(*cfg)),
	}, nil
}

// archiveTopics is the archive-topics dataset: the current snapshot's
// topics with their document counts.
func archiveTopics(store *archive.Store) ([]data.Topic, string, error) {
	ts, err := store.Topics()
	if err != nil {
		return nil, "", err
	}
	info, err := store.Info()
	if err != nil {
		return nil, "", err
	}
	out := make([]data.Topic, len(ts))
	for i, t := range ts {
		out[i] = data.Topic{Slug: t.Slug, Name: t.Name, Parent: t.Parent, Documents: t.Documents}
	}
	return out, info.ID, nil
}

func knowledgeConfig(cfg Config) knowledge.Config {
	k := cfg.Knowledge
	k.DataDir = cfg.DataDir
	if k.Logger == nil {
		k.Logger = cfg.Logger
	}
	if k.Now == nil {
		k.Now = cfg.Now
	}
	return k
}

func embedConfig(cfg Config) embed.Config {
	e := cfg.Embed
	if e.ModelsDir == "" {
		e.ModelsDir = filepath.Join(cfg.DataDir, "models")
	}
	if e.Logger == nil {
		e.Logger = cfg.Logger
	}
	return e
}

// browserConfig fills what the browser tools take from the server's
// config: where renders are kept, the public URL of their links, the
// logger and the clock.
func browserConfig(cfg Config) browser.Config {
	b := cfg.Browser
	if b.RenderDir == "" {
		b.RenderDir = browser.RenderDirFor(cfg.DataDir)
	}
	if b.BaseURL == "" {
		b.BaseURL = cfg.BaseURL
	}
	if b.Logger == nil {
		b.Logger = cfg.Logger
	}
	if b.Now == nil {
		b.Now = cfg.Now
	}
	return b
}
