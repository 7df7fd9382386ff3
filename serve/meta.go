package serve

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/serve/archive"
	"github.com/openshelf/openshelf/serve/mcp"
	"github.com/openshelf/openshelf/serve/registry"
)

// AIDataSchemaVersion is the version of /.well-known/ai-data.json; its
// schema is documented in docs/ai-data.md.
const AIDataSchemaVersion = "1.0"

// SnapshotInfo identifies the snapshot being served.
type SnapshotInfo = archive.SnapshotInfo

// Meta produces the service documents. Snapshot reports the current
// snapshot; it may change while the server runs.
type Meta struct {
	Service  registry.Service
	Snapshot func(context.Context) (SnapshotInfo, error)
	// Requirements returns the x402 accepts entry of a paid endpoint.
	Requirements func(e *registry.Endpoint) any
	// Datasets describes the published tables and bundles.
	Datasets func(context.Context) ([]Dataset, error)
}

// Dataset is one downloadable or queryable data product.
type Dataset struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Format      string `json:"format"`
	URL         string `json:"url,omitempty"`
	Price       string `json:"price,omitempty"`
	Bytes       int64  `json:"bytes,omitempty"`
	Records     int64  `json:"records,omitempty"`
}

// LicencePolicy is the rights statement every discovery document carries.
type LicencePolicy struct {
	Allowed     []AllowedLicence `json:"allowed"`
	Rejected    []string         `json:"rejected"`
	Obligations []string         `json:"reuser_obligations"`
	Fields      []string         `json:"rights_fields"`
}

// AllowedLicence is one accepted licence family.
type AllowedLicence struct {
	Family string `json:"family"`
	Name   string `json:"name"`
	URL    string `json:"url"`
}

// Policy is the archive's licence policy.
func Policy() LicencePolicy {
	p := LicencePolicy{
		Allowed: []AllowedLicence{
			{string(licence.CC0), "CC0 1.0 Universal (public domain dedication)", "https://creativecommons.org/publicdomain/zero/1.0/"},
			{string(licence.PDM), "Public Domain Mark 1.0", "https://creativecommons.org/publicdomain/mark/1.0/"},
			{string(licence.CCBY), "Creative Commons Attribution (any version)", "https://creativecommons.org/licenses/by/4.0/"},
			{string(licence.CCBYSA), "Creative Commons Attribution-ShareAlike (any version)", "https://creativecommons.org/licenses/by-sa/4.0/"},
		},
		Obligations: []string{
			"Keep the attribution: credit the authors, title, source and licence as given in the attribution field.",
			"Link to the licence (license_url) and keep the copyright notice.",
			"Indicate if you changed the material.",
			"CC BY-SA: share adaptations under the same licence (share_alike_notice).",
			"CC0 and Public Domain Mark: no conditions; attribution is still appreciated.",
		},
		Fields: []string{"license", "license_url", "attribution", "copyright_notice", "share_alike_notice"},
	}
	for _, r := range licence.Reasons {
		p.Rejected = append(p.Rejected, string(r))
	}
	return p
}

// endpointEntry is an endpoint in the discovery documents.
type endpointEntry struct {
	Name    string                `json:"name"`
	Method  string                `json:"method"`
	Path    string                `json:"path"`
	URL     string                `json:"url"`
	Summary string                `json:"summary"`
	Group   string                `json:"group"`
	Price   *registry.PaymentInfo `json:"price,omitempty"`
	Tool    string                `json:"mcp_tool,omitempty"`
	// Callback is the request the endpoint makes the service send later
	// (an alarm's delivery): its headers and how to verify them.
	Callback *registry.Callback `json:"callback,omitempty"`
}

