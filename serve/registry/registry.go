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
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/openshelf/openshelf/serve/price"
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
	// Amount is Price in USDC base units, parsed once by [Registry.Add]
	// with [price.Parse]; every payment document uses it.
	Amount price.Atomic
	// Input describes the parameters; nil for endpoints that take none.
	Input *schema.Input
	// Output is a zero value of the response type, for documentation.
	Output any
	// ContentType of a successful response; "" means application/json.
	ContentType string
	// MaxBody caps a JSON request body in bytes; 0 is the server's
	// default (64 KiB), enough for every input but long documents.
	MaxBody int64
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
	// Callback describes the request the service sends later to a URL the
	// caller gave (an alarm's delivery), for the OpenAPI document and the
	// discovery documents; nil when there is none.
	Callback *Callback
	// Raw serves endpoints that are not input → JSON value (the OpenAPI
	// document, /metrics, /mcp). Raw endpoints are never paid.
	Raw http.Handler

	newInput   func() any
	check      func(context.Context, any) error
	handle     func(context.Context, any) (*Result, error)
	handlePaid func(context.Context, any, Charge) (*Result, error)
}

// Charge is what a paid handler may know about the payment it runs under.
// The payment step hands it over explicitly (see [Spec.HandlePaid]).
type Charge struct {
	// ID identifies the authorization (network, asset, payer, nonce): the
	// same on every re-send of one payment, different for any other. A
	// handler that creates something (an alarm) uses it as an idempotency
	// key, so a re-sent payment returns what it bought instead of buying it
	// again.
	ID string
	// Payer is the paying address.
	Payer string
	// Replay is true when the payment was already settled for this
	// resource and the handler runs again without a charge (its stored
	// answer was not kept, e.g. because it was too large or no-store).
	Replay bool
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
	// MaxBody is Endpoint.MaxBody.
	MaxBody int64
	// Status, Responses, Example and Callback: see [Endpoint].
	Status    int
	Responses map[int]string
	Example   map[string]any
	Callback  *Callback
	// Check runs before payment is asked: it resolves the resource and
	// returns a not-found error for a missing one, so nobody pays for a 404.
	Check func(context.Context, *In) error
	// Handle produces the response. For a paid endpoint it runs after the
	// payment is verified and claimed, and the payment settles only when it
	// succeeds.
	Handle func(context.Context, *In) (*Result, error)
	// HandlePaid, when set, replaces Handle for paid calls: it receives the
	// payment explicitly. Handlers that need no payment details set only
	// Handle.
	HandlePaid func(context.Context, *In, Charge) (*Result, error)
}

// NoInput is the input of endpoints without parameters.
type NoInput struct{}

// Endpoint type-erases the spec.
func (s Spec[In]) Endpoint() *Endpoint {
	e := &Endpoint{
		Name: s.Name, Method: s.Method, Path: s.Path, Summary: s.Summary, Description: s.Description,
		Group: s.Group, Price: s.Price, Output: s.Output, ContentType: s.ContentType, Tool: s.Tool,
		MaxBody: s.MaxBody, Status: s.Status, Responses: s.Responses, Example: s.Example, Callback: s.Callback,
		Input:    schema.InputOf(new(In)),
		newInput: func() any { return new(In) },
	}
	if s.Handle != nil {
		e.handle = func(ctx context.Context, in any) (*Result, error) { return s.Handle(ctx, in.(*In)) }
	}
	if s.HandlePaid != nil {
		e.handlePaid = func(ctx context.Context, in any, c Charge) (*Result, error) { return s.HandlePaid(ctx, in.(*In), c) }
		if e.handle == nil {
			// A free call of a paid-only handler (payments disabled in a
			// test, say) runs without a charge.
			e.handle = func(ctx context.Context, in any) (*Result, error) { return s.HandlePaid(ctx, in.(*In), Charge{}) }
		}
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

// HandlePaid runs the handler of a paid call under charge c: the spec's
// HandlePaid when it has one, else Handle.
func (e *Endpoint) HandlePaid(ctx context.Context, in any, c Charge) (*Result, error) {
	if e.handlePaid != nil {
		return e.handlePaid(ctx, in, c)
	}
	return e.handle(ctx, in)
}

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
	errs      []error
}

// New returns an empty registry.
func New() *Registry { return &Registry{byName: map[string]*Endpoint{}} }

// Add registers endpoints. It panics on a duplicate name, method and path,
// or a malformed declaration: these are programming errors that any test
// building the server catches. A price that does not parse is not a panic
// but a start-up error reported by [Registry.Err]; such an endpoint is not
// registered, so no request can reach it.
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
			a, err := price.Parse(e.Price)
			if err == nil && a == 0 {
				err = fmt.Errorf("%w %q: zero (leave it empty for a free endpoint)", price.ErrInvalid, e.Price)
			}
			if err != nil {
				r.errs = append(r.errs, fmt.Errorf("registry: endpoint %q: %w", e.Name, err))
				continue
			}
			e.Amount = a
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

// Err reports every declaration Add refused without panicking (an
// invalid price); the server refuses to start on it.
func (r *Registry) Err() error { return errors.Join(r.errs...) }

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
