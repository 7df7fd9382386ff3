package serve_test

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/openshelf/openshelf/serve/servetest"
)

// TestExamplesPassChecks sends every paid endpoint's example input (the one
// /openapi.json, the Bazaar extension and the MCP tool list show) without a
// payment. An example the endpoint's own input checks refuse teaches every
// client and catalogue a call that cannot work, so a 400 here is a defect
// of the example; other refusals (an upstream not configured in this test
// server) are not the example's fault.
func TestExamplesPassChecks(t *testing.T) {
	env := servetest.New(t, nil)
	param := regexp.MustCompile(`:(\w+)`)
	for _, e := range env.App.Registry.Paid() {
		in := map[string]any{}
		for k, v := range e.ExampleInput() {
			in[k] = v
		}
		path := param.ReplaceAllStringFunc(e.Path, func(m string) string {
			name := m[1:]
			v, _ := in[name].(string)
			delete(in, name)
			return v
		})
		res, body := env.Call(t, e.Method, path, in, "")
		if res.StatusCode == http.StatusBadRequest || res.StatusCode == http.StatusUnprocessableEntity {
			t.Errorf("%s %s with its example %v: %d %v", e.Method, e.Path, e.ExampleInput(), res.StatusCode, body)
		}
	}
}
