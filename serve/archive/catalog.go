package archive

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Entry is a document in a listing: what an agent needs to decide whether
// to buy, and the price of each paid resource.
type Entry struct {
	ID            string   `json:"id"`
	Title         string   `json:"title"`
	Authors       []string `json:"authors"`
	Year          int      `json:"year,omitempty"`
	Venue         string   `json:"venue,omitempty"`
	Topics        []string `json:"topics"`
	License       string   `json:"license"`
	LicenseURL    string   `json:"license_url"`
	HasFulltext   bool     `json:"has_fulltext"`
	HasReferences bool     `json:"has_references"`
	Prices        Prices   `json:"prices"`
	Score         *float64 `json:"score,omitempty"`
}

// Prices are the USD prices of a document's paid resources; a resource the
// document lacks has no price.
type Prices struct {
	Document   string `json:"document"`
	Fulltext   string `json:"fulltext,omitempty"`
	References string `json:"references,omitempty"`
}

// Page is a page of a listing.
type Page struct {
	Total  int64   `json:"total"`
	Limit  int     `json:"limit"`
	Offset int     `json:"offset"`
	Next   *string `json:"next"`
	Items  []Entry `json:"items"`
}

const entryColumns = "doc, id, title, authors, year, venue, topics, license, license_url, has_fulltext, has_references"

// entries loads catalog entries for docs, keeping their order.
func (g *generation) entries(ctx context.Context, p *prices, docs []int32) ([]Entry, error) {
	if len(docs) == 0 {
		return []Entry{}, nil
	}
	args := make([]any, len(docs))
	marks := make([]string, len(docs))
	for i, d := range docs {
		args[i], marks[i] = d, "?"
	}
	rows, err := g.db.QueryContext(ctx, "SELECT "+entryColumns+" FROM catalog WHERE doc IN ("+strings.Join(marks, ",")+")", args...)
	if err != nil {
		return nil, err
	}
	byDoc, err := scanEntries(rows, p)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(docs))
	for _, d := range docs {
		if e, ok := byDoc[d]; ok {
			out = append(out, e)
		}
	}
	return out, nil
}

func scanEntries(rows *sql.Rows, p *prices) (map[int32]Entry, error) {
	defer rows.Close()
	out := map[int32]Entry{}
	for rows.Next() {
		var (
			doc            int32
			e              Entry
			year           sql.NullInt32
			authors, topic []any
		)
		if err := rows.Scan(&doc, &e.ID, &e.Title, &authors, &year, &e.Venue, &topic, &e.License, &e.LicenseURL,
			&e.HasFulltext, &e.HasReferences); err != nil {
			return nil, err
		}
		e.Year = int(year.Int32)
		e.Authors, e.Topics = strings_(authors), strings_(topic)
		e.Prices = p.forEntry(e)
		out[doc] = e
	}
	return out, rows.Err()
}

func strings_(v []any) []string {
	out := make([]string, 0, len(v))
	for _, x := range v {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// catalogPage lists documents in stable (id) order, optionally within one
// topic. Both paths seek by a precomputed rank, so any offset costs the
// same.
func (g *generation) catalogPage(ctx context.Context, p *prices, topic string, limit, offset int) ([]Entry, int64, error) {
	var docs []int32
	var total int64
	var rows *sql.Rows
	var err error
	if topic == "" {
		total = g.stats.Documents
		rows, err = g.db.QueryContext(ctx, "SELECT doc FROM catalog WHERE doc >= ? AND doc < ? ORDER BY doc", offset, offset+limit)
	} else {
		t, ok := g.byTopic[topic]
		if !ok {
			return nil, 0, errTopicNotFound(topic)
		}
		total = t.Documents
		rows, err = g.db.QueryContext(ctx, "SELECT doc FROM topic_docs WHERE topic = ? AND rank >= ? AND rank < ? ORDER BY rank",
			topic, offset, offset+limit)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("catalog: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var d int32
		if err := rows.Scan(&d); err != nil {
			return nil, 0, err
		}
		docs = append(docs, d)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	items, err := g.entries(ctx, p, docs)
	return items, total, err
}
