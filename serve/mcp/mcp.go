package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/x402"
)

// ProtocolVersion is the only MCP version the endpoint speaks.
const ProtocolVersion = "2025-06-18"

// DescriptionVersion is the version of the tool-protocol description (the
// serverInfo version), and SchemaVersion the version of the tools' input
// and output schemas, as the specification states them.
const (
	DescriptionVersion = "1.0.0"
	SchemaVersion      = "v1"
)

// Defaults of Config.
const (
	DefaultMaxResultBytes  = 64 << 10
	DefaultMaxRequestBytes = 2 << 20 // render_document's longest input, JSON-escaped
)

// Keys of _meta and the paging argument.
const (
	// MetaPayment carries the client's x402 PaymentPayload on tools/call.
	MetaPayment = "x402/payment"
	// MetaPaymentResponse carries the x402 SettlementResponse on a result.
	MetaPaymentResponse = "x402/payment-response"
	// MetaPage describes the part of a result that was cut (see Page).
	MetaPage = "openshelf/page"
	// MetaRights holds the rights fields of a cut result (license,
	// license_url, attribution, copyright_notice, share_alike_notice),
	// which every part also carries as its first content item.
	MetaRights = "openshelf/rights"
	// CursorArgument is the optional argument every tool accepts to read
	// the next part of a long result.
	CursorArgument = "cursor"
)

// Config configures the endpoint.
type Config struct {
	// Registry supplies the tools: every endpoint with a Tool, as it is
	// when New is called (required).
	Registry *registry.Registry
	// Core charges for paid tools; nil makes them answer
	// payments_unavailable.
	Core *x402.Core
	// BaseURL is the public URL of the service (required). Payment
	// resources are built from it, its origin is the one browser origin
	// accepted, and its host is accepted on loopback connections.
	BaseURL string
	// AllowedOrigins are further browser origins ("https://app.example")
	// whose requests are not refused.
	AllowedOrigins []string
	// AllowedHosts are further Host names accepted on loopback connections
	// (the public names a local reverse proxy forwards).
	AllowedHosts []string
	// MaxResultBytes caps the text of one result; longer results are paged.
	// Default DefaultMaxResultBytes; at least 1024.
	MaxResultBytes int
	// MaxRequestBytes caps a request body (413 above). Default
	// DefaultMaxRequestBytes.
	MaxRequestBytes int64
	// Version is the serverInfo version; default "dev".
	Version string
	// Logger defaults to discarding.
	Logger *slog.Logger
}

// handler is the HTTP front: method, Host, Origin, Accept and batch checks,
// then the SDK's stateless streamable handler.
type handler struct {
	cfg Config
	// sdk is built on first use from the frozen registry: the handler
	// is itself an endpoint of that registry, so it exists before the
	// registry is final, and its tool list must never change afterwards.
	sdk     func() http.Handler
	origins map[string]bool // normalised scheme://host[:port]
	hosts   map[string]bool // lower-case host names
}

// New builds the /mcp handler. It panics on a configuration that cannot
// work (no registry, a bad BaseURL, a tool whose input already has a cursor
// field): these are programming errors that any test building the server
// catches.
func New(cfg Config) http.Handler {
	if cfg.Registry == nil {
		panic("mcp: Config.Registry is required")
	}
	base, err := url.Parse(cfg.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		panic(fmt.Sprintf("mcp: Config.BaseURL %q must be an absolute http(s) URL", cfg.BaseURL))
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.MaxResultBytes == 0 {
		cfg.MaxResultBytes = DefaultMaxResultBytes
	}
	if cfg.MaxResultBytes < 1024 {
		panic(fmt.Sprintf("mcp: Config.MaxResultBytes %d is below 1024", cfg.MaxResultBytes))
	}
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	h := &handler{cfg: cfg, origins: map[string]bool{}, hosts: map[string]bool{}}
	o, _ := normOrigin(cfg.BaseURL)
	h.origins[o] = true
	for _, a := range cfg.AllowedOrigins {
		o, ok := normOrigin(a)
		if !ok {
			panic(fmt.Sprintf("mcp: AllowedOrigins entry %q is not scheme://host[:port]", a))
		}
		h.origins[o] = true
	}
	h.hosts[strings.ToLower(base.Hostname())] = true
	for _, a := range cfg.AllowedHosts {
		h.hosts[strings.ToLower(hostOnly(a))] = true
	}

	h.sdk = sync.OnceValue(h.build)
	return h
}

// build makes the SDK server with one tool per registry tool. It panics
// when the registry is not frozen: a programming error every test of a
// served /mcp catches.
func (h *handler) build() http.Handler {
	cfg := h.cfg
	if !cfg.Registry.Frozen() {
		panic("mcp: the registry must be frozen before /mcp serves")
	}
	// The SDK logs every stateless request's session at Info.
	sdkLog := slog.New(quieter{cfg.Logger.Handler()}).With("component", "mcp-sdk")
	srv := sdk.NewServer(&sdk.Implementation{Name: "openshelf", Title: "openshelf", Version: cfg.Version},
		&sdk.ServerOptions{
			Instructions: instructions,
			Logger:       sdkLog,
			// Pinning narrows both the initialize answer and the header check.
			SupportedProtocolVersions: []string{ProtocolVersion},
			// A non-nil Tools without ListChanged gives {"tools":{}} and no
			// logging capability.
			Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
		})
	for _, e := range cfg.Registry.Tools() {
		if e.Raw != nil {
			panic(fmt.Sprintf("mcp: endpoint %q is raw and cannot be a tool", e.Name))
		}
		t := newTool(h, e)
		srv.AddTool(t.def, t.call)
	}
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{
			Stateless:    true,
			JSONResponse: true,
			Logger:       sdkLog,
			// Host is checked here, proxy-aware (see hostAllowed).
			DisableLocalhostProtection: true,
			MaxRequestBodyBytes:        cfg.MaxRequestBytes,
		})
}

