package search

import (
	"errors"

	"github.com/openshelf/openshelf/index/search/query"
)

// Sort orders a result set.
type Sort uint8

// The orders. Ties break by catalog order (doc number), so pages are
// stable.
const (
	ByRelevance Sort = iota // BM25F score, descending; catalog order without a query
	ByYear                  // oldest first, undated last
	ByYearDesc              // newest first, undated last
	ByCitedBy               // cited_by_count descending
)

// The facets a request may count and filter by.
const (
	FacetLicense  = "license"
	FacetTopic    = "topic"
	FacetYear     = "year"
	FacetSource   = "source"
	FacetFulltext = "fulltext"
)

// Request is one search (Query set) or listing (Query nil) of the index.
type Request struct {
	Query    query.Node
	Stem     bool // match English stems (Snowball) instead of exact words
	Fulltext bool // unscoped terms also match full text (in=fulltext)
	// Where holds the facet filters: facet name -> accepted values (OR
	// within a facet, AND across facets). Values are as Result.Facets
	// spells them ("CC-BY", "genomics", "2019", "pubmed", "true").
	Where            map[string][]string
	YearFrom, YearTo *int // inclusive; undated documents match no year filter
	Sort             Sort
	Facets           []string // facet names to count over the whole result set
	Limit            int
	Offset           int    // ignored when Cursor is set
	Cursor           string // from a previous Result.Next
}

// Result is one page of a request's results.
type Result struct {
	Hits   []Hit
	Total  int64                   // exact size of the whole result set
	Facets map[string][]FacetCount // for each requested facet, by count descending then value
	Next   string                  // cursor of the page after this one; "" on the last page
}

// FacetCount is how many documents of a result set have one facet value.
type FacetCount struct {
	Value string
	Count int64
}

// Cursor errors: a cursor from another snapshot generation is expired (the
// client starts again); a cursor that does not decode is invalid.
var (
	ErrCursorExpired = errors.New("search: cursor from another snapshot")
	ErrCursorInvalid = errors.New("search: invalid cursor")
)
