// Package registry describes every endpoint and tool of the server in one
// place: path, method, price, input schema and description.
//
// The router, /openapi.json, the MCP tool list, the discovery documents
// (/.well-known/ai-data.json, /.well-known/x402, /llms.txt) and the x402
// payment requirements are all generated from a [Registry], so they cannot
// drift apart. Adding a tool is one [Spec] next to its handler.
package registry

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/openshelf/openshelf/serve/schema"
)

// Group is an endpoint's place in the service, used as the OpenAPI tag and
// to lay out the discovery documents.
type Group string

const (
	GroupDiscovery Group = "discovery" // free archive discovery
	GroupArchive   Group = "archive"   // paid archive content
	GroupTools     Group = "tools"     // live tools under /v1
	GroupAlarms    Group = "alarms"    // scheduled webhooks under /v1
	GroupMeta      Group = "meta"      // service documents, health, metrics
)

// Result is what a handler produces. Exactly one of Value and Body is set.
type Result struct {
	// Value is encoded as JSON.
	Value any
	// Body is sent as is with ContentType; Encoding, when set, is its
	// Content-Encoding (a zstd bundle) and the transport decodes it for a
	// client that does not accept that encoding. The transport closes it.
	Body        io.ReadCloser
	ContentType string
	Encoding    string
	// Status overrides 200 (201 for a created alarm, say).
	Status int
	// Header carries extra response headers (rights fields of a bundle).
	Header http.Header
}

// Close releases Body, if any.
func (r *Result) Close() error {
	if r != nil && r.Body != nil {
		return r.Body.Close()
	}
	return nil
}

// Endpoint is one registered route, type-erased. Build it with [Spec].
type Endpoint struct {
	Name        string // operationId, and the MCP tool name when exposed
	Method      string
	Path        string // httprouter pattern: /api/document/:id
	Summary     string
	Description string
	Group       Group
	// Price is the USD price as a decimal string ("0.001"); "" is free.
	Price string
	// Input describes the parameters; nil for endpoints that take none.
	Input *schema.Input
	// Output is a zero value of the response type, for documentation.
	Output any
	// ContentType of a successful response; "" means application/json.
	ContentType string
	// Tool exposes the endpoint over MCP; nil keeps it HTTP only.
	Tool *Tool
	// Status is the success status when it is not 200 (201 for a created
	// alarm), for the OpenAPI document.
	Status int
	// Responses declares the other statuses the endpoint can answer, with
	// their meaning (404 of a missing alarm, 409, 503 of a store), beside
	// those every endpoint of its kind answers.
	Responses map[int]string
	// Example is an example input (field name → value) for discovery
	// documents; nil derives one from the input schema.
	Example map[string]any
	// Raw serves endpoints that are not input → JSON value (the OpenAPI
	// document, /metrics, /mcp). Raw endpoints are never paid.
	Raw http.Handler

	newInput func() any
	check    func(context.Context, any) error
	handle   func(context.Context, any) (*Result, error)
}

// Tool describes how an endpoint appears as an MCP tool.
type Tool struct {
	// Name defaults to the endpoint's Name.
	Name        string
	Description string // defaults to Summary; the price is appended
	// OpenWorld is the openWorldHint: the tool reaches outside the archive.
	OpenWorld bool
	// Input, when set, is the tool's own input type (MCP clients see a
	// different interface than HTTP callers, e.g. page instead of offset);
	// Convert maps a decoded tool input to the endpoint's input.
	Input   *schema.Input
	Convert func(any) any
	// Result, when set, rewrites the endpoint's result for MCP callers
	// from the decoded tool input: a next page in the tool's own terms
	// rather than an HTTP URL, say.
	Result func(toolInput any, res *Result) *Result

	newInput func() any
}

// Spec declares an endpoint with a typed input. Handlers receive a decoded,
// validated *In.
type Spec[In any] struct {
	Name, Method, Path, Summary, Description string
	Group                                    Group
	Price                                    string
	Output                                   any
	ContentType                              string
	Tool                                     *Tool
	// Status, Responses and Example: see [Endpoint].
	Status    int
	Responses map[int]string
	Example   map[string]any
	// Check runs before payment is asked: it resolves the resource and
	// returns a not-found error for a missing one, so nobody pays for a 404.
	Check func(context.Context, *In) error
	// Handle produces the response. For a paid endpoint it runs after the
	// payment is verified and claimed, and the payment settles only when it
	// succeeds.
	Handle func(context.Context, *In) (*Result, error)
}

// NoInput is the input of endpoints without parameters.
type NoInput struct{}

// Endpoint type-erases the spec.
func (s Spec[In]) Endpoint() *Endpoint {
	e := &Endpoint{
		Name: s.Name, Method: s.Method, Path: s.Path, Summary: s.Summary, Description: s.Description,
		Group: s.Group, Price: s.Price, Output: s.Output, ContentType: s.ContentType, Tool: s.Tool,
		Status: s.Status, Responses: s.Responses, Example: s.Example,
		Input:    schema.InputOf(new(In)),
		newInput: func() any { return new(In) },
		handle: func(ctx context.Context, in any) (*Result, error) {
			return s.Handle(ctx, in.(*In))
		},
	}
	if s.Check != nil {
		e.check = func(ctx context.Context, in any) error { return s.Check(ctx, in.(*In)) }
	}
	return e
}

