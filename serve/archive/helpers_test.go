package archive

import (
	"context"

	"github.com/openshelf/openshelf/index/search"
)

// searchPage runs a search as GET /api/search would, with the filters of
// the oracle tests, and returns the hits and the total.
func (g *generation) searchPage(ctx context.Context, q string, f search.Filters, limit, offset int) ([]search.Hit, int64, error) {
	in := &SearchInput{Q: q, Limit: limit, Offset: offset, YearFrom: f.YearFrom, YearTo: f.YearTo, Fulltext: f.Fulltext}
	if f.Topic != "" {
		in.Topic = []string{f.Topic}
	}
	if f.License != "" {
		in.License = []string{f.License}
	}
	if err := in.parse(); err != nil {
		return nil, 0, err
	}
	if err := g.checkSearch(in); err != nil {
		return nil, 0, err
	}
	res, err := g.index.Search(ctx, in.request())
	return res.Hits, res.Total, err
}
