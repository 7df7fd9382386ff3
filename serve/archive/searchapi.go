package archive

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
)

// maxSearchOffset is the deepest offset /api/search takes; a cursor goes
// further.
const maxSearchOffset = 10000

// SearchInput is a search request: GET /api/search's query parameters.
type SearchInput struct {
	Q        string   `json:"q,omitempty" maxLength:"200" doc:"The query, in the query language of docs/search.md: words (all must match), \"exact phrases\", OR, -word or NOT word, parentheses, fields (title:, abstract:, author:, keyword:, doi:, fulltext:), prefixes (cardio*). Case- and accent-insensitive. Empty: filters only, in catalog order."`
	Stem     bool     `json:"stem,omitempty" default:"false" doc:"true: words match their English stem (Snowball), so cells matches cell; false (the default): exact words."`
	In       string   `json:"in,omitempty" enum:"metadata|fulltext" default:"metadata" doc:"Where words without a field are looked for: metadata (the default: title, abstract, keywords, author names) or fulltext (those and the full text of documents having one)."`
	Snippet  bool     `json:"snippet,omitempty" default:"false" doc:"true: each hit carries a passage of its open text (abstract, or the matching full-text paragraph with in=fulltext) of at most about 200 characters, HTML-escaped, with matched words in <mark>…</mark>, plus the attribution and copyright notice of that text."`
	Sort     string   `json:"sort,omitempty" enum:"relevance|year|-year|cited_by" default:"relevance" doc:"Order: relevance (BM25F; catalog order without q), year (oldest first), -year (newest first), cited_by (most cited by archive documents first); undated documents come last, ties in catalog order."`
	Facets   []string `json:"facets,omitempty" enum:"license|topic|year|source|fulltext" doc:"Comma-separated facets to count over the whole result set (exact counts), returned in facets."`
	Topic    []string `json:"topic,omitempty" pattern:"^[a-z0-9-]{1,64}$" maxItems:"20" doc:"Only documents of one of these topics (comma-separated slugs)."`
	License  []string `json:"license,omitempty" enum:"CC0|PDM|CC-BY|CC-BY-SA" doc:"Only documents under one of these licence families (comma-separated)."`
	Source   []string `json:"source,omitempty" enum:"jats|pubmed|openalex|crossref" doc:"Only documents from one of these sources (comma-separated): jats (publisher full text, PMC), pubmed, openalex, crossref."`
	YearFrom *int     `json:"year_from,omitempty" min:"0" max:"9999" doc:"Earliest publication year; undated documents never match a year filter."`
	YearTo   *int     `json:"year_to,omitempty" min:"0" max:"9999" doc:"Latest publication year; undated documents never match a year filter."`
	Fulltext bool     `json:"fulltext,omitempty" doc:"true: only documents with full text; false (the default): no restriction."`
	Select   []string `json:"select,omitempty" enum:"id|title|authors|year|venue|topics|license|license_url|has_fulltext|has_references|prices|score|cited_by_count|snippet|attribution|copyright_notice" doc:"Comma-separated hit fields to return; id and the rights fields (license, license_url, attribution, copyright_notice) are always kept. Default: every field."`
	Limit    int      `json:"limit,omitempty" min:"1" max:"50" default:"10" doc:"Hits per page."`
	Offset   int      `json:"offset,omitempty" min:"0" max:"10000" default:"0" doc:"Hits to skip; for deeper pages use cursor."`
	Cursor   string   `json:"cursor,omitempty" maxLength:"1024" doc:"next_cursor of the previous page, to page without a depth limit (not with offset). Pass the same other parameters. A cursor from an earlier snapshot answers 410 cursor_expired: start again."`

	node   query.Node // q parsed
	parsed bool
}

// Validate checks what spans fields, and parses q, so that a bad query is
// a 400 before anything else.
func (in *SearchInput) Validate() error {
	if in.YearFrom != nil && in.YearTo != nil && *in.YearFrom > *in.YearTo {
		return apierr.Invalid("year_from", "must not be after year_to")
	}
	if in.Cursor != "" && in.Offset != 0 {
		return apierr.Invalid("cursor", "cannot be combined with offset: a cursor already says where the page starts")
	}
	return in.parse()
}

