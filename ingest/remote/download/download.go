package download

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Errors; test with errors.Is.
var (
	// ErrChecksum means a download did not match its expected MD5 or size
	// on every attempt; nothing was written in place of the old file.
	ErrChecksum = errors.New("download: checksum mismatch")
	// ErrStatus means the server answered with a status that is not
	// retried (404, 403...) or kept failing after every retry.
	ErrStatus = errors.New("download: unexpected HTTP status")
	// ErrTooLarge means a response exceeded the size allowed for it.
	ErrTooLarge = errors.New("download: response too large")
)

// Config configures a Client; zero fields take the defaults.
type Config struct {
	HTTP *http.Client
	// PerHost bounds the requests in flight to one host (default 4).
	PerHost int
	// Retries is how many times a failed request is retried (default 6).
	Retries int
	// BaseBackoff is the first retry delay, doubled each attempt with
	// jitter (default 1s); MaxBackoff caps it and any Retry-After
	// (default 2m).
	BaseBackoff, MaxBackoff time.Duration
	// UserAgent is sent with every request (Crossref's polite pool wants
	// a mailto in it).
	UserAgent string
	Logger    *slog.Logger
	// Sleep waits d or until ctx ends; tests record the backoff schedule
	// with it. Default: a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Stats counts what a Client did; read it with Client.Stats.
type Stats struct {
	Files   int64 `json:"files"`   // files downloaded and verified
	Cached  int64 `json:"cached"`  // files already on disk with the expected content
	Bytes   int64 `json:"bytes"`   // bytes received (all attempts)
	Retries int64 `json:"retries"` // attempts repeated after an error, 429 or 5xx
	Corrupt int64 `json:"corrupt"` // downloads rejected by their checksum or size
}

// Client downloads with retries, verification and per-host limits. It is
// safe for concurrent use.
type Client struct {
	cfg   Config
	mu    sync.Mutex
	hosts map[string]*host

	files, cached, bytes, retries, corrupt atomic.Int64
	// Progress, when set, is called with the bytes of each chunk received.
	Progress func(n int64)
}

// host is the per-host state: a semaphore and the pacing the server asked
// for through its rate-limit headers.
type host struct {
	sem     chan struct{}
	mu      sync.Mutex
	spacing time.Duration // minimum time between request starts
	next    time.Time
}

// New returns a Client.
func New(cfg Config) *Client {
	if cfg.HTTP == nil {
		// No overall timeout short enough to cut a 2 GB OpenAlex part on a
		// slow link, but a server that does not answer at all is retried.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.ResponseHeaderTimeout = 2 * time.Minute
		cfg.HTTP = &http.Client{Transport: t, Timeout: 6 * time.Hour}
	}
	if cfg.PerHost <= 0 {
		cfg.PerHost = 4
	}
	if cfg.Retries < 0 {
		cfg.Retries = 0
	} else if cfg.Retries == 0 {
		cfg.Retries = 6
	}
	if cfg.BaseBackoff <= 0 {
		cfg.BaseBackoff = time.Second
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 2 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	return &Client{cfg: cfg, hosts: map[string]*host{}}
}

// Stats returns the counts so far.
func (c *Client) Stats() Stats {
	return Stats{Files: c.files.Load(), Cached: c.cached.Load(), Bytes: c.bytes.Load(),
		Retries: c.retries.Load(), Corrupt: c.corrupt.Load()}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Expect is what a downloaded file must be. Empty fields are not checked.
type Expect struct {
	MD5  string // lower-case hex
	Size int64  // bytes; 0 or less means unknown
}

// FromETag returns the expectation an S3 ETag and size give: a single-part
// object's ETag is the MD5 of its content, a multipart one ("...-N") is
// not, and then only the size is checked.
func FromETag(etag string, size int64) Expect {
	e := strings.Trim(etag, `"`)
	if len(e) == 32 && !strings.Contains(e, "-") {
		return Expect{MD5: strings.ToLower(e), Size: size}
	}
	return Expect{Size: size}
}

func (e Expect) String() string {
	switch {
	case e.MD5 != "" && e.Size > 0:
		return fmt.Sprintf("md5 %s, %d bytes", e.MD5, e.Size)
	case e.MD5 != "":
		return "md5 " + e.MD5
	case e.Size > 0:
		return fmt.Sprintf("%d bytes", e.Size)
	}
	return "anything"
}

// Have reports whether the file at path already matches exp (the content
// cache: a resumed or repeated run does not fetch it again). A file is
// never trusted without an expectation to check it against.
func Have(path string, exp Expect) bool {
	if exp.MD5 == "" && exp.Size <= 0 {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if exp.MD5 == "" {
		st, err := f.Stat()
		return err == nil && st.Size() == exp.Size
	}
	h := md5.New()
	n, err := io.Copy(h, f)
	return err == nil && (exp.Size <= 0 || n == exp.Size) && hex.EncodeToString(h.Sum(nil)) == exp.MD5
}

// File downloads rawURL to dst, verified against exp, unless dst already
// matches exp. The body streams into dst + ".part", which replaces dst only
// once verified. A .part left by an interrupted attempt or a killed run is
// resumed with an HTTP range request when there is an MD5 or a size to
// check the whole by; a server that answers the range with the whole file
// (200) restarts it, and a resumed file that fails its checksum is fetched
// again from the start.
// It reports whether the file was already there.
func (c *Client) File(ctx context.Context, rawURL, dst string, exp Expect) (cached bool, err error) {
	if Have(dst, exp) {
		c.cached.Add(1)
		return true, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return false, err
	}
	part := dst + ".part"
	if Have(part, exp) {
		// Killed after the last byte, before the rename.
		if err := os.Rename(part, dst); err != nil {
			return false, err
		}
		c.files.Add(1)
		return false, nil
	}
	ranged := int64(-1) // size of part when a range was last asked for
	prepare := func(req *http.Request) {
		// Only a file with an MD5 or a size to check it by is resumed (the
		// check says whether the pieces make the whole), and never twice
		// from the same byte: a range the server refused (416) or that
		// brought nothing starts the file again.
		st, err := os.Stat(part)
		if err == nil && st.Size() > 0 && st.Size() != ranged && (exp.MD5 != "" || exp.Size > 0) && (exp.Size <= 0 || st.Size() < exp.Size) {
			req.Header.Set("Range", fmt.Sprintf("bytes=%d-", st.Size()))
			ranged = st.Size()
		} else {
			os.Remove(part)
			ranged = -1
		}
	}
	err = c.do(ctx, rawURL, prepare, func(resp *http.Response) error {
		return c.save(resp, part, dst, exp)
	})
	if err != nil {
		return false, fmt.Errorf("%s: %w", rawURL, err)
	}
	c.files.Add(1)
	return false, nil
}

// save streams a response into part (appending to it for a 206 answer to
// a range request), verifies the whole file and renames it to dst. A
// broken transfer keeps part for the next attempt.
func (c *Client) save(resp *http.Response, part, dst string, exp Expect) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	h := md5.New()
	var n int64
	if resp.StatusCode == http.StatusPartialContent {
		have, err := hashFile(part, h)
		if err != nil || !strings.HasPrefix(resp.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-", have)) {
			os.Remove(part)
			return retryable{fmt.Errorf("range answer %q does not continue the %d bytes on disk", resp.Header.Get("Content-Range"), have)}
		}
		flags, n = os.O_WRONLY|os.O_APPEND, have
	}
	f, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return err
	}
	m, err := io.Copy(io.MultiWriter(f, h), c.counting(resp.Body))
	n += m
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return retryable{err}
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if (exp.Size > 0 && n != exp.Size) || (exp.MD5 != "" && sum != exp.MD5) {
		c.corrupt.Add(1)
		os.Remove(part)
		return retryable{fmt.Errorf("%w: got md5 %s, %d bytes; want %s", ErrChecksum, sum, n, exp)}
	}
	return os.Rename(part, dst)
}

// hashFile feeds the file at path into h and returns its length.
func hashFile(path string, h io.Writer) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return io.Copy(h, f)
}

// Bytes fetches a small document (a listing, a manifest, an API page) of
// at most max bytes.
func (c *Client) Bytes(ctx context.Context, rawURL string, max int64) ([]byte, error) {
	var b []byte
	err := c.do(ctx, rawURL, nil, func(resp *http.Response) error {
		var err error
		b, err = io.ReadAll(io.LimitReader(c.counting(resp.Body), max+1))
		if err != nil {
			return retryable{err}
		}
		if int64(len(b)) > max {
			return fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rawURL, err)
	}
	return b, nil
}

// retryable marks an error of one attempt that another attempt may fix.
type retryable struct{ err error }

func (r retryable) Error() string { return r.err.Error() }
func (r retryable) Unwrap() error { return r.err }

// do runs GET rawURL with retries and hands a 200 response to use; use's
// retryable errors (a broken body, a bad checksum) are retried too.
func (c *Client) do(ctx context.Context, rawURL string, prepare func(*http.Request), use func(*http.Response) error) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	h := c.host(u.Host)
	var last error
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if attempt > c.cfg.Retries {
				return last
			}
			c.retries.Add(1)
			d := c.backoff(attempt, last)
			c.cfg.Logger.Info("download: retrying", "url", rawURL, "attempt", attempt, "delay", d.String(), "err", last)
			if err := c.cfg.Sleep(ctx, d); err != nil {
				return err
			}
		}
		var retry bool
		retry, last = c.attempt(ctx, h, rawURL, prepare, use)
		if last == nil {
			return nil
		}
		if !retry || ctx.Err() != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return last
		}
	}
}

