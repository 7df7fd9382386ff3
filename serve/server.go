package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/x402"
)

// maxBody caps JSON request bodies unless an endpoint sets its own
// (Endpoint.MaxBody): nearly every input is small.
const maxBody = 64 << 10

// Server is the HTTP front of the registry: one route per endpoint, the
// shared middleware, and the payment path for priced endpoints.
type Server struct {
	cfg     HTTPConfig
	log     *slog.Logger
	reg     *registry.Registry
	pay     Payments
	metrics *Metrics
	now     func() time.Time
	limiter *limiter // shared by every route; nil when limiting is off
	handler http.Handler
}

// HTTPConfig is what the HTTP layer needs.
type HTTPConfig struct {
	// BaseURL is the public URL of the service (https://... behind a TLS
	// proxy); payment resources and pagination links are built from it.
	BaseURL   string
	RateLimit RateLimit
	AccessLog bool
	Logger    *slog.Logger
	Now       func() time.Time
	// Metrics receives request counts; nil makes a fresh set.
	Metrics *Metrics
}

// NewHTTP builds the handler for reg and freezes reg: the router, like
// every document generated from the registry, describes its final state.
// pay may be nil when no endpoint is paid.
func NewHTTP(cfg HTTPConfig, reg *registry.Registry, pay Payments) *Server {
	reg.Freeze()
	s := &Server{cfg: cfg, log: cfg.Logger, reg: reg, pay: pay, metrics: cfg.Metrics, now: cfg.Now}
	if s.metrics == nil {
		s.metrics = NewMetrics()
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.RateLimit.PerSecond > 0 {
		s.limiter = newLimiter(cfg.RateLimit, s.now)
	}
	s.handler = s.router()
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Metrics returns the Prometheus handler of this server's collectors.
func (s *Server) Metrics() http.Handler { return s.metrics.Handler() }

func (s *Server) router() http.Handler {
	rt := httprouter.New()
	rt.RedirectTrailingSlash = false
	rt.RedirectFixedPath = false
	rt.HandleMethodNotAllowed = true
	// OPTIONS answers CORS preflights for every route: agents in browsers
	// pay with the same headers as anyone else.
	rt.HandleOPTIONS = true
	rt.GlobalOPTIONS = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Access-Control-Request-Method") != "" {
			h := w.Header()
			h.Set("Access-Control-Allow-Methods", h.Get("Allow"))
			h.Set("Access-Control-Allow-Headers", "Content-Type, PAYMENT-SIGNATURE, MCP-Protocol-Version, Mcp-Session-Id, Authorization")
			h.Set("Access-Control-Max-Age", "86400")
		}
		w.WriteHeader(http.StatusNoContent)
	})
	rt.NotFound = s.instrument("not_found", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, apierr.New(apierr.ErrNotFound, "", "no such endpoint: "+r.URL.Path))
	}))
	rt.MethodNotAllowed = s.instrument("method_not_allowed", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// httprouter has set Allow, always with OPTIONS (the CORS
		// preflight); the methods a client can use are the others.
		var allow []string
		for _, m := range strings.Split(w.Header().Get("Allow"), ", ") {
			if m != http.MethodOptions && m != "" {
				allow = append(allow, m)
			}
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		s.writeError(w, r, &apierr.Error{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed",
			Message: r.Method + " is not allowed here; allowed: " + w.Header().Get("Allow")})
	}))
	rt.PanicHandler = nil // instrument recovers
	for _, e := range s.reg.Endpoints() {
		var h http.Handler
		if e.Raw != nil {
			h = e.Raw
		} else {
			h = s.endpoint(e)
		}
		h = s.instrument(e.Path, h)
		// Everything is rate limited, /mcp included, but the probes an
		// operator's monitoring polls.
		if e.Name != "healthz" && e.Name != "metrics" {
			h = s.rateLimited(h)
		}
		rt.Handler(e.Method, e.Path, h)
		if e.Method == http.MethodGet {
			// HEAD answers what GET would, headers only (net/http drops
			// the body), and never charges: see endpoint.
			rt.Handler(http.MethodHead, e.Path, h)
		}
	}
	return cors(rt)
}

// endpoint adapts a registry endpoint to HTTP: decode and validate the
// input (400), resolve the resource (404), then run the handler, behind
// payment when the endpoint has a price.
func (s *Server) endpoint(e *registry.Endpoint) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, err := s.decode(e, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		ctx := r.Context()
		if err := e.Check(ctx, in); err != nil {
			s.writeError(w, r, err)
			return
		}
		if e.Paid() {
			if r.Method == http.MethodHead {
				// A HEAD never buys anything: it gets the challenge a
				// GET without payment gets, whatever it carries.
				r = r.Clone(ctx)
				r.Header.Del(x402.HeaderPaymentSignature)
			}
			s.servePaid(w, r, e, in)
			return
		}
		res, err := e.Handle(ctx, in)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.writeResult(w, r, res, nil)
	})
}

func (s *Server) decode(e *registry.Endpoint, r *http.Request) (any, error) {
	in := e.NewInput()
	path := map[string]string{}
	for _, p := range httprouter.ParamsFromContext(r.Context()) {
		path[p.Key] = p.Value
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return in, e.Input.DecodeStrings(in, r.URL.Query(), path)
	}
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return nil, &apierr.Error{Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type",
			Message: "send the input as application/json", Kind: apierr.ErrInvalidInput}
	}
	limit := int64(maxBody)
	if e.MaxBody > 0 {
		limit = e.MaxBody
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, &apierr.Error{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large",
				Message: fmt.Sprintf("request body over %d bytes", limit), Kind: apierr.ErrInvalidInput}
		}
		return nil, bodyReadError(r, err)
	}
	return in, e.Input.DecodeJSON(in, body, path)
}

// writeResult sends a handler's result. extra carries payment headers.
func (s *Server) writeResult(w http.ResponseWriter, r *http.Request, res *registry.Result, extra http.Header) {
	defer res.Close()
	for k, vs := range res.Header {
		w.Header()[k] = vs
	}
	for k, vs := range extra {
		w.Header()[k] = vs
	}
	status := res.Status
	if status == 0 {
		status = http.StatusOK
	}
	if res.Body == nil {
		writeJSON(w, status, res.Value)
		return
	}
	s.writeBody(w, r, status, res)
}

// Run serves until ctx is cancelled, then shuts down gracefully, giving
// in-flight requests up to grace to finish.
func Run(ctx context.Context, addr string, h http.Handler, grace time.Duration, log *slog.Logger, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", grace)
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// errClientGone is the error of a request whose client went away while
// sending its body: logged as such, never as a server failure. Its status
// (499, nginx's "client closed request") reaches only logs and metrics.
var errClientGone = &apierr.Error{Status: 499, Code: "client_closed_request", Kind: apierr.ErrInvalidInput,
	Message: "the client closed the connection before sending the whole body"}

// bodyReadError classifies a failed body read: the server's read timeout
// (a client sending too short a body) is 408; a client that went away is
// errClientGone; anything else is a 400.
func bodyReadError(r *http.Request, err error) error {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return &apierr.Error{Status: http.StatusRequestTimeout, Code: "request_timeout", Kind: apierr.ErrInvalidInput,
			Message: "the request body did not arrive in time (fewer bytes than Content-Length?)"}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || r.Context().Err() != nil:
		return fmt.Errorf("%w: %v", errClientGone, err)
	}
	return apierr.Invalid("", "cannot read body: "+err.Error())
}
