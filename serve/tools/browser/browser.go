package browser

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/openshelf/openshelf/serve/fetch"
)

// Config configures the browser tools. Zero fields take the defaults
// documented on each.
type Config struct {
	// ChromiumPath is the browser binary; default "chromium" (Debian's).
	ChromiumPath string
	// Concurrency caps the pages open at once; default 2 (one per core of
	// the reference machine).
	Concurrency int
	// CallTimeout is the deadline of one call in the browser; default 45 s.
	CallTimeout time.Duration
	// WaitTimeout caps the wait for a page's wait_until condition; when it
	// passes, the page is used as it is and the answer says so. Default 20 s.
	WaitTimeout time.Duration
	// QueueTimeout is how long a call waits for a free browser slot before
	// 503 browser_busy; default 30 s.
	QueueTimeout time.Duration
	// MaxBytes caps the bytes one call's page may download through the
	// proxy (every resource together); default 50 MiB.
	MaxBytes int64
	// RenderDir holds render_document files; default DATA/state/renders
	// (serve sets it from --data).
	RenderDir string
	// RenderTTL is how long a download link lives; default 24 h.
	RenderTTL time.Duration
	// SweepInterval is how often expired renders are deleted; default 10 min.
	SweepInterval time.Duration
	// AxePath is axe-core's script (axe.min.js), which site_audit runs in
	// the page; default DefaultAxePath. It is read on the first audit that
	// finds it and kept.
	AxePath string
	// BaseURL is the server's public URL, for download links.
	BaseURL string
	Logger  *slog.Logger
	// Now is the clock of render expiry; default time.Now.
	Now func() time.Time
}

func (c *Config) defaults() {
	if c.ChromiumPath == "" {
		c.ChromiumPath = "chromium"
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 2
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = 45 * time.Second
	}
	if c.WaitTimeout <= 0 {
		c.WaitTimeout = 20 * time.Second
	}
	if c.WaitTimeout > c.CallTimeout {
		c.WaitTimeout = c.CallTimeout
	}
	if c.QueueTimeout <= 0 {
		c.QueueTimeout = 30 * time.Second
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = 50 << 20
	}
	if c.AxePath == "" {
		c.AxePath = DefaultAxePath
	}
	if c.RenderTTL <= 0 {
		c.RenderTTL = 24 * time.Hour
	}
	if c.SweepInterval <= 0 {
		c.SweepInterval = 10 * time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// RenderDirFor is the default render directory under a data directory.
func RenderDirFor(dataDir string) string { return filepath.Join(dataDir, "state", "renders") }

// Tools serves screenshot, site_speed, site_audit and render_document.
// Chromium is started on the first call that needs it, not before.
type Tools struct {
	cfg   Config
	fc    *fetch.Client
	pool  *pool
	store *store
	axe   *axeScript

	stop context.CancelFunc
}

// New returns the browser tools; pages are reached through fc's rules.
func New(fc *fetch.Client, cfg Config) *Tools {
	cfg.defaults()
	t := &Tools{cfg: cfg, fc: fc}
	t.axe = &axeScript{path: cfg.AxePath}
	t.pool = newPool(&t.cfg, cfg.Logger)
	t.store = newStore(cfg.RenderDir, cfg.RenderTTL, cfg.Now, cfg.Logger)
	return t
}

// Start runs the sweeper of expired renders until Close.
func (t *Tools) Start(context.Context) error {
	ctx, cancel := context.WithCancel(context.Background())
	t.stop = cancel
	go t.store.sweepEvery(ctx, t.cfg.SweepInterval)
	return nil
}

// Close stops the sweeper and the browser.
func (t *Tools) Close() error {
	if t.stop != nil {
		t.stop()
	}
	t.pool.close()
	return nil
}

// page runs fn on a fresh, isolated tab whose traffic goes through a new
// guarded proxy, after the URL passed the preflight (robots.txt, refused
// redirects). Everything is released when fn returns.
func (t *Tools) page(ctx context.Context, rawURL string, fn func(ctx context.Context, rec *recorder, px *proxy) error) error {
	if rawURL != "" {
		if err := preflight(ctx, t.fc, rawURL); err != nil {
			return err
		}
	}
	var px *proxy
	var err error
	if rawURL == "" {
		px, err = newProxy(nil, t.cfg.Logger, 0) // offline: refuse every request
	} else {
		px, err = newProxy(t.fc, t.cfg.Logger, t.cfg.MaxBytes)
	}
	if err != nil {
		return err
	}
	defer px.close()
	s, err := t.pool.acquire(ctx, px)
	if err != nil {
		return err
	}
	defer s.close()
	rec, err := newRecorder(s.ctx)
	if err != nil {
		return err
	}
	err = fn(s.ctx, rec, px)
	if err != nil && s.ctx.Err() != nil && ctx.Err() == nil {
		// The call deadline passed inside fn.
		if _, ok := asAPI(err); !ok {
			return errPageTimeout
		}
	}
	return err
}
