package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/openshelf/openshelf/index/catalog"
	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/schema"
)

// Prices of the paid archive resources, in USD.
const (
	PriceDocument   = "0.001"
	PriceFulltext   = "0.01"
	PriceReferences = "0.002"
	PriceBundle     = "0.5"
)

// pricesFor lists the prices of the paid resources a document has.
func pricesFor(e Entry) Prices {
	p := Prices{Document: PriceDocument}
	if e.HasFulltext {
		p.Fulltext = PriceFulltext
	}
	if e.HasReferences {
		p.References = PriceReferences
	}
	return p
}

// CatalogInput pages through the catalog.
type CatalogInput struct {
	Topic  string   `json:"topic,omitempty" pattern:"^[a-z0-9-]{1,64}$" doc:"Only documents of this topic (a slug from /api/topics)."`
	Limit  int      `json:"limit,omitempty" min:"1" max:"50" default:"20" doc:"Entries per page."`
	Offset int      `json:"offset,omitempty" min:"0" max:"100000000" default:"0" doc:"Entries to skip."`
	Cursor string   `json:"cursor,omitempty" maxLength:"1024" doc:"next_cursor of the previous page (not with offset): resumes after the last document it listed, even across a snapshot switch. Pass the same topic."`
	Select []string `json:"select,omitempty" enum:"id|title|authors|year|venue|topics|license|license_url|has_fulltext|has_references|prices|cited_by_count" doc:"Comma-separated entry fields to return; id, license and license_url are always kept. Default: every field."`
}

// Validate refuses a cursor with an offset.
func (in *CatalogInput) Validate() error {
	if in.Cursor != "" && in.Offset != 0 {
		return apierr.Invalid("cursor", "cannot be combined with offset: a cursor already says where the page starts")
	}
	return nil
}

// DocumentInput names a document by its id or any alias.
type DocumentInput struct {
	ID string `json:"id" in:"path" maxLength:"80" pattern:"^(pmc-[0-9]{1,12}|pmid-[0-9]{1,12}|doi-[0-9a-f]{20}|oa-w[0-9]{1,15})$" doc:"Document id or alias: pmc-N, pmid-N, doi-<20 hex>, oa-wN."`
}

// BundleInput names a topic bundle.
type BundleInput struct {
	Slug string `json:"slug" in:"path" pattern:"^[a-z0-9-]{1,64}$" doc:"Topic slug."`
}

// SearchToolInput is search_archive's input over MCP. Its page cursor is
// page_cursor: MCP reserves cursor for paging a long result.
type SearchToolInput struct {
	Query      string            `json:"query" minLength:"1" maxLength:"200" doc:"The query: words (all must match), \"exact phrase\", OR, -word or NOT word, (parentheses), title:/abstract:/author:/keyword:/doi:/fulltext: fields, prefix*. Example: (heart OR cardiac) \"heart failure\" -mouse year."`
	Stem       bool              `json:"stem,omitempty" doc:"true: match English stems (cells matches cell); false (the default): exact words."`
	In         string            `json:"in,omitempty" enum:"metadata|fulltext" default:"metadata" doc:"Where unscoped words are looked for: metadata (title, abstract, keywords, authors) or fulltext (also the full text)."`
	Snippet    bool              `json:"snippet,omitempty" doc:"true: each hit carries a passage of its open text with matched words in <mark>."`
	Sort       string            `json:"sort,omitempty" enum:"relevance|year|-year|cited_by" default:"relevance" doc:"Order of the hits."`
	Facets     []string          `json:"facets,omitempty" enum:"license|topic|year|source|fulltext" doc:"Facets to count over the whole result set."`
	Topic      schema.StringList `json:"topic,omitempty" pattern:"^[a-z0-9-]{1,64}$" maxItems:"20" doc:"Only documents of this topic (a slug), or of one of several given as an array."`
	License    schema.StringList `json:"license,omitempty" enum:"CC0|PDM|CC-BY|CC-BY-SA" maxItems:"4" doc:"Only documents under this licence family, or under one of several given as an array: CC0, PDM, CC-BY, CC-BY-SA."`
	Source     schema.StringList `json:"source,omitempty" enum:"jats|pubmed|openalex|crossref" maxItems:"4" doc:"Only documents from this source, or from one of several given as an array: jats (publisher full text, PMC), pubmed, openalex, crossref."`
	YearFrom   *int              `json:"year_from,omitempty" min:"0" max:"9999" doc:"Earliest publication year; undated documents never match."`
	YearTo     *int              `json:"year_to,omitempty" min:"0" max:"9999" doc:"Latest publication year; undated documents never match."`
	Fulltext   bool              `json:"fulltext,omitempty" doc:"true: only documents with full text; false (the default): no restriction."`
	Select     []string          `json:"select,omitempty" enum:"id|title|authors|year|venue|topics|license|license_url|has_fulltext|has_references|prices|score|cited_by_count|snippet|attribution|copyright_notice" doc:"Hit fields to return; id and the rights fields are always kept."`
	Limit      int               `json:"limit,omitempty" min:"1" max:"50" default:"10" doc:"Hits to return."`
	PageCursor string            `json:"page_cursor,omitempty" maxLength:"1024" doc:"next_cursor of the previous result, for the next page (same other arguments)."`
}

