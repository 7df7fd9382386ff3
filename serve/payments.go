package serve

import (
	"context"
	"net/http"
	"sync"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/x402"
)

// Payments is the x402 core as a transport sees it.
type Payments interface {
	// ServeHTTP runs a paid call for an HTTP request: it answers 402 with
	// requirements when the payment is missing or bad, otherwise runs the
	// handler and settles only on its success.
	ServeHTTP(w http.ResponseWriter, r *http.Request, e *registry.Endpoint, resource string,
		run func(context.Context, registry.Charge) (*registry.Result, error), write func(*registry.Result, http.Header), fail func(error))
}

// servePaid runs a paid endpoint's call through the payments, which ask
// for payment first and settle only when it succeeds.
func (s *Server) servePaid(w http.ResponseWriter, r *http.Request, e *registry.Endpoint, in any) {
	if s.pay == nil {
		s.writeError(w, r, apierr.New(apierr.ErrUnavailable, "payments_unavailable", "payments are not configured"))
		return
	}
	resource, err := e.Resource(s.cfg.BaseURL, in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	run := func(ctx context.Context, c registry.Charge) (*registry.Result, error) {
		return e.HandlePaid(ctx, in, c)
	}
	write := func(res *registry.Result, extra http.Header) { s.writeResult(w, r, res, extra) }
	fail := func(err error) { s.writeError(w, r, err) }
	s.pay.ServeHTTP(w, r, e, resource, run, write, fail)
}

// HTTPPayments adapts the x402 core to HTTP: PAYMENT-SIGNATURE in, 402 with
// PAYMENT-REQUIRED or 200 with PAYMENT-RESPONSE out. MCP calls the same
// core (serve/mcp), with the same requirements, ledger and stored answers.
type HTTPPayments struct {
	Core *x402.Core

	bazaar sync.Map // *registry.Endpoint → its Bazaar extension, built once
}

// Required returns the requirements of a paid endpoint at resource, from
// the price parsed at registration. A paid endpoint whose price did not
// parse never gets here: the server refuses to start.
func (p *HTTPPayments) Required(e *registry.Endpoint, resource string) x402.PaymentRequired {
	pr, err := p.Core.RequirementsFor(resource, e.Summary, mimeType(e), e.Amount)
	if err != nil {
		// Requirements without accepts: Pay answers 500, never a panic.
		return x402.PaymentRequired{X402Version: x402.Version, Error: "server misconfigured",
			Resource: x402.Resource{URL: resource}, Accepts: []x402.PaymentRequirements{}}
	}
	p.withBazaar(&pr, e)
	return pr
}

// withBazaar adds the x402 Bazaar discovery extension, generated from the
// registry, to a 402 challenge, so facilitators' catalogues can list the
// endpoint. It depends on the endpoint alone and is only read (encoded)
// afterwards, so it is built once per endpoint, not per request.
func (p *HTTPPayments) withBazaar(req *x402.PaymentRequired, e *registry.Endpoint) {
	if req.Extensions == nil {
		req.Extensions = map[string]any{}
	}
	b, ok := p.bazaar.Load(e)
	if !ok {
		b, _ = p.bazaar.LoadOrStore(e, e.Bazaar())
	}
	req.Extensions["bazaar"] = b
}

func mimeType(e *registry.Endpoint) string {
	if e.ContentType != "" {
		return e.ContentType
	}
	return "application/json"
}

// codecFor chooses how a paid answer is kept for re-sends. Archive
// answers are objects of the immutable snapshot (a document, a bundle):
// a re-send reads the same object again, with no upstream call and no
// recomputation, so they are not copied into the ledger. Everything else
// (live tools above all) is stored and replayed byte for byte.
func codecFor(e *registry.Endpoint) x402.Codec[*registry.Result] {
	if e.Group == registry.GroupArchive {
		return nil
	}
	return resultCodec{}
}

// Charge converts the core's payment to what handlers see.
func Charge(p x402.Payment) registry.Charge {
	return registry.Charge{ID: p.ID, Payer: p.Payer, Replay: p.Replay}
}

// ServeHTTP implements Payments.
func (p *HTTPPayments) ServeHTTP(w http.ResponseWriter, r *http.Request, e *registry.Endpoint, resource string,
	run func(context.Context, registry.Charge) (*registry.Result, error), write func(*registry.Result, http.Header), fail func(error)) {
	req := p.Required(e, resource)
	handler := func(ctx context.Context, pay x402.Payment) (*registry.Result, error) { return run(ctx, Charge(pay)) }
	res, receipt, err := x402.PayHeader(r.Context(), p.Core, req, r.Header.Get(x402.HeaderPaymentSignature), handler, codecFor(e))
	if err != nil {
		if pe, ok := x402.AsPaymentError(err); ok {
			h := w.Header()
			h.Set(x402.HeaderPaymentRequired, x402.EncodeHeader(pe.Required))
			if pe.Settlement != nil {
				h.Set(x402.HeaderPaymentResponse, x402.EncodeHeader(pe.Settlement))
			}
			writeJSON(w, http.StatusPaymentRequired, pe.Required)
			return
		}
		fail(err)
		return
	}
	extra := http.Header{}
	extra.Set(x402.HeaderPaymentResponse, x402.EncodeHeader(receipt))
	write(res, extra)
}
