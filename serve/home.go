package serve

import (
	"bytes"
	"context"
	"embed"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/openshelf/openshelf/serve/archive"
	"github.com/openshelf/openshelf/serve/registry"
)

//go:embed home.html
var homeFS embed.FS

var homeTmpl = template.Must(template.New("home.html").Funcs(template.FuncMap{
	"opLink": opLink,
}).ParseFS(homeFS, "home.html"))

// opLink is the link to an endpoint's operation in /openapi.json: a JSON
// Pointer fragment (/paths/{path}/{method}), which OpenAPI viewers follow.
func opLink(e *registry.Endpoint) string {
	p := strings.NewReplacer("~", "~0", "/", "~1").Replace(e.OpenAPIPath())
	return "/openapi.json#/paths/" + url.PathEscape(p) + "/" + strings.ToLower(e.Method)
}

// homePage is what the page at / shows.
type homePage struct {
	Service  registry.Service
	Snapshot SnapshotInfo
	Topics   []archive.Topic      // with their bundle prices
	Tools    []*registry.Endpoint // paid endpoints and every MCP tool
	Policy   LicencePolicy
}

// homeEndpoint is GET /: a small server-rendered page for people, from the
// registry and the current snapshot. No script: it is read, not run. topics
// returns a copy of the snapshot's topics (the page fills in their prices).
func homeEndpoint(m *Meta, reg *registry.Registry, topics func(context.Context) ([]archive.Topic, error)) *registry.Endpoint {
	return registry.Spec[registry.NoInput]{
		Name: "home", Method: http.MethodGet, Path: "/", Group: registry.GroupMeta,
		Summary:     "A page for people: what the service is, live counts, topics, every tool with its price, how to pay and connect.",
		ContentType: "text/html; charset=utf-8",
		Handle: func(ctx context.Context, _ *registry.NoInput) (*registry.Result, error) {
			snap, err := m.Snapshot(ctx)
			if err != nil {
				return nil, err
			}
			ts, err := topics(ctx)
			if err != nil {
				return nil, err
			}
			// The price is the bundle endpoint's, as /api/topics says;
			// the store's topics do not carry it.
			if b := reg.Lookup("topic_bundle"); b != nil {
				for i := range ts {
					ts[i].BundlePrice = b.Price
				}
			}
			p := homePage{Service: m.Service, Snapshot: snap, Topics: ts, Policy: Policy()}
			for _, e := range reg.Endpoints() {
				if e.Paid() || e.Tool != nil {
					p.Tools = append(p.Tools, e)
				}
			}
			var b bytes.Buffer
			if err := homeTmpl.Execute(&b, p); err != nil {
				return nil, err
			}
			return &registry.Result{Body: io.NopCloser(&b), ContentType: "text/html; charset=utf-8"}, nil
		},
	}.Endpoint()
}
