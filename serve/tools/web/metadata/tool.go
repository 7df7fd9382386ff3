package metadata

import (
	"context"
	"net/http"

	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/registry"
)

// Config configures site_metadata. The zero value is the production setup.
type Config struct {
	// MaxBytes is how much of a page is read: the tool needs the <head>
	// only, so a longer page is cut, not refused. Default 512 KiB.
	MaxBytes int64
}

// Tool serves site_metadata through the guarded fetch client.
type Tool struct {
	fetch *fetch.Client
	cfg   Config
}

// New returns the tool fetching through fc.
func New(fc *fetch.Client, cfg Config) *Tool {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 512 << 10
	}
	return &Tool{fetch: fc, cfg: cfg}
}

// Endpoint returns the registry entry of site_metadata. Check runs the
// client's URL check before payment; a handler error is never charged.
func (t *Tool) Endpoint() *registry.Endpoint {
	return registry.Spec[Input]{
		Name: "site_metadata", Method: http.MethodGet, Path: "/v1/metadata", Group: registry.GroupTools,
		Price:   "0.0002",
		Summary: "Read a page's <head>: title, description, meta tags, OpenGraph, Twitter card, canonical URL, icons, feeds and JSON-LD.",
		Description: "Only the head is read (at most 512 KB of the page). URLs are absolute; JSON-LD blocks are " +
			"returned parsed, with @graph flattened.",
		Output: Output{},
		Tool:   &registry.Tool{OpenWorld: true},
		Check: func(_ context.Context, in *Input) error {
			_, err := t.fetch.CheckURL(in.URL)
			return err
		},
		Handle: func(ctx context.Context, in *Input) (*registry.Result, error) {
			out, err := t.Metadata(ctx, *in)
			if err != nil {
				return nil, err
			}
			return &registry.Result{Value: out}, nil
		},
	}.Endpoint()
}