// parse parses q once.
func (in *SearchInput) parse() error {
	if in.parsed {
		return nil
	}
	n, err := query.Parse(in.Q) // a blank q is nil: a listing
	if err != nil {
		return queryError(err)
	}
	in.node, in.parsed = n, true
	return nil
}

// queryError turns a parser error into a 400 invalid_query whose position
// points at the offending byte of q.
func queryError(err error) error {
	var se *query.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	e := apierr.New(apierr.ErrInvalidInput, "invalid_query", "q: "+se.Error())
	e.Field = "q"
	pos := se.Pos
	e.Position = &pos
	return e
}

// sortOrder maps the sort parameter to the index's order.
var sortOrder = map[string]search.Sort{
	"": search.ByRelevance, "relevance": search.ByRelevance, "year": search.ByYear,
	"-year": search.ByYearDesc, "cited_by": search.ByCitedBy,
}

// request builds the index request.
func (in *SearchInput) request() search.Request {
	req := search.Request{Query: in.node, Stem: in.Stem, Fulltext: in.In == "fulltext",
		YearFrom: in.YearFrom, YearTo: in.YearTo, Sort: sortOrder[in.Sort], Facets: in.Facets,
		Limit: in.Limit, Offset: in.Offset, Cursor: in.Cursor}
	where := map[string][]string{}
	add := func(facet string, vals []string) {
		if len(vals) > 0 {
			where[facet] = dedup(vals)
		}
	}
	add(search.FacetTopic, in.Topic)
	add(search.FacetLicense, in.License)
	add(search.FacetSource, in.Source)
	if in.Fulltext {
		where[search.FacetFulltext] = []string{"true"}
	}
	if len(where) > 0 {
		req.Where = where
	}
	return req
}