// Validate checks the year range.
func (in *SearchToolInput) Validate() error {
	if in.YearFrom != nil && in.YearTo != nil && *in.YearFrom > *in.YearTo {
		return apierr.Invalid("year_from", "must not be after year_to")
	}
	return nil
}

// searchInput converts the tool's input to the endpoint's.
func (in *SearchToolInput) searchInput() *SearchInput {
	return &SearchInput{Q: in.Query, Stem: in.Stem, In: in.In, Snippet: in.Snippet, Sort: in.Sort, Facets: in.Facets,
		Topic: in.Topic, License: in.License, Source: in.Source, YearFrom: in.YearFrom,
		YearTo: in.YearTo, Fulltext: in.Fulltext, Select: in.Select, Limit: in.Limit, Cursor: in.PageCursor}
}

// CatalogToolInput is get_catalog_page's input over MCP.
type CatalogToolInput struct {
	Page  int    `json:"page,omitempty" min:"0" max:"1000000" default:"0" doc:"Page number, from 0; 100 documents per page."`
	Topic string `json:"topic,omitempty" pattern:"^[a-z0-9-]{1,64}$" doc:"Only documents of this topic."`
}

// CatalogToolPage is get_catalog_page's result: Next is the page number to
// pass to the same tool, null on the last page (the HTTP Page's next is a
// URL with an offset, which the tool does not take).
type CatalogToolPage struct {
	Page  int     `json:"page"`
	Next  *int    `json:"next"`
	Total int64   `json:"total"`
	Items []Entry `json:"items"`
}

func catalogToolResult(v any, res *registry.Result) *registry.Result {
	in, ok1 := v.(*CatalogToolInput)
	pg, ok2 := res.Value.(Page)
	if !ok1 || !ok2 {
		return res
	}
	out := CatalogToolPage{Page: in.Page, Total: pg.Total, Items: pg.Items}
	if pg.Next != nil {
		n := in.Page + 1
		out.Next = &n
	}
	return &registry.Result{Value: out, Header: res.Header, Status: res.Status}
}

// ToolPageSize is the catalog page size over MCP.
const ToolPageSize = 100

// Service declares the archive endpoints over a Store.
type Service struct {
	Store   *Store
	BaseURL string
}

