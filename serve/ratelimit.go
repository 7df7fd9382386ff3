package serve

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/openshelf/openshelf/serve/apierr"
)

// RateLimit configures the per-client token bucket.
type RateLimit struct {
	// PerSecond is the refill rate; 0 disables limiting.
	PerSecond float64
	// Burst is the bucket size.
	Burst int
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
}

// limiter holds one token bucket per client address. Idle buckets are
// dropped so memory stays bounded however many clients come and go.
type limiter struct {
	cfg     RateLimit
	now     func() time.Time
	mu      sync.Mutex
	buckets map[netip.Addr]*bucket
	sweep   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(cfg RateLimit, now func() time.Time) *limiter {
	return &limiter{cfg: cfg, now: now, buckets: map[netip.Addr]*bucket{}}
}

// allow takes a token for addr. It returns the remaining tokens and, when
// refused, how long until one is available.
func (l *limiter) allow(addr netip.Addr) (remaining int, wait time.Duration, ok bool) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	idle := time.Duration(float64(l.cfg.Burst)/l.cfg.PerSecond*float64(time.Second)) + time.Minute
	if now.Sub(l.sweep) > idle {
		for a, b := range l.buckets {
			if now.Sub(b.seen) > idle {
				delete(l.buckets, a)
			}
		}
		l.sweep = now
	}
	b := l.buckets[addr]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(rate.Limit(l.cfg.PerSecond), l.cfg.Burst)}
		l.buckets[addr] = b
	}
	b.seen = now
	if b.lim.AllowN(now, 1) {
		return int(math.Floor(b.lim.TokensAt(now))), 0, true
	}
	r := b.lim.ReserveN(now, 1)
	wait = r.DelayFrom(now)
	r.CancelAt(now)
	return 0, wait, false
}

// clientIP is the peer address, or the client named in X-Forwarded-For when
// the peer is a trusted proxy: the rightmost address that is not itself a
// trusted proxy, since everything left of it could be forged.
func clientIP(r *http.Request, trusted []netip.Prefix) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	peer = peer.Unmap()
	if !isTrusted(peer, trusted) {
		return peer
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return peer
		}
		a = a.Unmap()
		if !isTrusted(a, trusted) {
			return a
		}
	}
	return peer
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// rateLimited wraps h with the server's one limiter, setting RateLimit-* headers on every
// answer and refusing with 429 and Retry-After when the bucket is empty.
func (s *Server) rateLimited(h http.Handler) http.Handler {
	if s.limiter == nil {
		return h
	}
	l := s.limiter
	limit := strconv.Itoa(s.cfg.RateLimit.Burst)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		remaining, wait, ok := l.allow(clientIP(r, s.cfg.RateLimit.TrustedProxies))
		w.Header().Set("RateLimit-Limit", limit)
		w.Header().Set("RateLimit-Remaining", strconv.Itoa(remaining))
		if !ok {
			e := apierr.New(apierr.ErrRateLimited, "", "too many requests: slow down")
			e.RetryAfter = wait
			w.Header().Set("RateLimit-Reset", e.RetryAfterSeconds())
			s.writeError(w, r, e)
			return
		}
		w.Header().Set("RateLimit-Reset", "0")
		h.ServeHTTP(w, r)
	})
}
