package serve_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/serve/servetest"
)

// readmeCurl matches the curl examples of README.md and captures the URL,
// quoted or not.
var readmeCurl = regexp.MustCompile(`^curl -s\w* '?(localhost:8080[^' ]*)'?`)

// TestReadmeExamples sends every curl example of README.md to the server
// over the fixture snapshot (what scripts/run.sh serves): a free example
// must answer 200 with at least one result, a paid one 402 with its
// payment requirements. A newcomer's first commands must show something.
func TestReadmeExamples(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	env := servetest.New(t, nil)
	n := 0
	for line := range strings.Lines(string(readme)) {
		m := readmeCurl.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		n++
		u, err := url.Parse("http://" + m[1])
		if err != nil {
			t.Errorf("README example %q: %v", m[1], err)
			continue
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, u.RequestURI(), nil)
		req.RemoteAddr = "192.0.2.1:1234"
		env.App.HTTP.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK:
			var body map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Errorf("README example %s: not JSON: %v", u.RequestURI(), err)
			} else if !hasResults(body) {
				t.Errorf("README example %s answers nothing on the fixture snapshot: %s", u.RequestURI(), rec.Body)
			}
		case http.StatusPaymentRequired:
			if rec.Header().Get("PAYMENT-REQUIRED") == "" {
				t.Errorf("README example %s: 402 without PAYMENT-REQUIRED", u.RequestURI())
			}
		default:
			t.Errorf("README example %s: status %d: %s", u.RequestURI(), rec.Code, rec.Body)
		}
	}
	if n < 5 {
		t.Errorf("found %d curl examples in README.md; the pattern no longer matches them", n)
	}
}

// hasResults says whether an answer holds something: a non-empty list
// (items, topics, datasets) or a positive count (stats' documents).
func hasResults(body map[string]any) bool {
	for k, v := range body {
		switch v := v.(type) {
		case []any:
			if len(v) > 0 && k != "ignored_terms" {
				return true
			}
		case float64:
			if v > 0 && k == "documents" {
				return true
			}
		}
	}
	return false
}