// Endpoints returns the archive's registry entries.
func (s *Service) Endpoints() []*registry.Endpoint {
	type res = registry.Result
	return []*registry.Endpoint{
		registry.Spec[CatalogInput]{
			Name: "catalog", Method: http.MethodGet, Path: "/api/catalog", Group: registry.GroupDiscovery,
			Summary: "Page through every published document in stable order, with licence and prices.",
			Output:  Page{},
			Tool: registry.ToolInput(&registry.Tool{Name: "get_catalog_page",
				Description: "List archive documents, 100 per page, with licence and prices; next is the page to ask for next",
				Result:      catalogToolResult},
				func(in *CatalogToolInput) *CatalogInput {
					return &CatalogInput{Topic: in.Topic, Limit: ToolPageSize, Offset: in.Page * ToolPageSize}
				}),
			Handle: func(ctx context.Context, in *CatalogInput) (*res, error) {
				return with(s.Store, func(g *generation) (*res, error) {
					return s.catalog(ctx, g, in)
				})
			},
		}.Endpoint(),
		registry.Spec[registry.NoInput]{
			Name: "topics", Method: http.MethodGet, Path: "/api/topics", Group: registry.GroupDiscovery,
			Summary: "Every topic with its document count, bundle size and bundle price.",
			Output:  TopicList{},
			Tool:    &registry.Tool{Name: "list_topics", Description: "List the archive's topics with document counts and bundle prices"},
			Handle: func(ctx context.Context, _ *registry.NoInput) (*res, error) {
				return with(s.Store, func(g *generation) (*res, error) {
					// Encoded once per generation (and base URL).
					if b, ok := g.topicsJSON.Load(s.BaseURL); ok {
						return &res{Value: b.(json.RawMessage)}, nil
					}
					out := TopicList{Snapshot: g.snap.ID, Topics: make([]Topic, len(g.topics))}
					for i, t := range g.topics {
						t.BundlePrice = PriceBundle
						t.BundleURL = s.BaseURL + "/api/topic/" + t.Slug + "/content"
						out.Topics[i] = t
					}
					b, err := encodeJSON(out)
					if err != nil {
						return nil, err
					}
					g.topicsJSON.Store(s.BaseURL, b)
					return &res{Value: b}, nil
				})
			},
		}.Endpoint(),
		registry.Spec[SearchInput]{
			Name: "search", Method: http.MethodGet, Path: "/api/search", Group: registry.GroupDiscovery,
			Summary:     "Search titles, abstracts, keywords, authors and optionally full text with a query language (phrases, OR, NOT, fields, prefixes), BM25F ranking or other sorts, facets, snippets and cursors.",
			Description: searchDescription,
			Output:      SearchResult{},
			Responses:   map[int]string{http.StatusGone: "cursor_expired: the cursor belongs to a snapshot no longer served; start again"},
			Tool: registry.ToolInput(&registry.Tool{Name: "search_archive",
				Description: "Search the open-licence archive (titles, abstracts, keywords, authors; full text with in=fulltext) with a query language: words (all must match), \"exact phrases\", OR, -word, parentheses, title:/abstract:/author:/keyword:/doi:/fulltext: fields, prefix*; sorts, facets, snippets; next_cursor pages on as page_cursor"},
				(*SearchToolInput).searchInput),
			Check: func(ctx context.Context, in *SearchInput) error {
				if err := in.parse(); err != nil {
					return err
				}
				_, err := with(s.Store, func(g *generation) (struct{}, error) { return struct{}{}, g.checkSearch(in) })
				return err
			},
			Handle: func(ctx context.Context, in *SearchInput) (*res, error) {
				return with(s.Store, func(g *generation) (*res, error) {
					return s.search(ctx, g, in)
				})
			},
		}.Endpoint(),
		registry.Spec[registry.NoInput]{
			Name: "stats", Method: http.MethodGet, Path: "/api/stats", Group: registry.GroupDiscovery,
			Summary: "Counts: documents, with full text, with references, per licence, per source, topics; snapshot id and build time.",
			Output:  Stats{},
			Handle: func(ctx context.Context, _ *registry.NoInput) (*res, error) {
				return with(s.Store, func(g *generation) (*res, error) { return &res{Value: g.statsJSON}, nil })
			},
		}.Endpoint(),
		registry.Spec[DocumentInput]{
			Name: "document", Method: http.MethodGet, Path: "/api/document/:id", Group: registry.GroupArchive,
			Price:   PriceDocument,
			Summary: "A document's metadata, abstract and rights (licence, attribution, copyright notice).",
			Output:  Document{},
			Tool:    &registry.Tool{Name: "get_document", Description: "Get a document's metadata, abstract and rights"},
			Check:   s.checkDocument,
			Handle: func(ctx context.Context, in *DocumentInput) (*res, error) {
				return with(s.Store, func(g *generation) (*res, error) {
					id, err := g.resolve(ctx, in.ID)
					if err != nil {
						return nil, err
					}
					d, err := g.document(ctx, id)
					if err != nil {
						return nil, err
					}
					if in.ID != id {
						d.RequestedID = in.ID
					}
					if doc := g.catalog.Find(id); doc >= 0 {
						d.CitedByCount = g.index.CitedByCount(doc)
					}
					return &res{Value: d}, nil
				})
			},
		}.Endpoint(),
		s.citedByEndpoint(),
		registry.Spec[DocumentInput]{
			Name: "fulltext", Method: http.MethodGet, Path: "/api/document/:id/fulltext", Group: registry.GroupArchive,
			Price:   PriceFulltext,
			Summary: "A document's full text as nested sections, with its rights.",
			Output:  Fulltext{},
			Tool:    &registry.Tool{Name: "get_fulltext", Description: "Get a document's full text as nested sections, with its rights"},
			Check: func(ctx context.Context, in *DocumentInput) error {
				return s.checkFlag(ctx, in, catalog.FlagFulltext, "fulltext_not_available", "has no full text")
			},
			Handle: func(ctx context.Context, in *DocumentInput) (*res, error) {
				return with(s.Store, func(g *generation) (*res, error) {
					id, err := g.resolve(ctx, in.ID)
					if err != nil {
						return nil, err
					}
					ft, err := g.fulltext(ctx, id)
					return &res{Value: ft}, err
				})
			},
		}.Endpoint(),
		registry.Spec[DocumentInput]{
			Name: "references", Method: http.MethodGet, Path: "/api/document/:id/references", Group: registry.GroupArchive,
			Price:   PriceReferences,
			Summary: "A document's parsed references, with its rights.",
			Output:  References{},
			Tool:    &registry.Tool{Name: "get_references", Description: "Get a document's parsed references, with its rights"},
			Check: func(ctx context.Context, in *DocumentInput) error {
				return s.checkFlag(ctx, in, catalog.FlagReferences, "references_not_available", "has no references")
			},
			Handle: func(ctx context.Context, in *DocumentInput) (*res, error) {
				return with(s.Store, func(g *generation) (*res, error) {
					id, err := g.resolve(ctx, in.ID)
					if err != nil {
						return nil, err
					}
					refs, err := g.references(ctx, id)
					return &res{Value: refs}, err
				})
			},
		}.Endpoint(),
		registry.Spec[BundleInput]{
			Name: "topic_bundle", Method: http.MethodGet, Path: "/api/topic/:slug/content", Group: registry.GroupArchive,
			Price:       PriceBundle,
			ContentType: "application/x-ndjson",
			Summary:     "Every document of a topic as JSON Lines (metadata and rights per line); zstd-encoded when accepted.",
			Check: func(ctx context.Context, in *BundleInput) error {
				_, err := with(s.Store, func(g *generation) (struct{}, error) {
					if _, ok := g.byTopic[in.Slug]; !ok {
						return struct{}{}, errTopicNotFound(in.Slug)
					}
					return struct{}{}, nil
				})
				return err
			},
			Handle: func(ctx context.Context, in *BundleInput) (*res, error) {
				return with(s.Store, func(g *generation) (*res, error) {
					f, err := g.openBundle(in.Slug)
					if err != nil {
						return nil, err
					}
					return &res{Body: f, ContentType: "application/x-ndjson", Encoding: "zstd"}, nil
				})
			},
		}.Endpoint(),
	}
}

