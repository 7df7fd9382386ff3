package geo

import (
	"errors"
	"math"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
	_ "time/tzdata"
)

// DatasetsDir is the repository's datasets directory, installed by
// scripts/setup.sh (npm install in datasets/).
func datasetsDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "datasets")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

var (
	loadOnce sync.Once
	loaded   *Data
	loadErr  error
)

// testData loads the installed datasets once per test binary.
func testData(t testing.TB) *Data {
	t.Helper()
	loadOnce.Do(func() { loaded, loadErr = Open(datasetsDir(t)) })
	if loadErr != nil {
		t.Fatalf("datasets not installed (run scripts/setup.sh): %v", loadErr)
	}
	return loaded
}

// knownCities are GeoNames places with their GeoNames ids (geonames.org,
// the source of the installed data): accents, homonyms with qualifiers,
// both sides of the antimeridian and the highest latitudes.
var knownCities = []struct {
	q       string // forward query
	country string // country filter, optional
	id      int64
	cc      string
}{
	{"Paris", "", 2988507, "FR"},
	{"Paris, Texas", "", 4717560, "US"},
	{"Paris, TX", "", 4717560, "US"},
	{"London", "", 2643743, "GB"},
	{"London, Ontario", "", 6058560, "CA"},
	{"Springfield, Illinois", "", 4250542, "US"},
	{"Springfield, IL, US", "", 4250542, "US"},
	{"Sydney", "", 2147714, "AU"},
	{"Sydney", "Canada", 6354908, "CA"},
	{"São Paulo", "", 3448439, "BR"},
	{"sao paulo", "", 3448439, "BR"},
	{"ZÜRICH", "", 2657896, "CH"},
	{"Krakow", "", 3094802, "PL"},
	{"Reykjavik", "", 3413829, "IS"},
	{"Tokyo", "JPN", 1850147, "JP"},
	{"Munich", "", 2867714, "DE"},
	{"Suva", "", 2198148, "FJ"},            // 178.44 E, next to the antimeridian
	{"Apia", "", 4035413, "WS"},            // 171.77 W, across it
	{"Longyearbyen", "", 2729907, "SJ"},    // 78.2 N
	{"McMurdo Station", "", 6696480, "AQ"}, // 77.8 S
	{"Ushuaia", "", 3833367, "AR"},
	{"Wellington", "New Zealand", 2179537, "NZ"},
	{"Wellington, Florida", "", 4177703, "US"},
}

// Forward: the expected city is the first answer. Reverse: the nearest
// city to its own position is itself.
func TestKnownCitiesForwardAndReverse(t *testing.T) {
	d := testData(t)
	for _, k := range knownCities {
		cc := ""
		if k.country != "" {
			c, ok := d.ResolveCountry(k.country)
			if !ok {
				t.Fatalf("country %q not resolved", k.country)
			}
			cc = c.Code
		}
		ms := d.Search(Query{Text: k.q, Country: cc, Limit: 3})
		if len(ms) == 0 || ms[0].ID != k.id || ms[0].Country != k.cc {
			t.Errorf("Search(%q, %q) = %v, want GeoNames %d in %s", k.q, k.country, ids(ms), k.id, k.cc)
			continue
		}
		near := d.Nearest(ms[0].Lat, ms[0].Lon, 1)
		if len(near) != 1 || near[0].ID != k.id || near[0].DistanceKm > 0.01 {
			t.Errorf("Nearest(%s %v,%v) = %v, want itself", ms[0].Name, ms[0].Lat, ms[0].Lon, ids(near))
		}
	}
}

func ids(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name+"/"+m.Country)
	}
	return out
}

