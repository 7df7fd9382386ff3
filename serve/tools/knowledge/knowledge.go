package knowledge

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/snapshot"
)

// Config configures the knowledge tools.
type Config struct {
	// DataDir is the data directory whose current snapshot holds the
	// specs table (set by the server from its own --data).
	DataDir string
	// OpenAlexURL and CrossrefURL are the live sources' API base URLs;
	// defaults https://api.openalex.org and https://api.crossref.org.
	OpenAlexURL string
	CrossrefURL string
	// Mailto is sent to both APIs (their polite pools); "" sends none.
	Mailto string
	// LiveTimeout bounds each live request (default 8 s).
	LiveTimeout time.Duration
	// CacheTTL is how long live answers and prepared briefs are reused
	// (default 10 min).
	CacheTTL time.Duration
	Logger   *slog.Logger
	Now      func() time.Time
}

// Default live API base URLs.
const (
	DefaultOpenAlexURL = "https://api.openalex.org"
	DefaultCrossrefURL = "https://api.crossref.org"
)

func (c *Config) defaults() {
	if c.OpenAlexURL == "" {
		c.OpenAlexURL = DefaultOpenAlexURL
	}
	if c.CrossrefURL == "" {
		c.CrossrefURL = DefaultCrossrefURL
	}
	if c.LiveTimeout <= 0 {
		c.LiveTimeout = 8 * time.Second
	}
	if c.CacheTTL <= 0 {
		c.CacheTTL = 10 * time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Tools is the knowledge family.
type Tools struct {
	cfg     Config
	archive Archive
	fetch   *fetch.Client

	tab       atomic.Pointer[table]
	reloading atomic.Bool
	loadMu    sync.Mutex

	live   *cache[[]Paper]
	briefs *cache[*prepared]
}

// New returns the family. archive serves search_specs' and
// research_brief's full-text search; fc is the guarded outbound client.
func New(archive Archive, fc *fetch.Client, cfg Config) *Tools {
	cfg.defaults()
	return &Tools{cfg: cfg, archive: archive, fetch: fc,
		live: newCache[[]Paper](cfg.CacheTTL, 512, cfg.Now), briefs: newCache[*prepared](cfg.CacheTTL, 512, cfg.Now)}
}

// Start loads the specs table of the current snapshot.
func (t *Tools) Start(ctx context.Context) error {
	t.reload(ctx)
	return nil
}

// reload loads the current snapshot's table; failures are logged and the
// previous table keeps serving.
func (t *Tools) reload(ctx context.Context) {
	t.loadMu.Lock()
	defer t.loadMu.Unlock()
	id, err := snapshot.Current(t.cfg.DataDir)
	if err != nil {
		t.cfg.Logger.Warn("knowledge: no current snapshot", "err", err)
		return
	}
	if cur := t.tab.Load(); cur != nil && cur.snapID == id {
		return
	}
	start := time.Now()
	tab, err := loadTable(ctx, t.cfg.DataDir)
	if errors.Is(err, errNoTable) {
		t.cfg.Logger.Warn("knowledge: snapshot without specs table; spec tools answer 503", "snapshot", id)
		t.tab.Store(tab)
		return
	}
	if err != nil {
		t.cfg.Logger.Error("knowledge: loading the specs table failed", "err", err)
		return
	}
	t.tab.Store(tab)
	t.cfg.Logger.Info("knowledge: specs table loaded", "snapshot", tab.snapID, "statements", len(tab.entries),
		"documents", len(tab.docs), "load", time.Since(start))
}

// table returns the loaded table, starting a background reload when
// DATA/current has moved on. It is a 503 when no table is loaded.
func (t *Tools) table() (*table, error) {
	tab := t.tab.Load()
	if id, err := snapshot.Current(t.cfg.DataDir); err == nil && (tab == nil || tab.snapID != id) {
		if t.reloading.CompareAndSwap(false, true) {
			go func() {
				defer t.reloading.Store(false)
				t.reload(context.Background())
			}()
		}
	}
	if tab == nil || tab.entries == nil && tab.byDoc == nil {
		return nil, apierr.New(apierr.ErrUnavailable, "specs_unavailable",
			"the specification table is not available in the snapshot being served")
	}
	return tab, nil
}

// Endpoints returns the family's registry entries.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{t.searchEndpoint(), t.specsEndpoint(), t.briefEndpoint()}
}
