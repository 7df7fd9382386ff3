package feed

import (
	"context"
	"net/http"

	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/registry"
)

// Config configures read_feed. The zero value is the production setup.
type Config struct {
	// MaxBytes caps a feed parsed (a cut feed does not parse, so a larger
	// one is refused). Default 5 MiB.
	MaxBytes int64
}

// Tool serves read_feed through the guarded fetch client.
type Tool struct {
	fetch *fetch.Client
	cfg   Config
}

// New returns the tool fetching through fc.
func New(fc *fetch.Client, cfg Config) *Tool {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 5 << 20
	}
	return &Tool{fetch: fc, cfg: cfg}
}

// Endpoint returns the registry entry of read_feed. Check runs the
// client's URL check before payment; a handler error is never charged.
func (t *Tool) Endpoint() *registry.Endpoint {
	return registry.Spec[Input]{
		Name: "read_feed", Method: http.MethodGet, Path: "/v1/feed-reader", Group: registry.GroupTools,
		Price:   "0.0003",
		Summary: "Read an RSS 2.0, RSS 1.0, Atom or JSON Feed (or the feed a web page advertises) as normalised items.",
		Description: "Dates are ISO 8601 UTC; summaries and contents are plain text. Given an HTML page, the first " +
			"feed it links with rel=alternate is read.",
		Output: Output{},
		Tool:   &registry.Tool{OpenWorld: true},
		Check: func(_ context.Context, in *Input) error {
			_, err := t.fetch.CheckURL(in.URL)
			return err
		},
		Handle: func(ctx context.Context, in *Input) (*registry.Result, error) {
			out, err := t.ReadFeed(ctx, *in)
			if err != nil {
				return nil, err
			}
			return &registry.Result{Value: out}, nil
		},
	}.Endpoint()
}
