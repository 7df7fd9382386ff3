package data_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/servetest"
)

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

func newEnv(t *testing.T, datasets string) *servetest.Env {
	return servetest.New(t, func(c *serve.Config) { c.Datasets = datasets })
}

// TestDatasets runs the cases over one server, loading the data once.
func TestDatasets(t *testing.T) {
	e := newEnv(t, filepath.Join(repoDir(t), "datasets"))
	t.Run("Catalogue", func(t *testing.T) { testCatalogue(t, e) })
	t.Run("RefusedBeforePayment", func(t *testing.T) { testRefusedBeforePayment(t, e) })
	t.Run("PaidPagesAndRecords", func(t *testing.T) { testPaidPagesAndRecords(t, e) })
}

func testCatalogue(t *testing.T, e *servetest.Env) {
	res, m := e.Call(t, http.MethodGet, "/v1/datasets", nil, "")
	if res.StatusCode != 200 {
		t.Fatalf("catalogue: %d %v", res.StatusCode, m)
	}
	ds := m["datasets"].([]any)
	want := map[string]string{"world-cities": "country_code", "countries": "continent", "archive-topics": ""}
	if len(ds) != len(want) {
		t.Fatalf("datasets: %v", ds)
	}
	for _, x := range ds {
		d := x.(map[string]any)
		facet, ok := want[d["key"].(string)]
		facets := d["facets"].([]any)
		if !ok || d["available"] != true || d["records"].(float64) < 1 || d["price"] != "0.0001" ||
			d["licence"] == "" || d["attribution"] == "" || d["description"] == "" || d["page_size"].(float64) != 100 ||
			(facet != "" && (len(facets) != 1 || facets[0] != facet)) {
			t.Errorf("entry %v", d)
		}
	}
	if e.Settlements(t) != 0 {
		t.Error("the catalogue was charged")
	}
}

// Without installed data the catalogue still answers and the datasets are
// a 503 before payment.
func TestMissingDatasets(t *testing.T) {
	e := newEnv(t, t.TempDir())
	_, m := e.Call(t, http.MethodGet, "/v1/datasets", nil, "")
	for _, x := range m["datasets"].([]any) {
		d := x.(map[string]any)
		if d["key"] != "archive-topics" && d["available"] != false {
			t.Errorf("%v available without data", d["key"])
		}
	}
	res, body := e.Call(t, http.MethodGet, "/v1/dataset/countries", nil, "")
	if res.StatusCode != 503 || servetest.ErrCode(body) != "dataset_unavailable" {
		t.Errorf("countries without data: %d %v", res.StatusCode, body)
	}
	res, body = e.Call(t, http.MethodGet, "/v1/geocode", map[string]any{"q": "Paris"}, "")
	if res.StatusCode != 503 || servetest.ErrCode(body) != "dataset_unavailable" {
		t.Errorf("geocode without data: %d %v", res.StatusCode, body)
	}
}

// Unknown keys and ids, and facets of the wrong dataset, are refused
// before payment.
func testRefusedBeforePayment(t *testing.T, e *servetest.Env) {
	for _, c := range []struct {
		path   string
		in     map[string]any
		status int
		code   string
	}{
		{"/v1/dataset/nope", nil, 404, "dataset_not_found"},
		{"/v1/dataset/world-cities", map[string]any{"id": "999999999"}, 404, "record_not_found"},
		{"/v1/dataset/world-cities", map[string]any{"id": "paris"}, 404, "record_not_found"},
		{"/v1/dataset/countries", map[string]any{"id": "XX"}, 404, "record_not_found"},
		{"/v1/dataset/countries", map[string]any{"id": "DEU"}, 404, "record_not_found"},
		{"/v1/dataset/archive-topics", map[string]any{"id": "no-such-topic"}, 404, "record_not_found"},
		{"/v1/dataset/world-cities", map[string]any{"id": strings.Repeat("1", 65)}, 400, "invalid_input"},
		{"/v1/dataset/countries", map[string]any{"country_code": "DE"}, 400, "invalid_input"},
		{"/v1/dataset/world-cities", map[string]any{"continent": "EU"}, 400, "invalid_input"},
		{"/v1/dataset/countries", map[string]any{"continent": "XX"}, 400, "invalid_input"},
		{"/v1/dataset/world-cities", map[string]any{"page": -1}, 400, "invalid_input"},
		{"/v1/dataset/world-cities", map[string]any{"id": "2988507", "page": 2}, 400, "invalid_input"},
	} {
		res, m := e.Call(t, http.MethodGet, c.path, c.in, "")
		if res.StatusCode != c.status || servetest.ErrCode(m) != c.code {
			t.Errorf("%s %v: %d %v, want %d %s", c.path, c.in, res.StatusCode, m, c.status, c.code)
		}
	}
}