// statusError is a retryable HTTP status with the server's Retry-After.
type statusError struct {
	code       int
	retryAfter time.Duration
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d", e.code) }
func (e *statusError) Unwrap() error { return ErrStatus }

func (c *Client) attempt(ctx context.Context, h *host, rawURL string, prepare func(*http.Request), use func(*http.Response) error) (retry bool, err error) {
	if err := h.acquire(ctx, c.cfg.Sleep); err != nil {
		return false, err
	}
	defer h.release()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return false, err
	}
	if c.cfg.UserAgent != "" {
		req.Header.Set("User-Agent", c.cfg.UserAgent)
	}
	if prepare != nil {
		prepare(req)
	}
	resp, err := c.cfg.HTTP.Do(req)
	if err != nil {
		return true, err
	}
	defer resp.Body.Close()
	h.pace(resp.Header)
	switch {
	case resp.StatusCode == http.StatusOK, resp.StatusCode == http.StatusPartialContent && req.Header.Get("Range") != "":
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return true, &statusError{code: resp.StatusCode, retryAfter: retryAfter(resp.Header.Get("Retry-After"))}
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && req.Header.Get("Range") != "":
		// The part on disk is not a prefix of the file (or all of it but
		// unverified): start again.
		return true, fmt.Errorf("%w: %s for %s", ErrStatus, resp.Status, req.Header.Get("Range"))
	default:
		return false, fmt.Errorf("%w: %s", ErrStatus, resp.Status)
	}
	err = use(resp)
	var r retryable
	return errors.As(err, &r), err
}

