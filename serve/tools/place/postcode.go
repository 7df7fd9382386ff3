package place

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
	"github.com/openshelf/openshelf/serve/tools/place/geo"
)

// geocodingResponse is the body of Open-Meteo's GET /v1/search: no
// "results" key when nothing matches.
type geocodingResponse struct {
	Results []struct {
		ID          int64    `json:"id"`
		Name        string   `json:"name"`
		Latitude    float64  `json:"latitude"`
		Longitude   float64  `json:"longitude"`
		FeatureCode string   `json:"feature_code"`
		CountryCode string   `json:"country_code"`
		Country     string   `json:"country"`
		Admin1      string   `json:"admin1"`
		Timezone    string   `json:"timezone"`
		Population  int64    `json:"population"`
		Postcodes   []string `json:"postcodes"`
	} `json:"results"`
	Error  bool   `json:"error"`
	Reason string `json:"reason"`
}

// ErrGeocoderBusy: the postcode call budget is spent for now (503).
var ErrGeocoderBusy = &apierr.Error{Status: http.StatusServiceUnavailable, Code: "upstream_rate_limited",
	Kind: apierr.ErrUnavailable, Message: "too many postcode lookups right now; try again shortly", RetryAfter: time.Second}

// maxGeocoderBody caps an upstream geocoding answer (a page of 10 is ~6 KB).
const maxGeocoderBody = 1 << 20

// postcode asks the upstream geocoder, whose name parameter takes a
// postal code, and keeps the places that list it.
func (t *Tools) postcode(ctx context.Context, d *geo.Data, in *GeocodeInput) (*GeocodeOutput, error) {
	cc, err := resolveCountry(d, in.Country)
	if err != nil {
		return nil, err
	}
	if !t.geocode.Allow() {
		return nil, ErrGeocoderBusy
	}
	q := url.Values{"name": {in.Postcode}, "countryCode": {cc}, "count": {strconv.Itoa(10)},
		"language": {"en"}, "format": {"json"}}
	resp, err := t.fetch.Get(ctx, t.cfg.GeocoderURL+"/v1/search?"+q.Encode(),
		fetch.Options{IgnoreRobots: true, MaxBytes: maxGeocoderBody, Header: http.Header{"Accept": {"application/json"}}})
	if err != nil {
		return nil, err
	}
	if resp.Status != http.StatusOK {
		return nil, apierr.New(apierr.ErrUpstream, "upstream_status", "the geocoder answered HTTP "+strconv.Itoa(resp.Status))
	}
	var body geocodingResponse
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		return nil, apierr.New(apierr.ErrUpstream, "upstream_bad_response", "the geocoder's answer is not the expected JSON")
	}
	want := normPostcode(in.Postcode)
	out := &GeocodeOutput{Mode: ModePostcode, Results: []Place{}}
	for _, r := range body.Results {
		if r.CountryCode != cc || !hasPostcode(r.Postcodes, want) {
			continue
		}
		p := Place{Name: r.Name, GeonamesID: r.ID, CountryCode: r.CountryCode, Country: r.Country, Region: r.Admin1,
			Lat: r.Latitude, Lon: r.Longitude, Population: r.Population, FeatureCode: r.FeatureCode,
			TimeZone: r.Timezone, Postcodes: []string{in.Postcode}, Source: "open-meteo-geocoding"}
		if c, ok := d.Country(cc); ok {
			p.Country = c.Name
		}
		out.Results = append(out.Results, p)
		if len(out.Results) == in.Limit {
			break
		}
	}
	if len(out.Results) == 0 {
		return nil, ErrPostcodeNotFound
	}
	out.Attribution = []geo.Source{d.Source("open-meteo-geocoding"), d.Source("countries")}
	return out, nil
}

// normPostcode compares postcodes without case or spaces: "SW1A 1AA" is "sw1a1aa".
func normPostcode(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), ""))
}

// hasPostcode reports whether a place lists the postcode, or its outward
// part: GeoNames lists "7511" for the Dutch "7511 AB", "SW1A" for "SW1A 1AA".
func hasPostcode(list []string, want string) bool {
	for _, p := range list {
		n := normPostcode(p)
		if n == want || (len(n) >= 3 && strings.HasPrefix(want, n)) {
			return true
		}
	}
	return false
}