// A qualifier that names no region or country of a homonym excludes it.
func TestQualifierExcludes(t *testing.T) {
	d := testData(t)
	if ms := d.Search(Query{Text: "Paris, Nowhereland", Limit: 5}); len(ms) != 0 {
		t.Fatalf("Paris, Nowhereland = %v, want none", ids(ms))
	}
	ms := d.Search(Query{Text: "Paris", Country: "US", Limit: 10})
	for _, m := range ms {
		if m.Country != "US" {
			t.Fatalf("country filter leaked %v", ids(ms))
		}
	}
	// Prefix fallback, most populous first.
	if ms := d.Search(Query{Text: "Reykjav", Limit: 1}); len(ms) != 1 || ms[0].ID != 3413829 {
		t.Fatalf("prefix Reykjav = %v", ids(ms))
	}
}

// Positions just either side of the antimeridian find the same Fijian
// town, and positions near the poles find the northernmost and southernmost
// places, which a latitude/longitude grid gets wrong.
func TestNearestAntimeridianAndPoles(t *testing.T) {
	d := testData(t)
	for _, c := range []struct {
		lat, lon float64
		name     string
	}{
		{-16.5, 179.99, "Labasa"}, {-16.5, -179.99, "Labasa"},
		{89.9, 0, "Longyearbyen"}, {89.9, 179, "Longyearbyen"},
		{-89.9, 0, "McMurdo Station"}, {-90, 0, "McMurdo Station"},
	} {
		ms := d.Nearest(c.lat, c.lon, 1)
		if len(ms) != 1 || ms[0].Name != c.name {
			t.Errorf("Nearest(%v, %v) = %v, want %s", c.lat, c.lon, ids(ms), c.name)
		}
	}
	a, b := d.Nearest(-16.5, 179.99, 1)[0], d.Nearest(-16.5, -179.99, 1)[0]
	if math.Abs(a.DistanceKm-b.DistanceKm) > 3 {
		t.Errorf("distances across the antimeridian differ: %v vs %v", a.DistanceKm, b.DistanceKm)
	}
}

