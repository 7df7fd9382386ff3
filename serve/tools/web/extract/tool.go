package extract

import (
	"context"
	"net/http"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"

	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/registry"
)

// Config configures extract_webpage. The zero value is the production
// setup.
type Config struct {
	// MaxBytes caps the page read; a larger page is refused (502
	// upstream_too_large) rather than extracted from a fragment. Default
	// 5 MiB.
	MaxBytes int64
	// MaxElements caps the elements readability scores; a page with more
	// is refused as too complex. Default 200000.
	MaxElements int
}

// Tool serves extract_webpage through the guarded fetch client.
type Tool struct {
	fetch *fetch.Client
	cfg   Config
	md    *converter.Converter // safe for concurrent use
}

// New returns the tool fetching through fc.
func New(fc *fetch.Client, cfg Config) *Tool {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 5 << 20
	}
	if cfg.MaxElements <= 0 {
		cfg.MaxElements = 200_000
	}
	md := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		strikethrough.NewStrikethroughPlugin(),
		table.NewTablePlugin(table.WithSpanCellBehavior(table.SpanBehaviorMirror)),
	))
	return &Tool{fetch: fc, cfg: cfg, md: md}
}

// Endpoint returns the registry entry of extract_webpage. Check runs the
// client's URL check (its port policy included) before payment, so a
// refused URL is a 400 nobody pays for; a handler error is never charged.
func (t *Tool) Endpoint() *registry.Endpoint {
	return registry.Spec[Input]{
		Name: "extract_webpage", Method: http.MethodPost, Path: "/v1/extract", Group: registry.GroupTools,
		Price:   "0.001",
		Summary: "Extract the main content of a web page as clean Markdown, with title, byline, language and word count.",
		Description: "Navigation, sidebars, ads, comments and footers are removed (Readability); links and images " +
			"are absolute. Pages in any charset are decoded. HTML only, at most 5 MB; robots.txt is honoured.",
		Output: Output{},
		Tool:   &registry.Tool{OpenWorld: true},
		Check: func(_ context.Context, in *Input) error {
			_, err := t.fetch.CheckURL(in.URL)
			return err
		},
		Handle: func(ctx context.Context, in *Input) (*registry.Result, error) {
			out, err := t.Extract(ctx, *in)
			if err != nil {
				return nil, err
			}
			return &registry.Result{Value: out}, nil
		},
	}.Endpoint()
}
