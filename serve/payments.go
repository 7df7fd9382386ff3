package serve

import (
	"context"
	"net/http"

	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/x402"
)

// X402 adapts the x402 core to HTTP: PAYMENT-SIGNATURE in, 402 with
// PAYMENT-REQUIRED or 200 with PAYMENT-RESPONSE out.
type X402 struct {
	Core *x402.Core
}

// Required returns the requirements of a paid endpoint at resource.
func (p *X402) Required(e *registry.Endpoint, resource string) x402.PaymentRequired {
	req := p.Core.Requirements(resource, e.Summary, mimeType(e), e.Price)
	withBazaar(&req, e)
	return req
}

// withBazaar adds the x402 Bazaar discovery extension, generated from the
// registry, to a 402 challenge, so facilitators' catalogues can list the
// endpoint.
func withBazaar(req *x402.PaymentRequired, e *registry.Endpoint) {
	if req.Extensions == nil {
		req.Extensions = map[string]any{}
	}
	req.Extensions["bazaar"] = e.Bazaar()
}

func mimeType(e *registry.Endpoint) string {
	if e.ContentType != "" {
		return e.ContentType
	}
	return "application/json"
}

// ServeHTTP implements Payments.
func (p *X402) ServeHTTP(w http.ResponseWriter, r *http.Request, e *registry.Endpoint, resource string,
	run func(context.Context) (*registry.Result, error), write func(*registry.Result, http.Header), fail func(error)) {
	req := p.Required(e, resource)
	res, receipt, err := x402.PayHeader(r.Context(), p.Core, req, r.Header.Get(x402.HeaderPaymentSignature), run)
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
