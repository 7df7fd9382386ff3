package geo

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
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

func TestExplore(t *testing.T) {
	d := testData(t)
	t.Log(len(d.Cities), len(d.Countries))
	for _, q := range []string{"Paris", "Paris, Texas", "São Paulo", "sao paulo", "Zürich", "London, Ontario", "Springfield, IL", "Kraków", "Longyearbyen", "Suva", "München", "Munich", "Reykjavík", "Ushuaia", "McMurdo", "Alert", "Tokyo", "New York", "Beijing", "Sydney", "Wellington", "Nuku'alofa", "Apia"} {
		for _, m := range d.Search(Query{Text: q, Limit: 2}) {
			t.Logf("%-16s %d %s %s %s(%s) %s pop=%d %.4f,%.4f", q, m.ID, m.Name, m.Country, m.Admin1, d.Region(m.Country, m.Admin1), m.Feature, m.Population, m.Lat, m.Lon)
		}
	}
	for _, p := range [][2]float64{{-16.5, 179.99}, {-16.5, -179.99}, {89.9, 0}, {-89.9, 0}, {78.22, 15.65}} {
		for _, m := range d.Nearest(p[0], p[1], 2) {
			t.Logf("near %v: %s %s %.1f km", p, m.Name, m.Country, m.DistanceKm)
		}
	}
}