const instructions = "openshelf: open-licensed scholarly literature and live tools. Free tools answer at once. " +
	"A paid tool (its description states the price) first answers with an isError result holding an x402 " +
	"PaymentRequired (x402Version 2, accepts: USDC on Base); retry the same call with the signed PaymentPayload " +
	"in params._meta[\"x402/payment\"], and the receipt comes back in the result's _meta[\"x402/payment-response\"]. " +
	"A result longer than the size limit is cut into parts: call the tool again with the same arguments (and the same " +
	"payment, which is not charged again) plus the \"cursor\" the marker gives."

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		// A stateless server has no GET stream and no session to DELETE.
		w.Header().Set("Allow", http.MethodPost)
		rpcError(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed: this stateless MCP endpoint takes POST only")
		return
	}
	if !h.hostAllowed(r) {
		rpcError(w, http.StatusForbidden, fmt.Sprintf("Host %q is not accepted on a loopback connection", r.Host))
		return
	}
	if !h.originAllowed(r) {
		rpcError(w, http.StatusForbidden, fmt.Sprintf("cross-origin request from %q refused", r.Header.Get("Origin")))
		return
	}
	jsonOK, sseOK := accepts(r.Header.Values("Accept"))
	if !jsonOK {
		rpcError(w, http.StatusNotAcceptable, "Accept must admit application/json (MCP clients send \"application/json, text/event-stream\")")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.cfg.MaxRequestBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			rpcError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", h.cfg.MaxRequestBytes))
			return
		}
		rpcError(w, http.StatusBadRequest, "cannot read the request body")
		return
	}
	if isBatch(body) {
		rpcError(w, http.StatusBadRequest, "JSON-RPC batches are not supported: this server speaks MCP "+ProtocolVersion+", which removed batching")
		return
	}
	r2 := r.Clone(r.Context())
	r2.Body = io.NopCloser(bytes.NewReader(body))
	r2.ContentLength = int64(len(body))
	if !sseOK {
		// Every answer is JSON (JSONResponse), so a client that only
		// accepts JSON is served in full; the SDK insists on both types.
		r2.Header.Add("Accept", "text/event-stream")
	}
	jw := &jsonErrors{w: w, body: body}
	h.sdk().ServeHTTP(jw, r2)
	jw.finish()
}

// rpcError answers an HTTP-level refusal with a JSON-RPC error whose id is
// null (the request was not read as JSON-RPC).
func rpcError(w http.ResponseWriter, status int, msg string) {
	writeRPCError(w, status, codeInvalidRequest, nil, msg)
}

// hostAllowed guards against DNS rebinding: on a connection accepted on a
// loopback address, Host must name loopback, BaseURL's host or an allowed
// host. A reverse proxy on the same machine that keeps the public Host thus
// passes, and a page on another name that resolves to 127.0.0.1 does not.
// Connections on other addresses are not checked (rebinding targets local
// services).
func (h *handler) hostAllowed(r *http.Request) bool {
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || la == nil || !isLoopback(hostOnly(la.String())) {
		return true
	}
	host := hostOnly(r.Host)
	return isLoopback(host) || h.hosts[strings.ToLower(host)]
}

// originAllowed applies the spec's rule that a present but foreign Origin is
// refused. Non-browser clients send no Origin and pass; a browser request
// without Origin but marked cross-site by Sec-Fetch-Site is refused too.
func (h *handler) originAllowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		switch r.Header.Get("Sec-Fetch-Site") {
		case "", "same-origin", "none":
			return true
		}
		return false
	}
	n, ok := normOrigin(o)
	return ok && h.origins[n]
}

// normOrigin returns scheme://host[:port] in lower case without a default
// port; ok is false for anything that is not such an origin ("null", paths).
func normOrigin(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", false
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return strings.ToLower(u.Scheme) + "://" + host, true
}

// hostOnly strips a port and IPv6 brackets from host[:port].
func hostOnly(hp string) string {
	if h, _, err := net.SplitHostPort(hp); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hp, "["), "]")
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// accepts reports whether Accept header values admit application/json and
// text/event-stream (wildcards count; q=0 excludes).
func accepts(values []string) (jsonOK, sseOK bool) {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, params, _ := strings.Cut(part, ";")
			mt = strings.ToLower(strings.TrimSpace(mt))
			if zeroQ(params) {
				continue
			}
			switch mt {
			case "*/*":
				jsonOK, sseOK = true, true
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				sseOK = true
			}
		}
	}
	return jsonOK, sseOK
}

func zeroQ(params string) bool {
	for _, p := range strings.Split(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && q == 0
		}
	}
	return false
}

// isBatch reports whether a body is a JSON array (a JSON-RPC batch).
func isBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// quieter demotes Info records to Debug: in stateless mode the SDK reports
// a session connecting and ending for every request.
type quieter struct{ slog.Handler }

func (q quieter) Enabled(ctx context.Context, l slog.Level) bool {
	if l == slog.LevelInfo {
		l = slog.LevelDebug
	}
	return q.Handler.Enabled(ctx, l)
}

func (q quieter) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo {
		r.Level = slog.LevelDebug
	}
	return q.Handler.Handle(ctx, r)
}

func (q quieter) WithAttrs(as []slog.Attr) slog.Handler { return quieter{q.Handler.WithAttrs(as)} }
func (q quieter) WithGroup(name string) slog.Handler    { return quieter{q.Handler.WithGroup(name)} }
