package fetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

// DefaultUserAgent is sent when Config.UserAgent is empty. Its product token
// ("openshelf-fetch") selects our group in robots.txt files.
const DefaultUserAgent = "openshelf-fetch/1.0 (+https://github.com/openshelf/openshelf)"

// Defaults for zero Config fields.
const (
	DefaultMaxBytes       = 10 << 20
	DefaultMaxRedirects   = 5
	DefaultTimeout        = 20 * time.Second
	DefaultRobotsCacheTTL = time.Hour
	defaultRobotsEntries  = 4096
)

// Config configures a Client. The zero value is the production policy.
type Config struct {
	// AllowLoopback lets tests reach servers on 127.0.0.0/8 and ::1, on any
	// port, and accept "localhost": shorthand for those two prefixes in
	// AllowTargets. Never set it outside tests.
	AllowLoopback bool
	// AllowTargets admits destinations in these prefixes although they are
	// not public, on any port, in CheckURL and after DNS resolution on
	// every connection (redirects, robots.txt, DialContext). With a
	// loopback prefix "localhost" is accepted; with another non-public
	// prefix private-network and single-label names are, and what they
	// resolve to is checked against the list. Everything else keeps the
	// production rules. Tests and private test networks only (see
	// targets.go).
	AllowTargets []netip.Prefix
	// AllowedPorts are the destination ports that may be dialled; default
	// 80 and 443. Listed AllowTargets are reachable on any port.
	AllowedPorts []int
	// MaxBytes caps a response body (decoded); default 10 MiB. Options can
	// lower or raise it per request.
	MaxBytes int64
	// MaxRedirects caps redirects followed per request; default 5.
	MaxRedirects int
	// Timeout caps a whole request, robots.txt and redirects included;
	// default 20 s.
	Timeout time.Duration
	// UserAgent is sent with every request; default DefaultUserAgent.
	UserAgent string
	// RobotsCacheTTL is how long a robots.txt answer is kept; default 1 h.
	// Failures (5xx, unreachable) are kept for at most 5 minutes.
	RobotsCacheTTL time.Duration
	// Resolver, when set, resolves host names (tests point it at a local
	// DNS server). Resolution never bypasses the dial-time guard.
	Resolver *net.Resolver
	// RootCAs, when set, replaces the system roots (tests with
	// httptest.NewTLSServer).
	RootCAs *x509.CertPool
	// Logger receives debug records about refused and failed requests;
	// default discards.
	Logger *slog.Logger

	// testPublic, set only from export_test.go, treats one address as
	// public so tests can stand up a "public" server on loopback.
	testPublic func(netip.AddrPort) bool
	// now is the clock for the robots cache; set only from tests.
	now func() time.Time
}

// Validate reports configuration errors, for start-up checks. New applies
// defaults and drops invalid ports, so it never fails.
func (c Config) Validate() error {
	for _, p := range c.AllowedPorts {
		if p < 1 || p > 65535 {
			return fmt.Errorf("fetch: allowed port %d out of range", p)
		}
	}
	if c.MaxBytes < 0 || c.MaxRedirects < 0 || c.Timeout < 0 || c.RobotsCacheTTL < 0 {
		return errors.New("fetch: negative limit in config")
	}
	return nil
}

// Client is the guarded HTTP client. It is safe for concurrent use.
type Client struct {
	cfg    Config
	policy policy
	guard  *ssrf.Guardian
	hc     *http.Client
	robots *robotsCache
	// insecure is hc without certificate verification, for
	// Options.InsecureTLS (see insecure.go).
	insecure insecureClient
	agent    string // robots.txt product token, lower case
	log      *slog.Logger
}

// New returns a Client for cfg, with defaults for zero fields.
func New(cfg Config) *Client {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MaxRedirects <= 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.RobotsCacheTTL <= 0 {
		cfg.RobotsCacheTTL = DefaultRobotsCacheTTL
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	var ports []int
	for _, p := range cfg.AllowedPorts {
		if p >= 1 && p <= 65535 {
			ports = append(ports, p)
		}
	}
	if len(ports) == 0 {
		ports = []int{80, 443}
	}
	cfg.AllowedPorts = ports

	c := &Client{cfg: cfg, log: cfg.Logger, agent: productToken(cfg.UserAgent)}
	c.policy = targetPolicy(cfg.Targets(), ports)
	u16 := make([]uint16, len(ports))
	for i, p := range ports {
		u16[i] = uint16(p)
	}
	// The guard keeps the production rules; listed targets pass before
	// it (control).
	c.guard = ssrf.New(ssrf.WithPorts(u16...))

	dialer := &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Resolver:  cfg.Resolver,
		// Control runs after resolution, for every address tried, on every
		// connection: the one place that sees the real destination.
		Control: c.control,
	}
	tr := &http.Transport{
		// Never a proxy: the guard would check the proxy's address.
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        60 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxResponseHeaderBytes: 64 << 10,
	}
	if cfg.RootCAs != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12}
	}
	c.hc = &http.Client{
		Transport: tr,
		// Redirects are followed by hand so each hop is checked.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	c.robots = newRobotsCache(defaultRobotsEntries)
	return c
}

