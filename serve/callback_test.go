package serve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/internal/testsnap"
)

// standardHeaders are the Standard Webhooks headers of an alarm delivery.
var standardHeaders = []string{"webhook-id", "webhook-timestamp", "webhook-signature"}

// TestAlarmDeliveryDocumented: an agent reading only the machine documents
// learns that alarm deliveries carry Standard Webhooks signatures and how
// to verify them: /openapi.json as the callback of POST /v1/alarm (its
// headers, and the verification in its description), /api in the endpoint's
// entry, /llms.txt under the endpoint's line.
func TestAlarmDeliveryDocumented(t *testing.T) {
	a := newTestApp(t, testsnap.Fixtures(t), nil)
	verified := func(where, text string) {
		t.Helper()
		for _, w := range []string{"Standard Webhooks", "whsec_", "<webhook-id>.<webhook-timestamp>.<raw body>", "constant time", "5 minutes"} {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the verification does not say %q: %s", where, w, text)
			}
		}
	}

	_, doc := getJSON(t, a.HTTP, "/openapi.json")
	post, _ := dig(doc, "paths", "/v1/alarm", "post", "callbacks", "delivery", "{$request.body#/callback_url}", "post").(map[string]any)
	if post == nil {
		t.Fatalf("/openapi.json: POST /v1/alarm has no delivery callback")
	}
	params := map[string]bool{}
	for _, p := range post["parameters"].([]any) {
		p := p.(map[string]any)
		params[p["name"].(string)] = p["in"] == "header" && p["required"] == true
	}
	for _, h := range standardHeaders {
		if !params[h] {
			t.Errorf("/openapi.json: the delivery callback lacks the required header %s: %v", h, params)
		}
	}
	desc, _ := post["description"].(string)
	verified("/openapi.json", desc)

	_, api := getJSON(t, a.HTTP, "/api")
	var cb map[string]any
	for _, e := range api["endpoints"].([]any) {
		if e := e.(map[string]any); e["name"] == "alarm_create" {
			cb, _ = e["callback"].(map[string]any)
		}
	}
	if cb == nil {
		t.Fatalf("/api: alarm_create has no callback")
	}
	var names []string
	for _, h := range cb["headers"].([]any) {
		names = append(names, h.(map[string]any)["name"].(string))
	}
	for _, h := range standardHeaders {
		if !strings.Contains(strings.Join(names, " "), h) {
			t.Errorf("/api: the callback lacks header %s: %v", h, names)
		}
	}
	verify, _ := cb["verify"].(string)
	verified("/api", verify)

	rec := httptest.NewRecorder()
	a.HTTP.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/llms.txt", nil))
	llms := rec.Body.String()
	i := strings.Index(llms, "[POST /v1/alarm]")
	if i < 0 {
		t.Fatalf("/llms.txt does not list POST /v1/alarm")
	}
	section := llms[i:]
	if j := strings.Index(section, "\n- ["); j > 0 {
		section = section[:j]
	}
	for _, h := range standardHeaders {
		if !strings.Contains(section, "- "+h+": ") {
			t.Errorf("/llms.txt: the alarm entry does not describe header %s", h)
		}
	}
	verified("/llms.txt", section)
}

// dig follows keys through nested JSON objects; nil when one is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
