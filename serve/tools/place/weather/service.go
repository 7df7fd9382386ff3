package weather

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
)

// Config configures the forecast provider, the cache and the thresholds.
type Config struct {
	// Provider is "open-meteo" (default) or "met-norway".
	Provider string
	// OpenMeteoURL overrides the Open-Meteo base URL; OpenMeteoKey selects
	// its commercial endpoint.
	OpenMeteoURL string
	OpenMeteoKey string
	// METNorwayURL overrides MET Norway's base URL.
	METNorwayURL string
	// Thresholds of the decision flags; zero fields take the defaults.
	Thresholds Thresholds
	// CacheEntries caps the cache (default 10000 positions x hours).
	CacheEntries int
	// RequestsPerSecond caps calls to the provider (default 10, burst of
	// twice that); beyond it a request is a 503, not a queue.
	RequestsPerSecond float64
	Now               func() time.Time
}

// MaxHours is the longest forecast window.
const MaxHours = 48

// Service answers weather_risk.
type Service struct {
	cfg      Config
	provider Provider
	th       Thresholds

	limit *rate.Limiter

	mu    sync.Mutex
	cache map[cacheKey]*Forecast
	// flight makes concurrent misses of one key share one upstream request.
	flight singleflight.Group
}

type cacheKey struct {
	lat, lon int32 // hundredths of a degree
	hour     int64 // unix hour
}

// New returns a Service using the configured provider through fc.
func New(fc *fetch.Client, cfg Config) (*Service, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.CacheEntries <= 0 {
		cfg.CacheEntries = 10000
	}
	if cfg.RequestsPerSecond <= 0 {
		cfg.RequestsPerSecond = 10
	}
	s := &Service{cfg: cfg, th: cfg.Thresholds.withDefaults(), cache: map[cacheKey]*Forecast{},
		limit: rate.NewLimiter(rate.Limit(cfg.RequestsPerSecond), int(2*cfg.RequestsPerSecond)+1)}
	switch cfg.Provider {
	case "", "open-meteo":
		s.provider = &OpenMeteo{Fetch: fc, BaseURL: cfg.OpenMeteoURL, APIKey: cfg.OpenMeteoKey}
	case "met-norway":
		s.provider = &METNorway{Fetch: fc, BaseURL: cfg.METNorwayURL}
	default:
		return nil, fmt.Errorf("weather: unknown provider %q (open-meteo or met-norway)", cfg.Provider)
	}
	if err := s.th.validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// NewWithProvider returns a Service over any Provider.
func NewWithProvider(p Provider, cfg Config) (*Service, error) {
	s, err := New(nil, Config{Thresholds: cfg.Thresholds, CacheEntries: cfg.CacheEntries, Now: cfg.Now,
		RequestsPerSecond: cfg.RequestsPerSecond})
	if err != nil {
		return nil, err
	}
	s.provider = p
	return s, nil
}

// ErrBusy: the provider call budget is spent for now (503, Retry-After).
var ErrBusy = &apierr.Error{Status: 503, Code: "upstream_rate_limited", Kind: apierr.ErrUnavailable,
	Message: "too many forecast requests right now; try again shortly", RetryAfter: time.Second}

// Report is the answer of weather_risk.
type Report struct {
	Lat      float64 `json:"lat"`
	Lon      float64 `json:"lon"`
	Provider string  `json:"provider"`
	// Current conditions: the provider's own, or the first forecast hour.
	Current *Hour  `json:"current"`
	Hours   int    `json:"hours"`
	Hourly  []Hour `json:"hourly"`
	Flags   Flags  `json:"flags"`
	// Cached is set when the forecast came from the cache.
	Cached      bool        `json:"cached"`
	Attribution Attribution `json:"attribution"`
}

// Report fetches (or reuses) the forecast at (lat, lon) and scores the
// next hours hours.
func (s *Service) Report(ctx context.Context, lat, lon float64, hours int) (*Report, error) {
	if hours < 1 || hours > MaxHours {
		return nil, apierr.Invalid("hours", fmt.Sprintf("must be 1 to %d", MaxHours))
	}
	now := s.cfg.Now().UTC()
	key := cacheKey{int32(math.Round(lat * 100)), int32(math.Round(lon * 100)), now.Unix() / 3600}
	f, cached := s.cached(key)
	if !cached {
		v, err, _ := s.flight.Do(fmt.Sprint(key), func() (any, error) {
			if f, ok := s.cached(key); ok {
				return f, nil
			}
			if !s.limit.Allow() {
				return nil, ErrBusy
			}
			// Shared by every waiting caller: one caller leaving must not
			// fail the others (the fetch client bounds the time).
			f, err := s.provider.Forecast(context.WithoutCancel(ctx), float64(key.lat)/100, float64(key.lon)/100, MaxHours)
			if err != nil {
				return nil, err
			}
			s.store(key, f)
			return f, nil
		})
		if err != nil {
			return nil, err
		}
		f = v.(*Forecast)
	}
	window := hoursFrom(f.Hourly, now.Truncate(time.Hour), hours)
	if len(window) == 0 {
		return nil, apierr.New(apierr.ErrUpstream, "upstream_bad_response", "the forecast has no hours from now on")
	}
	r := &Report{Lat: lat, Lon: lon, Provider: f.Provider, Current: f.Current, Hours: len(window), Hourly: window,
		Cached: cached, Attribution: s.provider.Attribution()}
	if r.Current == nil {
		c := window[0]
		r.Current = &c
	}
	r.Flags = s.th.Score(window)
	return r, nil
}

// hoursFrom returns up to n steps starting at the hour from.
func hoursFrom(all []Hour, from time.Time, n int) []Hour {
	var out []Hour
	for _, h := range all {
		if !h.Time.Before(from) {
			out = append(out, h)
			if len(out) == n {
				break
			}
		}
	}
	return out
}

func (s *Service) cached(k cacheKey) (*Forecast, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.cache[k]
	return f, ok
}

// store keeps f and drops entries of earlier hours once the cache is full.
func (s *Service) store(k cacheKey, f *Forecast) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.cache) >= s.cfg.CacheEntries {
		for old := range s.cache {
			if old.hour < k.hour {
				delete(s.cache, old)
			}
		}
		if len(s.cache) >= s.cfg.CacheEntries {
			clear(s.cache)
		}
	}
	s.cache[k] = f
}
