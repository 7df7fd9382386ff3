package edgar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"
)

// Production locations.
const (
	DefaultTickersURL = "https://www.sec.gov/files/company_tickers.json"
	DefaultDataURL    = "https://data.sec.gov"
	DefaultArchiveURL = "https://www.sec.gov/Archives/edgar/data"
	// DefaultUserAgent is used when Config.UserAgent is empty. EDGAR wants a
	// company name and a contact address; operators set their own.
	DefaultUserAgent = "openshelf admin@openshelf.invalid"
	// MaxRate is the highest accepted Config.Rate: with a burst of one, a
	// one-second window sees at most Rate+1 requests, and EDGAR allows 10.
	MaxRate = 8
)

// Config configures a Client. The zero value is the production setup apart
// from UserAgent, which operators should set.
type Config struct {
	// TickersURL is the ticker map; default DefaultTickersURL.
	TickersURL string
	// DataURL is the base of submissions/ and api/xbrl/; default
	// DefaultDataURL.
	DataURL string
	// UserAgent is sent with every request: "Company Name contact@example.com".
	UserAgent string
	// Rate is requests per second towards EDGAR, process-wide (one Client
	// per process); default and maximum MaxRate.
	Rate float64
	// Timeout caps one attempt; default 20 s.
	Timeout time.Duration
	// Attempts is how many times a request is tried on 429, 5xx or a
	// transport failure; default 3.
	Attempts int
	// Backoff is the first wait between attempts, doubled each time with
	// jitter, capped by MaxBackoff (default 500 ms and 8 s). A Retry-After
	// from EDGAR is honoured up to MaxBackoff.
	Backoff, MaxBackoff time.Duration
	// TickersTTL is how long the ticker map is used before it is asked for
	// again (conditionally); default 24 h.
	TickersTTL time.Duration
	// FreshFor is how long a company file is used without asking EDGAR;
	// after that it is revalidated with its ETag / Last-Modified. Default
	// 10 min.
	FreshFor time.Duration
	// MaxEntries caps the company files kept (least recently used go
	// first); default 512.
	MaxEntries int
	// MaxBytes caps one body; default 64 MiB (companyfacts of the largest
	// filers run to tens of MB).
	MaxBytes int64
	// KeepConcept selects the XBRL concepts decoded from companyfacts (the
	// rest are skipped, which keeps the cache small); nil keeps all.
	KeepConcept func(taxonomy, concept string) bool
	// HTTPClient sends the requests; default a client with no redirects
	// beyond net/http's and a connection pool. EDGAR URLs come from
	// configuration, never from callers, so the SSRF-guarded client is not
	// needed here.
	HTTPClient *http.Client
	Logger     *slog.Logger
	// Now is the cache clock; default time.Now.
	Now func() time.Time
}

// Client talks to EDGAR. It is safe for concurrent use; share one per
// process so the rate limit holds process-wide.
type Client struct {
	cfg     Config
	limiter *rate.Limiter
	flight  singleflight.Group
	log     *slog.Logger

	mu    sync.Mutex
	cache *lru
}

// New returns a Client with defaults for zero fields.
func New(cfg Config) *Client {
	if cfg.TickersURL == "" {
		cfg.TickersURL = DefaultTickersURL
	}
	if cfg.DataURL == "" {
		cfg.DataURL = DefaultDataURL
	}
	cfg.DataURL = strings.TrimRight(cfg.DataURL, "/")
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.Rate <= 0 || cfg.Rate > MaxRate {
		cfg.Rate = MaxRate
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 20 * time.Second
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = 3
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 500 * time.Millisecond
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 8 * time.Second
	}
	if cfg.TickersTTL <= 0 {
		cfg.TickersTTL = 24 * time.Hour
	}
	if cfg.FreshFor <= 0 {
		cfg.FreshFor = 10 * time.Minute
	}
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = 512
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 64 << 20
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:   true,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     90 * time.Second,
			TLSHandshakeTimeout: 10 * time.Second,
		}}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Client{cfg: cfg, limiter: rate.NewLimiter(rate.Limit(cfg.Rate), 1), log: cfg.Logger,
		cache: newLRU(cfg.MaxEntries + 1)}
}

// Config returns the configuration with defaults applied.
func (c *Client) Config() Config { return c.cfg }

// Close releases idle connections.
func (c *Client) Close() { c.cfg.HTTPClient.CloseIdleConnections() }

