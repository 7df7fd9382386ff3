package weather

import (
	"context"
	"time"
)

// Hour is one forecast (or current) step in metric units.
type Hour struct {
	Time         time.Time `json:"time"`
	TemperatureC float64   `json:"temperature_c"`
	// PrecipitationMM is the amount expected within the hour.
	PrecipitationMM float64 `json:"precipitation_mm"`
	// PrecipitationProbability is in percent; absent when the provider
	// does not give it.
	PrecipitationProbability *float64 `json:"precipitation_probability,omitempty"`
	WindSpeedKmh             float64  `json:"wind_speed_kmh"`
	WindGustKmh              *float64 `json:"wind_gust_kmh,omitempty"`
	// WeatherCode is the WMO code (Open-Meteo); Symbol the provider's own
	// symbol (MET Norway, e.g. "heavyrainandthunder").
	WeatherCode *int   `json:"weather_code,omitempty"`
	Symbol      string `json:"symbol,omitempty"`
	// Thunder is set when the code or symbol says thunderstorm.
	Thunder bool `json:"thunder,omitempty"`
}

// Forecast is a provider's answer for one position.
type Forecast struct {
	Provider string  `json:"provider"`
	Lat      float64 `json:"lat"`
	Lon      float64 `json:"lon"`
	// Current is the provider's current conditions, when it has them.
	Current *Hour  `json:"current,omitempty"`
	Hourly  []Hour `json:"hourly"`
}

// Provider is a forecast API. Forecast returns at least the next hours
// hourly steps from the current hour on, or an error (an *apierr.Error
// with a 502, 503 or 504 status for upstream failures).
type Provider interface {
	Name() string
	Forecast(ctx context.Context, lat, lon float64, hours int) (*Forecast, error)
	// Attribution is the licence notice the data requires.
	Attribution() Attribution
}

// Attribution is a provider's data licence.
type Attribution struct {
	Provider    string `json:"provider"`
	Licence     string `json:"licence"`
	Attribution string `json:"attribution"`
	URL         string `json:"url"`
}

// wmoThunder reports WMO weather codes 95–99 (thunderstorm).
func wmoThunder(code int) bool { return code >= 95 && code <= 99 }
