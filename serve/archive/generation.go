package archive

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/openshelf/openshelf/index/catalog"
	"github.com/openshelf/openshelf/index/content"
	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/snapshot"
)

// duckMemoryLimit bounds DuckDB's memory per generation: its work is
// streaming scans and point lookups, which need little.
const duckMemoryLimit = "256MB"

// generation is one opened snapshot: its DuckDB database and the answers
// that never change while it is served.
type generation struct {
	snap      *snapshot.Snapshot
	db        *sql.DB
	connector *duckdb.Connector
	refs      atomic.Int64
	closeOnce sync.Once

	stats Stats
	// statsJSON is stats encoded: /api/stats is the most requested
	// endpoint and never changes within a generation.
	statsJSON json.RawMessage
	// topicsJSON caches the encoded /api/topics body per base URL.
	topicsJSON sync.Map
	topics     []Topic
	byTopic    map[string]*Topic
	catalog    catalogReader // every entry and alias, mapped (catalogstore.go)
	index      searcher
	// content serves the paid content (content/docs.bin); nil for a
	// snapshot written before the content store existed, whose content
	// is read from Parquet through DuckDB.
	content contentReader
	// closers are the segments' readers of a segmented snapshot
	// (segments.go), closed with the generation.
	closers []io.Closer
}

// catalogReader is a snapshot's catalog: one catalog file, or the
// catalogs of its segments (catalog.Multi).
type catalogReader interface {
	Len() int
	ID(doc int32) []byte
	Record(doc int32) (catalog.Record, error)
	Find(id string) int32
	After(id string) int32
	Lookup(name string) int32
}

// contentReader is a snapshot's content store: one file, or its
// segments' (content.Multi).
type contentReader interface {
	Len() int
	Document(doc int) (*content.Document, error)
	Sections(doc int) ([]content.Section, error)
	References(doc int) ([]content.Reference, error)
}

func (g *generation) release() {
	if g.refs.Add(-1) == 0 {
		g.closeOnce.Do(func() {
			g.db.Close()
			g.connector.Close()
			g.closeReaders()
		})
	}
}

// closeReaders closes the catalog, content store and index.
func (g *generation) closeReaders() {
	for _, c := range []any{g.catalog, g.content, g.index} {
		if c, ok := c.(io.Closer); ok && c != nil {
			c.Close()
		}
	}
	for _, c := range g.closers {
		c.Close()
	}
}

// quote makes a SQL string literal of a path.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func openGeneration(ctx context.Context, snap *snapshot.Snapshot, opts search.Options) (*generation, error) {
	c, err := duckdb.NewConnector("", func(execer driver.ExecerContext) error {
		// Per connection; ctx is the opener's, so use a fresh one.
		ctx := context.Background()
		for _, q := range []string{
			"SET parquet_metadata_cache = true",
			"SET threads = 2",
			"SET preserve_insertion_order = true",
			// DuckDB only reads Parquet on demand (paid content, and the
			// catalog once at load): its cache of file blocks would keep
			// the whole documents file in memory after the load, and the
			// default limit is 80% of the machine's memory.
			"SET enable_external_file_cache = false",
			"SET memory_limit = '" + duckMemoryLimit + "'",
			// Without background threads its allocator keeps what a query
			// freed for good.
			"SET allocator_background_threads = true",
		} {
			if _, err := execer.ExecContext(ctx, q, nil); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	g := &generation{snap: snap, db: db, connector: c}
	if err := g.load(ctx, opts); err != nil {
		g.closeReaders()
		db.Close()
		c.Close()
		return nil, err
	}
	return g, nil
}

// load creates the views over the snapshot's files and the small in-memory
// tables that make pagination and search fast.
func (g *generation) load(ctx context.Context, opts search.Options) error {
	// Views read the immutable Parquet files on demand; over segments,
	// the live rows (the analysts' query, snapshot.LiveSQL).
	p := g.snap.TableSQL
	stmts := []string{
		"CREATE VIEW documents AS SELECT * FROM " + p(snapshot.Documents),
		"CREATE VIEW fulltext AS SELECT * FROM " + p(snapshot.Fulltext),
		"CREATE VIEW refs AS SELECT * FROM " + p(snapshot.References),
		"CREATE VIEW aliases AS SELECT * FROM " + p(snapshot.Aliases),
	}
	for _, q := range stmts {
		if _, err := g.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", firstLine(q), err)
		}
	}
	if err := g.loadStats(ctx); err != nil {
		return err
	}
	if err := g.loadTopics(ctx); err != nil {
		return err
	}
	var err error
	if g.statsJSON, err = encodeJSON(g.stats); err != nil {
		return err
	}
	if g.snap.Segmented() {
		return g.openSegments(opts) // segments.go
	}
	// The catalog (with the aliases) and the search index are files
	// mapped in place: see catalogstore.go and package index/search.
	cs, err := openCatalog(ctx, g.snap)
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	g.catalog = cs
	ix, err := search.Open(g.snap, cs, opts)
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	g.index = ix
	return g.openContent()
}

// openContent opens the content store, if the snapshot has one. Its
// documents must be the catalog's: doc d is the d-th of both.
func (g *generation) openContent() error {
	cr, err := content.Open(filepath.Join(g.snap.Dir, filepath.FromSlash(content.File)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if cr.Len() != g.catalog.Len() {
		cr.Close()
		return fmt.Errorf("%w: %s has %d documents, the catalog %d", errIndex, content.File, cr.Len(), g.catalog.Len())
	}
	g.content = cr
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
