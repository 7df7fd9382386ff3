package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/serve/alarm"
	"github.com/openshelf/openshelf/serve/archive"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/mcp"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools"
	"github.com/openshelf/openshelf/serve/x402"
)

// Config configures `openshelf serve`.
type Config struct {
	DataDir string
	// SearchSets is the budget in bytes of the search index's bitsets of
	// frequent terms and prefixes (package index/search, sets.go): 0 for the default,
	// negative for none.
	SearchSets int64
	Addr       string
	// BaseURL is the public URL; default http://<Addr>.
	BaseURL string
	// PayTo receives payments (a checksummed EVM address).
	PayTo string
	// Facilitator is "local" (embedded: verifies in process, records
	// settlements in a ledger under DATA/state, moves no funds) or the URL
	// of an x402 facilitator.
	Facilitator        string
	FacilitatorTimeout time.Duration
	MaxTimeoutSeconds  int
	RateLimit          RateLimit
	// WatchInterval is how often DATA/current is checked for a new
	// snapshot; 0 disables watching (SIGHUP still reloads).
	WatchInterval time.Duration
	AccessLog     bool
	Logger        *slog.Logger
	Now           func() time.Time

	// Fetch configures the one guarded outbound client every live tool and
	// alarm delivery uses. Its AllowLoopback is for tests only.
	Fetch fetch.Config
	// Datasets is the directory of the offline reference data (npm
	// packages installed by scripts/setup.sh) that the place and data
	// families read; default "datasets", the repository's directory when
	// run from its root.
	Datasets string
	// Families are the families of live tools, each with its own
	// configuration, opened in order; nil is every family of Families
	// with its zero configuration. Use replaces one.
	Families []tools.Family

	// Ledger is the payment ledger: "" for SQLite at DATA/state/x402.db,
	// a postgres:// URL to share it between instances, or another SQLite
	// file path.
	Ledger string
	// Payments tunes the payment core (leases, waits, recovery, pruning).
	Payments PaymentsConfig

	// AlarmDB is the alarm store: "" for SQLite at DATA/state/alarms.db,
	// a postgres:// URL to share alarms between instances, or another
	// SQLite file path.
	AlarmDB string
}

// DefaultPayTo is a placeholder payee, used only with the local
// facilitator (which moves no funds). With any other facilitator --pay-to
// is required: there is no default recipient for real money.
const DefaultPayTo = "0x000000000000000000000000000000000000dEaD"

// ErrPayToRequired is the start-up refusal of a real facilitator without
// an explicit recipient.
var ErrPayToRequired = errors.New("serve: --pay-to is required with a facilitator other than \"local\": " +
	"refusing to start, real payments would go to a default address")

