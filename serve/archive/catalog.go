package archive

import (
	"context"
	"encoding/base64"
	"sort"
	"strings"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/serve/apierr"
)

// Entry is a document in a listing: what an agent needs to decide whether
// to buy, and the price of each paid resource.
type Entry struct {
	// Fields tagged required:"false" are always present unless a select=
	// parameter leaves them out.
	ID            string   `json:"id"`
	Title         string   `json:"title" required:"false"`
	Authors       []string `json:"authors" required:"false"`
	Year          int      `json:"year,omitempty"`
	Venue         string   `json:"venue,omitempty"`
	Topics        []string `json:"topics" required:"false"`
	License       string   `json:"license"`
	LicenseURL    string   `json:"license_url"`
	HasFulltext   bool     `json:"has_fulltext" required:"false"`
	HasReferences bool     `json:"has_references" required:"false"`
	Prices        Prices   `json:"prices" required:"false"`
	// CitedByCount is how many archive documents cite this one
	// (GET /api/document/{id}/cited-by lists them).
	CitedByCount int32    `json:"cited_by_count" required:"false"`
	Score        *float64 `json:"score,omitempty"`
	// Snippet is a passage of the document's open text with the matched
	// words in <mark> (search with snippet=true); Attribution and
	// CopyrightNotice are the rights that go with it.
	Snippet         string `json:"snippet,omitempty"`
	Attribution     string `json:"attribution,omitempty"`
	CopyrightNotice string `json:"copyright_notice,omitempty"`
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
	// NextCursor is the cursor of the next page (null on the last one):
	// pass it as cursor to page without a depth limit.
	NextCursor *string `json:"next_cursor"`
	Items      []Entry `json:"items"`
}

// entries returns the catalog entries of docs, keeping their order.
func (g *generation) entries(ctx context.Context, docs []int32) ([]Entry, error) {
	out := make([]Entry, 0, len(docs))
	for _, d := range docs {
		if d < 0 || int(d) >= g.catalog.Len() {
			continue
		}
		e, _, err := g.entry(d)
		if err != nil {
			return nil, err
		}
		e.Prices = pricesFor(e)
		e.CitedByCount = g.index.CitedByCount(d)
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
// topic, from offset or, when cursor is set, from after the document the
// cursor names. Both paths seek by a precomputed rank, so any depth costs
// the same. It returns the page, the total and the offset of the page.
func (g *generation) catalogPage(ctx context.Context, topic string, limit, offset int, cursor string) ([]Entry, int64, int, error) {
	var all []int32 // the topic's documents; nil: every document
	total := g.stats.Documents
	if topic != "" {
		t, ok := g.byTopic[topic]
		if !ok {
			return nil, 0, 0, errUnknownTopic(topic)
		}
		total = t.Documents
		all = g.index.TopicDocs(topic)
	}
	if cursor != "" {
		after, err := decodeCatalogCursor(cursor, topic)
		if err != nil {
			return nil, 0, 0, err
		}
		// The first document whose id follows the cursor's: ids order
		// the catalog in every snapshot, so the cursor survives a switch.
		first := g.catalog.After(after)
		offset = int(first)
		if all != nil {
			offset = sort.Search(len(all), func(i int) bool { return all[i] >= first })
		}
	}
	var docs []int32
	if all == nil {
		for d := offset; d < offset+limit && d < g.index.Len(); d++ {
			docs = append(docs, int32(d))
		}
	} else if offset < len(all) {
		docs = all[offset:min(offset+limit, len(all))]
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, 0, err
	}
	items, err := g.entries(ctx, docs)
	return items, total, offset, err
}

// catalogCursorPrefix versions the catalog cursor's encoding.
const catalogCursorPrefix = "c1\x00"

// encodeCatalogCursor makes the opaque cursor of the page after the
// document lastID, within topic ("" for the whole catalog).
func encodeCatalogCursor(topic, lastID string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(catalogCursorPrefix + topic + "\x00" + lastID))
}

// decodeCatalogCursor returns the id a cursor resumes after; the cursor
// must have been made for the same topic.
func decodeCatalogCursor(c, topic string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	rest, ok := strings.CutPrefix(string(b), catalogCursorPrefix)
	t, id, ok2 := strings.Cut(rest, "\x00")
	if err != nil || !ok || !ok2 || id == "" {
		return "", errSearch(search.ErrCursorInvalid)
	}
	if t != topic {
		e := apierr.New(apierr.ErrInvalidInput, "invalid_cursor", "cursor: made for another topic filter; pass the same topic")
		e.Field = "cursor"
		return "", e
	}
	return id, nil
}
