package archive

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/openshelf/openshelf/serve/registry"
)

// catalog answers GET /api/catalog.
func (s *Service) catalog(ctx context.Context, g *generation, in *CatalogInput) (*registry.Result, error) {
	items, total, offset, err := g.catalogPage(ctx, in.Topic, in.Limit, in.Offset, in.Cursor)
	if err != nil {
		return nil, err
	}
	pg := Page{Total: total, Limit: in.Limit, Offset: offset, Items: items}
	if len(items) > 0 && int64(offset+len(items)) < total {
		c := encodeCatalogCursor(in.Topic, items[len(items)-1].ID)
		pg.NextCursor = &c
		q := url.Values{}
		if in.Topic != "" {
			q.Set("topic", in.Topic)
		}
		if len(in.Select) > 0 {
			q.Set("select", strings.Join(in.Select, ","))
		}
		q.Set("limit", strconv.Itoa(in.Limit))
		if in.Cursor == "" {
			q.Set("offset", strconv.Itoa(offset+in.Limit))
		} else {
			q.Set("cursor", c)
		}
		next := s.BaseURL + "/api/catalog?" + q.Encode()
		pg.Next = &next
	}
	if len(in.Select) > 0 {
		v, err := project(pg, in.Select)
		return &registry.Result{Value: v}, err
	}
	return &registry.Result{Value: pg}, nil
}

// CitedByInput pages through the archive documents citing one.
type CitedByInput struct {
	ID     string   `json:"id" in:"path" maxLength:"80" pattern:"^(pmc-[0-9]{1,12}|pmid-[0-9]{1,12}|doi-[0-9a-f]{20}|oa-w[0-9]{1,15})$" doc:"Document id or alias: pmc-N, pmid-N, doi-<20 hex>, oa-wN."`
	Limit  int      `json:"limit,omitempty" min:"1" max:"50" default:"20" doc:"Entries per page."`
	Cursor string   `json:"cursor,omitempty" maxLength:"1024" doc:"next_cursor of the previous page."`
	Select []string `json:"select,omitempty" enum:"id|title|authors|year|venue|topics|license|license_url|has_fulltext|has_references|prices|cited_by_count" doc:"Comma-separated entry fields to return; id, license and license_url are always kept. Default: every field."`
}

// CitedByToolInput is list_citing_documents' input over MCP.
type CitedByToolInput struct {
	ID         string `json:"id" maxLength:"80" pattern:"^(pmc-[0-9]{1,12}|pmid-[0-9]{1,12}|doi-[0-9a-f]{20}|oa-w[0-9]{1,15})$" doc:"Document id or alias."`
	Limit      int    `json:"limit,omitempty" min:"1" max:"50" default:"20" doc:"Entries to return."`
	PageCursor string `json:"page_cursor,omitempty" maxLength:"1024" doc:"next_cursor of the previous result, for the next page."`
}

// CitedByPage is the body of GET /api/document/{id}/cited-by.
type CitedByPage struct {
	// ID is the cited document's canonical id.
	ID string `json:"id"`
	Page
}

func (s *Service) citedByEndpoint() *registry.Endpoint {
	return registry.Spec[CitedByInput]{
		Name: "cited_by", Method: http.MethodGet, Path: "/api/document/:id/cited-by", Group: registry.GroupDiscovery,
		Summary: "The archive documents whose reference lists cite a document (free), as catalog entries in catalog order, paged by cursor.",
		Output:  CitedByPage{},
		Responses: map[int]string{
			http.StatusNotFound: "document_not_found: no document has this id",
			http.StatusGone:     "cursor_expired: the cursor belongs to a snapshot no longer served; start again",
		},
		Tool: registry.ToolInput(&registry.Tool{Name: "list_citing_documents",
			Description: "List the archive documents that cite a document (resolved from their reference lists), as catalog entries; next_cursor pages on as page_cursor"},
			func(in *CitedByToolInput) *CitedByInput {
				return &CitedByInput{ID: in.ID, Limit: in.Limit, Cursor: in.PageCursor}
			}),
		Check: func(ctx context.Context, in *CitedByInput) error {
			_, err := with(s.Store, func(g *generation) (string, error) { return g.resolve(ctx, in.ID) })
			return err
		},
		Handle: func(ctx context.Context, in *CitedByInput) (*registry.Result, error) {
			return with(s.Store, func(g *generation) (*registry.Result, error) { return s.citedBy(ctx, g, in) })
		},
	}.Endpoint()
}

func (s *Service) citedBy(ctx context.Context, g *generation, in *CitedByInput) (*registry.Result, error) {
	id, err := g.resolve(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	d := g.catalog.Find(id)
	if d < 0 {
		return nil, errDocumentNotFound(id)
	}
	docs, total, next, err := g.index.CitedBy(ctx, d, in.Limit, in.Cursor)
	if err != nil {
		return nil, errSearch(err)
	}
	items, err := g.entries(ctx, docs)
	if err != nil {
		return nil, err
	}
	out := CitedByPage{ID: id, Page: Page{Total: total, Limit: in.Limit, Items: items}}
	if next != "" {
		out.NextCursor = &next
		q := url.Values{}
		if len(in.Select) > 0 {
			q.Set("select", strings.Join(in.Select, ","))
		}
		q.Set("limit", strconv.Itoa(in.Limit))
		q.Set("cursor", next)
		u := s.BaseURL + "/api/document/" + id + "/cited-by?" + q.Encode()
		out.Next = &u
	}
	if len(in.Select) > 0 {
		v, err := project(out, in.Select)
		return &registry.Result{Value: v}, err
	}
	return &registry.Result{Value: out}, nil
}
