package serve

import (
	"context"
	"net/http"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
)

// Payments is the x402 core as a transport sees it.
type Payments interface {
	// HTTP runs a paid call for an HTTP request: it answers 402 with
	// requirements when the payment is missing or bad, otherwise runs the
	// handler and settles only on its success.
	ServeHTTP(w http.ResponseWriter, r *http.Request, e *registry.Endpoint, resource string,
		run func(context.Context, registry.Charge) (*registry.Result, error), write func(*registry.Result, http.Header), fail func(error))
}

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
