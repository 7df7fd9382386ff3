package registry

import (
	"net/http"
	"strings"
)

// Callback is a request the service sends on its own to a URL the caller
// gave: an alarm's delivery. A receiver has to know its headers and how to
// check them, so every machine document says so: the OpenAPI document as
// the operation's callbacks, /api and /.well-known/ai-data.json in the
// endpoint's entry, /llms.txt under the endpoint's line.
type Callback struct {
	// Name names it in the OpenAPI callbacks ("delivery").
	Name string `json:"name"`
	// Method is how it is sent; URL says where, as an OpenAPI runtime
	// expression ("{$request.body#/callback_url}").
	Method string `json:"method"`
	URL    string `json:"url"`
	// Summary says what is sent; Body describes the request body.
	Summary string `json:"summary"`
	Body    string `json:"body"`
	// Headers are the headers every request carries.
	Headers []CallbackHeader `json:"headers"`
	// Verify says how a receiver checks a request is genuine.
	Verify string `json:"verify"`
	// Answer says what answer counts as received and what happens
	// otherwise.
	Answer string `json:"answer"`
}

// CallbackHeader is one header of a callback.
type CallbackHeader struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// openAPI is the OpenAPI 3.1 callback object of c, keyed by its name.
func (c *Callback) openAPI(operation string) map[string]any {
	params := make([]any, len(c.Headers))
	for i, h := range c.Headers {
		params[i] = map[string]any{"name": h.Name, "in": "header", "required": true,
			"description": h.Description, "schema": map[string]any{"type": "string"}}
	}
	op := map[string]any{
		"operationId": operation + "_" + c.Name,
		"summary":     c.Summary,
		"description": c.Verify + " " + c.Answer,
		"parameters":  params,
		"requestBody": map[string]any{"required": true, "description": c.Body,
			"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}},
		// The receiver checks the signature headers above; the request
		// carries no credential of an OpenAPI security scheme.
		"security": []any{},
		"responses": map[string]any{
			"2XX":     map[string]any{"description": "Received."},
			"4XX":     map[string]any{"description": "Refused: a failed attempt, retried (see the description)."},
			"default": map[string]any{"description": "Any other answer: a failed attempt, retried (see the description)."},
		},
	}
	method := c.Method
	if method == "" {
		method = http.MethodPost
	}
	return map[string]any{c.Name: map[string]any{c.URL: map[string]any{strings.ToLower(method): op}}}
}
