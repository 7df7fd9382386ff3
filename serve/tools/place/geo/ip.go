package geo

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/oschwald/maxminddb-golang/v2"
)

// IPPlace is what DB-IP City Lite knows about an address: city level,
// approximate.
type IPPlace struct {
	Country  string  `maxminddb:"country_code"`
	Region   string  `maxminddb:"state1"`
	Region2  string  `maxminddb:"state2"`
	City     string  `maxminddb:"city"`
	Postcode string  `maxminddb:"postcode"`
	Lat      float64 `maxminddb:"latitude"`
	Lon      float64 `maxminddb:"longitude"`
	TimeZone string  `maxminddb:"timezone"`
	// Prefix is the network the answer holds for.
	Prefix netip.Prefix `maxminddb:"-"`
}

// ipDB holds the IPv4 and IPv6 databases (memory-mapped).
type ipDB struct {
	v4, v6 *maxminddb.Reader
}

// ErrIPNotFound: the address is in no range of the database (private,
// reserved or unallocated space).
var ErrIPNotFound = errors.New("geo: address not in the IP database")

func openIP(dir string) (*ipDB, error) {
	db := &ipDB{}
	for _, p := range []struct {
		path string
		dst  **maxminddb.Reader
	}{{ipv4MMDB, &db.v4}, {ipv6MMDB, &db.v6}} {
		full := filepath.Join(dir, p.path)
		if _, err := os.Stat(full); err != nil {
			db.Close()
			return nil, fmt.Errorf("%w: %v", ErrData, err)
		}
		r, err := maxminddb.Open(full)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("%w: %s: %v", ErrData, p.path, err)
		}
		*p.dst = r
	}
	return db, nil
}

func (db *ipDB) lookup(addr netip.Addr) (IPPlace, error) {
	addr = addr.Unmap()
	r := db.v6
	if addr.Is4() {
		r = db.v4
	}
	res := r.Lookup(addr)
	if err := res.Err(); err != nil {
		return IPPlace{}, fmt.Errorf("geo: IP lookup: %w", err)
	}
	if !res.Found() {
		return IPPlace{}, ErrIPNotFound
	}
	var p IPPlace
	if err := res.Decode(&p); err != nil {
		return IPPlace{}, fmt.Errorf("geo: IP lookup: %w", err)
	}
	p.Prefix = res.Prefix()
	return p, nil
}

// Close unmaps the databases.
func (db *ipDB) Close() error {
	var errs []error
	for _, r := range []*maxminddb.Reader{db.v4, db.v6} {
		if r != nil {
			errs = append(errs, r.Close())
		}
	}
	return errors.Join(errs...)
}
