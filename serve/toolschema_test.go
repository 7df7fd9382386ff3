package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve/tools/knowledge/embed"
)

// toolsList returns the body of an MCP tools/list call.
func toolsList(t *testing.T, h http.Handler) []byte {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("tools/list: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

// listSchema is a property that takes one string or an array of strings.
type listSchema struct {
	AnyOf []struct {
		Type  string `json:"type"`
		Enum  []string
		Items *struct {
			Type string   `json:"type"`
			Enum []string `json:"enum"`
		} `json:"items"`
		MinItems int `json:"minItems"`
		MaxItems int `json:"maxItems"`
	} `json:"anyOf"`
}

// TestToolInputSchemas: the MCP input schemas say what the tools take:
// search_archive's license lists the licence families the archive
// publishes (the specification's search filter values), one or several;
// embed_text's input is a string or an array of at most MaxInputs strings.
func TestToolInputSchemas(t *testing.T) {
	a := newTestApp(t, testsnap.Fixtures(t), nil)
	var list struct {
		Result struct {
			Tools []struct {
				Name        string `json:"name"`
				InputSchema struct {
					Properties map[string]listSchema `json:"properties"`
				} `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(toolsList(t, a.HTTP), &list); err != nil {
		t.Fatal(err)
	}
	props := map[string]map[string]listSchema{}
	for _, tl := range list.Result.Tools {
		props[tl.Name] = tl.InputSchema.Properties
	}
	var families []string
	for _, l := range Policy().Allowed {
		families = append(families, l.Family)
	}
	lic := props["search_archive"]["license"]
	if len(lic.AnyOf) != 2 || lic.AnyOf[0].Type != "string" || !slices.Equal(lic.AnyOf[0].Enum, families) ||
		lic.AnyOf[1].Type != "array" || lic.AnyOf[1].Items == nil || !slices.Equal(lic.AnyOf[1].Items.Enum, families) ||
		lic.AnyOf[1].MaxItems != len(families) {
		t.Errorf("search_archive license %+v, want one of or an array of %v", lic, families)
	}
	in := props["embed_text"]["input"]
	if len(in.AnyOf) != 2 || in.AnyOf[0].Type != "string" || in.AnyOf[1].Type != "array" || in.AnyOf[1].Items == nil ||
		in.AnyOf[1].Items.Type != "string" || in.AnyOf[1].MinItems != 1 || in.AnyOf[1].MaxItems != embed.MaxInputs {
		t.Errorf("embed_text input %+v, want a string or an array of 1 to %d strings", in, embed.MaxInputs)
	}
}
