package registry

import (
	"net/http"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/openshelf/openshelf/serve/schema"
)

// Bazaar returns the x402 Bazaar discovery extension of a paid endpoint,
// the value of extensions.bazaar in its 402 challenge: {info, schema}, with
// info the method and an example input and schema the JSON Schema of info,
// in the form @x402/extensions declares and validates (query parameters
// for GET, a JSON body otherwise; path parameters apart). Facilitators'
// catalogues read it to list the endpoint.
func (e *Endpoint) Bazaar() map[string]any {
	query, path, body := e.inputParts()
	ex := e.ExampleInput()
	pick := func(s *schema.Schema) map[string]any {
		out := map[string]any{}
		for k := range s.Properties {
			if v, ok := ex[k]; ok {
				out[k] = v
			}
		}
		return out
	}
	input := map[string]any{"type": "http", "method": e.Method}
	props := map[string]any{
		"type":   map[string]any{"type": "string", "const": "http"},
		"method": map[string]any{"type": "string", "const": e.Method},
	}
	required := []any{"type", "method"}
	if len(path.Properties) > 0 {
		input["pathParams"] = pick(path)
		props["pathParams"] = path
		required = append(required, "pathParams")
	}
	if len(query.Properties) > 0 {
		input["queryParams"] = pick(query)
		props["queryParams"] = query
	}
	if e.Method != http.MethodGet && e.Method != http.MethodHead && e.Method != http.MethodDelete {
		input["bodyType"] = "json"
		input["body"] = pick(body)
		props["bodyType"] = map[string]any{"type": "string", "const": "json"}
		props["body"] = body
		required = append(required, "bodyType", "body")
	}
	ct := e.ContentType
	if ct == "" {
		ct = "application/json"
	}
	outType := "json"
	if !strings.HasPrefix(ct, "application/json") {
		outType = ct
	}
	output := map[string]any{"type": outType, "format": ct, "description": e.Summary}
	return map[string]any{
		"info": map[string]any{"input": input, "output": output},
		"schema": map[string]any{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type":    "object",
			"properties": map[string]any{
				"input": map[string]any{"type": "object", "properties": props,
					"required": required, "additionalProperties": false},
				"output": map[string]any{"type": "object", "properties": map[string]any{
					"type":        map[string]any{"type": "string"},
					"format":      map[string]any{"type": "string"},
					"description": map[string]any{"type": "string"},
				}, "required": []any{"type"}},
			},
			"required": []any{"input"},
		},
	}
}

// inputParts splits the input schema by where each field travels.
func (e *Endpoint) inputParts() (query, path, body *schema.Schema) {
	query = &schema.Schema{Type: "object", Properties: map[string]*schema.Schema{}}
	path = &schema.Schema{Type: "object", Properties: map[string]*schema.Schema{}}
	body = &schema.Schema{Type: "object", Properties: map[string]*schema.Schema{}}
	if e.Input == nil {
		return query, path, body
	}
	for _, f := range e.Input.Fields {
		var dst *schema.Schema
		switch f.In {
		case schema.InPath:
			dst = path
		case schema.InQuery:
			dst = query
		case schema.InBody:
			dst = body
		default:
			if e.Method == http.MethodGet {
				dst = query
			} else {
				dst = body
			}
		}
		dst.Properties[f.Name] = f.Schema
		if f.Required {
			dst.Required = append(dst.Required, f.Name)
		}
	}
	return query, path, body
}

// BazaarMCP is the Bazaar discovery extension of the endpoint's MCP tool,
// for the 402 challenge a paid tool call answers: tool name, description,
// transport, input JSON Schema and an example, in the form
// @x402/extensions declares for MCP.
func (e *Endpoint) BazaarMCP() map[string]any {
	in, _, _ := e.ToolInput()
	inSchema := &schema.Schema{Type: "object", Properties: map[string]*schema.Schema{}}
	ex := map[string]any{}
	if in != nil {
		inSchema = in.Object()
		for _, f := range in.Fields {
			if f.Required {
				ex[f.Name] = exampleField(f.Name, f.Schema)
			}
		}
	}
	return map[string]any{
		"info": map[string]any{
			"input": map[string]any{"type": "mcp", "toolName": e.ToolName(), "description": e.ToolDescription(),
				"transport": "streamable-http", "inputSchema": inSchema, "example": ex},
			"output": map[string]any{"type": "json", "format": "application/json", "description": e.Summary},
		},
		"schema": map[string]any{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type":    "object",
			"properties": map[string]any{
				"input": map[string]any{"type": "object", "properties": map[string]any{
					"type":        map[string]any{"type": "string", "const": "mcp"},
					"toolName":    map[string]any{"type": "string", "const": e.ToolName()},
					"description": map[string]any{"type": "string"},
					"transport":   map[string]any{"type": "string", "enum": []any{"streamable-http"}},
					"inputSchema": map[string]any{"type": "object"},
					"example":     map[string]any{"type": "object"},
				}, "required": []any{"type", "toolName", "inputSchema"}, "additionalProperties": false},
				"output": map[string]any{"type": "object", "properties": map[string]any{
					"type":        map[string]any{"type": "string"},
					"format":      map[string]any{"type": "string"},
					"description": map[string]any{"type": "string"},
				}, "required": []any{"type"}},
			},
			"required": []any{"input"},
		},
	}
}

