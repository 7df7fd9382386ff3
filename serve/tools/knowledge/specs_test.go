package knowledge_test

import (
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/serve/servetest"
)

// The fixture corpus's pmc-7417471 states a thermal conductivity of
// 5000 W/mK (graphene) and 0.226–0.689 W/mK (a composite); pmc-5828200
// gives doses in g/kg and mg/kg/day. These are the rows checked below.

func TestQuerySpecs(t *testing.T) {
	env := newEnv(t, nil)
	// min and max in W/(cm·K): 5000 W/mK is 50 W/(cm·K).
	m := env.PaidCall(t, http.MethodPost, "/v1/specs", map[string]any{
		"quantity": "thermal conductivity", "unit": "W/(cm·K)", "min": 10, "max": 100})
	rows := items(m, "items")
	if m["total"] != float64(1) || len(rows) != 1 {
		t.Fatalf("thermal conductivity 10–100 W/(cm·K): %v", m)
	}
	r := rows[0]
	doc, _ := r["document"].(map[string]any)
	if r["quantity"] != "thermal_conductivity" || r["si_min"] != float64(5000) || r["si_unit"] != "W/(m·K)" ||
		r["unit"] != "W/mK" || doc["id"] != "pmc-7417471" || doc["license"] == "" || doc["attribution"] == "" ||
		!strings.Contains(r["text"].(string), "5000") {
		t.Errorf("row %v", r)
	}
	cs := items(m, "constraints")
	if len(cs) != 1 || cs[0]["si_min"] != float64(1000) || cs[0]["si_max"] != float64(10000) {
		t.Errorf("constraints %v, want SI 1000–10000", cs)
	}

	// The same through the free-text query; the range 0.226–0.689 does
	// not reach 1 W/mK.
	m = env.PaidCall(t, http.MethodPost, "/v1/specs", map[string]any{"query": "thermal conductivity > 1 W/mK"})
	if m["total"] != float64(1) {
		t.Errorf("thermal conductivity > 1 W/mK: total %v", m["total"])
	}
	m = env.PaidCall(t, http.MethodPost, "/v1/specs", map[string]any{"query": "thermal conductivity between 0.2 and 0.3 W/mK"})
	if rows := items(m, "items"); len(rows) != 1 || rows[0]["min"] != 0.226 || rows[0]["max"] != 0.689 || rows[0]["value"] != nil {
		t.Errorf("thermal conductivity 0.2–0.3 W/mK: %v", m)
	}

	// Generic temperature, a family filter, words, a limit.
	m = env.PaidCall(t, http.MethodPost, "/v1/specs", map[string]any{"quantity": "temperature", "min": 500, "unit": "°C", "limit": 200})
	for _, r := range items(m, "items") {
		if r["si_max"].(float64) < 773.15-1e-9 {
			t.Errorf("temperature ≥ 500 °C returned %v", r)
		}
	}
	if m["total"].(float64) < 1 {
		t.Errorf("no temperature ≥ 500 °C in the fixtures: %v", m)
	}
	m = env.PaidCall(t, http.MethodPost, "/v1/specs", map[string]any{"quantity": "dose", "family": "mice", "limit": 3})
	rows = items(m, "items")
	if len(rows) != 3 || m["total"].(float64) < 3 {
		t.Fatalf("doses in mice: %v", m)
	}
	for _, r := range rows {
		if r["family"] != "mouse" || r["quantity"] != "dose" || r["si_unit"] != "1" {
			t.Errorf("dose row %v", r)
		}
	}
	m = env.PaidCall(t, http.MethodPost, "/v1/specs", map[string]any{"query": "un-nanosized", "quantity": "diameter", "unit": "µm", "min": 1})
	rows = items(m, "items")
	if len(rows) != 1 || math.Abs(rows[0]["si_value"].(float64)-5.14e-6) > 1e-15 || rows[0]["uncertainty"] != float64(178) {
		t.Errorf("un-nanosized diameter ≥ 1 µm: %v", m)
	}
}

// Bad units and quantities are a 400 before any payment is asked.
func TestSpecsBadInputBeforePayment(t *testing.T) {
	env := newEnv(t, nil)
	for _, tc := range []struct {
		path string
		in   map[string]any
		code string
	}{
		{"/v1/specs", map[string]any{"quantity": "band_gap", "unit": "nm", "min": 1}, "incompatible_unit"},
		{"/v1/specs", map[string]any{"unit": "furlong", "min": 1}, "unknown_unit"},
		{"/v1/specs", map[string]any{"min": 1}, "invalid_input"},
		{"/v1/specs", map[string]any{"quantity": "happiness"}, "unknown_quantity"},
		{"/v1/specs", map[string]any{"query": "melting point above 200 W/mK"}, "incompatible_unit"},
		{"/v1/specs", map[string]any{"limit": 201}, "invalid_input"},
		{"/v1/search", map[string]any{"query": "melting point above 200 W/mK"}, "incompatible_unit"},
		{"/v1/search", map[string]any{"query": "band gap 1.1-1.5 nm"}, "incompatible_unit"},
		{"/v1/search", map[string]any{"query": ""}, "invalid_input"},
		{"/v1/search", map[string]any{"query": "x", "category": "fashion"}, "invalid_input"},
	} {
		res, m := env.Call(t, http.MethodPost, tc.path, tc.in, "")
		if res.StatusCode != http.StatusBadRequest || servetest.ErrCode(m) != tc.code {
			t.Errorf("%s %v: %d %v, want 400 %s", tc.path, tc.in, res.StatusCode, m, tc.code)
		}
	}
	if n := env.Settlements(t); n != 0 {
		t.Errorf("%d settlements", n)
	}
}

