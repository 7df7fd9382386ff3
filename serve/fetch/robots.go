package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
	"golang.org/x/sync/singleflight"
)

const (
	// robotsMaxBytes is the part of a robots.txt that is read; RFC 9309
	// asks for at least 500 KiB to be parsed.
	robotsMaxBytes = 500 << 10
	// robotsMaxRedirects: RFC 9309 asks crawlers to follow at least five.
	robotsMaxRedirects = 5
	// robotsFailureTTL caps how long a failure (disallow-all) is cached.
	robotsFailureTTL = 5 * time.Minute
)

type robotsEntry struct {
	data    *robotstxt.RobotsData
	reason  string // why everything is disallowed, when data is nil
	expires time.Time
}

type robotsCache struct {
	mu      sync.Mutex
	entries map[string]robotsEntry
	max     int
	flight  singleflight.Group
}

func newRobotsCache(max int) *robotsCache {
	return &robotsCache{entries: make(map[string]robotsEntry), max: max}
}

func (rc *robotsCache) get(key string, now time.Time) (robotsEntry, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	e, ok := rc.entries[key]
	if !ok || !now.Before(e.expires) {
		return robotsEntry{}, false
	}
	return e, true
}

func (rc *robotsCache) put(key string, e robotsEntry, now time.Time) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.entries) >= rc.max {
		for k, v := range rc.entries {
			if !now.Before(v.expires) {
				delete(rc.entries, k)
			}
		}
		// Still full: drop arbitrary entries (map order) down to 90%.
		for k := range rc.entries {
			if len(rc.entries) < rc.max*9/10 {
				break
			}
			delete(rc.entries, k)
		}
	}
	rc.entries[key] = e
}

// robotsKey is scheme://host:port with the default port made explicit, so
// http://a.example and http://a.example:80 share an entry.
func robotsKey(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = strconv.Itoa(defaultPort(u.Scheme))
	}
	return u.Scheme + "://" + joinHostPort(u.Hostname(), port)
}

// robotsPath is the path and query robots.txt rules are matched against.
func robotsPath(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

// checkRobots returns ErrRobotsDisallowed when u may not be fetched.
func (c *Client) checkRobots(ctx context.Context, u *url.URL) error {
	key := robotsKey(u)
	e, ok := c.robots.get(key, c.cfg.now())
	if !ok {
		ch := c.robots.flight.DoChan(key, func() (any, error) {
			e, err := c.fetchRobots(ctx, u)
			if err == nil {
				c.robots.put(key, e, c.cfg.now())
			}
			return e, err
		})
		select {
		case r := <-ch:
			if r.Err != nil {
				return r.Err
			}
			e = r.Val.(robotsEntry)
		case <-ctx.Done():
			return c.classify(ctx, u.String(), ctx.Err())
		}
	}
	if e.data == nil {
		return newError(ErrRobotsDisallowed, u.String(), e.reason, nil)
	}
	if !e.data.TestAgent(robotsPath(u), c.agent) {
		return newError(ErrRobotsDisallowed, u.String(), "robots.txt disallows "+c.agent+" from this URL", nil)
	}
	return nil
}

// fetchRobots reads and interprets robots.txt for u's origin (RFC 9309
// section 2.3.1). An error is returned, and nothing cached, only when the
// origin itself is refused, cannot be connected to, or the caller's time ran
// out; any of those stops the fetch just as a full disallow would.
func (c *Client) fetchRobots(ctx context.Context, u *url.URL) (robotsEntry, error) {
	ru := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	now := c.cfg.now()
	ok := func(d *robotstxt.RobotsData) robotsEntry {
		return robotsEntry{data: d, expires: now.Add(c.cfg.RobotsCacheTTL)}
	}
	fail := func(reason string) robotsEntry {
		return robotsEntry{reason: reason, expires: now.Add(min(c.cfg.RobotsCacheTTL, robotsFailureTTL))}
	}
	allowAll, _ := robotstxt.FromStatusAndBytes(http.StatusNotFound, nil)

	resp, err := c.do(ctx, http.MethodGet, ru, Options{
		IgnoreRobots:   true,
		MaxBytes:       robotsMaxBytes,
		AllowTruncated: true,
		maxRedirects:   robotsMaxRedirects,
		Header:         http.Header{"Accept": {"text/plain, */*;q=0.5"}},
	})
	if err != nil {
		var fe *Error
		errors.As(err, &fe)
		switch {
		case fe != nil && fe.Kind == ErrForbiddenTarget && fe.URL == ru.String():
			// The origin itself is refused: say so, not "robots".
			return robotsEntry{}, err
		case fe != nil && (fe.Kind == ErrTooManyRedirects || fe.Kind == ErrForbiddenTarget):
			// RFC 9309 2.3.1.2: a robots.txt that cannot be reached through
			// redirects counts as unavailable (4xx), which allows all.
			return ok(allowAll), nil
		case fe != nil && fe.Kind == ErrTimeout && ctx.Err() != nil:
			return robotsEntry{}, err
		case cannotConnect(err):
			// No connection to the origin at all: the page cannot be
			// fetched either, and "upstream_error" says why better
			// than "robots_disallowed" would. Not cached.
			return robotsEntry{}, err
		}
		c.log.Debug("fetch: robots.txt unreachable", "url", ru.String(), "err", err)
		return fail("robots.txt could not be fetched; RFC 9309 treats an unreachable robots.txt as disallowing everything"), nil
	}
	switch {
	case resp.Status >= 200 && resp.Status < 300:
		d, err := robotstxt.FromBytes(resp.Body)
		if err != nil {
			// RFC 9309 asks for lenient parsing; a file we cannot make
			// sense of carries no rules we could honour.
			return ok(allowAll), nil
		}
		return ok(d), nil
	case resp.Status >= 400 && resp.Status < 500:
		return ok(allowAll), nil
	case resp.Status >= 500:
		return fail("robots.txt answered " + strconv.Itoa(resp.Status) + "; RFC 9309 treats a server error as disallowing everything"), nil
	}
	// 1xx, 3xx without Location and other oddities: unavailable.
	return ok(allowAll), nil
}

// cannotConnect reports a failure to reach the origin at all: resolution,
// connection or TLS certificate, as opposed to a failure after connecting.
func cannotConnect(err error) bool {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var certErr *tls.CertificateVerificationError
	return errors.As(err, &dnsErr) || errors.As(err, &certErr) ||
		errors.As(err, &opErr) && opErr.Op == "dial"
}