// Validate fills defaults and checks the configuration.
func (c *Config) Validate() error {
	if c.DataDir == "" {
		return errors.New("serve: --data is required")
	}
	if c.Addr == "" {
		c.Addr = "127.0.0.1:8080"
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://" + c.Addr
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("serve: --base-url %q must be an absolute http(s) URL", c.BaseURL)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.Facilitator == "" {
		c.Facilitator = "local"
	}
	if c.Facilitator != "local" {
		if u, err := url.Parse(c.Facilitator); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("serve: --facilitator must be \"local\" or an http(s) URL, not %q", c.Facilitator)
		}
		if c.PayTo == "" || strings.EqualFold(c.PayTo, DefaultPayTo) {
			return ErrPayToRequired
		}
	}
	if c.PayTo == "" {
		c.PayTo = DefaultPayTo
	}
	if err := c.Payments.validate(c.Addr); err != nil {
		return err
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

// App is the assembled server.
type App struct {
	Config   Config
	Registry *registry.Registry
	Store    *archive.Store
	Payments *HTTPPayments
	HTTP     *Server
	Fetch    *fetch.Client
	Alarms   *alarm.Service
	closers  []func() error
}

// NewApp opens the current snapshot and the payment ledger and builds the
// registry, the router and every generated document.
func NewApp(ctx context.Context, cfg Config) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	a := &App{Config: cfg}
	ok := false
	defer func() {
		if !ok {
			a.Close()
		}
	}()
	store, err := archive.OpenStore(ctx, archive.StoreConfig{DataDir: cfg.DataDir, Logger: cfg.Logger,
		Search: search.Options{Sets: cfg.SearchSets}})
	if err != nil {
		return nil, err
	}
	a.Store = store
	a.closers = append(a.closers, store.Close)

	metrics := NewMetrics()
	core, ledger, err := openPayments(ctx, cfg, metrics.CountPayment)
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, ledger.Close)
	a.Payments = &HTTPPayments{Core: core}
	pcfg := core.Config()
	reg := registry.New()
	a.Registry = reg

	svc := registry.Service{
		Name:  "openshelf",
		Title: "openshelf: open-licence scholarly archive and paid live tools",
		Description: "Open-licensed scholarly literature (CC0, Public Domain Mark, CC BY, CC BY-SA only) for agents, " +
			"paid per request with x402 (USDC on Base), and paid live web tools.",
		BaseURL:     cfg.BaseURL,
		Environment: environment(cfg.Facilitator, pcfg.Network),
		Payment: registry.Payment{Protocol: "x402", X402Version: 2, Scheme: "exact", Network: pcfg.Network,
			Asset: pcfg.Asset, AssetName: "USDC", Decimals: 6, PayTo: pcfg.PayTo, Header: x402.HeaderPaymentSignature,
			Facilitator: facilitatorName(cfg.Facilitator), FundsMove: cfg.Facilitator != "local"},
	}
	arch := &archive.Service{Store: store, BaseURL: cfg.BaseURL}
	meta := &Meta{
		Service:  svc,
		Snapshot: func(ctx context.Context) (SnapshotInfo, error) { return store.Info() },
		Requirements: func(e *registry.Endpoint) any {
			if acc := a.Payments.Required(e, cfg.BaseURL+e.OpenAPIPath()).Accepts; len(acc) > 0 {
				return acc[0]
			}
			return nil
		},
		Datasets: func(ctx context.Context) ([]Dataset, error) { return datasets(store, cfg.BaseURL) },
	}
	reg.Add(serviceEndpoint(meta, reg, cfg.Facilitator))
	reg.Add(homeEndpoint(meta, reg, func(context.Context) ([]archive.Topic, error) { return store.Topics() }))
	reg.Add(arch.Endpoints()...)

	// Live tools: one guarded client for every user-given URL.
	if cfg.Fetch.Logger == nil {
		cfg.Fetch.Logger = cfg.Logger
	}
	if err := cfg.Fetch.Validate(); err != nil {
		return nil, err
	}
	fc := fetch.New(cfg.Fetch)
	a.Fetch = fc
	datasets := cfg.Datasets
	if datasets == "" {
		datasets = "datasets"
	}
	groups, err := a.openFamilies(ctx, cfg, tools.Deps{Fetch: fc, Archive: arch, DataDir: cfg.DataDir,
		Datasets: datasets, BaseURL: cfg.BaseURL, Logger: cfg.Logger, Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		reg.Add(g.Endpoints()...)
	}

	// Alarms (serve/alarm): store, scheduler and endpoints.
	alarms, err := alarm.Open(ctx, alarm.Config{DB: cfg.AlarmDB, DataDir: cfg.DataDir, Now: cfg.Now, Logger: cfg.Logger})
	if err != nil {
		return nil, fmt.Errorf("serve: alarms: %w", err)
	}
	a.Alarms = alarms
	a.closers = append(a.closers, alarms.Close)
	reg.Add(alarms.Endpoints()...)

	if err := reg.Err(); err != nil {
		return nil, err // an invalid price: a start-up error, never a request-time one
	}
	// The service documents and /mcp describe the registry they belong to;
	// they read it only once NewHTTP has frozen it.
	reg.Add(meta.Endpoints(reg)...)
	reg.Add(&registry.Endpoint{Name: "mcp", Method: http.MethodPost, Path: "/mcp", Group: registry.GroupMeta,
		Summary: "Model Context Protocol endpoint (streamable HTTP, stateless, 2025-06-18) offering every tool.",
		Raw: mcp.New(mcp.Config{Registry: reg, Core: core, BaseURL: cfg.BaseURL, Logger: cfg.Logger,
			Version: mcp.DescriptionVersion})})
	a.HTTP = NewHTTP(HTTPConfig{BaseURL: cfg.BaseURL, RateLimit: cfg.RateLimit, AccessLog: cfg.AccessLog,
		Logger: cfg.Logger, Now: cfg.Now, Metrics: metrics}, reg, a.Payments)
	metrics.reg.MustRegister(newLedgerCollector(ledger))
	for _, g := range groups {
		if c, ok := g.(prometheus.Collector); ok {
			metrics.reg.MustRegister(c) // the crypto tools' node requests
		}
	}
	a.closers = append(a.closers, startMaintenance(ctx, core, cfg.Payments))
	alarms.Start()
	for _, g := range groups {
		if s, ok := g.(tools.Starter); ok {
			if err := s.Start(ctx); err != nil {
				return nil, fmt.Errorf("serve: starting tools: %w", err)
			}
		}
	}
	ok = true
	return a, nil
}

// Close releases the snapshot and the ledger.
func (a *App) Close() error {
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		errs = append(errs, a.closers[i]())
	}
	a.closers = nil
	return errors.Join(errs...)
}

// serviceEndpoint is GET /api: what the service is and costs.
func serviceEndpoint(m *Meta, reg *registry.Registry, facilitator string) *registry.Endpoint {
	return registry.Spec[registry.NoInput]{
		Name: "service", Method: http.MethodGet, Path: "/api", Group: registry.GroupDiscovery,
		Summary: "Service description: snapshot, licence policy, payment parameters, every endpoint with its price.",
		Handle: func(ctx context.Context, _ *registry.NoInput) (*registry.Result, error) {
			snap, err := m.Snapshot(ctx)
			if err != nil {
				return nil, err
			}
			return &registry.Result{Value: map[string]any{
				"name":           m.Service.Name,
				"title":          m.Service.Title,
				"description":    m.Service.Description,
				"environment":    m.Service.Environment,
				"base_url":       m.Service.BaseURL,
				"snapshot":       snap,
				"licence_policy": Policy(),
				"payment":        m.Service.Payment,
				"payment_status": paymentStatus(m.Service.Payment, facilitator),
				"endpoints":      m.endpointEntries(reg),
				"mcp":            m.Service.BaseURL + "/mcp",
				"openapi":        m.Service.BaseURL + "/openapi.json",
			}}, nil
		},
	}.Endpoint()
}

func datasets(store *archive.Store, base string) ([]Dataset, error) {
	topics, err := store.Topics()
	if err != nil {
		return nil, err
	}
	out := []Dataset{{Name: "catalog", Format: "application/json", URL: base + "/api/catalog",
		Description: "Every published document with licence and prices, paged."}}
	for _, t := range topics {
		out = append(out, Dataset{Name: "topic/" + t.Slug, Format: "application/x-ndjson (zstd)",
			URL: base + "/api/topic/" + t.Slug + "/content", Price: archive.PriceBundle, Bytes: t.BundleBytes,
			Records: t.Documents, Description: "All documents of topic " + t.Name + ": metadata and rights, one JSON object per line."})
	}
	return out, nil
}
