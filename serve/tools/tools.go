// Package tools defines how a family of live tools plugs into the server.
//
// Each family (web, browser, place, data, finance, knowledge, crypto, ...)
// lives in its own package under serve/tools/ and exports a Family: it owns
// its configuration, the command-line flags that set it (and their
// defaults) and its page of documentation, docs/tools-NAME.md. The server
// opens every family of one list (serve.Families) with the shared things of
// Deps and needs only the registry entries of what Open returns; everything
// else (routing, validation, payment, OpenAPI, MCP, discovery) is generated
// from those entries. The model is Caddy's modules: adding a family is its
// package plus one line in that list.
package tools

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"sync"
	"time"

	"github.com/openshelf/openshelf/serve/archive"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/registry"
)

// Family is one family of live tools, configured before the server starts.
// Its zero value, and what its flags leave after parsing, are working
// configurations; the exported fields of a family's type (its Config) are
// set directly by tests and by programs embedding the server.
type Family interface {
	// Name is the family's package name under serve/tools/ and the NAME of
	// its page docs/tools-NAME.md.
	Name() string
	// RegisterFlags registers the family's flags on fs, bound to its
	// configuration; each flag's default is the family's default.
	RegisterFlags(fs *flag.FlagSet)
	// Open builds the family's tools. The server calls it once, in the
	// order of the list, before the registry is frozen; an error stops
	// the server from starting. Open leaves the family as it was, so one
	// configuration may open more than one server (tests do).
	Open(ctx context.Context, deps Deps) ([]Tools, error)
}

// Tools is a group of tools registered together, as Open returns them.
type Tools interface {
	// Endpoints returns the group's registry entries. It is called once,
	// before the registry is frozen.
	Endpoints() []*registry.Endpoint
}

// Starter is implemented by tools with background work (a browser pool,
// a table loading); Start is called once the server is assembled.
type Starter interface {
	Start(ctx context.Context) error
}

// Closer is implemented by tools holding resources (processes, files,
// connections); Close is called when the server shuts down.
type Closer interface {
	Close() error
}

// Tools that are also a prometheus.Collector are registered on the
// server's operator metrics.

// Deps is what the server shares with every family it opens.
type Deps struct {
	// Fetch is the one guarded outbound client: every request to a
	// user-given URL, and every upstream call, goes through it.
	Fetch *fetch.Client
	// Archive is the current snapshot's search and documents.
	Archive *archive.Service
	// DataDir is the server's data directory (-data); families keep their
	// state under it (DATA/models, DATA/renders).
	DataDir string
	// Datasets is the directory of the offline place and reference data
	// (-datasets), read by more than one family.
	Datasets string
	// BaseURL is the public URL of the service, without a final slash.
	BaseURL string
	Logger  *slog.Logger
	Now     func() time.Time
	// Shared holds what families share with each other (see Share).
	Shared *Shared
}

// Shared is a set of values made once and used by several families: the
// web family's probe, which company_snapshot uses for website health, and
// the offline place data, which the place tools and the datasets read. The
// server closes them after every family.
type Shared struct {
	mu      sync.Mutex
	values  map[string]any
	closers []func() error
}

// Share returns the value s holds under key, made by open when no family
// asked for it before. Every caller of one key must make the same type; the
// first caller's value is everyone's (families are opened in list order).
// close, when open returns one, runs when the server shuts down.
func Share[T any](s *Shared, key string, open func() (T, func() error, error)) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.values[key]; ok {
		return v.(T), nil
	}
	v, closeFn, err := open()
	if err != nil {
		return v, err
	}
	if s.values == nil {
		s.values = map[string]any{}
	}
	s.values[key] = v
	if closeFn != nil {
		s.closers = append(s.closers, closeFn)
	}
	return v, nil
}

// Close closes every shared value, the last made first.
func (s *Shared) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	s.closers = nil
	return errors.Join(errs...)
}
