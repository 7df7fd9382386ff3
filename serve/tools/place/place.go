package place

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/place/geo"
	"github.com/openshelf/openshelf/serve/tools/place/weather"
)

// Config configures the place tools. The zero value is the production
// setup (public upstreams, default thresholds).
type Config struct {
	// GeocoderURL is the base URL of an Open-Meteo-compatible geocoding
	// API (GET /v1/search), asked for postcodes the offline data lacks.
	// Default https://geocoding-api.open-meteo.com.
	GeocoderURL string
	// GeocoderPerSecond caps postcode calls to the geocoder (default 5,
	// burst of twice that); beyond it a request is a 503.
	GeocoderPerSecond float64
	// Weather configures the forecast provider, cache and thresholds.
	Weather weather.Config
	Now     func() time.Time
	Logger  *slog.Logger
}

// DefaultGeocoderURL is Open-Meteo's geocoding API.
const DefaultGeocoderURL = "https://geocoding-api.open-meteo.com"

// Tools serves geocode, weather_risk and location_report.
type Tools struct {
	cfg     Config
	data    *geo.Lazy
	fetch   *fetch.Client
	weather *weather.Service
	geocode *rate.Limiter
}

// New returns the place tools over the shared offline data, reaching
// upstreams through fc.
func New(fc *fetch.Client, data *geo.Lazy, cfg Config) (*Tools, error) {
	if cfg.GeocoderURL == "" {
		cfg.GeocoderURL = DefaultGeocoderURL
	}
	cfg.GeocoderURL = strings.TrimRight(cfg.GeocoderURL, "/")
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Weather.Now == nil {
		cfg.Weather.Now = cfg.Now
	}
	if cfg.GeocoderPerSecond <= 0 {
		cfg.GeocoderPerSecond = 5
	}
	ws, err := weather.New(fc, cfg.Weather)
	if err != nil {
		return nil, fmt.Errorf("place: %w", err)
	}
	return &Tools{cfg: cfg, data: data, fetch: fc, weather: ws,
		geocode: rate.NewLimiter(rate.Limit(cfg.GeocoderPerSecond), int(2*cfg.GeocoderPerSecond)+1)}, nil
}

// ErrDataUnavailable: the offline datasets are not installed (503).
var ErrDataUnavailable = apierr.New(apierr.ErrUnavailable, "dataset_unavailable",
	"the offline place data is not installed on this server")

// geo returns the loaded data or a 503.
func (t *Tools) geo(ctx context.Context) (*geo.Data, error) {
	d, err := t.data.Get(ctx)
	if err != nil {
		t.cfg.Logger.Error("place: datasets unavailable", "err", err)
		return nil, ErrDataUnavailable
	}
	return d, nil
}

// Endpoints returns the registry entries. Check resolves everything that
// is offline before payment, so an unknown place or country is a free
// 404 or 400.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{
		registry.Spec[GeocodeInput]{
			Name: "geocode", Method: http.MethodGet, Path: "/v1/geocode", Group: registry.GroupTools,
			Price:   "0.001",
			Summary: "Geocode at city level: by IP address, by place name (qualifiers after commas), by postcode and country, or the nearest places to a position.",
			Description: "Exactly one mode: ip; q (with optional country); postcode with country; or lat plus lon. " +
				"Names and positions are answered from offline GeoNames data (population at least 1000), IP addresses " +
				"from DB-IP City Lite; postcodes from an upstream geocoder. Never street addresses. Attribution in every answer.",
			Output:  GeocodeOutput{},
			Example: map[string]any{"q": "Lyon, France"},
			Tool:    &registry.Tool{OpenWorld: true},
			Check:   t.checkGeocode,
			Handle: func(ctx context.Context, in *GeocodeInput) (*registry.Result, error) {
				out, err := t.Geocode(ctx, in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
		registry.Spec[WeatherInput]{
			Name: "weather_risk", Method: http.MethodGet, Path: "/v1/weather", Group: registry.GroupTools,
			Price:   "0.001",
			Summary: "Current weather and an hourly forecast with decision flags: drone_safe, event_risk, rain_expected, frost_risk, high_wind.",
			Description: "Each flag comes with the thresholds used and the hours that triggered it. Forecasts are cached " +
				"per position rounded to 0.01 degrees and per hour. An upstream failure is an error, never a charged empty answer.",
			Output: weather.Report{},
			Tool:   &registry.Tool{OpenWorld: true},
			Handle: func(ctx context.Context, in *WeatherInput) (*registry.Result, error) {
				out, err := t.weather.Report(ctx, in.Lat, in.Lon, in.Hours)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
		registry.Spec[ReportInput]{
			Name: "location_report", Method: http.MethodGet, Path: "/v1/location-report", Group: registry.GroupTools,
			Price:   "0.01",
			Summary: "Everything about a place: resolved city, weather risk, local time, sunrise, sunset and daylight, and country facts.",
			Description: "Give q (a place name, qualifiers after commas) or lat plus lon. Sunrise and sunset are computed " +
				"locally (NOAA algorithm), polar day and night included; the time zone comes from offline data.",
			Output:  Report{},
			Example: map[string]any{"q": "Lyon, France"},
			Tool:    &registry.Tool{OpenWorld: true},
			Check:   t.checkReport,
			Handle: func(ctx context.Context, in *ReportInput) (*registry.Result, error) {
				out, err := t.Report(ctx, in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
	}
}
