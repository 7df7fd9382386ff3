package web

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

// ToolsConfig configures extract_webpage, site_metadata and read_feed. The
// zero value is the production setup.
type ToolsConfig struct {
	// ExtractMaxBytes caps the page extract_webpage reads; a larger page
	// is refused (502 upstream_too_large) rather than extracted from a
	// fragment. Default 5 MiB.
	ExtractMaxBytes int64
	// ExtractMaxElements caps the elements readability scores; a page
	// with more is refused as too complex. Default 200000.
	ExtractMaxElements int
	// MetadataMaxBytes is how much of a page site_metadata reads: it needs
	// the <head> only, so a longer page is cut, not refused. Default 512 KiB.
	MetadataMaxBytes int64
	// FeedMaxBytes caps a feed read_feed parses (a cut feed does not
	// parse, so a larger one is refused). Default 5 MiB.
	FeedMaxBytes int64
}

// Tools serves extract_webpage, site_metadata and read_feed. Every request
// goes through the guarded fetch client.
type Tools struct {
	fetch *fetch.Client
	cfg   ToolsConfig
	md    *converter.Converter // safe for concurrent use
}

// NewTools returns Tools fetching through fc.
func NewTools(fc *fetch.Client, cfg ToolsConfig) *Tools {
	if cfg.ExtractMaxBytes <= 0 {
		cfg.ExtractMaxBytes = 5 << 20
	}
	if cfg.ExtractMaxElements <= 0 {
		cfg.ExtractMaxElements = 200_000
	}
	if cfg.MetadataMaxBytes <= 0 {
		cfg.MetadataMaxBytes = 512 << 10
	}
	if cfg.FeedMaxBytes <= 0 {
		cfg.FeedMaxBytes = 5 << 20
	}
	md := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		strikethrough.NewStrikethroughPlugin(),
		table.NewTablePlugin(table.WithSpanCellBehavior(table.SpanBehaviorMirror)),
	))
	return &Tools{fetch: fc, cfg: cfg, md: md}
}

// Endpoints returns the registry entries of the three tools. Check runs
// the client's URL check (its port policy included) before payment, so a
// refused URL is a 400 nobody pays for; a handler error is never charged.
func (t *Tools) Endpoints() []*registry.Endpoint {
	check := func(raw string) error {
		_, err := t.fetch.CheckURL(raw)
		return err
	}
	return []*registry.Endpoint{
		registry.Spec[ExtractInput]{
			Name: "extract_webpage", Method: http.MethodPost, Path: "/v1/extract", Group: registry.GroupTools,
			Price:   "0.001",
			Summary: "Extract the main content of a web page as clean Markdown, with title, byline, language and word count.",
			Description: "Navigation, sidebars, ads, comments and footers are removed (Readability); links and images " +
				"are absolute. Pages in any charset are decoded. HTML only, at most 5 MB; robots.txt is honoured.",
			Output: ExtractOutput{},
			Tool:   &registry.Tool{OpenWorld: true},
			Check:  func(_ context.Context, in *ExtractInput) error { return check(in.URL) },
			Handle: func(ctx context.Context, in *ExtractInput) (*registry.Result, error) {
				out, err := t.Extract(ctx, *in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
		registry.Spec[MetadataInput]{
			Name: "site_metadata", Method: http.MethodGet, Path: "/v1/metadata", Group: registry.GroupTools,
			Price:   "0.0002",
			Summary: "Read a page's <head>: title, description, meta tags, OpenGraph, Twitter card, canonical URL, icons, feeds and JSON-LD.",
			Description: "Only the head is read (at most 512 KB of the page). URLs are absolute; JSON-LD blocks are " +
				"returned parsed, with @graph flattened.",
			Output: MetadataOutput{},
			Tool:   &registry.Tool{OpenWorld: true},
			Check:  func(_ context.Context, in *MetadataInput) error { return check(in.URL) },
			Handle: func(ctx context.Context, in *MetadataInput) (*registry.Result, error) {
				out, err := t.Metadata(ctx, *in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
		registry.Spec[FeedInput]{
			Name: "read_feed", Method: http.MethodGet, Path: "/v1/feed-reader", Group: registry.GroupTools,
			Price:   "0.0003",
			Summary: "Read an RSS 2.0, RSS 1.0, Atom or JSON Feed (or the feed a web page advertises) as normalised items.",
			Description: "Dates are ISO 8601 UTC; summaries and contents are plain text. Given an HTML page, the first " +
				"feed it links with rel=alternate is read.",
			Output: FeedOutput{},
			Tool:   &registry.Tool{OpenWorld: true},
			Check:  func(_ context.Context, in *FeedInput) error { return check(in.URL) },
			Handle: func(ctx context.Context, in *FeedInput) (*registry.Result, error) {
				out, err := t.ReadFeed(ctx, *in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
	}
}
