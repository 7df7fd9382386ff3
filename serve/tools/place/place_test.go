package place_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/servetest"
	"github.com/openshelf/openshelf/serve/tools/place"
	"github.com/openshelf/openshelf/serve/tools/place/weather"
)

// repoDir is the repository root (where go.mod is).
func repoDir(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = filepath.Dir(dir)
	}
}

// fixture reads a real upstream body from ../shared/fixtures/upstreams.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoDir(t), "..", "shared", "fixtures", "upstreams", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// upstreams fakes Open-Meteo's geocoding and forecast APIs with real
// bodies: Enschede for the postcodes it lists, the real empty answer
// otherwise. fail makes every answer a 500.
type upstreams struct {
	srv       *httptest.Server
	geocodes  atomic.Int32
	forecasts atomic.Int32
	fail      atomic.Bool
	lastQuery atomic.Value
}

func newUpstreams(t *testing.T) *upstreams {
	u := &upstreams{}
	enschede := fixture(t, "open-meteo/geocoding_search_enschede.json")
	empty := fixture(t, "open-meteo/geocoding_search_no_results.json")
	forecast := fixture(t, "open-meteo/forecast_enschede.trimmed.json")
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.lastQuery.Store(r.URL.RawQuery)
		if u.fail.Load() {
			http.Error(w, `{"error":true,"reason":"down"}`, 500)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/search":
			u.geocodes.Add(1)
			if r.URL.Query().Get("countryCode") == "NL" && strings.HasPrefix(r.URL.Query().Get("name"), "75") {
				w.Write(enschede)
				return
			}
			w.Write(empty)
		case "/v1/forecast":
			u.forecasts.Add(1)
			w.Write(forecast)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(u.srv.Close)
	return u
}

// fixtureNow is within the real Enschede forecast (2026-10-03 local).
var fixtureNow = time.Date(2026, 10, 2, 22, 20, 0, 0, time.UTC)

func newEnv(t *testing.T) (*servetest.Env, *upstreams) {
	u := newUpstreams(t)
	e := servetest.New(t, func(c *serve.Config) {
		c.Datasets = filepath.Join(repoDir(t), "datasets")
		c.Use(&place.Family{Config: place.Config{GeocoderURL: u.srv.URL,
			Weather: weather.Config{OpenMeteoURL: u.srv.URL}, Now: func() time.Time { return fixtureNow }}})
	})
	return e, u
}

// TestPlace runs the end-to-end cases over one server: loading the offline
// data once keeps the package's tests short.
func TestPlace(t *testing.T) {
	e, u := newEnv(t)
	for _, c := range []struct {
		name string
		run  func(*testing.T, *servetest.Env, *upstreams)
	}{
		{"GeocodeBadInputIsFree", testGeocodeBadInputIsFree},
		{"GeocodeNotFoundIsFree", testGeocodeNotFoundIsFree},
		{"GeocodePaidModes", testGeocodePaidModes},
		{"GeocodePostcode", testGeocodePostcode},
		{"WeatherEndToEnd", testWeatherEndToEnd},
		{"LocationReport", testLocationReport},
	} {
		u.fail.Store(false)
		t.Run(c.name, func(t *testing.T) { c.run(t, e, u) })
	}
}

// Every malformed request is refused before payment is asked.
func testGeocodeBadInputIsFree(t *testing.T, e *servetest.Env, _ *upstreams) {
	before := e.Settlements(t)
	for _, in := range []map[string]any{
		{},
		{"q": "Paris", "ip": "8.8.8.8"},
		{"q": "Paris", "lat": 1, "lon": 2},
		{"lat": 48.8},
		{"postcode": "75001"},
		{"ip": "8.8.8.8", "country": "FR"},
		{"ip": "not-an-ip"},
		{"ip": "fe80::1%eth0"},
		{"q": "Paris", "limit": 11},
		{"q": "Paris", "limit": 0},
		{"lat": 91, "lon": 0},
		{"lat": 0, "lon": -180.5},
		{"q": strings.Repeat("a", 201)},
		{"postcode": strings.Repeat("1", 17), "country": "NL"},
		{"q": "Paris", "country": "Atlantis"},
		{"q": ", ,"},
	} {
		res, m := e.Call(t, http.MethodGet, "/v1/geocode", in, "")
		if res.StatusCode != http.StatusBadRequest || servetest.ErrCode(m) != "invalid_input" {
			t.Errorf("%v: %d %v, want 400 invalid_input", in, res.StatusCode, m)
		}
	}
	if n := e.Settlements(t); n != before {
		t.Fatalf("%d settlements", n-before)
	}
}

// Offline misses are 404s nobody pays for.
func testGeocodeNotFoundIsFree(t *testing.T, e *servetest.Env, _ *upstreams) {
	for in, code := range map[string]string{"Qwxzzyplace": "place_not_found", "Paris, Nowhereland": "place_not_found"} {
		res, m := e.Call(t, http.MethodGet, "/v1/geocode", map[string]any{"q": in}, "")
		if res.StatusCode != 404 || servetest.ErrCode(m) != code {
			t.Errorf("q=%s: %d %v", in, res.StatusCode, m)
		}
	}
	res, m := e.Call(t, http.MethodGet, "/v1/geocode", map[string]any{"ip": "10.0.0.1"}, "")
	if res.StatusCode != 404 || servetest.ErrCode(m) != "ip_not_found" {
		t.Errorf("private ip: %d %v", res.StatusCode, m)
	}
}

func results(t *testing.T, m map[string]any) []map[string]any {
	t.Helper()
	rs, _ := m["results"].([]any)
	var out []map[string]any
	for _, r := range rs {
		out = append(out, r.(map[string]any))
	}
	if len(out) == 0 {
		t.Fatalf("no results: %v", m)
	}
	if a, _ := m["attribution"].([]any); len(a) == 0 {
		t.Fatalf("no attribution: %v", m)
	}
	return out
}

func testGeocodePaidModes(t *testing.T, e *servetest.Env, u *upstreams) {
	asked := u.geocodes.Load()
	r := results(t, e.PaidCall(t, http.MethodGet, "/v1/geocode", map[string]any{"q": "Paris, Texas"}))
	if r[0]["name"] != "Paris" || r[0]["region"] != "Texas" || r[0]["country_code"] != "US" || r[0]["timezone"] != "America/Chicago" {
		t.Errorf("Paris, Texas: %v", r[0])
	}
	r = results(t, e.PaidCall(t, http.MethodGet, "/v1/geocode", map[string]any{"q": "sydney", "country": "CAN", "limit": 1}))
	if len(r) != 1 || r[0]["region"] != "Nova Scotia" {
		t.Errorf("sydney in CAN: %v", r)
	}
	r = results(t, e.PaidCall(t, http.MethodGet, "/v1/geocode", map[string]any{"lat": 48.8534, "lon": 2.3488, "limit": 3}))
	if len(r) != 3 || r[0]["name"] != "Paris" || r[0]["distance_km"].(float64) > 0.1 || r[1]["distance_km"].(float64) < r[0]["distance_km"].(float64) {
		t.Errorf("reverse Paris: %v", r)
	}
	m := e.PaidCall(t, http.MethodGet, "/v1/geocode", map[string]any{"ip": "81.2.69.142"})
	r = results(t, m)
	if r[0]["name"] != "London" || r[0]["country_code"] != "GB" || r[0]["source"] != "dbip" || r[0]["network"] == "" {
		t.Errorf("ip: %v", r[0])
	}
	if a := m["attribution"].([]any)[0].(map[string]any); !strings.Contains(a["attribution"].(string), "db-ip.com") {
		t.Errorf("DB-IP attribution missing: %v", a)
	}
	if n := u.geocodes.Load() - asked; n != 0 {
		t.Errorf("offline modes asked the upstream geocoder %d times", n)
	}
}

// Postcodes go to the upstream geocoder (a local fake replaying real
// Open-Meteo bodies); a miss or an upstream failure is not charged.
func testGeocodePostcode(t *testing.T, e *servetest.Env, u *upstreams) {
	r := results(t, e.PaidCall(t, http.MethodGet, "/v1/geocode", map[string]any{"postcode": "7511", "country": "Netherlands"}))
	if len(r) != 1 || r[0]["name"] != "Enschede" || r[0]["region"] != "Overijssel" || r[0]["source"] != "open-meteo-geocoding" {
		t.Errorf("7511 NL: %v", r)
	}
	if q, _ := u.lastQuery.Load().(string); !strings.Contains(q, "countryCode=NL") || !strings.Contains(q, "name=7511") {
		t.Errorf("upstream query %q", q)
	}
	// A full Dutch postcode matches its listed four-digit area.
	results(t, e.PaidCall(t, http.MethodGet, "/v1/geocode", map[string]any{"postcode": "7511 AB", "country": "NL"}))

	before := e.Settlements(t)
	pay := e.Pay(t, http.MethodGet, "/v1/geocode", map[string]any{"postcode": "99999", "country": "NL"})
	res, m := e.Call(t, http.MethodGet, "/v1/geocode", map[string]any{"postcode": "99999", "country": "NL"}, pay)
	if res.StatusCode != 404 || servetest.ErrCode(m) != "postcode_not_found" {
		t.Errorf("unknown postcode: %d %v", res.StatusCode, m)
	}
	u.fail.Store(true)
	pay = e.Pay(t, http.MethodGet, "/v1/geocode", map[string]any{"postcode": "7511", "country": "NL"})
	res, m = e.Call(t, http.MethodGet, "/v1/geocode", map[string]any{"postcode": "7511", "country": "NL"}, pay)
	if res.StatusCode != 502 || servetest.ErrCode(m) != "upstream_status" {
		t.Errorf("upstream down: %d %v", res.StatusCode, m)
	}
	if got := e.Settlements(t); got != before {
		t.Errorf("failed calls were charged: %d -> %d", before, got)
	}
}

func testWeatherEndToEnd(t *testing.T, e *servetest.Env, u *upstreams) {
	for _, in := range []map[string]any{{"lat": 52.2}, {"lat": 91, "lon": 0}, {"lat": 52, "lon": 6, "hours": 49}, {"lat": 52, "lon": 6, "hours": 0}} {
		if res, m := e.Call(t, http.MethodGet, "/v1/weather", in, ""); res.StatusCode != 400 {
			t.Errorf("%v: %d %v", in, res.StatusCode, m)
		}
	}
	m := e.PaidCall(t, http.MethodGet, "/v1/weather", map[string]any{"lat": 52.276, "lon": 6.873, "hours": 2})
	flags, _ := m["flags"].(map[string]any)
	if m["hours"].(float64) != 2 || flags["drone_safe"].(map[string]any)["value"] != true ||
		flags["event_risk"].(map[string]any)["level"] != "low" || m["attribution"] == nil {
		t.Errorf("weather: %v", m)
	}
	// Upstream failure: 502, not charged (a different position, so no cache).
	u.fail.Store(true)
	before := e.Settlements(t)
	pay := e.Pay(t, http.MethodGet, "/v1/weather", map[string]any{"lat": 10, "lon": 10})
	res, body := e.Call(t, http.MethodGet, "/v1/weather", map[string]any{"lat": 10, "lon": 10}, pay)
	if res.StatusCode != 502 || e.Settlements(t) != before {
		t.Errorf("upstream down: %d %v, settlements %d -> %d", res.StatusCode, body, before, e.Settlements(t))
	}
}

func testLocationReport(t *testing.T, e *servetest.Env, _ *upstreams) {
	for _, in := range []map[string]any{{}, {"q": "Enschede", "lat": 1, "lon": 2}, {"lat": 1}, {"q": "x", "hours": 49}} {
		if res, m := e.Call(t, http.MethodGet, "/v1/location-report", in, ""); res.StatusCode != 400 {
			t.Errorf("%v: %d %v", in, res.StatusCode, m)
		}
	}
	if res, m := e.Call(t, http.MethodGet, "/v1/location-report", map[string]any{"q": "Qwxzzyplace"}, ""); res.StatusCode != 404 {
		t.Errorf("unknown place: %d %v", res.StatusCode, m)
	}
	m := e.PaidCall(t, http.MethodGet, "/v1/location-report", map[string]any{"q": "Enschede", "hours": 3})
	place := m["place"].(map[string]any)
	lt := m["local_time"].(map[string]any)
	sun := m["sun"].(map[string]any)
	country := m["country"].(map[string]any)
	if place["name"] != "Enschede" || lt["timezone"] != "Europe/Amsterdam" || lt["utc_offset_seconds"].(float64) != 7200 ||
		lt["time"] != "2026-10-03T00:20:00+02:00" {
		t.Errorf("place or local time: %v %v", place, lt)
	}
	// Local date 2026-10-03; sunrise near 07:45 and sunset near 19:05 CEST.
	rise, _ := time.Parse(time.RFC3339, sun["sunrise"].(string))
	set, _ := time.Parse(time.RFC3339, sun["sunset"].(string))
	if sun["date"] != "2026-10-03" || rise.Hour() != 7 || set.Hour() != 19 || sun["polar_day"] != false ||
		sun["daylight_minutes"].(float64) < 660 || sun["daylight_minutes"].(float64) > 700 {
		t.Errorf("sun: %v", sun)
	}
	if country["code"] != "NL" || country["capital"] != "Amsterdam" || m["weather"] == nil {
		t.Errorf("country or weather: %v %v", country, m["weather"])
	}
	// By position: the nearest place with its distance.
	m = e.PaidCall(t, http.MethodGet, "/v1/location-report", map[string]any{"lat": 52.22, "lon": 6.9, "hours": 1})
	if p := m["place"].(map[string]any); p["distance_km"] == nil {
		t.Errorf("reverse report place: %v", p)
	}
}