// Tickers returns the ticker map, fetched at most once per TickersTTL.
func (c *Client) Tickers(ctx context.Context) (Tickers, error) {
	v, err := c.get(ctx, c.cfg.TickersURL, c.cfg.TickersTTL, decodeTickers)
	if err != nil {
		return nil, err
	}
	return v.(Tickers), nil
}

// Lookup resolves a ticker; ok is false for a ticker EDGAR does not list.
func (c *Client) Lookup(ctx context.Context, ticker string) (t Ticker, ok bool, err error) {
	m, err := c.Tickers(ctx)
	if err != nil {
		return Ticker{}, false, err
	}
	t, ok = m[NormalizeTicker(ticker)]
	return t, ok, nil
}

// Submissions returns a company's submissions file.
func (c *Client) Submissions(ctx context.Context, cik CIK) (*Submissions, error) {
	v, err := c.get(ctx, c.cfg.DataURL+"/submissions/CIK"+cik.Padded()+".json", c.cfg.FreshFor, decodeSubmissions)
	if err != nil {
		return nil, err
	}
	return v.(*Submissions), nil
}

// FilingsPage returns a paged file of older filings named in
// Submissions.Filings.Files ("CIK0001318605-submissions-001.json").
func (c *Client) FilingsPage(ctx context.Context, name string) (*Filings, error) {
	if strings.ContainsAny(name, "/?#\\") || !strings.HasSuffix(name, ".json") {
		return nil, &Error{Kind: ErrNotFound, Msg: "no such filings page"}
	}
	v, err := c.get(ctx, c.cfg.DataURL+"/submissions/"+name, c.cfg.FreshFor, decodeFilings)
	if err != nil {
		return nil, err
	}
	return v.(*Filings), nil
}

// CompanyFacts returns a company's XBRL facts (the concepts
// Config.KeepConcept keeps).
func (c *Client) CompanyFacts(ctx context.Context, cik CIK) (*CompanyFacts, error) {
	v, err := c.get(ctx, c.cfg.DataURL+"/api/xbrl/companyfacts/CIK"+cik.Padded()+".json", c.cfg.FreshFor,
		decodeFacts(c.cfg.KeepConcept))
	if err != nil {
		return nil, err
	}
	return v.(*CompanyFacts), nil
}

// get returns the decoded body of url from the cache when fresh, else
// asks EDGAR (conditionally when a cached copy exists). Concurrent callers
// of one url share one request.
func (c *Client) get(ctx context.Context, url string, fresh time.Duration, decode func([]byte) (any, error)) (any, error) {
	now := c.cfg.Now()
	c.mu.Lock()
	e, ok := c.cache.get(url)
	c.mu.Unlock()
	// Entries are never modified once cached, so reading e unlocked is safe.
	if ok && now.Sub(e.checked) < fresh {
		return e.val, nil
	}
	ch := c.flight.DoChan(url, func() (any, error) {
		// A flight that ended between the look-up above and this one
		// has cached a fresh answer: use it rather than fetch again.
		c.mu.Lock()
		cur, ok := c.cache.get(url)
		c.mu.Unlock()
		if ok && c.cfg.Now().Sub(cur.checked) < fresh {
			return cur.val, nil
		}
		// Detached from the first caller's cancellation: the answer serves
		// every caller waiting on it.
		ctx := context.WithoutCancel(ctx)
		return c.refresh(ctx, url, cur, decode)
	})
	select {
	case <-ctx.Done():
		return nil, &Error{Kind: ErrTimeout, Msg: "EDGAR did not answer in time", Err: ctx.Err()}
	case r := <-ch:
		return r.Val, r.Err
	}
}

// refresh fetches url (conditionally on old) and updates the cache.
func (c *Client) refresh(ctx context.Context, url string, old *entry, decode func([]byte) (any, error)) (any, error) {
	h := http.Header{}
	if old != nil {
		if old.etag != "" {
			h.Set("If-None-Match", old.etag)
		}
		if old.lastModified != "" {
			h.Set("If-Modified-Since", old.lastModified)
		}
	}
	resp, body, err := c.do(ctx, url, h)
	if err != nil {
		return nil, err
	}
	now := c.cfg.Now()
	if resp.StatusCode == http.StatusNotModified && old != nil {
		// Unchanged: no parse, only a new confirmation time.
		e := *old
		e.checked = now
		c.mu.Lock()
		c.cache.put(url, &e)
		c.mu.Unlock()
		return e.val, nil
	}
	v, err := decode(body)
	if err != nil {
		return nil, &Error{Kind: ErrUpstream, Msg: "EDGAR sent a body that is not the expected JSON", Err: err}
	}
	e := &entry{val: v, etag: resp.Header.Get("ETag"), lastModified: resp.Header.Get("Last-Modified"), checked: now}
	c.mu.Lock()
	c.cache.put(url, e)
	c.mu.Unlock()
	return v, nil
}

