package archive

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/openshelf/openshelf/snapshot"
)

// generation is one opened snapshot: its DuckDB database and the answers
// that never change while it is served.
type generation struct {
	snap      *snapshot.Snapshot
	db        *sql.DB
	connector *duckdb.Connector
	refs      atomic.Int64
	closeOnce sync.Once

	stats   Stats
	topics  []Topic
	byTopic map[string]*Topic
	search  searchStats
}

func (g *generation) release() {
	if g.refs.Add(-1) == 0 {
		g.closeOnce.Do(func() {
			g.db.Close()
			g.connector.Close()
		})
	}
}

// quote makes a SQL string literal of a path.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func openGeneration(ctx context.Context, snap *snapshot.Snapshot) (*generation, error) {
	c, err := duckdb.NewConnector("", func(execer driver.ExecerContext) error {
		// Per connection; ctx is the opener's, so use a fresh one.
		ctx := context.Background()
		for _, q := range []string{
			"SET parquet_metadata_cache = true",
			"SET threads = 2",
			"SET preserve_insertion_order = true",
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
	if err := g.load(ctx); err != nil {
		db.Close()
		c.Close()
		return nil, err
	}
	return g, nil
}

// load creates the views over the snapshot's files and the small in-memory
// tables that make pagination and search fast.
func (g *generation) load(ctx context.Context) error {
	p := func(name string) string { return quote(g.snap.Path(name)) }
	stmts := []string{
		// Views read the immutable Parquet files on demand.
		"CREATE VIEW documents AS SELECT * FROM read_parquet(" + p(snapshot.Documents) + ")",
		"CREATE VIEW fulltext AS SELECT * FROM read_parquet(" + p(snapshot.Fulltext) + ")",
		"CREATE VIEW refs AS SELECT * FROM read_parquet(" + p(snapshot.References) + ")",
		"CREATE VIEW aliases AS SELECT * FROM read_parquet(" + p(snapshot.Aliases) + ")",
		"CREATE TABLE alias_ix AS SELECT alias, id FROM aliases ORDER BY alias",
		// The search index.
		"CREATE TABLE terms AS SELECT term_id, term, df FROM read_parquet(" + p(snapshot.SearchTerms) + ")",
		"CREATE TABLE postings AS SELECT term_id, doc, field, tf FROM read_parquet(" + p(snapshot.SearchPostings) + ") ORDER BY term_id, doc",
		"CREATE TABLE sdocs AS SELECT doc, id, len_title, len_keywords, len_authors, year, license, topics, has_fulltext FROM read_parquet(" + p(snapshot.SearchDocs) + ") ORDER BY doc",
		"CREATE TABLE sfields AS SELECT field, name, avg_len, weight FROM read_parquet(" + p(snapshot.SearchFields) + ")",
		"CREATE UNIQUE INDEX terms_term ON terms(term)",
		// The catalog: the columns of a listing, numbered like the search
		// index's documents (id order).
		`CREATE TABLE catalog AS
			SELECT s.doc, d.id, d.title, [a.name FOR a IN d.authors] AS authors, d.year, d.venue,
				d.topics, d.license, d.license_url, d.has_fulltext, d.has_references
			FROM documents d JOIN sdocs s USING (id) ORDER BY s.doc`,
		"CREATE UNIQUE INDEX catalog_doc ON catalog(doc)",
		// Rank of each document within each of its topics, for paging a topic.
		`CREATE TABLE topic_docs AS
			SELECT topic, (row_number() OVER (PARTITION BY topic ORDER BY doc) - 1)::INTEGER AS rank, doc
			FROM (SELECT unnest(topics) AS topic, doc FROM catalog) ORDER BY topic, rank`,
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
	return g.loadSearchStats(ctx)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
