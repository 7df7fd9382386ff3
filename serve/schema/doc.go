// Package schema derives JSON Schema (draft 2020-12) from Go structs and
// decodes and validates input against it.
//
// One input struct per endpoint describes its parameters for every surface:
// the OpenAPI document, the MCP tool's inputSchema, and the decoding of HTTP
// query strings, path parameters, JSON bodies and MCP arguments. Constraints
// are struct tags, so the documentation and the checks cannot drift:
//
//	type SearchInput struct {
//		Q     string `json:"q,omitempty" doc:"Words that must all match." maxLength:"200"`
//		Limit int    `json:"limit,omitempty" min:"1" max:"50" default:"10"`
//		ID    string `json:"id" in:"path" pattern:"^[a-z0-9-]{1,80}$"`
//	}
//
// Tags: json (name; omitempty makes a field optional), doc (description),
// in (path, query or body; default query for GET and body otherwise), min and
// max (numbers), minLength and maxLength (strings, in characters), pattern,
// format, enum (values separated by |; for a slice, of its items), default,
// minItems and maxItems. A field tagged json:"-" is not an input. A field of
// type [StringList] takes one string or an array of strings: its schema is
// anyOf the two, the string tags applying to each string.
//
// An input type may also implement [Validator] for rules that span fields;
// its errors should be built with apierr.Invalid so they name the field.
package schema
