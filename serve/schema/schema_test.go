package schema

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/serve/apierr"
)

type testInput struct {
	ID     string         `json:"id" in:"path" pattern:"^[a-z0-9-]{1,80}$"`
	Q      string         `json:"q,omitempty" doc:"query" maxLength:"5"`
	Limit  int            `json:"limit,omitempty" min:"1" max:"50" default:"10"`
	Full   *bool          `json:"fulltext,omitempty"`
	Lic    string         `json:"license,omitempty" enum:"CC0|CC-BY"`
	Checks []string       `json:"checks,omitempty" enum:"dns|tech" default:"dns|tech" maxItems:"2"`
	Ratio  float64        `json:"ratio,omitempty" min:"0" max:"1"`
	Extra  map[string]any `json:"payload,omitempty"`
}

type crossInput struct {
	From int `json:"from,omitempty"`
	To   int `json:"to,omitempty"`
}

func (c *crossInput) Validate() error {
	if c.From > c.To {
		return apierr.Invalid("from", "must not be after to")
	}
	return nil
}

func TestDecodeStrings(t *testing.T) {
	in := InputOf(testInput{})
	tests := []struct {
		name      string
		query     map[string][]string
		path      map[string]string
		wantField string // "" means success
		check     func(t *testing.T, v testInput)
	}{
		{"defaults", nil, map[string]string{"id": "pmc-1"}, "", func(t *testing.T, v testInput) {
			if v.Limit != 10 || len(v.Checks) != 2 || v.Full != nil {
				t.Errorf("defaults not applied: %+v", v)
			}
		}},
		{"values", map[string][]string{"limit": {"50"}, "fulltext": {"false"}, "license": {"CC0"}, "checks": {"tech"}, "q": {"héllo"}},
			map[string]string{"id": "a"}, "", func(t *testing.T, v testInput) {
				if v.Limit != 50 || v.Full == nil || *v.Full || v.Lic != "CC0" || len(v.Checks) != 1 || v.Q != "héllo" {
					t.Errorf("got %+v", v)
				}
			}},
		{"missing path", nil, nil, "id", nil},
		{"bad pattern", nil, map[string]string{"id": "A B"}, "id", nil},
		{"not integer", map[string][]string{"limit": {"ten"}}, map[string]string{"id": "a"}, "limit", nil},
		{"too small", map[string][]string{"limit": {"0"}}, map[string]string{"id": "a"}, "limit", nil},
		{"too big", map[string][]string{"limit": {"51"}}, map[string]string{"id": "a"}, "limit", nil},
		{"bool spelling", map[string][]string{"fulltext": {"1"}}, map[string]string{"id": "a"}, "fulltext", nil},
		{"enum", map[string][]string{"license": {"CC-BY-NC"}}, map[string]string{"id": "a"}, "license", nil},
		{"item enum", map[string][]string{"checks": {"dns,whois"}}, map[string]string{"id": "a"}, "checks[1]", nil},
		{"too many items", map[string][]string{"checks": {"dns,tech,dns"}}, map[string]string{"id": "a"}, "checks", nil},
		{"too long in runes", map[string][]string{"q": {"éééééé"}}, map[string]string{"id": "a"}, "q", nil},
		{"repeated", map[string][]string{"q": {"a", "b"}}, map[string]string{"id": "a"}, "q", nil},
		{"float bound", map[string][]string{"ratio": {"1.5"}}, map[string]string{"id": "a"}, "ratio", nil},
		{"object in query", map[string][]string{"payload": {"{}"}}, map[string]string{"id": "a"}, "payload", nil},
		{"unknown parameter", map[string][]string{"page": {"2"}}, map[string]string{"id": "a"}, "page", nil},
		{"path parameter in query", map[string][]string{"id": {"b"}}, map[string]string{"id": "a"}, "id", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v testInput
			err := in.DecodeStrings(&v, tt.query, tt.path)
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				tt.check(t, v)
				return
			}
			e, ok := errors.AsType[*apierr.Error](err)
			if !ok || !errors.Is(err, apierr.ErrInvalidInput) || e.Field != tt.wantField {
				t.Fatalf("err = %v, want invalid_input on %q", err, tt.wantField)
			}
		})
	}
}

func TestDecodeJSON(t *testing.T) {
	in := InputOf(testInput{})
	tests := []struct {
		body      string
		wantField string
	}{
		{`{"limit": 5, "payload": {"a": [1, 2]}, "checks": ["dns"]}`, "-"},
		{``, "-"},
		{`null`, "-"},
		{`{"limit": 5.5}`, "limit"},
		{`{"limit": "5"}`, "limit"},
		{`{"q": 5}`, "q"},
		{`{"fulltext": "true"}`, "fulltext"},
		{`{"unknown": 1}`, "unknown"},
		{`{"id": "x"}`, "id"},
		{`[1]`, ""},
		{`{"a":1} {"b":2}`, ""},
		{`{`, ""},
		{`{"payload": [1]}`, "payload"},
		{`{"checks": "dns"}`, "checks"},
	}
	for _, tt := range tests {
		var v testInput
		err := in.DecodeJSON(&v, []byte(tt.body), map[string]string{"id": "doc-1"})
		if tt.wantField == "-" {
			if err != nil {
				t.Errorf("%s: unexpected error %v", tt.body, err)
			}
			continue
		}
		e, ok := errors.AsType[*apierr.Error](err)
		want := "invalid_input"
		if tt.body == `{"unknown": 1}` || tt.body == `{"id": "x"}` {
			want = "unknown_parameter" // still an invalid_input (errors.Is)
		}
		if !ok || e.Code != want || e.Field != tt.wantField || !errors.Is(err, apierr.ErrInvalidInput) {
			t.Errorf("%s: err = %v, want %s on %q", tt.body, err, want, tt.wantField)
		}
	}
}

