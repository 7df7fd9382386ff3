package registry

import (
	"context"
	"strings"
	"testing"
)

type resDoc struct {
	ID string `json:"id" in:"path"`
}

type resTool struct {
	URL   string `json:"url"`
	Limit int    `json:"limit,omitempty"`
}

func TestResource(t *testing.T) {
	noop := func(context.Context, *resDoc) (*Result, error) { return nil, nil }
	doc := Spec[resDoc]{Name: "doc", Method: "GET", Path: "/api/document/:id", Handle: noop}.Endpoint()
	got, err := doc.Resource("https://x.test", &resDoc{ID: "pmc-1"})
	if err != nil || got != "https://x.test/api/document/pmc-1" {
		t.Fatalf("doc resource = %q, %v", got, err)
	}
	tool := Spec[resTool]{Name: "tool", Method: "POST", Path: "/v1/extract",
		Handle: func(context.Context, *resTool) (*Result, error) { return nil, nil }}.Endpoint()
	a, _ := tool.Resource("https://x.test", &resTool{URL: "https://a.example/", Limit: 20})
	a2, _ := tool.Resource("https://x.test", &resTool{URL: "https://a.example/", Limit: 20})
	b, _ := tool.Resource("https://x.test", &resTool{URL: "https://b.example/", Limit: 20})
	c, _ := tool.Resource("https://x.test", &resTool{URL: "https://a.example/", Limit: 21})
	if a != a2 || a == b || a == c || !strings.HasPrefix(a, "https://x.test/v1/extract?input=") {
		t.Fatalf("tool resources: %q %q %q %q", a, a2, b, c)
	}
}

func TestResourcePaths(t *testing.T) {
	type docIn struct {
		ID string `json:"id" in:"path"`
	}
	type twoIn struct {
		Slug string `json:"slug" in:"path"`
		Rest string `json:"rest" in:"path"`
	}
	tests := []struct {
		path string
		in   any
		want string
	}{
		{"/api/search", &struct{}{}, "https://x.test/api/search"},
		{"/api/document/:id", &docIn{ID: "pmc-1"}, "https://x.test/api/document/pmc-1"},
		{"/api/document/:id/fulltext", &docIn{ID: "doi-0123"}, "https://x.test/api/document/doi-0123/fulltext"},
		{"/t/:slug/*rest", &twoIn{Slug: "a", Rest: "/b/c"}, "https://x.test/t/a/b/c"},
	}
	for _, tt := range tests {
		e := &Endpoint{Name: "x", Path: tt.path}
		got, err := e.Resource("https://x.test", tt.in)
		if err != nil || got != tt.want {
			t.Errorf("resourceURL(%s) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	if _, err := (&Endpoint{Name: "x", Path: "/a/:missing"}).Resource("https://x.test", &docIn{}); err == nil {
		t.Error("a path parameter without a field gave no error")
	}
}
