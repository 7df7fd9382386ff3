package x402

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
)

// Timeouts bound each facilitator call. Zero fields take the defaults.
type Timeouts struct {
	Verify    time.Duration // default 10 s
	Settle    time.Duration // default 60 s: a Base transaction and its receipt
	Supported time.Duration // default 10 s
}

// HTTPFacilitator is a client of a facilitator's HTTP API: POST /verify,
// POST /settle, GET /supported (x402 spec §7).
type HTTPFacilitator struct {
	// BaseURL, e.g. "https://x402.org/facilitator"; the paths are appended.
	BaseURL string
	// Client defaults to a client with no overall timeout (Timeouts bound
	// each call through its context).
	Client   *http.Client
	Timeouts Timeouts
	// Authorize, if set, decorates each request (e.g. a CDP API-key JWT in
	// Authorization).
	Authorize func(ctx context.Context, r *http.Request) error
}

// maxFacilitatorBody bounds what we read from a facilitator.
const maxFacilitatorBody = 1 << 20

// facilitatorRequest is the body of /verify and /settle.
type facilitatorRequest struct {
	X402Version         int                 `json:"x402Version"`
	PaymentPayload      *PaymentPayload     `json:"paymentPayload"`
	PaymentRequirements PaymentRequirements `json:"paymentRequirements"`
}

// Verify implements Facilitator.
func (f *HTTPFacilitator) Verify(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (VerifyResponse, error) {
	var out VerifyResponse
	err := f.call(ctx, http.MethodPost, "/verify", cmpDur(f.Timeouts.Verify, 10*time.Second),
		facilitatorRequest{X402Version: Version, PaymentPayload: p, PaymentRequirements: req}, &out, "isValid")
	return out, err
}

// Settle implements Facilitator. An error means the outcome is unknown:
// the transfer may or may not have happened.
func (f *HTTPFacilitator) Settle(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (SettlementResponse, error) {
	var out SettlementResponse
	err := f.call(ctx, http.MethodPost, "/settle", cmpDur(f.Timeouts.Settle, 60*time.Second),
		facilitatorRequest{X402Version: Version, PaymentPayload: p, PaymentRequirements: req}, &out, "success")
	return out, err
}

// Supported implements Facilitator.
func (f *HTTPFacilitator) Supported(ctx context.Context) (SupportedResponse, error) {
	var out SupportedResponse
	err := f.call(ctx, http.MethodGet, "/supported", cmpDur(f.Timeouts.Supported, 10*time.Second), nil, &out, "kinds")
	return out, err
}

func cmpDur(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// call does one request. A 2xx body must decode into out. A non-2xx body
// is still an answer if its JSON carries answerKey (facilitators report
// isValid:false / success:false with 4xx and 5xx too); anything else is an
// error: 504 facilitator_timeout for timeouts, 502 facilitator_error
// otherwise.
func (f *HTTPFacilitator) call(ctx context.Context, method, path string, timeout time.Duration, in, out any, answerKey string) error {
	if f.BaseURL == "" {
		return apierr.New(apierr.ErrUpstream, "facilitator_error", "no facilitator URL configured")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("x402: facilitator %s: encode request: %w", path, err)
		}
		body = bytes.NewReader(b)
	}
	url := strings.TrimRight(f.BaseURL, "/") + path
	r, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return apierr.New(apierr.ErrUpstream, "facilitator_error", fmt.Sprintf("facilitator request %s: %v", path, err))
	}
	r.Header.Set("Accept", "application/json")
	if in != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	if f.Authorize != nil {
		if err := f.Authorize(ctx, r); err != nil {
			return apierr.New(apierr.ErrUpstream, "facilitator_error", fmt.Sprintf("facilitator authorization: %v", err))
		}
	}
	client := f.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(r)
	if err != nil {
		return transportError(path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxFacilitatorBody))
	if err != nil {
		return transportError(path, err)
	}
	if resp.StatusCode/100 == 2 {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%w: %w", apierr.New(apierr.ErrUpstream, "facilitator_error",
				fmt.Sprintf("facilitator %s answered %d with a body that is not its JSON response", path, resp.StatusCode)), err)
		}
		return nil
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(b, &probe) == nil {
		if _, ok := probe[answerKey]; ok && json.Unmarshal(b, out) == nil {
			return nil
		}
	}
	return apierr.New(apierr.ErrUpstream, "facilitator_error",
		fmt.Sprintf("facilitator %s answered %d: %s", path, resp.StatusCode, snippet(b)))
}

func transportError(path string, err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("%w: %w", apierr.New(apierr.ErrUpstreamTimeout, "facilitator_timeout",
			"payment facilitator did not answer "+path+" in time"), err)
	}
	return fmt.Errorf("%w: %w", apierr.New(apierr.ErrUpstream, "facilitator_error",
		"payment facilitator "+path+" unreachable"), err)
}

// snippet is a short, printable excerpt of a body for error messages.
func snippet(b []byte) string {
	const max = 200
	s := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, string(b))
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	if s == "" {
		s = "(empty body)"
	}
	return s
}
