package archive

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/serve/apierr"
)

// maxQueryTerms caps the work one query can cause.
const maxQueryTerms = 16

// catalogDocs shows the catalog to search.Load, which checks that the
// index numbers the same documents in the same order.
type catalogDocs struct{ cs *catalogStore }

func (c catalogDocs) Len() int            { return c.cs.len() }
func (c catalogDocs) ID(doc int32) []byte { return c.cs.id(doc) }

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

// searchPage returns one page of hits and the total: the generation's
// index (package index/search) does the work. With no query terms it
// lists the filtered documents in catalog order.
func (g *generation) searchPage(ctx context.Context, q string, f search.Filters, limit, offset int) ([]search.Hit, int64, error) {
	if f.Topic != "" {
		if _, ok := g.byTopic[f.Topic]; !ok {
			return nil, 0, errUnknownTopic(f.Topic)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	terms := tokenize.Query(q)
	if len(terms) > maxQueryTerms {
		terms = terms[:maxQueryTerms]
	}
	req := search.Request{Limit: limit, Offset: offset}
	f.Apply(&req)
	if len(terms) == 0 && strings.TrimSpace(q) != "" {
		// Only punctuation: nothing can match every word.
		return nil, 0, nil
	}
	if len(terms) > 0 {
		and := &query.And{}
		for _, t := range terms {
			and.Children = append(and.Children, &query.Term{Word: t})
		}
		req.Query = and
	}
	res, err := g.index.Search(ctx, req)
	if err != nil {
		return nil, 0, err
	}
	return res.Hits, res.Total, nil
}