func dedup(vals []string) []string {
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// FacetCount is how many hits of the whole result set have one value.
type FacetCount struct {
	Value string `json:"value"`
	Count int64  `json:"count"`
}

// SearchResult is the body of /api/search.
type SearchResult struct {
	Query string `json:"query"`
	// IgnoredTerms are words of the query the search did not use (stop
	// words outside phrases), so a caller knows what it got.
	IgnoredTerms []string `json:"ignored_terms"`
	// Facets holds, for each requested facet, the counts of its values
	// over the whole result set, by count descending.
	Facets map[string][]FacetCount `json:"facets,omitempty"`
	Page
}

// errSearch maps the index's refusals to API errors.
func errSearch(err error) error {
	switch {
	case errors.Is(err, search.ErrQuery):
		e := apierr.New(apierr.ErrInvalidInput, "invalid_query", "q: "+strings.TrimPrefix(err.Error(), "search: "))
		e.Field = "q"
		return e
	case errors.Is(err, search.ErrUnknownFacet):
		return apierr.Invalid("facets", strings.TrimPrefix(err.Error(), "search: "))
	case errors.Is(err, search.ErrCursorExpired):
		return &apierr.Error{Status: http.StatusGone, Code: "cursor_expired", Field: "cursor",
			Message: "cursor: it belongs to a snapshot no longer served; start again without a cursor"}
	case errors.Is(err, search.ErrCursorInvalid):
		e := apierr.New(apierr.ErrInvalidInput, "invalid_cursor", "cursor: not a cursor of this endpoint and these parameters")
		e.Field = "cursor"
		return e
	}
	return err
}

// checkSearch refuses, before anything runs, what the generation cannot
// answer: an unknown topic.
func (g *generation) checkSearch(in *SearchInput) error {
	for _, t := range in.Topic {
		if _, ok := g.byTopic[t]; !ok {
			return errUnknownTopic(t)
		}
	}
	return nil
}

func (s *Service) search(ctx context.Context, g *generation, in *SearchInput) (*registry.Result, error) {
	if err := in.parse(); err != nil {
		return nil, err
	}
	if err := g.checkSearch(in); err != nil {
		return nil, err
	}
	req := in.request()
	res, err := g.index.Search(ctx, req)
	if err != nil {
		return nil, errSearch(err)
	}
	docs := make([]int32, len(res.Hits))
	for i, h := range res.Hits {
		docs[i] = h.Doc
	}
	items, err := g.entries(ctx, docs)
	if err != nil {
		return nil, err
	}
	if in.node != nil && req.Sort == search.ByRelevance {
		for i := range items {
			sc := round(res.Hits[i].Score)
			items[i].Score = &sc
		}
	}
	if in.Snippet {
		if err := g.addSnippets(ctx, items, docs, in.node, req.Stem, req.Fulltext); err != nil {
			return nil, err
		}
	}
	out := SearchResult{Query: in.Q, IgnoredTerms: ignoredTerms(in.Q, in.node)}
	if len(res.Facets) > 0 {
		out.Facets = make(map[string][]FacetCount, len(res.Facets))
		for f, counts := range res.Facets {
			fc := make([]FacetCount, len(counts))
			for i, c := range counts {
				fc[i] = FacetCount{Value: c.Value, Count: c.Count}
			}
			out.Facets[f] = fc
		}
	}
	out.Page = Page{Total: res.Total, Limit: in.Limit, Offset: in.Offset, Items: items}
	s.searchNext(&out.Page, in, res.Next)
	if len(in.Select) > 0 {
		v, err := project(out, in.Select)
		return &registry.Result{Value: v}, err
	}
	return &registry.Result{Value: out}, nil
}

// searchNext sets the page's links to the next one: next_cursor whenever
// the index gave one, and next as a URL with an offset while offsets
// reach, with the cursor beyond.
func (s *Service) searchNext(pg *Page, in *SearchInput, cursor string) {
	if cursor == "" {
		return
	}
	pg.NextCursor = &cursor
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("q", in.Q)
	set("topic", strings.Join(in.Topic, ","))
	set("license", strings.Join(in.License, ","))
	set("source", strings.Join(in.Source, ","))
	set("facets", strings.Join(in.Facets, ","))
	set("select", strings.Join(in.Select, ","))
	if in.YearFrom != nil {
		set("year_from", strconv.Itoa(*in.YearFrom))
	}
	if in.YearTo != nil {
		set("year_to", strconv.Itoa(*in.YearTo))
	}
	if in.Fulltext {
		set("fulltext", "true")
	}
	if in.Stem {
		set("stem", "true")
	}
	if in.In != "" && in.In != "metadata" {
		set("in", in.In)
	}
	if in.Snippet {
		set("snippet", "true")
	}
	if in.Sort != "" && in.Sort != "relevance" {
		set("sort", in.Sort)
	}
	q.Set("limit", strconv.Itoa(in.Limit))
	if next := in.Offset + in.Limit; in.Cursor == "" && next <= maxSearchOffset {
		q.Set("offset", strconv.Itoa(next))
	} else {
		q.Set("cursor", cursor)
	}
	u := s.BaseURL + "/api/search?" + q.Encode()
	pg.Next = &u
}

// ignoredTerms are the words of q that the search does not use: stop
// words outside phrases, which the parser drops (unless nothing else is
// left).
func ignoredTerms(q string, n query.Node) []string {
	used := map[string]bool{}
	walk(n, func(t *query.Term, p *query.Phrase) {
		if t != nil {
			used[t.Word] = true
		}
		if p != nil {
			for _, w := range p.Words {
				used[w] = true
			}
		}
	})
	out := []string{}
	for _, f := range strings.Fields(q) {
		if f == "OR" || f == "AND" || f == "NOT" {
			continue // operators, not words
		}
		if name, rest, ok := strings.Cut(f, ":"); ok {
			if _, isField := query.FieldByName(strings.TrimLeft(name, "-(")); isField {
				f = rest
			}
		}
		for _, t := range tokenize.Tokens(f) {
			if !used[t] && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// walk calls fn for every term and phrase of n that can match (not
// those under a NOT).
func walk(n query.Node, fn func(*query.Term, *query.Phrase)) {
	switch n := n.(type) {
	case *query.Term:
		fn(n, nil)
	case *query.Phrase:
		fn(nil, n)
	case *query.And:
		for _, c := range n.Children {
			walk(c, fn)
		}
	case *query.Or:
		for _, c := range n.Children {
			walk(c, fn)
		}
	}
}