// ToolInput declares a tool's own input type, converted to the endpoint's.
func ToolInput[T, In any](t *Tool, convert func(*T) *In) *Tool {
	t.Input = schema.InputOf(new(T))
	t.newInput = func() any { return new(T) }
	t.Convert = func(v any) any { return convert(v.(*T)) }
	return t
}

// NewInput returns a pointer to a fresh input value.
func (e *Endpoint) NewInput() any { return e.newInput() }

// Check resolves the resource before payment; nil when the endpoint has no
// such step.
func (e *Endpoint) Check(ctx context.Context, in any) error {
	if e.check == nil {
		return nil
	}
	return e.check(ctx, in)
}

// Handle runs the handler.
func (e *Endpoint) Handle(ctx context.Context, in any) (*Result, error) { return e.handle(ctx, in) }

// Paid reports whether the endpoint has a price.
func (e *Endpoint) Paid() bool { return e.Price != "" }

// ToolName is the MCP name of the endpoint's tool.
func (e *Endpoint) ToolName() string {
	if e.Tool != nil && e.Tool.Name != "" {
		return e.Tool.Name
	}
	return e.Name
}

// ToolInput returns the input description MCP clients see, and a function
// that decodes into it and converts to the endpoint's input.
func (e *Endpoint) ToolInput() (*schema.Input, func() any, func(any) any) {
	if e.Tool != nil && e.Tool.Input != nil {
		return e.Tool.Input, e.Tool.newInput, e.Tool.Convert
	}
	return e.Input, e.newInput, func(v any) any { return v }
}

// OpenAPIPath is Path in OpenAPI form: /api/document/{id}.
func (e *Endpoint) OpenAPIPath() string { return paramRE.ReplaceAllString(e.Path, "{$1}") }

var paramRE = regexp.MustCompile(`[:*]([A-Za-z0-9_]+)`)

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// Registry holds every endpoint in registration order. Registration ends
// with Freeze; everything generated from a registry (router, OpenAPI, MCP
// tools, discovery documents, prices) is generated from its frozen state,
// so what a client discovers is what the server serves.
type Registry struct {
	endpoints []*Endpoint
	byName    map[string]*Endpoint
	frozen    bool
}

// New returns an empty registry.
func New() *Registry { return &Registry{byName: map[string]*Endpoint{}} }

// Add registers endpoints. It panics on a duplicate name, method and path,
// or a malformed declaration: these are programming errors that any test
// building the server catches.
func (r *Registry) Add(eps ...*Endpoint) {
	if r.frozen {
		panic("registry: Add after Freeze")
	}
	for _, e := range eps {
		if !nameRE.MatchString(e.Name) {
			panic(fmt.Sprintf("registry: bad endpoint name %q", e.Name))
		}
		if _, dup := r.byName[e.Name]; dup {
			panic(fmt.Sprintf("registry: duplicate endpoint %q", e.Name))
		}
		for _, o := range r.endpoints {
			if o.Method == e.Method && o.Path == e.Path {
				panic(fmt.Sprintf("registry: %s %s registered twice", e.Method, e.Path))
			}
			if e.Tool != nil && o.Tool != nil && o.ToolName() == e.ToolName() {
				panic(fmt.Sprintf("registry: duplicate tool %q", e.ToolName()))
			}
		}
		if e.Raw == nil && e.handle == nil {
			panic(fmt.Sprintf("registry: endpoint %q has no handler", e.Name))
		}
		if e.Raw != nil && e.Price != "" {
			panic(fmt.Sprintf("registry: raw endpoint %q cannot be paid", e.Name))
		}
		if e.Price != "" {
			if _, err := AtomicUSDC(e.Price); err != nil {
				panic(fmt.Sprintf("registry: endpoint %q: %v", e.Name, err))
			}
		}
		if e.Tool != nil && !nameRE.MatchString(e.ToolName()) {
			panic(fmt.Sprintf("registry: bad tool name %q", e.ToolName()))
		}
		r.endpoints = append(r.endpoints, e)
		r.byName[e.Name] = e
	}
}

// Freeze ends registration: a later Add panics. It is idempotent.
func (r *Registry) Freeze() { r.frozen = true }

// Frozen reports whether registration has ended.
func (r *Registry) Frozen() bool { return r.frozen }

// Endpoints returns every endpoint in registration order.
func (r *Registry) Endpoints() []*Endpoint { return r.endpoints }

// Lookup returns the endpoint with the given name, or nil.
func (r *Registry) Lookup(name string) *Endpoint { return r.byName[name] }

// Tools returns the endpoints exposed over MCP, sorted by tool name.
func (r *Registry) Tools() []*Endpoint {
	var out []*Endpoint
	for _, e := range r.endpoints {
		if e.Tool != nil {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ToolName() < out[j].ToolName() })
	return out
}

// Paid returns the paid endpoints in registration order.
func (r *Registry) Paid() []*Endpoint {
	var out []*Endpoint
	for _, e := range r.endpoints {
		if e.Paid() {
			out = append(out, e)
		}
	}
	return out
}

// ToolDescription is the description an MCP client sees: the summary or
// the tool's own text, and the price.
func (e *Endpoint) ToolDescription() string {
	d := e.Summary
	if e.Tool != nil && e.Tool.Description != "" {
		d = e.Tool.Description
	}
	d = strings.TrimRight(d, ". ")
	if e.Price == "" {
		return d + ". Free."
	}
	return d + ". Price: " + e.Price + " USD (USDC on Base, paid with x402)."
}
