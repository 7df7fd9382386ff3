package place

import (
	"context"
	"math"
	"strings"
	"time"
	_ "time/tzdata" // local times must not depend on the host's zoneinfo

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/place/geo"
	"github.com/openshelf/openshelf/serve/tools/place/sun"
	"github.com/openshelf/openshelf/serve/tools/place/weather"
)

// WeatherInput is the input of weather_risk.
type WeatherInput struct {
	Lat   float64 `json:"lat" doc:"Latitude in degrees." min:"-90" max:"90"`
	Lon   float64 `json:"lon" doc:"Longitude in degrees." min:"-180" max:"180"`
	Hours int     `json:"hours,omitempty" doc:"Forecast hours to return and score." min:"1" max:"48" default:"6"`
}

// ReportInput is the input of location_report.
type ReportInput struct {
	Q     string   `json:"q,omitempty" doc:"A place name; qualifiers after commas (\"Paris, Texas\")." maxLength:"200"`
	Lat   *float64 `json:"lat,omitempty" doc:"Latitude in degrees (with lon, instead of q)." min:"-90" max:"90"`
	Lon   *float64 `json:"lon,omitempty" doc:"Longitude in degrees (with lat, instead of q)." min:"-180" max:"180"`
	Hours int      `json:"hours,omitempty" doc:"Forecast hours for the weather risk." min:"1" max:"48" default:"24"`
}

// Validate asks for q or lat plus lon, not both.
func (in *ReportInput) Validate() error {
	in.Q = strings.TrimSpace(in.Q)
	if (in.Lat == nil) != (in.Lon == nil) {
		return apierr.Invalid("lat", "lat and lon go together")
	}
	if (in.Q == "") == (in.Lat == nil) {
		return apierr.Invalid("", "give q or lat plus lon (one of them)")
	}
	if in.Q != "" && geo.Fold(strings.SplitN(in.Q, ",", 2)[0]) == "" {
		return apierr.Invalid("q", "names no place")
	}
	return nil
}

// Report is the answer of location_report.
type Report struct {
	// Place is the city found for q, or the nearest city to lat/lon
	// (with its distance).
	Place       Place           `json:"place"`
	Lat         float64         `json:"lat"`
	Lon         float64         `json:"lon"`
	LocalTime   LocalTime       `json:"local_time"`
	Sun         Sun             `json:"sun"`
	Weather     *weather.Report `json:"weather"`
	Country     *geo.Country    `json:"country,omitempty"`
	Attribution []geo.Source    `json:"attribution"`
}

// LocalTime is the wall clock at the place.
type LocalTime struct {
	TimeZone         string    `json:"timezone"`
	Time             time.Time `json:"time"` // RFC 3339 with the zone's offset
	UTCOffsetSeconds int       `json:"utc_offset_seconds"`
	Abbreviation     string    `json:"abbreviation"`
}

// Sun is today's sun at the place (its local calendar day).
type Sun struct {
	Date            string     `json:"date"`
	Sunrise         *time.Time `json:"sunrise"`
	Sunset          *time.Time `json:"sunset"`
	SolarNoon       time.Time  `json:"solar_noon"`
	DaylightMinutes float64    `json:"daylight_minutes"`
	PolarDay        bool       `json:"polar_day"`
	PolarNight      bool       `json:"polar_night"`
	Method          string     `json:"method"`
}

// resolve finds the report's place and position.
func (t *Tools) resolve(d *geo.Data, in *ReportInput) (Place, float64, float64, error) {
	if in.Q != "" {
		ms := d.Search(geo.Query{Text: in.Q, Limit: 1})
		if len(ms) == 0 {
			return Place{}, 0, 0, ErrPlaceNotFound
		}
		return cityPlace(d, ms[0], false), ms[0].Lat, ms[0].Lon, nil
	}
	ms := d.Nearest(*in.Lat, *in.Lon, 1)
	if len(ms) == 0 {
		return Place{}, 0, 0, ErrPlaceNotFound
	}
	return cityPlace(d, ms[0], true), *in.Lat, *in.Lon, nil
}

func (t *Tools) checkReport(ctx context.Context, in *ReportInput) error {
	d, err := t.geo(ctx)
	if err != nil {
		return err
	}
	_, _, _, err = t.resolve(d, in)
	return err
}

// Report answers location_report. The weather is required: without it
// the report fails (and is not charged) rather than answering in part.
func (t *Tools) Report(ctx context.Context, in *ReportInput) (*Report, error) {
	d, err := t.geo(ctx)
	if err != nil {
		return nil, err
	}
	p, lat, lon, err := t.resolve(d, in)
	if err != nil {
		return nil, err
	}
	w, err := t.weather.Report(ctx, lat, lon, in.Hours)
	if err != nil {
		return nil, err
	}
	r := &Report{Place: p, Lat: lat, Lon: lon, Weather: w,
		Attribution: []geo.Source{d.Source("geonames"), d.Source("tz"), d.Source("countries"),
			{Key: w.Attribution.Provider, Name: w.Attribution.Provider, Licence: w.Attribution.Licence,
				Attribution: w.Attribution.Attribution, URL: w.Attribution.URL}}}
	if c, ok := d.Country(p.CountryCode); ok {
		r.Country = c
	}
	zone := d.TimeZone(lat, lon)
	loc, err := time.LoadLocation(zone)
	if err != nil || zone == "" {
		// Outside every zone (open sea): nautical time by longitude.
		zone, loc = "Etc/UTC", time.UTC
	}
	now := t.cfg.Now().In(loc)
	name, off := now.Zone()
	r.LocalTime = LocalTime{TimeZone: zone, Time: now.Truncate(time.Second), UTCOffsetSeconds: off, Abbreviation: name}
	r.Sun = sunToday(now, lat, lon, loc)
	return r, nil
}

// sunToday computes the sun for the local calendar day of now. The NOAA
// day is taken on that date in UTC: solar noon then falls within 12 hours
// of UTC midnight's day, which is the local day for any real zone.
func sunToday(now time.Time, lat, lon float64, loc *time.Location) Sun {
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	s := sun.On(day, lat, lon)
	out := Sun{Date: day.Format(time.DateOnly), SolarNoon: s.SolarNoon.In(loc), PolarDay: s.PolarDay,
		PolarNight: s.PolarNight, DaylightMinutes: math.Round(s.Daylight.Minutes()*10) / 10,
		Method: "NOAA solar calculator algorithm, zenith 90.833 degrees, sea level"}
	if !s.Sunrise.IsZero() {
		rise, set := s.Sunrise.In(loc), s.Sunset.In(loc)
		out.Sunrise, out.Sunset = &rise, &set
	}
	return out
}
