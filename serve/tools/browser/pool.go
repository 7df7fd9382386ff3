package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/openshelf/openshelf/serve/apierr"
)

// errBrowserUnavailable: Chromium cannot be started (not installed, or it
// crashed on start). 503, never charged.
var errBrowserUnavailable = apierr.New(apierr.ErrUnavailable, "browser_unavailable", "the browser could not be started")

// errBusy: every browser slot stayed taken for QueueTimeout (503).
var errBusy = apierr.New(apierr.ErrUnavailable, "browser_busy", "every browser is busy; try again shortly")

// pool runs one Chromium process and hands out isolated browser contexts
// (Target.createBrowserContext: an incognito-like profile with its own
// cookies, cache and storage, and its own proxy) to at most Concurrency
// calls at a time. A crashed browser is noticed through its root context
// and replaced on the next call; calls running in it fail and are not
// charged, other calls are unaffected.
type pool struct {
	cfg  *Config
	log  *slog.Logger
	sem  chan struct{}
	deny *proxy // refuses everything: the process-wide default proxy

	mu      sync.Mutex
	cur     *instance
	closed  bool
	started int // browsers launched, for tests and metrics
}

// instance is one running Chromium.
type instance struct {
	ctx    context.Context // the browser's root chromedp context
	cancel func()
}

func (in *instance) alive() bool { return in.ctx.Err() == nil }

func newPool(cfg *Config, log *slog.Logger) *pool {
	return &pool{cfg: cfg, log: log, sem: make(chan struct{}, cfg.Concurrency)}
}

// session is one call's isolated browser context and tab.
type session struct {
	ctx   context.Context // the tab's chromedp context, with the call deadline
	proxy *proxy
	close func()
}

