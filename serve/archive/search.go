package archive

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/serve/apierr"
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
	fulltext         bool // only documents with full text; false: no restriction
}

type hit struct {
	doc   int32
	score float64
}

// errUnknownTopic is a topic filter naming no topic: the caller's mistake
// (a 400, like any bad input), where a bundle of an unknown topic is a 404.
func errUnknownTopic(slug string) error {
	e := apierr.New(apierr.ErrInvalidInput, "unknown_topic",
		fmt.Sprintf("topic: no topic %q in this snapshot; GET /api/topics lists them", slug))
	e.Field = "topic"
	return e
}

// ignoredTerms are the words of q that the search does not use: stop words
// (unless the query has nothing else) and words past maxQueryTerms.
func ignoredTerms(q string) []string {
	used := tokenize.Query(q)
	if len(used) > maxQueryTerms {
		used = used[:maxQueryTerms]
	}
	out := []string{}
	seen := map[string]bool{}
	for _, t := range tokenize.Tokens(q) {
		if !seen[t] && !slices.Contains(used, t) {
			out = append(out, t)
		}
		seen[t] = true
	}
	return out
}

// searchPage returns one page of hits and the total. With no query terms
// it lists the filtered documents in catalog order.
func (g *generation) searchPage(ctx context.Context, q string, f filters, limit, offset int) ([]hit, int64, error) {
	if f.topic != "" {
		if _, ok := g.byTopic[f.topic]; !ok {
			return nil, 0, errUnknownTopic(f.topic)
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