// MetaEndpoints returns the registry entries of the service documents; reg
// is the registry they describe (and belong to).
func (m *Meta) Endpoints(reg *registry.Registry) []*registry.Endpoint {
	type out = registry.Result
	return []*registry.Endpoint{
		registry.Spec[registry.NoInput]{
			Name: "openapi", Method: http.MethodGet, Path: "/openapi.json", Group: registry.GroupMeta,
			Summary: "OpenAPI 3.1 description of every endpoint, generated from the route registry.",
			Handle: func(ctx context.Context, _ *registry.NoInput) (*out, error) {
				return &out{Value: reg.OpenAPI(m.Service)}, nil
			},
		}.Endpoint(),
		registry.Spec[registry.NoInput]{
			Name: "ai_data", Method: http.MethodGet, Path: "/.well-known/ai-data.json", Group: registry.GroupMeta,
			Summary: "Machine discovery document: service, licence policy, endpoints and prices, payment, MCP, datasets, snapshot.",
			Handle: func(ctx context.Context, _ *registry.NoInput) (*out, error) {
				doc, err := m.aiData(ctx, reg)
				return &out{Value: doc}, err
			},
		}.Endpoint(),
		registry.Spec[registry.NoInput]{
			Name: "x402_discovery", Method: http.MethodGet, Path: "/.well-known/x402", Group: registry.GroupMeta,
			Summary: "Every paid resource with its x402 payment requirements.",
			Handle: func(ctx context.Context, _ *registry.NoInput) (*out, error) {
				return &out{Value: m.x402(reg)}, nil
			},
		}.Endpoint(),
		registry.Spec[registry.NoInput]{
			Name: "llms_txt", Method: http.MethodGet, Path: "/llms.txt", Group: registry.GroupMeta,
			ContentType: "text/plain; charset=utf-8",
			Summary:     "A plain-text guide to the service for language models.",
			Handle: func(ctx context.Context, _ *registry.NoInput) (*out, error) {
				return textResult(m.llmsTxt(reg)), nil
			},
		}.Endpoint(),
		registry.Spec[registry.NoInput]{
			Name: "healthz", Method: http.MethodGet, Path: "/healthz", Group: registry.GroupMeta,
			Summary: "Liveness and the snapshot being served.",
			Handle: func(ctx context.Context, _ *registry.NoInput) (*out, error) {
				snap, err := m.Snapshot(ctx)
				if err != nil {
					return nil, err
				}
				return &out{Value: map[string]any{"status": "ok", "snapshot": snap.ID}}, nil
			},
		}.Endpoint(),
	}
}

func (m *Meta) endpointEntries(reg *registry.Registry) []endpointEntry {
	var out []endpointEntry
	for _, e := range reg.Endpoints() {
		en := endpointEntry{Name: e.Name, Method: e.Method, Path: e.OpenAPIPath(), URL: m.Service.BaseURL + e.OpenAPIPath(),
			Summary: e.Summary, Group: string(e.Group), Price: m.Service.Payment.Info(e), Callback: e.Callback}
		if e.Tool != nil {
			en.Tool = e.ToolName()
		}
		out = append(out, en)
	}
	return out
}

func (m *Meta) aiData(ctx context.Context, reg *registry.Registry) (map[string]any, error) {
	snap, err := m.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	var datasets []Dataset
	if m.Datasets != nil {
		if datasets, err = m.Datasets(ctx); err != nil {
			return nil, err
		}
	}
	var tools []string
	for _, e := range reg.Tools() {
		tools = append(tools, e.ToolName())
	}
	base := m.Service.BaseURL
	return map[string]any{
		"schema_version": AIDataSchemaVersion,
		"service": map[string]any{
			"name": m.Service.Name, "title": m.Service.Title, "description": m.Service.Description,
			"base_url": base, "environment": m.Service.Environment,
			"openapi": base + "/openapi.json", "llms_txt": base + "/llms.txt", "x402": base + "/.well-known/x402",
		},
		"licence_policy": Policy(),
		"payment":        m.Service.Payment,
		"mcp": map[string]any{
			"endpoint": base + "/mcp", "transport": "streamable-http", "protocol_version": "2025-06-18",
			"version": mcp.DescriptionVersion, "schema_version": mcp.SchemaVersion,
			"stateless": true, "tools": tools,
		},
		"endpoints": m.endpointEntries(reg),
		"datasets":  datasets,
		"snapshot":  snap,
	}, nil
}

func (m *Meta) x402(reg *registry.Registry) map[string]any {
	var items []any
	for _, e := range reg.Paid() {
		item := map[string]any{
			"resource":    m.Service.BaseURL + e.OpenAPIPath(),
			"type":        "http",
			"method":      e.Method,
			"x402Version": 2,
			"description": e.Summary,
			"price":       m.Service.Payment.Info(e),
			"extensions":  map[string]any{"bazaar": e.Bazaar()},
		}
		if m.Requirements != nil {
			item["accepts"] = []any{m.Requirements(e)}
		}
		if e.Tool != nil {
			item["mcp_tool"] = e.ToolName()
		}
		items = append(items, item)
	}
	p := m.Service.Payment
	return map[string]any{"x402Version": 2, "items": items, "network": p.Network, "payTo": p.PayTo,
		"facilitator": p.Facilitator, "environment": m.Service.Environment}
}