// backoff is the delay before retry attempt n: BaseBackoff·2^(n-1) with
// equal jitter (half fixed, half random, so a storm of clients spreads
// out but each one still waits at least half), raised to the server's
// Retry-After, capped at MaxBackoff.
func (c *Client) backoff(n int, last error) time.Duration {
	d := c.cfg.BaseBackoff << min(n-1, 20)
	if d > c.cfg.MaxBackoff || d <= 0 {
		d = c.cfg.MaxBackoff
	}
	d = d/2 + rand.N(d/2+1)
	var se *statusError
	if errors.As(last, &se) && se.retryAfter > d {
		d = se.retryAfter
	}
	return min(d, c.cfg.MaxBackoff)
}

// retryAfter parses a Retry-After value: seconds or an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

func (c *Client) host(name string) *host {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.hosts[name]
	if !ok {
		h = &host{sem: make(chan struct{}, c.cfg.PerHost)}
		c.hosts[name] = h
	}
	return h
}

// acquire takes a slot and waits for the host's pacing.
func (h *host) acquire(ctx context.Context, sleep func(context.Context, time.Duration) error) error {
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	h.mu.Lock()
	now := time.Now()
	start := now
	if h.next.After(now) {
		start = h.next
	}
	h.next = start.Add(h.spacing)
	h.mu.Unlock()
	if d := start.Sub(now); d > 0 {
		if err := sleep(ctx, d); err != nil {
			<-h.sem
			return err
		}
	}
	return nil
}

func (h *host) release() { <-h.sem }

// pace reads the rate-limit headers Crossref sends (x-rate-limit-limit:
// 50, x-rate-limit-interval: 1s) and spaces the requests to that host so
// the limit is never reached.
func (h *host) pace(hdr http.Header) {
	limit, err := strconv.Atoi(hdr.Get("X-Rate-Limit-Limit"))
	if err != nil || limit <= 0 {
		return
	}
	interval, err := time.ParseDuration(hdr.Get("X-Rate-Limit-Interval"))
	if err != nil || interval <= 0 {
		return
	}
	h.mu.Lock()
	h.spacing = interval / time.Duration(limit)
	h.mu.Unlock()
}

// counting reports the bytes read through r to the stats and Progress.
func (c *Client) counting(r io.Reader) io.Reader { return &countReader{r: r, c: c} }

type countReader struct {
	r io.Reader
	c *Client
}

func (cr *countReader) Read(p []byte) (int, error) {
	n, err := cr.r.Read(p)
	if n > 0 {
		cr.c.bytes.Add(int64(n))
		if cr.c.Progress != nil {
			cr.c.Progress(int64(n))
		}
	}
	return n, err
}