func TestValidator(t *testing.T) {
	in := InputOf(crossInput{})
	var v crossInput
	err := in.DecodeStrings(&v, map[string][]string{"from": {"2020"}, "to": {"2019"}}, nil)
	if e, ok := errors.AsType[*apierr.Error](err); !ok || e.Field != "from" {
		t.Fatalf("err = %v, want invalid from", err)
	}
	if err := in.DecodeStrings(&v, map[string][]string{"from": {"2019"}, "to": {"2020"}}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestObjectSchema(t *testing.T) {
	s := InputOf(testInput{}).Object(InPath)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{`"type":"object"`, `"additionalProperties":false`, `"maximum":50`, `"default":10`,
		`"enum":["CC0","CC-BY"]`, `"items":{"type":"string","enum":["dns","tech"]}`, `"maxLength":5`} {
		if !strings.Contains(got, want) {
			t.Errorf("schema %s lacks %s", got, want)
		}
	}
	if strings.Contains(got, `"id"`) {
		t.Errorf("path parameter leaked into the body schema: %s", got)
	}
}

type listInput struct {
	Lic  StringList `json:"license,omitempty" enum:"CC0|CC-BY" maxItems:"2" doc:"licences"`
	Text StringList `json:"input" minItems:"1" maxItems:"3" maxLength:"4"`
}

// A StringList takes one string or an array of them, and its schema says
// both: anyOf the string (with the item constraints) and the array (with
// the count constraints).
func TestStringList(t *testing.T) {
	in := InputOf(listInput{})
	tests := []struct {
		body      string
		wantField string // "" means success
		lic, text []string
	}{
		{`{"input": "abcd"}`, "", nil, []string{"abcd"}},
		{`{"input": ["a", "b", "c"], "license": "CC-BY"}`, "", []string{"CC-BY"}, []string{"a", "b", "c"}},
		{`{"input": "a", "license": ["CC0", "CC-BY"]}`, "", []string{"CC0", "CC-BY"}, []string{"a"}},
		{`{"input": []}`, "input", nil, nil},
		{`{"input": ["a", "b", "c", "d"]}`, "input", nil, nil},
		{`{"input": "abcde"}`, "input", nil, nil},
		{`{"input": ["a", 1]}`, "input[1]", nil, nil},
		{`{"input": 1}`, "input", nil, nil},
		{`{"input": "a", "license": "CC0,CC-BY"}`, "license", nil, nil},
		{`{"input": "a", "license": ["CC-BY-NC"]}`, "license[0]", nil, nil},
		{`{"license": "CC0"}`, "input", nil, nil},
	}
	for _, tt := range tests {
		var v listInput
		err := in.DecodeJSON(&v, []byte(tt.body), nil)
		if tt.wantField == "" {
			if err != nil || !slices.Equal(v.Lic, tt.lic) || !slices.Equal(v.Text, tt.text) {
				t.Errorf("%s: %+v %v", tt.body, v, err)
			}
			continue
		}
		if e, ok := errors.AsType[*apierr.Error](err); !ok || e.Field != tt.wantField {
			t.Errorf("%s: err = %v, want invalid_input on %q", tt.body, err, tt.wantField)
		}
	}
	var v listInput
	if err := in.DecodeStrings(&v, map[string][]string{"input": {"a,b"}}, nil); err != nil || !slices.Equal(v.Text, []string{"a", "b"}) {
		t.Errorf("query string: %v %v", v.Text, err)
	}
	b, err := json.Marshal(in.Object())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"license":{"description":"licences","anyOf":[{"type":"string","enum":["CC0","CC-BY"]},{"type":"array","items":{"type":"string","enum":["CC0","CC-BY"]},"maxItems":2}]}`,
		`"input":{"anyOf":[{"type":"string","maxLength":4},{"type":"array","items":{"type":"string","maxLength":4},"minItems":1,"maxItems":3}]}`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema %s lacks %s", b, want)
		}
	}
}

func FuzzDecodeJSON(f *testing.F) {
	f.Add([]byte(`{"limit": 5, "checks": ["dns"]}`))
	f.Add([]byte(`{"payload": {"x": null}, "ratio": 1e308}`))
	in := InputOf(testInput{})
	f.Fuzz(func(t *testing.T, body []byte) {
		var v testInput
		err := in.DecodeJSON(&v, body, map[string]string{"id": "a"})
		if err != nil && !errors.Is(err, apierr.ErrInvalidInput) {
			t.Fatalf("non-API error: %v", err)
		}
		if err == nil && (v.Limit < 1 || v.Limit > 50) {
			t.Fatalf("accepted limit %d", v.Limit)
		}
	})
}