// ExampleInput is the endpoint's declared example input, or one derived
// from its input schema: every required field, with its default, first
// enum value or the smallest value its constraints accept.
func (e *Endpoint) ExampleInput() map[string]any {
	if e.Example != nil {
		return e.Example
	}
	out := map[string]any{}
	if e.Input == nil {
		return out
	}
	for _, f := range e.Input.Fields {
		if f.Required {
			out[f.Name] = exampleField(f.Name, f.Schema)
		}
	}
	return out
}

// nameHints are realistic values for common field names, used when the
// field's schema accepts them.
var nameHints = map[string]string{
	"url": "https://example.org/", "callback_url": "https://example.org/hook", "domain": "example.org",
	"ticker": "AAPL", "query": "zebrafish neurons", "q": "zebrafish neurons", "address": "Berlin",
}

func exampleField(name string, s *schema.Schema) any {
	if h, ok := nameHints[name]; ok && s != nil && s.Type == "string" && s.Default == nil && len(s.Enum) == 0 && accepts(s, h) {
		return h
	}
	return exampleOf(s)
}

// accepts reports whether the string v meets s's length and pattern.
func accepts(s *schema.Schema, v string) bool {
	n := len([]rune(v))
	if s.MinLength != nil && n < *s.MinLength || s.MaxLength != nil && n > *s.MaxLength {
		return false
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil || !re.MatchString(v) {
			return false
		}
	}
	return true
}

func exampleOf(s *schema.Schema) any {
	if s == nil {
		return nil
	}
	if s.Default != nil {
		return s.Default
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	if len(s.AnyOf) > 0 {
		// The first form is the simplest (a StringList's single string).
		return exampleOf(s.AnyOf[0])
	}
	switch s.Type {
	case "integer", "number":
		if s.Minimum != nil {
			if s.Type == "integer" {
				return int64(*s.Minimum)
			}
			return *s.Minimum
		}
		return 1
	case "boolean":
		return false
	case "array":
		n := 1
		if s.MinItems != nil && *s.MinItems > n {
			n = *s.MinItems
		}
		items := make([]any, n)
		for i := range items {
			items[i] = exampleOf(s.Items)
		}
		return items
	case "object":
		o := map[string]any{}
		for _, k := range s.Required {
			o[k] = exampleOf(s.Properties[k])
		}
		return o
	case "string":
		return exampleString(s)
	}
	return "example"
}

func exampleString(s *schema.Schema) string {
	switch s.Format {
	case "uri", "url":
		return "https://example.org/"
	case "date-time":
		return "2030-01-01T00:00:00Z"
	case "date":
		return "2030-01-01"
	case "email":
		return "agent@example.org"
	}
	v := "example"
	if s.Pattern != "" {
		if re, err := syntax.Parse(s.Pattern, syntax.Perl); err == nil {
			var b strings.Builder
			shortestMatch(&b, re.Simplify())
			v = b.String()
		}
	}
	if s.MinLength != nil {
		for len([]rune(v)) < *s.MinLength {
			v += "x" // only when no pattern pins the characters
		}
	}
	if s.MaxLength != nil && len([]rune(v)) > *s.MaxLength {
		v = string([]rune(v)[:*s.MaxLength])
	}
	return v
}

// shortestMatch writes a short string the regexp matches: the first
// alternative, the minimum repetition (at least one, so an id is not
// empty), the first character of each class, preferring a lower-case
// letter or a digit when the class has one.
func shortestMatch(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(classRune(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture:
		shortestMatch(b, re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			shortestMatch(b, s)
		}
	case syntax.OpAlternate:
		shortestMatch(b, re.Sub[0])
	case syntax.OpPlus:
		shortestMatch(b, re.Sub[0])
	case syntax.OpRepeat:
		n := max(re.Min, 1)
		if re.Max >= 0 && n > re.Max {
			n = re.Max
		}
		for range n {
			shortestMatch(b, re.Sub[0])
		}
	case syntax.OpStar, syntax.OpQuest:
		// zero occurrences, unless the operand is all there is
	}
}

func classRune(ranges []rune) rune {
	for _, pref := range []rune{'a', '1', 'A'} {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= pref && pref <= ranges[i+1] {
				return pref
			}
		}
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'a'
}