// encodeJSON encodes a response body once, to be served many times. HTML
// characters are left as they are: the HTTP layer's encoder escapes them
// in a json.RawMessage as it would in the value, and the MCP layer, which
// does not escape them, sends them as they are, as before.
func encodeJSON(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// TopicList is the body of /api/topics.
type TopicList struct {
	Snapshot string  `json:"snapshot"`
	Topics   []Topic `json:"topics"`
}

func (s *Service) checkDocument(ctx context.Context, in *DocumentInput) error {
	_, err := with(s.Store, func(g *generation) (string, error) { return g.resolve(ctx, in.ID) })
	return err
}

// checkFlag answers 404 before payment when the document is missing or
// lacks the resource.
func (s *Service) checkFlag(ctx context.Context, in *DocumentInput, flag byte, code, what string) error {
	_, err := with(s.Store, func(g *generation) (struct{}, error) {
		id, err := g.resolve(ctx, in.ID)
		if err != nil {
			return struct{}{}, err
		}
		d := g.catalog.Find(id)
		if d < 0 {
			return struct{}{}, errDocumentNotFound(id)
		}
		_, flags, err := g.entry(d)
		if err != nil {
			return struct{}{}, err
		}
		if flags&flag == 0 {
			return struct{}{}, apierr.NotFound(code, "document "+id+" "+what)
		}
		return struct{}{}, nil
	})
	return err
}

func round(f float64) float64 { return float64(int64(f*1e4+0.5)) / 1e4 }