// Close releases idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// UserAgent returns the User-Agent header the client sends.
func (c *Client) UserAgent() string { return c.cfg.UserAgent }

// control is the net.Dialer.Control hook: the ssrf guard, plus the
// test-only exception.
func (c *Client) control(network, address string, _ syscall.RawConn) error {
	if ap, err := netip.ParseAddrPort(address); err == nil {
		if c.cfg.testPublic != nil && c.cfg.testPublic(ap) {
			return nil
		}
		if (network == "tcp4" || network == "tcp6") && c.policy.allowed(ap.Addr()) {
			return nil
		}
	}
	return c.guard.Safe(network, address, nil)
}

// Options adjust one request.
type Options struct {
	// Header is added to the request (User-Agent is always ours).
	Header http.Header
	// Body is sent with POST/PUT requests (webhooks).
	Body []byte
	// MaxBytes overrides Config.MaxBytes for this request when positive.
	MaxBytes int64
	// AllowTruncated returns the first MaxBytes with Response.Truncated set
	// instead of failing with ErrTooLarge.
	AllowTruncated bool
	// IgnoreRobots skips robots.txt (webhook deliveries only).
	IgnoreRobots bool
	// NoFollow returns a redirect response as is instead of following it.
	NoFollow bool
	// InsecureTLS skips certificate verification in the handshake so the
	// caller can report on an invalid certificate instead of failing
	// (ping_status verifies Response.TLS itself). Everything else, the
	// guard included, is unchanged. Never use it to read content.
	InsecureTLS bool

	// maxRedirects overrides Config.MaxRedirects (robots.txt uses 5).
	maxRedirects int
}

// Hop is one redirect followed.
type Hop struct {
	URL      string `json:"url"`
	Status   int    `json:"status"`
	Location string `json:"location"`
}

// Response is a fetched response with its body read (and capped).
type Response struct {
	// URL is the requested URL after CheckURL canonicalisation.
	URL string
	// FinalURL is the URL of the response returned, after redirects.
	FinalURL *url.URL
	Status   int
	Header   http.Header
	Body     []byte
	// Truncated is set when the body was cut at the byte cap
	// (Options.AllowTruncated).
	Truncated bool
	Redirects []Hop
	// TLS is the connection state of the final response; nil over http.
	TLS *tls.ConnectionState
}

// MediaType is the lower-cased media type of Content-Type, without
// parameters, or "" when absent or unparsable.
func (r *Response) MediaType() string {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return ""
	}
	return mt
}

// CheckStatus returns ErrUpstreamStatus for a non-2xx status.
func (r *Response) CheckStatus() error {
	if r.Status >= 200 && r.Status < 300 {
		return nil
	}
	return newError(ErrUpstreamStatus, r.FinalURL.String(),
		"upstream answered "+strconv.Itoa(r.Status)+" "+http.StatusText(r.Status), nil)
}

// Get fetches rawURL with GET.
func (c *Client) Get(ctx context.Context, rawURL string, opts Options) (*Response, error) {
	return c.Do(ctx, http.MethodGet, rawURL, opts)
}

// Do sends a request with method to rawURL: CheckURL, robots.txt, the
// guarded dial, redirects (each hop re-checked) and the body cap. Every
// error is an *Error.
func (c *Client) Do(ctx context.Context, method, rawURL string, opts Options) (*Response, error) {
	u, err := c.CheckURL(rawURL)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	return c.do(ctx, method, u, opts)
}