// acquire waits for a slot and opens a fresh browser context whose traffic
// goes through px, the call's own proxy (so its refusals belong to this
// call alone).
func (p *pool) acquire(ctx context.Context, px *proxy) (*session, error) {
	wait, cancelWait := context.WithTimeout(ctx, p.cfg.QueueTimeout)
	defer cancelWait()
	select {
	case p.sem <- struct{}{}:
	case <-wait.Done():
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, errBusy
	}
	release := func() { <-p.sem }
	in, err := p.browser()
	if err != nil {
		release()
		return nil, err
	}
	tab, cancelTab := chromedp.NewContext(in.ctx, chromedp.WithNewBrowserContext(func(params *target.CreateBrowserContextParams) {
		params.ProxyServer = "http://" + px.addr()
		// "<-loopback>" removes the implicit bypass of localhost, so even
		// loopback goes through the proxy (and its guard).
		params.ProxyBypassList = "<-loopback>"
		params.DisposeOnDetach = new(true)
	}))
	// The first Run creates the context and the tab; it must not carry
	// the call deadline (that would bind the tab's life to it), so it runs
	// aside and is waited for with a limit: a browser that cannot open a
	// tab in 15 s (or the call deadline, if shorter) is hung.
	opened := make(chan error, 1)
	go func() { opened <- chromedp.Do(tab) }()
	select {
	case err = <-opened:
	case <-time.After(min(15*time.Second, p.cfg.CallTimeout)):
		err = errors.New("the browser opened no tab in time")
		go p.check(in)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		cancelTab()
		release()
		if !in.alive() {
			p.log.Warn("browser: browser died while opening a tab", "err", err)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("browser: open tab: %w: %w", errBrowserUnavailable, err)
	}
	callCtx, cancelCall := context.WithTimeout(tab, p.cfg.CallTimeout)
	stop := context.AfterFunc(ctx, cancelCall)
	return &session{ctx: callCtx, proxy: px, close: func() {
		timedOut := callCtx.Err() == context.DeadlineExceeded
		stop()
		cancelCall()
		cancelTab() // closes the tab and disposes of the browser context
		release()
		if timedOut {
			// A call that ran into its deadline may mean a hung browser.
			go p.check(in)
		}
	}}, nil
}

// browser returns the running Chromium, starting a new one when there is
// none or the last one died.
func (p *pool) browser() (*instance, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errBrowserUnavailable
	}
	if p.cur != nil && p.cur.alive() {
		return p.cur, nil
	}
	if p.cur != nil {
		p.log.Warn("browser: chromium exited; starting a new one")
		p.cur.cancel()
		p.cur = nil
	}
	if p.deny == nil {
		d, err := newProxy(nil, p.log, 0)
		if err != nil {
			return nil, err
		}
		p.deny = d
	}
	path := p.cfg.ChromiumPath
	if _, err := exec.LookPath(path); err != nil {
		return nil, fmt.Errorf("browser: %q: %w: %w", path, errBrowserUnavailable, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		// Chromium's sandbox needs user namespaces or a setuid helper,
		// which containers rarely have (and as root it refuses to start
		// without this flag); pages are contained by the container and by
		// the guarded proxy.
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("dns-prefetch-disable", true),
		// Features that make requests of their own from a page's profile
		// (hints, autofill, lens, media router) or change what a page
		// loads (HTTPS upgrades); the first two are chromedp's defaults.
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,OptimizationHints,OptimizationGuideModelDownloading,"+
			"AutofillServerCommunication,MediaRouter,DialMediaRouteProvider,LensOverlay,HttpsUpgrades,"+
			"InterestFeedContentSuggestions,CertificateTransparencyComponentUpdater,PrivacySandboxSettings4,"+
			"NetworkTimeServiceQuerying,SafeBrowsing"),
		// The default context and anything the browser does on its own
		// (update checks, time pings) go to a proxy that refuses all.
		chromedp.ProxyServer("http://"+p.deny.addr()),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.WindowSize(1280, 800),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelB := chromedp.NewContext(allocCtx, chromedp.WithErrorf(p.debugf), chromedp.WithLogf(p.debugf),
		chromedp.WithBrowserOption(chromedp.WithBrowserErrorf(p.debugf), chromedp.WithBrowserLogf(p.debugf)))
	// The first Do on the root context starts the process and binds its
	// life to bctx, so it must not carry a deadline; it is waited for
	// aside, at most 30 s.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(bctx) }()
	var err error
	select {
	case err = <-started:
	case <-time.After(30 * time.Second):
		err = errors.New("no answer within 30 s")
	}
	if err != nil {
		cancelB()
		cancelAlloc()
		return nil, fmt.Errorf("browser: start chromium: %w: %w", errBrowserUnavailable, err)
	}
	p.cur = &instance{ctx: bctx, cancel: func() { cancelB(); cancelAlloc() }}
	p.started++
	return p.cur, nil
}

// debugf sends chromedp's own messages (protocol oddities it works
// around) to the debug log instead of stderr.
func (p *pool) debugf(format string, args ...any) {
	p.log.Debug("browser: chromedp: " + fmt.Sprintf(format, args...))
}

// check asks the browser for its version; a browser that cannot answer
// within 5 s is hung and is killed, so the next call starts a new one.
func (p *pool) check(in *instance) {
	ctx, cancel := context.WithTimeout(in.ctx, 5*time.Second)
	defer cancel()
	if _, err := chromedp.CallBrowser(ctx, cdpbrowser.GetVersion, cdp.Empty{}); err == nil || !in.alive() {
		return
	}
	p.log.Warn("browser: chromium does not answer; killing it")
	if c := chromedp.FromContext(in.ctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		c.Browser.Process().Kill()
	}
	in.cancel()
}

// kill ends the current browser process abruptly (tests of crash recovery).
func (p *pool) kill() error {
	p.mu.Lock()
	in := p.cur
	p.mu.Unlock()
	if in == nil {
		return errors.New("no browser")
	}
	c := chromedp.FromContext(in.ctx)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		return errors.New("no browser process")
	}
	return c.Browser.Process().Kill()
}

func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.cur != nil {
		p.cur.cancel()
		p.cur = nil
	}
	if p.deny != nil {
		p.deny.close()
	}
}
