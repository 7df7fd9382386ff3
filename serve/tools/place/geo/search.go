package geo

import (
	"sort"
	"strings"
)

// Match is a city found by name or position.
type Match struct {
	*City
	// DistanceKm is set by Nearest.
	DistanceKm float64
}

// Query is a forward lookup by name.
type Query struct {
	// Text is the name, optionally followed by qualifiers after commas:
	// "Paris, Texas", "Springfield, IL, US", "London, Ontario".
	Text string
	// Country restricts to an alpha-2 code ("" for any).
	Country string
	Limit   int
}

// maxPrefixKeys bounds the names a prefix search looks at, so a one-letter
// query costs the same as a long one.
const maxPrefixKeys = 4000

// Search finds cities by name. Exact folded names come first, most
// populous first; when none matches, names that start with the text do.
// Every qualifier must name the city's region (name or code) or country
// (code, alpha-3 or name).
func (d *Data) Search(q Query) []Match {
	parts := strings.Split(q.Text, ",")
	name := Fold(parts[0])
	if name == "" || q.Limit <= 0 {
		return nil
	}
	var quals []string
	for _, p := range parts[1:] {
		if f := Fold(p); f != "" {
			quals = append(quals, f)
		}
	}
	keep := func(i int32) bool {
		c := &d.Cities[i]
		if q.Country != "" && c.Country != q.Country {
			return false
		}
		for _, ql := range quals {
			if !d.qualifies(c, ql) {
				return false
			}
		}
		return true
	}
	out := d.collect(d.names[name], keep, q.Limit)
	if len(out) > 0 {
		return out
	}
	return d.prefix(name, keep, q.Limit)
}

func (d *Data) collect(ids []int32, keep func(int32) bool, limit int) []Match {
	var out []Match
	for _, i := range ids {
		if keep(i) {
			out = append(out, Match{City: &d.Cities[i]})
			if len(out) == limit {
				break
			}
		}
	}
	return out
}

// prefix ranks every name starting with name by population.
func (d *Data) prefix(name string, keep func(int32) bool, limit int) []Match {
	start := sort.SearchStrings(d.keys, name)
	var cand []int32
	for i := start; i < len(d.keys) && i-start < maxPrefixKeys && strings.HasPrefix(d.keys[i], name); i++ {
		for _, id := range d.names[d.keys[i]] {
			if keep(id) {
				cand = append(cand, id)
			}
		}
	}
	sort.SliceStable(cand, func(a, b int) bool { return d.rank(cand[a]) > d.rank(cand[b]) })
	return d.collect(cand, func(int32) bool { return true }, limit)
}

// qualifies reports whether the folded qualifier names c's region or
// country.
func (d *Data) qualifies(c *City, q string) bool {
	if q == Fold(c.Admin1) {
		return true
	}
	if r := d.Region(c.Country, c.Admin1); r != "" {
		fr := Fold(r)
		// "Ontario" matches "Ontario"; "Bavaria" does not match "Bayern",
		// a limit of the region table (one name per region).
		if q == fr || strings.HasPrefix(fr, q+" ") || strings.HasSuffix(fr, " "+q) {
			return true
		}
	}
	if co, ok := d.ResolveCountry(q); ok && co.Code == c.Country {
		return true
	}
	return false
}

// Nearest returns up to limit cities closest to (lat, lon), closest first.
func (d *Data) Nearest(lat, lon float64, limit int) []Match {
	ns := d.kd.nearest(lat, lon, limit, nil)
	out := make([]Match, len(ns))
	for i, n := range ns {
		out[i] = Match{City: &d.Cities[n.id], DistanceKm: chordKm(n.d2)}
	}
	return out
}

// NearestLinear is Nearest by scanning every city: the benchmark's
// baseline and the tests' oracle.
func (d *Data) NearestLinear(lat, lon float64, limit int) []Match {
	type cand struct {
		i int
		d float64
	}
	best := make([]cand, 0, limit+1)
	for i := range d.Cities {
		c := &d.Cities[i]
		km := DistanceKm(lat, lon, c.Lat, c.Lon)
		if len(best) == limit && km >= best[len(best)-1].d {
			continue
		}
		j := sort.Search(len(best), func(k int) bool { return best[k].d > km })
		best = append(best, cand{})
		copy(best[j+1:], best[j:])
		best[j] = cand{i, km}
		if len(best) > limit {
			best = best[:limit]
		}
	}
	out := make([]Match, len(best))
	for k, b := range best {
		out[k] = Match{City: &d.Cities[b.i], DistanceKm: b.d}
	}
	return out
}