func testPaidPagesAndRecords(t *testing.T, e *servetest.Env) {
	rights := func(m map[string]any) {
		t.Helper()
		if m["licence"] == "" || m["source_version"] == "" || len(m["attribution"].([]any)) == 0 {
			t.Errorf("%v: rights fields missing: %v %v", m["key"], m["licence"], m["source_version"])
		}
	}
	m := e.PaidCall(t, http.MethodGet, "/v1/dataset/world-cities", map[string]any{"country_code": "is"})
	rights(m)
	recs := m["records"].([]any)
	if m["page_size"].(float64) != 100 || m["total"].(float64) < 10 || len(recs) == 0 || m["licence"] != "CC-BY-4.0" {
		t.Fatalf("Iceland page: %v", m)
	}
	for _, r := range recs {
		if r.(map[string]any)["country_code"] != "IS" {
			t.Fatalf("facet leaked: %v", r)
		}
	}
	m = e.PaidCall(t, http.MethodGet, "/v1/dataset/world-cities", map[string]any{"page": 1})
	if len(m["records"].([]any)) != 100 || m["pages"].(float64) < 1000 {
		t.Errorf("page 1: %d records, %v pages", len(m["records"].([]any)), m["pages"])
	}
	m = e.PaidCall(t, http.MethodGet, "/v1/dataset/world-cities", map[string]any{"id": "2988507"})
	if r := m["record"].(map[string]any); r["name"] != "Paris" || r["timezone"] != "Europe/Paris" || r["region"] != "Île-de-France" {
		t.Errorf("Paris record: %v", r)
	}
	m = e.PaidCall(t, http.MethodGet, "/v1/dataset/countries", map[string]any{"continent": "OC"})
	rights(m)
	for _, r := range m["records"].([]any) {
		if r.(map[string]any)["continent"] != "OC" {
			t.Fatalf("continent facet leaked: %v", r)
		}
	}
	m = e.PaidCall(t, http.MethodGet, "/v1/dataset/countries", map[string]any{"id": "jp"})
	if r := m["record"].(map[string]any); r["name"] != "Japan" || r["alpha3"] != "JPN" || r["capital"] != "Tokyo" {
		t.Errorf("Japan: %v", r)
	}
	m = e.PaidCall(t, http.MethodGet, "/v1/dataset/archive-topics", nil)
	rights(m)
	topics := m["records"].([]any)
	if len(topics) == 0 || m["total"].(float64) != float64(len(topics)) {
		t.Fatalf("topics: %v", m)
	}
	first := topics[0].(map[string]any)
	if first["documents"] == nil || first["slug"] == "" {
		t.Errorf("topic without count: %v", first)
	}
	m = e.PaidCall(t, http.MethodGet, "/v1/dataset/archive-topics", map[string]any{"id": first["slug"]})
	if m["record"].(map[string]any)["slug"] != first["slug"] {
		t.Errorf("topic record: %v", m)
	}
	// A page past the end is an empty page, not an error.
	m = e.PaidCall(t, http.MethodGet, "/v1/dataset/countries", map[string]any{"page": 50})
	if len(m["records"].([]any)) != 0 || m["total"].(float64) < 200 {
		t.Errorf("page past the end: %v", m)
	}
}
