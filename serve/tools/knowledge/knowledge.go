package knowledge

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/snapshot"
	"github.com/openshelf/openshelf/specs"
)

// Config configures the knowledge tools.
type Config struct {
	// DataDir is the data directory whose current snapshot holds the
	// specs table (Family.Open sets it to the server's --data).
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
	progress  progress
	failed    atomic.Pointer[failure]
	// stop cancels a load in progress when the server closes.
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	live   *cache[[]Paper]
	briefs *cache[*prepared]
}

// New returns the family. archive serves search_specs' and
// research_brief's full-text search; fc is the guarded outbound client.
func New(archive Archive, fc *fetch.Client, cfg Config) *Tools {
	cfg.defaults()
	ctx, stop := context.WithCancel(context.Background())
	return &Tools{cfg: cfg, archive: archive, fetch: fc, ctx: ctx, stop: stop,
		live: newCache[[]Paper](cfg.CacheTTL, 512, cfg.Now), briefs: newCache[*prepared](cfg.CacheTTL, 512, cfg.Now)}
}

// Start begins loading the specs table of the current snapshot in the
// background and returns at once: the server does not wait for the table
// (about 25 s at 1M documents). Until it is loaded the spec tools answer
// 503 specs_loading with Retry-After before payment, and GET
// /v1/specs/status says "loading".
func (t *Tools) Start(ctx context.Context) error {
	t.startReload()
	return nil
}

// Close stops a load in progress and waits for it.
func (t *Tools) Close() error {
	t.stop()
	t.wg.Wait()
	return nil
}

// startReload loads the current snapshot's table in the background
// unless a load is already running or the family is closed.
func (t *Tools) startReload() {
	if t.ctx.Err() != nil || !t.reloading.CompareAndSwap(false, true) {
		return
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer t.reloading.Store(false)
		t.reload(t.ctx)
	}()
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
	// The file as it was before the load: a file replaced while a load
	// failed is a new file, to be tried again at once.
	before, _ := os.Stat(t.specsPath(id))
	t.progress.begin(id, start)
	tab, err := loadTable(ctx, t.cfg.DataDir, &t.progress)
	t.progress.end(err)
	if errors.Is(err, errNoTable) {
		t.cfg.Logger.Warn("knowledge: snapshot without specs table; spec tools answer 503", "snapshot", id)
		t.tab.Store(tab)
		return
	}
	if err != nil {
		t.cfg.Logger.Error("knowledge: loading the specs table failed", "err", err)
		t.failed.Store(&failure{snapshot: id, file: before, at: time.Now()})
		return
	}
	t.tab.Store(tab)
	t.cfg.Logger.Info("knowledge: specs table loaded", "snapshot", tab.snapID, "statements", len(tab.entries),
		"documents", len(tab.docs), "load", time.Since(start))
}

// table returns the loaded table, starting a background reload when
// DATA/current has moved on (the previous table serves meanwhile). It is
// a 503 specs_loading, with Retry-After, while the first table loads, and
// a 503 specs_unavailable when there is none.
func (t *Tools) table() (*table, error) {
	tab := t.tab.Load()
	if id, err := snapshot.Current(t.cfg.DataDir); err == nil && (tab == nil || tab.snapID != id) && t.mayRetry(id) {
		t.startReload()
	}
	if tab == nil && t.reloading.Load() {
		e := apierr.New(apierr.ErrUnavailable, "specs_loading",
			"the specification table is being loaded after a server start; retry after the time given")
		e.RetryAfter = t.progress.remaining(time.Now())
		return nil, e
	}
	if tab == nil || tab.entries == nil && tab.byDoc == nil {
		return nil, apierr.New(apierr.ErrUnavailable, "specs_unavailable",
			"the specification table is not available in the snapshot being served")
	}
	return tab, nil
}

// retryFailed is how long a table that failed to load is not tried again
// unless its file changes.
const retryFailed = time.Minute

// failure is the last failed load.
type failure struct {
	snapshot string
	file     os.FileInfo // nil when the file could not be stat'ed
	at       time.Time
}

func (t *Tools) specsPath(id string) string {
	return filepath.Join(t.cfg.DataDir, snapshot.SnapshotsDir, id, specs.TableFile)
}

// mayRetry reports whether a load of snapshot id may start: not within
// retryFailed of a failed load of the same, unchanged file, so that a
// damaged table is not re-read on every request.
func (t *Tools) mayRetry(id string) bool {
	f := t.failed.Load()
	if f == nil || f.snapshot != id || time.Since(f.at) >= retryFailed {
		return true
	}
	fi, err := os.Stat(t.specsPath(id))
	if err != nil || f.file == nil {
		return err == nil
	}
	return !os.SameFile(fi, f.file) || fi.Size() != f.file.Size() || !fi.ModTime().Equal(f.file.ModTime())
}

// Endpoints returns the family's registry entries.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{t.searchEndpoint(), t.specsEndpoint(), t.statusEndpoint(), t.briefEndpoint()}
}
