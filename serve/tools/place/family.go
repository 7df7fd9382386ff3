package place

import (
	"context"
	"flag"

	"github.com/openshelf/openshelf/serve/tools"
	"github.com/openshelf/openshelf/serve/tools/place/geo"
	"github.com/openshelf/openshelf/serve/tools/place/weather"
)

// Family plugs geocode, weather_risk and location_report into the server.
// Its Config's zero value is the production setup (public upstreams,
// default thresholds); an empty Logger and Now are the server's.
type Family struct {
	Config Config
}

// Name is the family's name.
func (*Family) Name() string { return "place" }

// RegisterFlags registers the geocoder and forecast flags and one flag per
// weather threshold (-weather-*).
func (f *Family) RegisterFlags(fs *flag.FlagSet) {
	c := &f.Config
	fs.StringVar(&c.GeocoderURL, "geocoder-url", DefaultGeocoderURL, "base URL of the Open-Meteo-compatible geocoding API asked for postcodes")
	fs.StringVar(&c.Weather.Provider, "weather-provider", "open-meteo", `forecast provider: "open-meteo" or "met-norway"`)
	fs.StringVar(&c.Weather.OpenMeteoURL, "open-meteo-url", "", "Open-Meteo forecast base URL (default the free API, or the commercial one with -open-meteo-key)")
	fs.StringVar(&c.Weather.OpenMeteoKey, "open-meteo-key", "", "Open-Meteo commercial API key (the free API is non-commercial)")
	fs.StringVar(&c.Weather.METNorwayURL, "met-norway-url", weather.METNorwayURL, "MET Norway Locationforecast base URL")
	fs.Float64Var(&c.Weather.RequestsPerSecond, "weather-rps", 10, "forecast provider calls per second (cache misses); beyond it 503")
	fs.Float64Var(&c.GeocoderPerSecond, "geocoder-rps", 5, "postcode geocoder calls per second; beyond it 503")
	thresholdFlags(fs, &c.Weather.Thresholds)
}

// thresholdFlags makes every weather-flag threshold overridable, each
// flag defaulting to the documented value.
func thresholdFlags(fs *flag.FlagSet, t *weather.Thresholds) {
	t.Complete = true // every field has a flag, so 0 means 0 °C, not "default"
	d := weather.DefaultThresholds
	for _, f := range []struct {
		name string
		dst  *float64
		def  float64
	}{
		{"drone-max-wind-kmh", &t.DroneMaxWindKmh, d.DroneMaxWindKmh},
		{"drone-max-gust-kmh", &t.DroneMaxGustKmh, d.DroneMaxGustKmh},
		{"drone-max-precipitation-mm", &t.DroneMaxPrecipMM, d.DroneMaxPrecipMM},
		{"drone-max-precipitation-probability", &t.DroneMaxPrecipProbPct, d.DroneMaxPrecipProbPct},
		{"drone-min-temperature-c", &t.DroneMinTempC, d.DroneMinTempC},
		{"drone-max-temperature-c", &t.DroneMaxTempC, d.DroneMaxTempC},
		{"rain-min-precipitation-mm", &t.RainMinMM, d.RainMinMM},
		{"rain-min-probability", &t.RainMinProbPct, d.RainMinProbPct},
		{"frost-max-temperature-c", &t.FrostMaxTempC, d.FrostMaxTempC},
		{"high-wind-kmh", &t.HighWindKmh, d.HighWindKmh},
		{"high-wind-gust-kmh", &t.HighWindGustKmh, d.HighWindGustKmh},
		{"event-high-gust-kmh", &t.EventHighGustKmh, d.EventHighGustKmh},
		{"event-high-precipitation-mm", &t.EventHighPrecipMM, d.EventHighPrecipMM},
	} {
		fs.Float64Var(f.dst, "weather-"+f.name, f.def, "weather flag threshold "+f.name+" (see docs/tools-place.md)")
	}
}

// Open builds the tools over the offline data of the server's -datasets
// directory, shared with the data family (SharedData).
func (f *Family) Open(_ context.Context, deps tools.Deps) ([]tools.Tools, error) {
	cfg := f.Config
	if cfg.Logger == nil {
		cfg.Logger = deps.Logger
	}
	if cfg.Now == nil {
		cfg.Now = deps.Now
	}
	data, err := SharedData(deps)
	if err != nil {
		return nil, err
	}
	t, err := New(deps.Fetch, data, cfg)
	if err != nil {
		return nil, err
	}
	return []tools.Tools{t}, nil
}

// SharedData returns the offline place data of deps.Datasets, loaded on
// first use and shared by every family that reads it.
func SharedData(deps tools.Deps) (*geo.Lazy, error) {
	return tools.Share(deps.Shared, "place/geo", func() (*geo.Lazy, func() error, error) {
		l := &geo.Lazy{Dir: deps.Datasets}
		return l, l.Close, nil
	})
}
