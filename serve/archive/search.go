package archive

import (
	"context"
	"strings"

	"github.com/openshelf/openshelf/index/tokenize"
)

// BM25 parameters. Field weights and average lengths come from the
// snapshot's search/fields table.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
	// maxQueryTerms caps the work one query can cause.
	maxQueryTerms = 16
)

// filters are the search filters, all optional.
type filters struct {
	topic            string
	yearFrom, yearTo *int
	license          string
	fulltext         *bool
}

type hit struct {
	doc   int32
	score float64
}

// searchPage returns one page of hits and the total. With no query terms
// it lists the filtered documents in catalog order.
func (g *generation) searchPage(ctx context.Context, q string, f filters, limit, offset int) ([]hit, int64, error) {
	if f.topic != "" {
		if _, ok := g.byTopic[f.topic]; !ok {
			return nil, 0, errTopicNotFound(f.topic)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	terms := tokenize.Query(q)
	if len(terms) > maxQueryTerms {
		terms = terms[:maxQueryTerms]
	}
	if len(terms) == 0 {
		if strings.TrimSpace(q) != "" {
			// Only punctuation: nothing can match every word.
			return nil, 0, nil
		}
		hits, total := g.index.list(f, limit, offset)
		return hits, total, nil
	}
	hits, total := g.index.search(terms, f, limit, offset)
	return hits, total, nil
}
