package registry

import (
	"context"
	"regexp"
	"testing"

	"github.com/openshelf/openshelf/serve/schema"
)

// TestExampleString checks that derived examples meet the patterns and
// lengths of the schemas they come from (the ids of this service).
func TestExampleString(t *testing.T) {
	one, three := 1, 3
	for _, s := range []*schema.Schema{
		{Type: "string", Pattern: `^alm_[a-z2-7]{26}$`},
		{Type: "string", Pattern: `^(pmc-[0-9]{1,12}|pmid-[0-9]{1,12}|doi-[0-9a-f]{20}|oa-w[0-9]{1,15})$`},
		{Type: "string", Pattern: `^[A-Za-z]{2}$`},
		{Type: "string", Pattern: `^[A-Za-z0-9][A-Za-z0-9./-]*$`},
		{Type: "string", Pattern: `^[a-z0-9-]{1,40}$`},
		{Type: "string", MinLength: &three},
		{Type: "string", MaxLength: &one},
	} {
		v := exampleString(s)
		if !accepts(s, v) {
			t.Errorf("example %q does not meet %+v", v, s)
		}
		if s.Pattern != "" && !regexp.MustCompile(s.Pattern).MatchString(v) {
			t.Errorf("example %q does not match %s", v, s.Pattern)
		}
	}
}

type bzIn struct {
	ID    string `json:"id" in:"path" pattern:"^pmc-[0-9]{1,12}$"`
	Limit int    `json:"limit" default:"10" min:"1" max:"50"`
}

// TestBazaarShape checks the declaration of a GET endpoint with a path
// parameter: method, pathParams example, query schema.
func TestBazaarShape(t *testing.T) {
	e := Spec[bzIn]{Name: "doc", Method: "GET", Path: "/api/document/:id", Price: "0.001",
		Handle: func(context.Context, *bzIn) (*Result, error) { return nil, nil }}.Endpoint()
	b := e.Bazaar()
	in := b["info"].(map[string]any)["input"].(map[string]any)
	if in["method"] != "GET" || in["type"] != "http" {
		t.Errorf("input %v", in)
	}
	if got := in["pathParams"].(map[string]any)["id"]; got != "pmc-1" {
		t.Errorf("pathParams.id = %v, want pmc-1", got)
	}
	if _, ok := in["body"]; ok {
		t.Errorf("GET with a body: %v", in)
	}
	props := b["schema"].(map[string]any)["properties"].(map[string]any)["input"].(map[string]any)["properties"].(map[string]any)
	if _, ok := props["queryParams"]; !ok {
		t.Errorf("no queryParams schema: %v", props)
	}
}