// The k-d tree agrees with a linear scan on random positions.
func TestNearestMatchesLinearScan(t *testing.T) {
	d := testData(t)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100; i++ {
		lat, lon := r.Float64()*180-90, r.Float64()*360-180
		kd, lin := d.Nearest(lat, lon, 5), d.NearestLinear(lat, lon, 5)
		for j := range lin {
			if math.Abs(kd[j].DistanceKm-lin[j].DistanceKm) > 1e-3 {
				t.Fatalf("(%v,%v) #%d: kd %s %.4f km, linear %s %.4f km", lat, lon, j, kd[j].Name, kd[j].DistanceKm, lin[j].Name, lin[j].DistanceKm)
			}
		}
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"Sant Julià de Lòria": "sant julia de loria", "SÃO  PAULO": "sao paulo", "Kraków": "krakow",
		"Nuku‘alofa": "nukualofa", "Gießen": "giessen", "Łódź": "lodz", "Val-d'Or": "val dor", "  ": "",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolveCountry(t *testing.T) {
	d := testData(t)
	for in, want := range map[string]string{"DE": "DE", "deu": "DE", "Germany": "DE", "germany": "DE",
		"United Kingdom": "GB", "UK": "GB", "GBR": "GB", "United States": "US", "USA": "US", "Côte d'Ivoire": "CI",
		"Ivory Coast": "CI"} {
		c, ok := d.ResolveCountry(in)
		if !ok || c.Code != want {
			t.Errorf("ResolveCountry(%q) = %v, want %s", in, c, want)
		}
	}
	if _, ok := d.ResolveCountry("Atlantis"); ok {
		t.Error("Atlantis resolved")
	}
	de, _ := d.Country("DE")
	if de.Alpha3 != "DEU" || de.Capital != "Berlin" || de.Continent != "EU" || de.CallingCodes[0] != "+49" || de.Currencies[0].Code != "EUR" {
		t.Errorf("Germany facts: %+v", de)
	}
}

// Well-known addresses against the installed DB-IP City Lite database
// (its documented answers: Google's resolver in Mountain View, Cloudflare's
// in Sydney per DB-IP, a London BT range).
func TestLookupIP(t *testing.T) {
	d := testData(t)
	for _, c := range []struct{ ip, cc, city string }{
		{"8.8.8.8", "US", "Mountain View"},
		{"1.1.1.1", "AU", "Sydney"},
		{"81.2.69.142", "GB", "London"},
		{"::ffff:8.8.8.8", "US", "Mountain View"},
	} {
		p, err := d.LookupIP(netip.MustParseAddr(c.ip))
		if err != nil || p.Country != c.cc || p.City != c.city || !p.Prefix.IsValid() {
			t.Errorf("LookupIP(%s) = %+v, %v; want %s %s", c.ip, p, err, c.city, c.cc)
		}
	}
	// IPv6 goes to the second database; DB-IP places this range in Canada.
	p, err := d.LookupIP(netip.MustParseAddr("2001:4860:4860::8888"))
	if err != nil || p.Country != "CA" || !p.Prefix.Addr().Is6() {
		t.Errorf("IPv6 Google DNS = %+v, %v", p, err)
	}
	for _, private := range []string{"10.1.2.3", "192.168.0.1", "127.0.0.1"} {
		if _, err := d.LookupIP(netip.MustParseAddr(private)); !errors.Is(err, ErrIPNotFound) {
			t.Errorf("LookupIP(%s) err = %v, want ErrIPNotFound", private, err)
		}
	}
}

// Pairs of towns a few kilometres apart on either side of a zone border.
func TestTimeZoneBorders(t *testing.T) {
	d := testData(t)
	for _, c := range []struct {
		name     string
		lat, lon float64
		zone     string
	}{
		{"Badajoz", 38.8794, -6.9707, "Europe/Madrid"}, {"Elvas", 38.8811, -7.1628, "Europe/Lisbon"},
		{"El Paso", 31.7619, -106.485, "America/Denver"}, {"Ciudad Juárez", 31.6904, -106.4245, "America/Ciudad_Juarez"},
		{"San Diego", 32.7157, -117.1611, "America/Los_Angeles"}, {"Tijuana", 32.5149, -117.0382, "America/Tijuana"},
		{"Detroit", 42.3314, -83.0458, "America/Detroit"}, {"Windsor", 42.3149, -83.0364, "America/Toronto"},
		{"Strasbourg", 48.5734, 7.7521, "Europe/Paris"}, {"Kehl", 48.5723, 7.8155, "Europe/Berlin"},
		{"Ciudad del Este", -25.5097, -54.6111, "America/Asuncion"}, {"Foz do Iguaçu", -25.5469, -54.5882, "America/Sao_Paulo"},
		{"Suva", -18.1416, 178.4415, "Pacific/Fiji"}, {"Apia", -13.8333, -171.7667, "Pacific/Apia"},
		{"North Pole", 90, 0, "Etc/GMT"},
	} {
		if got := d.TimeZone(c.lat, c.lon); got != c.zone {
			t.Errorf("TimeZone(%s) = %q, want %q", c.name, got, c.zone)
		}
	}
	if got := d.TimeZone(91, 0); got != "" {
		t.Errorf("TimeZone(91, 0) = %q, want empty", got)
	}
}

// Every valid position on a half-degree grid, edges included, has a zone
// that Go's time package knows.
func TestTimeZoneEverywhere(t *testing.T) {
	d := testData(t)
	known := map[string]bool{}
	for lat := -90.0; lat <= 90; lat += 0.5 {
		for lon := -180.0; lon <= 180; lon += 0.5 {
			z := d.TimeZone(lat, lon)
			if z == "" {
				t.Fatalf("no zone at %v,%v", lat, lon)
			}
			if _, seen := known[z]; !seen {
				_, err := time.LoadLocation(z)
				known[z] = err == nil
				if err != nil {
					t.Errorf("zone %q at %v,%v: %v", z, lat, lon, err)
				}
			}
		}
	}
}