func (m *Meta) llmsTxt(reg *registry.Registry) string {
	var b strings.Builder
	base := m.Service.BaseURL
	fmt.Fprintf(&b, "# %s\n\n> %s\n\n", m.Service.Title, m.Service.Description)
	b.WriteString("Every document is published under CC0, the Public Domain Mark, CC BY or CC BY-SA; every content\n" +
		"response carries license, license_url, attribution and copyright_notice. Paid endpoints use x402 v2\n" +
		"(scheme exact, USDC on Base, eip155:8453): call once, get 402 with PAYMENT-REQUIRED, pay with the\n" +
		"PAYMENT-SIGNATURE header. A failed request is never charged.\n\n")
	fmt.Fprintf(&b, "Payments go to %s on %s; facilitator: %s; environment: %s.\n\n",
		m.Service.Payment.PayTo, m.Service.Payment.Network, m.Service.Payment.Facilitator, m.Service.Environment)
	fmt.Fprintf(&b, "- OpenAPI: %s/openapi.json\n- Discovery: %s/.well-known/ai-data.json\n- MCP (streamable HTTP): %s/mcp\n", base, base, base)
	for _, g := range []registry.Group{registry.GroupDiscovery, registry.GroupArchive, registry.GroupTools, registry.GroupAlarms} {
		first := true
		for _, e := range reg.Endpoints() {
			if e.Group != g {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n## %s\n\n", strings.ToUpper(string(g[:1]))+string(g[1:]))
				first = false
			}
			price := "free"
			if e.Paid() {
				price = e.Price + " USD"
			}
			fmt.Fprintf(&b, "- [%s %s](%s%s): %s (%s)\n", e.Method, e.OpenAPIPath(), base, e.OpenAPIPath(), e.Summary, price)
			if c := e.Callback; c != nil {
				writeCallback(&b, c)
			}
			if g == registry.GroupDiscovery && e.Description != "" {
				// How to use a free endpoint (the search query
				// language) belongs where agents read first.
				fmt.Fprintf(&b, "\n%s\n\n", e.Description)
			}
		}
	}
	return b.String()
}

// writeCallback tells, under its endpoint's line, what the service sends
// later and how a receiver verifies it.
func writeCallback(b *strings.Builder, c *registry.Callback) {
	fmt.Fprintf(b, "\n  %s\n\n  Headers:\n", c.Summary)
	for _, h := range c.Headers {
		fmt.Fprintf(b, "  - %s: %s\n", h.Name, h.Description)
	}
	fmt.Fprintf(b, "\n  Body: %s\n\n  Verifying: %s\n\n  %s\n\n", c.Body, c.Verify, c.Answer)
}

func textResult(s string) *registry.Result {
	return &registry.Result{Body: io.NopCloser(strings.NewReader(s)), ContentType: "text/plain; charset=utf-8"}
}

// PaymentStatus is the state of payments /api reports: whether paid calls
// are accepted, who verifies and settles them, on which network, to whom.
type PaymentStatus struct {
	Status      string `json:"status"` // "active"
	Facilitator string `json:"facilitator"`
	// MovesFunds is false for the embedded local facilitator, which
	// verifies signatures and records settlements but sends nothing
	// on-chain.
	MovesFunds bool   `json:"moves_funds"`
	Network    string `json:"network"`
	PayTo      string `json:"pay_to"`
}

// paymentStatus describes facilitator ("local" or a URL) for /api; a URL
// is shown without credentials, query or fragment.
func paymentStatus(p registry.Payment, facilitator string) PaymentStatus {
	st := PaymentStatus{Status: "active", Facilitator: "local", Network: p.Network, PayTo: p.PayTo}
	if facilitator != "" && facilitator != "local" {
		st.MovesFunds = true
		st.Facilitator = "remote"
		if u, err := url.Parse(facilitator); err == nil {
			st.Facilitator = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
		}
	}
	return st
}
