package place

import (
	"context"
	"errors"
	"math"
	"net/netip"
	"strings"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/place/geo"
)

// GeocodeInput is the input of geocode: exactly one mode.
type GeocodeInput struct {
	IP       string   `json:"ip,omitempty" doc:"Mode ip: an IPv4 or IPv6 address to place at city level." maxLength:"45"`
	Q        string   `json:"q,omitempty" doc:"Mode name: a place name; qualifiers after commas narrow it (\"Paris, Texas\", \"London, Ontario\", \"Springfield, IL\")." maxLength:"200"`
	Postcode string   `json:"postcode,omitempty" doc:"Mode postcode: a postal code; needs country." maxLength:"16"`
	Country  string   `json:"country,omitempty" doc:"With q (optional) or postcode (required): ISO alpha-2, alpha-3 or English name." maxLength:"64"`
	Lat      *float64 `json:"lat,omitempty" doc:"Mode reverse (with lon): latitude in degrees." min:"-90" max:"90"`
	Lon      *float64 `json:"lon,omitempty" doc:"Mode reverse (with lat): longitude in degrees." min:"-180" max:"180"`
	Limit    int      `json:"limit,omitempty" doc:"Most results to return." min:"1" max:"10" default:"5"`
}

// Geocode modes.
const (
	ModeIP       = "ip"
	ModeName     = "name"
	ModePostcode = "postcode"
	ModeReverse  = "reverse"
)

// Mode returns the one mode the input selects.
func (in *GeocodeInput) Mode() string {
	switch {
	case in.IP != "":
		return ModeIP
	case in.Q != "":
		return ModeName
	case in.Postcode != "":
		return ModePostcode
	}
	return ModeReverse
}

// Validate enforces exactly one mode and the pairings.
func (in *GeocodeInput) Validate() error {
	in.IP, in.Q = strings.TrimSpace(in.IP), strings.TrimSpace(in.Q)
	in.Postcode, in.Country = strings.TrimSpace(in.Postcode), strings.TrimSpace(in.Country)
	if (in.Lat == nil) != (in.Lon == nil) {
		return apierr.Invalid("lat", "lat and lon go together")
	}
	n := 0
	for _, set := range []bool{in.IP != "", in.Q != "", in.Postcode != "", in.Lat != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return apierr.Invalid("", "give exactly one mode: ip; q (with optional country); postcode with country; or lat plus lon")
	}
	switch in.Mode() {
	case ModeIP:
		if a, err := netip.ParseAddr(in.IP); err != nil || a.Zone() != "" {
			return apierr.Invalid("ip", "is not an IPv4 or IPv6 address")
		}
	case ModeName:
		if geo.Fold(strings.SplitN(in.Q, ",", 2)[0]) == "" {
			return apierr.Invalid("q", "names no place")
		}
	case ModePostcode:
		if in.Country == "" {
			return apierr.Invalid("country", "is required with postcode")
		}
	}
	if in.Country != "" && in.Mode() != ModeName && in.Mode() != ModePostcode {
		return apierr.Invalid("country", "goes with q or postcode only")
	}
	return nil
}

// GeocodeOutput is the answer of geocode.
type GeocodeOutput struct {
	Mode    string  `json:"mode"`
	Results []Place `json:"results"`
	// Attribution names the sources of this answer; showing it is a
	// condition of their licences.
	Attribution []geo.Source `json:"attribution"`
}

// Place is one city-level result.
type Place struct {
	Name        string  `json:"name"`
	GeonamesID  int64   `json:"geonames_id,omitempty"`
	CountryCode string  `json:"country_code"`
	Country     string  `json:"country,omitempty"`
	Region      string  `json:"region,omitempty"`
	RegionCode  string  `json:"region_code,omitempty"`
	Lat         float64 `json:"lat"`
	Lon         float64 `json:"lon"`
	Population  int64   `json:"population,omitempty"`
	FeatureCode string  `json:"feature_code,omitempty"`
	TimeZone    string  `json:"timezone,omitempty"`
	// DistanceKm is the great-circle distance from the given position
	// (reverse mode).
	DistanceKm *float64 `json:"distance_km,omitempty"`
	Postcodes  []string `json:"postcodes,omitempty"`
	// Network is the IP range the answer holds for (ip mode).
	Network string `json:"network,omitempty"`
	// Source is the key of the dataset that answered.
	Source string `json:"source"`
}

