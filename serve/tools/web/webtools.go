package web

import (
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/web/extract"
	"github.com/openshelf/openshelf/serve/tools/web/feed"
	"github.com/openshelf/openshelf/serve/tools/web/metadata"
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

// Tools is the family of extract_webpage, site_metadata and read_feed,
// each built from its own package. Every request goes through the guarded
// fetch client.
type Tools struct {
	extract  *extract.Tool
	metadata *metadata.Tool
	feed     *feed.Tool
}

// NewTools returns Tools fetching through fc.
func NewTools(fc *fetch.Client, cfg ToolsConfig) *Tools {
	return &Tools{
		extract:  extract.New(fc, extract.Config{MaxBytes: cfg.ExtractMaxBytes, MaxElements: cfg.ExtractMaxElements}),
		metadata: metadata.New(fc, metadata.Config{MaxBytes: cfg.MetadataMaxBytes}),
		feed:     feed.New(fc, feed.Config{MaxBytes: cfg.FeedMaxBytes}),
	}
}

// Endpoints returns the registry entries of the three tools.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{t.extract.Endpoint(), t.metadata.Endpoint(), t.feed.Endpoint()}
}
