package web_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/tools/web"
	"github.com/openshelf/openshelf/serve/tools/web/extract"
	"github.com/openshelf/openshelf/serve/tools/web/feed"
	"github.com/openshelf/openshelf/serve/tools/web/metadata"
	"github.com/openshelf/openshelf/serve/tools/web/webtest"
)

func newTools(t testing.TB, cfg web.ToolsConfig) *web.Tools {
	t.Helper()
	fc := fetch.New(fetch.Config{AllowLoopback: true})
	t.Cleanup(fc.Close)
	return web.NewTools(fc, cfg)
}

var wantAPI = webtest.WantAPI

func TestEndpoints(t *testing.T) {
	tools := newTools(t, web.ToolsConfig{})
	want := map[string][3]string{
		"extract_webpage": {http.MethodPost, "/v1/extract", "0.001"},
		"site_metadata":   {http.MethodGet, "/v1/metadata", "0.0002"},
		"read_feed":       {http.MethodGet, "/v1/feed-reader", "0.0003"},
	}
	eps := tools.Endpoints()
	if len(eps) != len(want) {
		t.Fatalf("%d endpoints", len(eps))
	}
	for _, e := range eps {
		w, ok := want[e.Name]
		if !ok || e.Method != w[0] || e.Path != w[1] || e.Price != w[2] {
			t.Errorf("endpoint %s %s %s %s", e.Name, e.Method, e.Path, e.Price)
		}
		if e.Input == nil || e.Tool == nil {
			t.Errorf("%s: no input schema or tool", e.Name)
		}
		// The pre-payment check uses the client's policy: a private
		// literal is refused, a loopback one (test client) is not.
		in := e.NewInput()
		setURL(in, "http://10.1.2.3/")
		wantAPI(t, e.Name+" check", e.Check(context.Background(), in), http.StatusBadRequest, "invalid_input")
		setURL(in, "http://127.0.0.1:8080/")
		if err := e.Check(context.Background(), in); err != nil {
			t.Errorf("%s check refused loopback on the test client: %v", e.Name, err)
		}
	}
}

func setURL(in any, u string) {
	switch x := in.(type) {
	case *extract.Input:
		x.URL = u
	case *metadata.Input:
		x.URL = u
	case *feed.Input:
		x.URL = u
	}
}

// TestCheckRefusesURLs: each tool's Check, which runs before payment,
// refuses what its client may not fetch, with the production policy.
func TestCheckRefusesURLs(t *testing.T) {
	fc := fetch.New(fetch.Config{})
	t.Cleanup(fc.Close)
	inputs := map[string]any{
		"extract_webpage": &extract.Input{URL: "http://0x7f.1/"},
		"site_metadata":   &metadata.Input{URL: "http://[::ffff:169.254.169.254]/"},
		"read_feed":       &feed.Input{URL: "file:///etc/passwd"},
	}
	for _, e := range web.NewTools(fc, web.ToolsConfig{}).Endpoints() {
		err := e.Check(context.Background(), inputs[e.Name])
		wantAPI(t, e.Name, err, http.StatusBadRequest, "invalid_input")
		if ae := apierr.From(err); ae.Field != "url" {
			t.Errorf("%s: field %q", e.Name, ae.Field)
		}
	}
}

func TestGuardAppliesToTools(t *testing.T) {
	// A production-policy client: nothing on loopback is reachable, and
	// nothing is fetched. The handlers are called without their Check, as
	// if a caller skipped it: the client refuses the URL all the same.
	fc := fetch.New(fetch.Config{})
	tools := web.NewTools(fc, web.ToolsConfig{})
	ctx := context.Background()
	inputs := map[string]any{
		"extract_webpage": &extract.Input{URL: "http://127.0.0.1/"},
		"site_metadata":   &metadata.Input{URL: "http://169.254.169.254/latest/meta-data/"},
		"read_feed":       &feed.Input{URL: "http://localhost/feed"},
	}
	for _, e := range tools.Endpoints() {
		_, err := e.Handle(ctx, inputs[e.Name])
		wantAPI(t, e.Name, err, http.StatusBadRequest, "invalid_input")
		if !errors.Is(err, fetch.ErrInvalidURL) {
			t.Errorf("%s: %v is not ErrInvalidURL", e.Name, err)
		}
	}
}

func TestProbeEndpoints(t *testing.T) {
	fc := fetch.New(fetch.Config{})
	t.Cleanup(fc.Close)
	want := map[string][3]string{
		"extract_tables": {http.MethodPost, "/v1/pdf-tables", "0.001"},
		"ping_status":    {http.MethodPost, "/v1/ping-status", "0.0002"},
		"domain_intel":   {http.MethodPost, "/v1/domain", "0.0004"},
	}
	eps := web.NewProbe(fc, web.ProbeConfig{DNSServer: "127.0.0.1:53"}).Endpoints()
	if len(eps) != len(want) {
		t.Fatalf("%d endpoints", len(eps))
	}
	for _, e := range eps {
		w, ok := want[e.Name]
		if !ok || e.Method != w[0] || e.Path != w[1] || e.Price != w[2] {
			t.Errorf("endpoint %s %s %s %s", e.Name, e.Method, e.Path, e.Price)
		}
		if e.Input == nil || e.Tool == nil {
			t.Errorf("%s: no input schema or tool", e.Name)
		}
	}
}
