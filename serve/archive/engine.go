package archive

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/serve/apierr"
)

// searcher is what the server asks of a generation's search index: the
// request/result contract of package index/search (issue 21). The server
// depends on this interface, not on the index's layout, so the engine can
// change beneath it.
type searcher interface {
	Len() int
	TopicDocs(topic string) []int32
	Search(ctx context.Context, req search.Request) (search.Result, error)
	CitedBy(ctx context.Context, doc int32, limit int, cursor string) (docs []int32, total int64, next string, err error)
	CitedByCount(doc int32) int32
}

// errNotSupported is a request the generation's search engine cannot
// evaluate: see legacyIndex.
var errNotSupported = errors.New("not supported by this snapshot's search index")

func errUnsupported(what string) error {
	return apierr.New(apierr.ErrInvalidInput, "unsupported_query", what+": "+errNotSupported.Error())
}

// legacyIndex adapts the in-memory index of package index/search, which
// only intersects words of title, keywords and authors, to the searcher
// contract. It answers what that index can (all words, filters with one
// value per facet, relevance order, offsets and cursors over them) and
// refuses the rest with a 400 unsupported_query rather than a wrong answer.
type legacyIndex struct {
	ix   *search.Index
	snap string // snapshot id: cursors from another snapshot are expired
}

func (l legacyIndex) Len() int                       { return l.ix.Len() }
func (l legacyIndex) TopicDocs(topic string) []int32 { return l.ix.TopicDocs(topic) }
func (l legacyIndex) CitedByCount(int32) int32       { return 0 }

func (l legacyIndex) CitedBy(ctx context.Context, doc int32, limit int, cursor string) ([]int32, int64, string, error) {
	if cursor != "" {
		return nil, 0, "", search.ErrCursorInvalid
	}
	return nil, 0, "", ctx.Err()
}

func (l legacyIndex) Search(ctx context.Context, req search.Request) (search.Result, error) {
	if err := ctx.Err(); err != nil {
		return search.Result{}, err
	}
	f := search.Filters{YearFrom: req.YearFrom, YearTo: req.YearTo}
	for facet, vals := range req.Where {
		if len(vals) != 1 {
			return search.Result{}, errUnsupported("several values of " + facet)
		}
		switch facet {
		case search.FacetLicense:
			f.License = vals[0]
		case search.FacetTopic:
			f.Topic = vals[0]
		case search.FacetFulltext:
			if vals[0] != "true" {
				return search.Result{}, errUnsupported("fulltext=false")
			}
			f.Fulltext = true
		default:
			return search.Result{}, errUnsupported("the " + facet + " filter")
		}
	}
	if req.Sort != search.ByRelevance {
		return search.Result{}, errUnsupported("sort")
	}
	if len(req.Facets) > 0 {
		return search.Result{}, errUnsupported("facets")
	}
	if req.Stem {
		return search.Result{}, errUnsupported("stem=true")
	}
	offset := req.Offset
	if req.Cursor != "" {
		var err error
		if offset, err = l.decodeCursor(req.Cursor); err != nil {
			return search.Result{}, err
		}
	}
	var hits []search.Hit
	var total int64
	if req.Query == nil {
		hits, total = l.ix.List(f, req.Limit, offset)
	} else {
		terms, err := legacyTerms(req.Query, req.Fulltext)
		if err != nil {
			return search.Result{}, err
		}
		if len(terms) > 0 {
			hits, total = l.ix.Search(terms, f, req.Limit, offset)
		}
	}
	res := search.Result{Hits: hits, Total: total}
	if int64(offset+req.Limit) < total {
		res.Next = "l1." + l.snap + "." + strconv.Itoa(offset+req.Limit)
	}
	return res, nil
}

func (l legacyIndex) decodeCursor(c string) (int, error) {
	rest, ok := strings.CutPrefix(c, "l1.")
	i := strings.LastIndexByte(rest, '.')
	if !ok || i < 0 {
		return 0, search.ErrCursorInvalid
	}
	n, err := strconv.Atoi(rest[i+1:])
	if err != nil || n < 0 {
		return 0, search.ErrCursorInvalid
	}
	if rest[:i] != l.snap {
		return 0, search.ErrCursorExpired
	}
	return n, nil
}

// legacyTerms returns the words of a query the legacy index can evaluate:
// a word or an AND of words, in no particular field.
func legacyTerms(n query.Node, fulltext bool) ([]string, error) {
	if fulltext {
		return nil, errUnsupported("in=fulltext")
	}
	switch n := n.(type) {
	case *query.Term:
		if n.Field != query.Any || n.Prefix {
			return nil, errUnsupported("fields and prefixes")
		}
		return []string{n.Word}, nil
	case *query.Phrase:
		// A hyphenated word ("Genome-Wide") parses as a phrase; this
		// index has no positions and reads it as its words, as it
		// always did.
		if n.Field != query.Any {
			return nil, errUnsupported("fields")
		}
		return tokenize.RemoveStopWords(slices.Clone(n.Words)), nil
	case *query.Or:
		if len(n.Children) == 0 {
			return nil, nil // only punctuation: matches nothing
		}
	case *query.And:
		var out []string
		for _, c := range n.Children {
			t, err := legacyTerms(c, false)
			if err != nil {
				return nil, err
			}
			out = append(out, t...)
		}
		return out, nil
	}
	return nil, errUnsupported("phrases, OR and NOT")
}

// stemmer is the index's English stemmer, applied to words when a search
// has stem=true: snippets must mark what the index matched.
var stemmer = func(w string) string { return w }