// Errors of geocode.
var (
	ErrPlaceNotFound    = apierr.NotFound("place_not_found", "no place matches")
	ErrIPNotFound       = apierr.NotFound("ip_not_found", "the address is in no public range of the IP database")
	ErrPostcodeNotFound = apierr.NotFound("postcode_not_found", "no place has this postcode in this country")
)

// checkGeocode resolves the country and runs every offline mode before
// payment: a miss is a free 404.
func (t *Tools) checkGeocode(ctx context.Context, in *GeocodeInput) error {
	d, err := t.geo(ctx)
	if err != nil {
		return err
	}
	if _, err := resolveCountry(d, in.Country); err != nil {
		return err
	}
	if in.Mode() == ModePostcode {
		return nil // upstream; checked when paid
	}
	_, err = t.offline(d, in)
	return err
}

func resolveCountry(d *geo.Data, s string) (string, error) {
	if s == "" {
		return "", nil
	}
	c, ok := d.ResolveCountry(s)
	if !ok {
		return "", apierr.Invalid("country", "is not a known country code or name")
	}
	return c.Code, nil
}

// Geocode answers one geocode request.
func (t *Tools) Geocode(ctx context.Context, in *GeocodeInput) (*GeocodeOutput, error) {
	d, err := t.geo(ctx)
	if err != nil {
		return nil, err
	}
	if in.Mode() == ModePostcode {
		return t.postcode(ctx, d, in)
	}
	return t.offline(d, in)
}

// offline answers the ip, name and reverse modes.
func (t *Tools) offline(d *geo.Data, in *GeocodeInput) (*GeocodeOutput, error) {
	out := &GeocodeOutput{Mode: in.Mode(), Results: []Place{}}
	switch in.Mode() {
	case ModeIP:
		p, err := d.LookupIP(netip.MustParseAddr(in.IP))
		if errors.Is(err, geo.ErrIPNotFound) {
			return nil, ErrIPNotFound
		}
		if err != nil {
			return nil, err
		}
		out.Results = append(out.Results, ipPlace(d, p))
		out.Attribution = []geo.Source{d.Source("dbip"), d.Source("countries"), d.Source("tz")}
		return out, nil
	case ModeName:
		cc, err := resolveCountry(d, in.Country)
		if err != nil {
			return nil, err
		}
		for _, m := range d.Search(geo.Query{Text: in.Q, Country: cc, Limit: in.Limit}) {
			out.Results = append(out.Results, cityPlace(d, m, false))
		}
	case ModeReverse:
		for _, m := range d.Nearest(*in.Lat, *in.Lon, in.Limit) {
			out.Results = append(out.Results, cityPlace(d, m, true))
		}
	}
	if len(out.Results) == 0 {
		return nil, ErrPlaceNotFound
	}
	out.Attribution = []geo.Source{d.Source("geonames"), d.Source("countries"), d.Source("tz")}
	return out, nil
}

func cityPlace(d *geo.Data, m geo.Match, withDistance bool) Place {
	p := Place{Name: m.Name, GeonamesID: m.ID, CountryCode: m.Country, RegionCode: m.Admin1,
		Region: d.Region(m.Country, m.Admin1), Lat: m.Lat, Lon: m.Lon, Population: m.Population,
		FeatureCode: m.Feature, TimeZone: d.TimeZone(m.Lat, m.Lon), Source: "geonames"}
	if c, ok := d.Country(m.Country); ok {
		p.Country = c.Name
	}
	if withDistance {
		km := math.Round(m.DistanceKm*100) / 100
		p.DistanceKm = &km
	}
	return p
}

func ipPlace(d *geo.Data, ip geo.IPPlace) Place {
	p := Place{Name: ip.City, CountryCode: ip.Country, Region: ip.Region, Lat: ip.Lat, Lon: ip.Lon,
		TimeZone: ip.TimeZone, Network: ip.Prefix.String(), Source: "dbip"}
	if p.TimeZone == "" {
		p.TimeZone = d.TimeZone(ip.Lat, ip.Lon)
	}
	if c, ok := d.Country(ip.Country); ok {
		p.Country = c.Name
	}
	if ip.Postcode != "" {
		p.Postcodes = []string{ip.Postcode}
	}
	return p
}
