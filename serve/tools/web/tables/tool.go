package tables

import (
	"context"
	"net/http"

	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/registry"
)

// Tool serves extract_tables through the guarded fetch client.
type Tool struct {
	fetch *fetch.Client
}

// New returns the tool fetching through fc.
func New(fc *fetch.Client) *Tool { return &Tool{fetch: fc} }

// Endpoint returns the registry entry of extract_tables. The client's own
// URL check (its port policy included) runs before payment, so a literal
// private address is a 400 nobody pays for.
func (p *Tool) Endpoint() *registry.Endpoint {
	return registry.Spec[Input]{
		Name: "extract_tables", Method: http.MethodPost, Path: "/v1/pdf-tables", Group: registry.GroupTools,
		Price:   "0.001",
		Summary: "Extract the tables of a web page or PDF as rows and records keyed by column header.",
		Description: "HTML: every <table> with rowspan and colspan expanded into a rectangular grid, header rows " +
			"from thead or th, and the caption. PDF (up to 10 MB, 30 pages, no OCR): ruled tables from their ruling " +
			"lines and unruled tables from text aligned in columns, with the page number.",
		Output: Output{},
		Tool:   &registry.Tool{OpenWorld: true},
		Check: func(_ context.Context, in *Input) error {
			_, err := p.fetch.CheckURL(in.URL)
			return err
		},
		Handle: func(ctx context.Context, in *Input) (*registry.Result, error) {
			out, err := p.extractTables(ctx, in)
			if err != nil {
				return nil, err
			}
			return &registry.Result{Value: out}, nil
		},
	}.Endpoint()
}