// do sends GET url with retries; it returns a 2xx or 304 response with its
// body read.
func (c *Client) do(ctx context.Context, url string, h http.Header) (*http.Response, []byte, error) {
	var last *Error
	for attempt := 1; ; attempt++ {
		resp, body, err := c.attempt(ctx, url, h)
		if err == nil {
			return resp, body, nil
		}
		if !errors.As(err, &last) || !retryable(last) || attempt >= c.cfg.Attempts {
			return nil, nil, err
		}
		wait := c.backoff(attempt, last.RetryAfter)
		c.log.Debug("edgar: retrying", "url", url, "attempt", attempt, "wait", wait, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, nil, err
		case <-t.C:
		}
	}
}

// retryable: 429, 5xx, timeouts and transport failures; never 404 or a
// bad body.
func retryable(e *Error) bool {
	return e.Kind == ErrRateLimited || e.Kind == ErrUnavailable || e.Kind == ErrTimeout ||
		(e.Kind == ErrStatus && e.Err == errServerStatus) || (e.Kind == ErrUpstream && e.Err != nil && e.Err != errBadBody)
}

var (
	errServerStatus = errors.New("server error status")
	errBadBody      = errors.New("bad body")
)

// backoff is the wait before attempt+1: Backoff·2^(attempt-1) with ±25 %
// jitter, or the upstream's Retry-After, capped at MaxBackoff.
func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	d := c.cfg.Backoff << (attempt - 1)
	d += time.Duration((rand.Float64() - 0.5) * 0.5 * float64(d))
	if retryAfter > d {
		d = retryAfter
	}
	return min(d, c.cfg.MaxBackoff)
}

// attempt sends one request after waiting for the limiter.
func (c *Client) attempt(ctx context.Context, url string, h http.Header) (*http.Response, []byte, error) {
	if err := c.limiter.Wait(ctx); err != nil {
		return nil, nil, &Error{Kind: ErrTimeout, Msg: "EDGAR did not answer in time (rate limit queue)", Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, &Error{Kind: ErrUpstream, Msg: "bad EDGAR URL in configuration", Err: errBadBody}
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	req.Header.Set("Accept", "application/json")
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, &Error{Kind: ErrTimeout, Msg: "EDGAR did not answer in time", Err: err}
		}
		return nil, nil, &Error{Kind: ErrUpstream, Msg: "cannot reach EDGAR", Err: err}
	}
	defer resp.Body.Close()
	if err := statusError(resp); err != nil {
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
		return nil, nil, err
	}
	if resp.StatusCode == http.StatusNotModified {
		return resp, nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, &Error{Kind: ErrTimeout, Msg: "EDGAR did not answer in time", Err: err}
		}
		return nil, nil, &Error{Kind: ErrUpstream, Msg: "the EDGAR answer was cut off", Err: err}
	}
	if int64(len(body)) > c.cfg.MaxBytes {
		return nil, nil, &Error{Kind: ErrUpstream, Msg: fmt.Sprintf("the EDGAR answer exceeds %d bytes", c.cfg.MaxBytes), Err: errBadBody}
	}
	return resp, body, nil
}

// statusError maps a non-success status to an *Error; nil for 2xx and 304.
func statusError(resp *http.Response) *Error {
	s := resp.StatusCode
	switch {
	case s >= 200 && s < 300, s == http.StatusNotModified:
		return nil
	case s == http.StatusNotFound:
		return &Error{Kind: ErrNotFound, Msg: "EDGAR has no such file"}
	case s == http.StatusTooManyRequests:
		return &Error{Kind: ErrRateLimited, Msg: "EDGAR is rate limiting requests; try again later", RetryAfter: retryAfter(resp)}
	case s == http.StatusServiceUnavailable:
		return &Error{Kind: ErrUnavailable, Msg: "EDGAR is unavailable; try again later", RetryAfter: retryAfter(resp)}
	case s >= 500:
		return &Error{Kind: ErrStatus, Msg: "EDGAR answered " + strconv.Itoa(s), Err: errServerStatus}
	}
	return &Error{Kind: ErrStatus, Msg: "EDGAR answered " + strconv.Itoa(s)}
}

// retryAfter reads Retry-After in seconds or as an HTTP date.
func retryAfter(resp *http.Response) time.Duration {
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
