// Package tools defines how a family of live tools plugs into the server.
//
// Each family (web, browser, place, data, finance, crypto, ...) lives in its
// own package under serve/tools/ and is constructed by serve.NewApp from its
// own config struct. The server only needs its registry entries; everything
// else (routing, validation, payment, OpenAPI, MCP, discovery) is generated
// from those entries.
package tools

import (
	"context"

	"github.com/openshelf/openshelf/serve/registry"
)

// Family is a group of tools registered together.
type Family interface {
	// Endpoints returns the family's registry entries. It is called once,
	// before the registry is frozen.
	Endpoints() []*registry.Endpoint
}

// Starter is implemented by families with background work (a browser pool,
// a sweeper); Start is called once the server is assembled.
type Starter interface {
	Start(ctx context.Context) error
}

// Closer is implemented by families holding resources (processes, files);
// Close is called when the server shuts down.
type Closer interface {
	Close() error
}
