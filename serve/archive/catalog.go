package archive

import (
	"context"
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

// entries returns the catalog entries of docs, keeping their order.
func (g *generation) entries(ctx context.Context, docs []int32) ([]Entry, error) {
	out := make([]Entry, 0, len(docs))
	for _, d := range docs {
		if d < 0 || int(d) >= g.catalog.len() {
			continue
		}
		e, _, err := g.catalog.entry(d)
		if err != nil {
			return nil, err
		}
		e.Prices = pricesFor(e)
		out = append(out, e)
	}
	return out, ctx.Err()
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
func (g *generation) catalogPage(ctx context.Context, topic string, limit, offset int) ([]Entry, int64, error) {
	var docs []int32
	var total int64
	if topic == "" {
		total = g.stats.Documents
		for d := offset; d < offset+limit && d < g.index.Len(); d++ {
			docs = append(docs, int32(d))
		}
	} else {
		t, ok := g.byTopic[topic]
		if !ok {
			return nil, 0, errUnknownTopic(topic)
		}
		total = t.Documents
		all := g.index.TopicDocs(topic)
		if offset < len(all) {
			docs = all[offset:min(offset+limit, len(all))]
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	items, err := g.entries(ctx, docs)
	return items, total, err
}
