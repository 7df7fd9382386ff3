package weather

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
)

// METNorway reads MET Norway's Locationforecast 2.0 "complete" product
// (CC BY 4.0 with attribution to MET Norway). MET Norway's terms ask for
// an identifying User-Agent, which the fetch client always sends.
type METNorway struct {
	Fetch   *fetch.Client
	BaseURL string // default https://api.met.no
}

// METNorwayURL is the public API.
const METNorwayURL = "https://api.met.no"

func (p *METNorway) Name() string { return "met-norway" }

func (p *METNorway) Attribution() Attribution {
	return Attribution{Provider: "met-norway", Licence: "CC-BY-4.0",
		Attribution: "Weather forecast from MET Norway (Norwegian Meteorological Institute), CC BY 4.0.",
		URL:         "https://api.met.no/doc/License"}
}

type metBody struct {
	Geometry struct {
		Coordinates []float64 `json:"coordinates"`
	} `json:"geometry"`
	Properties struct {
		Meta struct {
			Units map[string]string `json:"units"`
		} `json:"meta"`
		Timeseries []struct {
			Time time.Time `json:"time"`
			Data struct {
				Instant struct {
					Details map[string]float64 `json:"details"`
				} `json:"instant"`
				Next1Hours *struct {
					Summary struct {
						SymbolCode string `json:"symbol_code"`
					} `json:"summary"`
					Details map[string]float64 `json:"details"`
				} `json:"next_1_hours"`
			} `json:"data"`
		} `json:"timeseries"`
	} `json:"properties"`
}

func (p *METNorway) Forecast(ctx context.Context, lat, lon float64, hours int) (*Forecast, error) {
	base := p.BaseURL
	if base == "" {
		base = METNorwayURL
	}
	// MET Norway refuses more than four decimals.
	q := url.Values{"lat": {strconv.FormatFloat(lat, 'f', 4, 64)}, "lon": {strconv.FormatFloat(lon, 'f', 4, 64)}}
	resp, err := p.Fetch.Get(ctx, strings.TrimRight(base, "/")+"/weatherapi/locationforecast/2.0/complete?"+q.Encode(),
		fetch.Options{IgnoreRobots: true, MaxBytes: 4 << 20, Header: http.Header{"Accept": {"application/json"}}})
	if err != nil {
		return nil, err
	}
	switch {
	case resp.Status == http.StatusTooManyRequests || resp.Status == http.StatusForbidden:
		return nil, apierr.New(apierr.ErrUnavailable, "upstream_rate_limited", "the forecast provider refused us for now; try again later")
	case resp.Status != http.StatusOK && resp.Status != 203: // 203: deprecated product version, data still valid
		return nil, apierr.New(apierr.ErrUpstream, "upstream_status", "the forecast provider answered HTTP "+strconv.Itoa(resp.Status))
	}
	return parseMET(resp.Body)
}

// parseMET keeps the steps that have a next-hour block (the first ~2.5
// days); later steps are 6-hourly and not an hourly forecast.
func parseMET(b []byte) (*Forecast, error) {
	var body metBody
	if err := json.Unmarshal(b, &body); err != nil {
		return nil, badResponse("met-norway", err.Error())
	}
	units := body.Properties.Meta.Units
	f := &Forecast{Provider: "met-norway"}
	if c := body.Geometry.Coordinates; len(c) >= 2 {
		f.Lon, f.Lat = c[0], c[1]
	}
	for _, ts := range body.Properties.Timeseries {
		if ts.Data.Next1Hours == nil {
			continue
		}
		in, next := ts.Data.Instant.Details, ts.Data.Next1Hours.Details
		h := Hour{Time: ts.Time.UTC(), TemperatureC: in["air_temperature"], PrecipitationMM: next["precipitation_amount"],
			WindSpeedKmh: toKmh(in["wind_speed"], metUnit(units["wind_speed"])), Symbol: ts.Data.Next1Hours.Summary.SymbolCode}
		if v, ok := next["probability_of_precipitation"]; ok {
			h.PrecipitationProbability = &v
		}
		if v, ok := in["wind_speed_of_gust"]; ok {
			g := toKmh(v, metUnit(units["wind_speed_of_gust"]))
			h.WindGustKmh = &g
		}
		h.Thunder = strings.Contains(h.Symbol, "thunder") || next["probability_of_thunder"] >= 50
		f.Hourly = append(f.Hourly, h)
	}
	if len(f.Hourly) == 0 {
		return nil, badResponse("met-norway", "no hourly steps")
	}
	c := f.Hourly[0]
	f.Current = &c
	return f, nil
}

// metUnit maps MET's unit names to ours; its wind is in m/s.
func metUnit(u string) string {
	if u == "" {
		return "m/s"
	}
	return u
}