func TestSearchSpecs(t *testing.T) {
	env := newEnv(t, nil)
	m := env.PaidCall(t, http.MethodPost, "/v1/search", map[string]any{"query": "thermal conductivity > 1000 W/mK"})
	hits := items(m, "hits")
	if len(hits) != 1 || hits[0]["id"] != "pmc-7417471" || hits[0]["matched_by"] != "specs" {
		t.Fatalf("thermal conductivity > 1000 W/mK: %v", m)
	}
	h := hits[0]
	for _, k := range []string{"license", "license_url", "attribution", "copyright_notice", "title"} {
		if s, _ := h[k].(string); s == "" {
			t.Errorf("hit lacks %s: %v", k, h)
		}
	}
	sp := items(h, "specs")
	if len(sp) != 1 || sp[0]["si_min"] != float64(5000) {
		t.Errorf("hit specs %v, want only the 5000 W/mK statement", sp)
	}
	title := h["title"].(string)

	// A word of the title finds the document by text; tech_specs attaches
	// its statements.
	word := ""
	for _, w := range strings.Fields(title) {
		if len(w) > len(word) {
			word = strings.Trim(w, ",.:;()")
		}
	}
	m = env.PaidCall(t, http.MethodPost, "/v1/search", map[string]any{"query": word, "category": "tech_specs"})
	found := false
	for _, h := range items(m, "hits") {
		if h["id"] == "pmc-7417471" {
			found = true
			if !strings.HasPrefix(h["matched_by"].(string), "text") || len(items(h, "specs")) == 0 {
				t.Errorf("text hit %v", h)
			}
		}
		if len(items(h, "specs")) == 0 {
			t.Errorf("tech_specs hit without specifications: %v", h["id"])
		}
	}
	if !found {
		t.Errorf("search %q did not find pmc-7417471: %v", word, m)
	}

	// Text plus constraint: both must hold.
	m = env.PaidCall(t, http.MethodPost, "/v1/search", map[string]any{"query": word + " thermal conductivity < 1 W/mK"})
	hits = items(m, "hits")
	if len(hits) != 1 || hits[0]["matched_by"] != "text+specs" || items(hits[0], "specs")[0]["max"] != 0.689 {
		t.Errorf("%q with thermal conductivity < 1 W/mK: %v", word, m)
	}
	// A constraint nothing meets: an empty answer, still a valid search.
	m = env.PaidCall(t, http.MethodPost, "/v1/search", map[string]any{"query": "band gap 1.1–1.5 eV", "category": "general"})
	if len(items(m, "hits")) != 0 || len(items(m, "constraints")) != 1 {
		t.Errorf("band gap: %v", m)
	}
}

// TestQuerySpecsTableCell checks a statement read from a table cell of a
// fixture article (pmc-5828200, Table 1: Cmax of CSP at 0.2 g/kg is
// 5.96 ± 0.72 µg/ml) served with where it came from.
func TestQuerySpecsTableCell(t *testing.T) {
	env := newEnv(t, nil)
	m := env.PaidCall(t, http.MethodPost, "/v1/specs", map[string]any{
		"quantity": "mass_concentration", "unit": "µg/ml", "min": 5.9, "max": 6})
	var found map[string]any
	for _, r := range items(m, "items") {
		if r["source"] == "table" {
			found = r
		}
	}
	if found == nil {
		t.Fatalf("no table statement for 5.9–6 µg/ml: %v", m)
	}
	doc, _ := found["document"].(map[string]any)
	if doc["id"] != "pmc-5828200" || found["table"] != "Table 1" || found["row"] != "CSP" || found["column"] != "Cmax (μg/ml)" ||
		found["where"] != "table: Table 1" || found["value"] != 5.96 || found["uncertainty"] != 0.72 ||
		math.Abs(found["si_value"].(float64)-5.96e-3) > 1e-12 ||
		!strings.Contains(found["text"].(string), `row "CSP", column "Cmax (μg/ml)": 5.96±0.72`) {
		t.Errorf("table statement %v", found)
	}
	// Text statements say so.
	m = env.PaidCall(t, http.MethodPost, "/v1/specs", map[string]any{"quantity": "thermal conductivity", "unit": "W/mK", "min": 1000})
	if rows := items(m, "items"); len(rows) != 1 || rows[0]["source"] != "text" || rows[0]["table"] != nil {
		t.Errorf("text statement %v", m)
	}
}
