package ping

import (
	"context"
	"crypto/x509"
	"net/http"
	"time"

	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/registry"
)

// Config configures ping_status. The zero value is the production setup.
type Config struct {
	// Timeout caps one call, redirects included; default 20 s.
	Timeout time.Duration
	// RootCAs verifies certificates; nil means the system roots.
	RootCAs *x509.CertPool
	// Now is the clock (checked_at, certificate days left); default
	// time.Now.
	Now func() time.Time
}

// Tool serves ping_status. Every request to a target goes through the
// guarded fetch client.
type Tool struct {
	fetch *fetch.Client
	cfg   Config
}

// New returns the tool using fc for every HTTP request.
func New(fc *fetch.Client, cfg Config) *Tool {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 20 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Tool{fetch: fc, cfg: cfg}
}

func (p *Tool) now() time.Time { return p.cfg.Now() }

// Endpoint returns the registry entry of ping_status. The client's own URL
// check (its port policy included) runs before payment, so a literal
// private address is a 400 nobody pays for.
func (p *Tool) Endpoint() *registry.Endpoint {
	return registry.Spec[Input]{
		Name: "ping_status", Method: http.MethodPost, Path: "/v1/ping-status", Group: registry.GroupTools,
		Price:   "0.0002",
		Summary: "Check whether a URL is up: status, response time, redirect chain, security headers and TLS certificate.",
		Description: "A target that cannot be reached (DNS failure, refused connection, timeout) is a normal answer " +
			"with up=false and the reason; an address that is not public is refused with 403.",
		Output: Output{},
		Tool:   &registry.Tool{OpenWorld: true},
		Check: func(_ context.Context, in *Input) error {
			_, err := p.fetch.CheckURL(in.URL)
			return err
		},
		Handle: func(ctx context.Context, in *Input) (*registry.Result, error) {
			out, err := p.ping(ctx, in)
			if err != nil {
				return nil, err
			}
			return &registry.Result{Value: out}, nil
		},
	}.Endpoint()
}
