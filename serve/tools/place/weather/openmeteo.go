package weather

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
)

// OpenMeteo reads Open-Meteo's /v1/forecast. With an API key it is the
// commercial endpoint (customer-api.open-meteo.com): the free one is for
// non-commercial use only.
type OpenMeteo struct {
	Fetch   *fetch.Client
	BaseURL string // default https://api.open-meteo.com, or the customer endpoint with APIKey
	APIKey  string
}

// Open-Meteo endpoints.
const (
	OpenMeteoFree       = "https://api.open-meteo.com"
	OpenMeteoCommercial = "https://customer-api.open-meteo.com"
)

const omVars = "temperature_2m,precipitation,precipitation_probability,wind_speed_10m,wind_gusts_10m,weather_code"

func (p *OpenMeteo) Name() string { return "open-meteo" }

func (p *OpenMeteo) Attribution() Attribution {
	return Attribution{Provider: "open-meteo", Licence: "CC-BY-4.0",
		Attribution: "Weather data by Open-Meteo.com (CC BY 4.0).", URL: "https://open-meteo.com/"}
}

// omBody is the part of the answer we read. Values are pointers: Open-Meteo
// sends null for hours a model does not cover.
type omBody struct {
	UTCOffsetSeconds int                 `json:"utc_offset_seconds"`
	Latitude         float64             `json:"latitude"`
	Longitude        float64             `json:"longitude"`
	CurrentUnits     map[string]string   `json:"current_units"`
	Current          map[string]any      `json:"current"`
	HourlyUnits      map[string]string   `json:"hourly_units"`
	Hourly           map[string]omSeries `json:"hourly"`
	Error            bool                `json:"error"`
	Reason           string              `json:"reason"`
}

// omSeries is one hourly array: strings for time, numbers (or null) otherwise.
type omSeries []any

func (p *OpenMeteo) Forecast(ctx context.Context, lat, lon float64, hours int) (*Forecast, error) {
	base := p.BaseURL
	if base == "" {
		base = OpenMeteoFree
		if p.APIKey != "" {
			base = OpenMeteoCommercial
		}
	}
	q := url.Values{
		"latitude": {strconv.FormatFloat(lat, 'f', 4, 64)}, "longitude": {strconv.FormatFloat(lon, 'f', 4, 64)},
		"current": {omVars}, "hourly": {omVars}, "forecast_hours": {strconv.Itoa(hours + 1)},
		"timezone": {"GMT"}, "temperature_unit": {"celsius"}, "wind_speed_unit": {"kmh"}, "precipitation_unit": {"mm"},
	}
	if p.APIKey != "" {
		q.Set("apikey", p.APIKey)
	}
	resp, err := p.Fetch.Get(ctx, strings.TrimRight(base, "/")+"/v1/forecast?"+q.Encode(),
		fetch.Options{IgnoreRobots: true, MaxBytes: 2 << 20, Header: http.Header{"Accept": {"application/json"}}})
	if err != nil {
		return nil, err
	}
	if resp.Status == http.StatusTooManyRequests {
		return nil, apierr.New(apierr.ErrUnavailable, "upstream_rate_limited", "the forecast provider is rate limiting us; try again later")
	}
	if resp.Status != http.StatusOK {
		return nil, apierr.New(apierr.ErrUpstream, "upstream_status", "the forecast provider answered HTTP "+strconv.Itoa(resp.Status))
	}
	return parseOpenMeteo(resp.Body)
}

// parseOpenMeteo decodes a /v1/forecast body, converting °F, mph, m/s,
// knots and inches to metric, and local times (utc_offset_seconds) to UTC.
func parseOpenMeteo(b []byte) (*Forecast, error) {
	var body omBody
	if err := json.Unmarshal(b, &body); err != nil || body.Error {
		return nil, badResponse("open-meteo", fmt.Sprint(err, body.Reason))
	}
	loc := time.FixedZone("", body.UTCOffsetSeconds)
	f := &Forecast{Provider: "open-meteo", Lat: body.Latitude, Lon: body.Longitude}
	times := body.Hourly["time"]
	for i := range times {
		s, _ := times[i].(string)
		t, err := time.ParseInLocation("2006-01-02T15:04", s, loc)
		if err != nil {
			return nil, badResponse("open-meteo", "bad time "+s)
		}
		h := omHour(func(name string) (float64, bool) { return omValue(body.Hourly[name], i) }, body.HourlyUnits)
		h.Time = t.UTC()
		f.Hourly = append(f.Hourly, h)
	}
	if len(body.Current) > 0 {
		s, _ := body.Current["time"].(string)
		if t, err := time.ParseInLocation("2006-01-02T15:04", s, loc); err == nil {
			h := omHour(func(name string) (float64, bool) {
				v, ok := body.Current[name].(float64)
				return v, ok
			}, body.CurrentUnits)
			h.Time = t.UTC()
			f.Current = &h
		}
	}
	if len(f.Hourly) == 0 {
		return nil, badResponse("open-meteo", "no hourly forecast")
	}
	return f, nil
}

func omValue(s omSeries, i int) (float64, bool) {
	if i >= len(s) {
		return 0, false
	}
	v, ok := s[i].(float64)
	return v, ok
}

// omHour builds an hour from named values. precipitation falls back to
// rain + showers (+ snowfall as water) when a request did not ask for it.
func omHour(val func(string) (float64, bool), units map[string]string) Hour {
	var h Hour
	if v, ok := val("temperature_2m"); ok {
		h.TemperatureC = toCelsius(v, units["temperature_2m"])
	}
	if v, ok := val("precipitation"); ok {
		h.PrecipitationMM = toMM(v, units["precipitation"])
	} else {
		for _, k := range []string{"rain", "showers"} {
			if v, ok := val(k); ok {
				h.PrecipitationMM += toMM(v, units[k])
			}
		}
	}
	if v, ok := val("precipitation_probability"); ok {
		h.PrecipitationProbability = &v
	}
	if v, ok := val("wind_speed_10m"); ok {
		h.WindSpeedKmh = toKmh(v, units["wind_speed_10m"])
	}
	if v, ok := val("wind_gusts_10m"); ok {
		g := toKmh(v, units["wind_gusts_10m"])
		h.WindGustKmh = &g
	}
	if v, ok := val("weather_code"); ok {
		c := int(v)
		h.WeatherCode, h.Thunder = &c, wmoThunder(c)
	}
	return h
}

func toCelsius(v float64, unit string) float64 {
	if strings.Contains(unit, "F") {
		return round1((v - 32) * 5 / 9)
	}
	return v
}

func toKmh(v float64, unit string) float64 {
	switch unit {
	case "mp/h", "mph":
		return round1(v * 1.609344)
	case "m/s":
		return round1(v * 3.6)
	case "kn", "knots":
		return round1(v * 1.852)
	}
	return v
}

func toMM(v float64, unit string) float64 {
	if unit == "inch" || unit == "in" {
		return round1(v * 25.4)
	}
	return v
}

func round1(v float64) float64 {
	if v < 0 {
		return -float64(int64(-v*10+0.5)) / 10
	}
	return float64(int64(v*10+0.5)) / 10
}

func badResponse(provider, why string) error {
	return apierr.New(apierr.ErrUpstream, "upstream_bad_response", "the "+provider+" forecast is not in the expected format ("+why+")")
}
