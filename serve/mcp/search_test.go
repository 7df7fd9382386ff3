package mcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
)

// TestSearchToolQueryLanguage: search_archive declares the parameters of
// /api/search (page_cursor for its cursor: MCP keeps cursor for itself)
// and answers them as the HTTP endpoint does.
func TestSearchToolQueryLanguage(t *testing.T) {
	a := newApp(t, "")
	cs := connect(t, a.srv.URL+"/mcp")
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var props map[string]any
	var citing bool
	for _, tl := range lt.Tools {
		switch tl.Name {
		case "search_archive":
			var schema struct {
				Properties map[string]any `json:"properties"`
				Required   []string       `json:"required"`
			}
			remarshal(t, tl.InputSchema, &schema)
			props = schema.Properties
			if !slices.Equal(schema.Required, []string{"query"}) {
				t.Errorf("search_archive requires %v", schema.Required)
			}
		case "list_citing_documents":
			citing = true
		}
	}
	for _, p := range []string{"query", "stem", "in", "snippet", "sort", "facets", "topic", "license", "source",
		"year_from", "year_to", "fulltext", "select", "limit", "page_cursor"} {
		if props[p] == nil {
			t.Errorf("search_archive input lacks %s", p)
		}
	}
	if !citing {
		t.Error("list_citing_documents is not listed")
	}

	q := "gene* OR cell* OR human OR stud*"
	args := map[string]any{"query": q, "sort": "-year", "facets": []string{"license", "year"}, "snippet": true,
		"select": []string{"title", "year", "snippet"}, "limit": 2}
	res := callTool(t, cs, "search_archive", args, nil)
	if res.IsError {
		t.Fatalf("search_archive %v: %v", args, text(t, res, 0))
	}
	var page struct {
		Total      int                          `json:"total"`
		NextCursor *string                      `json:"next_cursor"`
		Facets     map[string][]json.RawMessage `json:"facets"`
		Items      []map[string]any             `json:"items"`
	}
	remarshal(t, res.StructuredContent, &page)
	if page.Total < 3 || page.NextCursor == nil || len(page.Facets["license"]) == 0 || len(page.Facets["year"]) == 0 || len(page.Items) != 2 {
		t.Fatalf("search_archive %v: %+v", args, page)
	}
	for _, it := range page.Items {
		if it["prices"] != nil || it["title"] == nil || it["license"] == nil {
			t.Errorf("select not applied: %v", it)
		}
	}
	first := page.Items[0]["id"]
	args["page_cursor"] = *page.NextCursor
	res = callTool(t, cs, "search_archive", args, nil)
	remarshal(t, res.StructuredContent, &page)
	if res.IsError || len(page.Items) == 0 || page.Items[0]["id"] == first {
		t.Errorf("page_cursor: %+v", res.StructuredContent)
	}

	e := toolError(t, callTool(t, cs, "search_archive", map[string]any{"query": `heart "failure`}, nil))
	if e.Code != "invalid_query" || e.Position == nil || *e.Position != 6 || e.Field != "q" {
		t.Errorf("unterminated phrase: %+v", e)
	}
}
