package archive

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/openshelf/openshelf/snapshot"
)

// Stats is the body of /api/stats.
type Stats struct {
	Documents      int64            `json:"documents"`
	WithFulltext   int64            `json:"with_fulltext"`
	WithReferences int64            `json:"with_references"`
	ByLicence      map[string]int64 `json:"by_license"`
	BySource       map[string]int64 `json:"by_source"`
	Topics         int              `json:"topics"`
	Snapshot       string           `json:"snapshot"`
	BuiltAt        time.Time        `json:"built_at"`
}

// Topic is one entry of /api/topics.
type Topic struct {
	Slug        string `json:"slug"`
	Name        string `json:"name"`
	Parent      string `json:"parent,omitempty"`
	Documents   int64  `json:"documents"`
	BundleBytes int64  `json:"bundle_bytes"`
	BundlePrice string `json:"bundle_price"`
	BundleURL   string `json:"bundle_url"`
}

func (g *generation) loadStats(ctx context.Context) error {
	st := Stats{ByLicence: map[string]int64{}, BySource: map[string]int64{},
		Snapshot: g.snap.ID, BuiltAt: g.snap.Manifest.Created.UTC()}
	err := g.db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (has_fulltext),
		count(*) FILTER (has_references) FROM documents`).Scan(&st.Documents, &st.WithFulltext, &st.WithReferences)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	for q, m := range map[string]map[string]int64{
		"SELECT license, count(*) FROM documents GROUP BY 1":                              st.ByLicence,
		"SELECT s, count(*) FROM (SELECT unnest(sources) AS s FROM documents) GROUP BY 1": st.BySource,
	} {
		rows, err := g.db.QueryContext(ctx, q)
		if err != nil {
			return fmt.Errorf("stats: %w", err)
		}
		for rows.Next() {
			var k string
			var n int64
			if err := rows.Scan(&k, &n); err != nil {
				rows.Close()
				return err
			}
			m[k] = n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	g.stats = st
	return nil
}

func (g *generation) loadTopics(ctx context.Context) error {
	rows, err := g.db.QueryContext(ctx, "SELECT slug, name, parent, documents, bundle_bytes FROM read_parquet("+
		quote(g.snap.Path(snapshot.Topics))+") WHERE documents > 0 ORDER BY slug")
	if err != nil {
		return fmt.Errorf("topics: %w", err)
	}
	defer rows.Close()
	g.byTopic = map[string]*Topic{}
	for rows.Next() {
		var t Topic
		if err := rows.Scan(&t.Slug, &t.Name, &t.Parent, &t.Documents, &t.BundleBytes); err != nil {
			return err
		}
		g.topics = append(g.topics, t)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	sort.Slice(g.topics, func(i, j int) bool { return g.topics[i].Slug < g.topics[j].Slug })
	for i := range g.topics {
		g.byTopic[g.topics[i].Slug] = &g.topics[i]
	}
	g.stats.Topics = len(g.topics)
	return nil
}