func (c *Client) do(ctx context.Context, method string, u *url.URL, opts Options) (*Response, error) {
	maxRedirects := c.cfg.MaxRedirects
	if opts.maxRedirects > 0 {
		maxRedirects = opts.maxRedirects
	}
	limit := c.cfg.MaxBytes
	if opts.MaxBytes > 0 {
		limit = opts.MaxBytes
	}
	header := opts.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	body := opts.Body
	out := &Response{URL: u.String()}
	for {
		if !opts.IgnoreRobots {
			if err := c.checkRobots(ctx, u); err != nil {
				return nil, err
			}
		}
		req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
		if err != nil {
			return nil, newError(ErrInvalidURL, u.String(), "cannot build request", err)
		}
		if body == nil {
			req.Body, req.GetBody, req.ContentLength = nil, nil, 0
		}
		for k, vs := range header {
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
		req.Header.Set("User-Agent", c.cfg.UserAgent)
		if req.Header.Get("Accept") == "" {
			req.Header.Set("Accept", "*/*")
		}
		resp, err := c.httpClient(opts).Do(req)
		if err != nil {
			return nil, c.classify(ctx, u.String(), err)
		}
		if isRedirect(resp.StatusCode) && !opts.NoFollow && resp.Header.Get("Location") != "" {
			// Drain a little so the connection can be reused.
			_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
			resp.Body.Close()
			loc := resp.Header.Get("Location")
			out.Redirects = append(out.Redirects, Hop{URL: u.String(), Status: resp.StatusCode, Location: loc})
			if len(out.Redirects) > maxRedirects {
				return nil, newError(ErrTooManyRedirects, u.String(),
					"more than "+strconv.Itoa(maxRedirects)+" redirects", nil)
			}
			next, err := u.Parse(loc)
			if err != nil {
				return nil, newError(ErrUpstream, u.String(), "redirect with an invalid Location", err)
			}
			nu, err := c.CheckURL(next.String())
			if err != nil {
				msg := "redirect to a refused target"
				var fe *Error
				if errors.As(err, &fe) {
					msg += ": URL " + fe.Msg
				}
				c.log.Debug("fetch: redirect refused", "from", u.String(), "to", next.String(), "err", err)
				// No cause: the refusal is not invalid input of the caller's.
				return nil, newError(ErrForbiddenTarget, next.String(), msg, nil)
			}
			if resp.StatusCode == http.StatusSeeOther && method != http.MethodHead ||
				(resp.StatusCode == http.StatusMovedPermanently || resp.StatusCode == http.StatusFound) && method == http.MethodPost {
				method, body = http.MethodGet, nil
				header.Del("Content-Type")
			}
			if nu.Host != u.Host || nu.Scheme != u.Scheme {
				// Credentials meant for one origin never go to another.
				header.Del("Authorization")
				header.Del("Cookie")
			}
			u = nu
			continue
		}
		out.FinalURL = u
		out.Status = resp.StatusCode
		out.Header = resp.Header
		out.TLS = resp.TLS
		err = c.readBody(ctx, resp, limit, opts.AllowTruncated, out)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		return out, nil
	}
}

func (c *Client) readBody(ctx context.Context, resp *http.Response, limit int64, allowTrunc bool, out *Response) error {
	if resp.Request.Method == http.MethodHead {
		return nil
	}
	if !allowTrunc && resp.ContentLength > limit {
		return newError(ErrTooLarge, out.FinalURL.String(),
			"response of "+strconv.FormatInt(resp.ContentLength, 10)+" bytes exceeds the cap of "+strconv.FormatInt(limit, 10), nil)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return c.classify(ctx, out.FinalURL.String(), err)
	}
	if int64(len(b)) > limit {
		if !allowTrunc {
			return newError(ErrTooLarge, out.FinalURL.String(),
				"response exceeds the cap of "+strconv.FormatInt(limit, 10)+" bytes", nil)
		}
		b = b[:limit]
		out.Truncated = true
	}
	out.Body = b
	return nil
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// classify turns a transport error into an *Error.
func (c *Client) classify(ctx context.Context, u string, err error) error {
	var fe *Error
	if errors.As(err, &fe) {
		return fe
	}
	c.log.Debug("fetch: request failed", "url", u, "err", err)
	switch {
	case errors.Is(err, ssrf.ErrProhibitedIP), errors.Is(err, ssrf.ErrProhibitedPort),
		errors.Is(err, ssrf.ErrProhibitedNetwork), errors.Is(err, ssrf.ErrInvalidHostPort):
		// The message does not say which address: that would make us an
		// oracle for names that resolve to internal addresses.
		return newError(ErrForbiddenTarget, u, "the host resolves to a non-public address", err)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return newError(ErrTimeout, u, "the request timed out", err)
	case errors.Is(err, context.Canceled):
		return newError(ErrUpstream, u, "the request was cancelled", err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return newError(ErrTimeout, u, "the request timed out", err)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return newError(ErrUpstream, u, "cannot resolve the host name", err)
	}
	var certErr *tls.CertificateVerificationError
	if errors.As(err, &certErr) {
		return newError(ErrUpstream, u, "the TLS certificate is not valid", err)
	}
	return newError(ErrUpstream, u, "the connection failed", err)
}

// productToken is the robots.txt user-agent token of a User-Agent header:
// its first product name, lower case.
func productToken(ua string) string {
	t := ua
	if i := strings.IndexAny(t, "/ "); i >= 0 {
		t = t[:i]
	}
	return strings.ToLower(t)
}
