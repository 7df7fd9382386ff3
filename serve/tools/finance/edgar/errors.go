package edgar

import (
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
)

// Sentinels, checked with errors.Is.
var (
	// ErrNotFound: EDGAR has no such file (404 edgar_not_found).
	ErrNotFound = apierr.New(apierr.ErrNotFound, "edgar_not_found", "")
	// ErrRateLimited: EDGAR kept answering 429 after every retry
	// (503 upstream_rate_limited).
	ErrRateLimited = apierr.New(apierr.ErrUnavailable, "upstream_rate_limited", "")
	// ErrUnavailable: EDGAR kept answering 503 after every retry
	// (503 upstream_unavailable).
	ErrUnavailable = apierr.New(apierr.ErrUnavailable, "upstream_unavailable", "")
	// ErrStatus: another error status (502 upstream_status).
	ErrStatus = apierr.New(apierr.ErrUpstream, "upstream_status", "")
	// ErrUpstream: the connection failed or the body was not the expected
	// JSON (502 upstream_error).
	ErrUpstream = apierr.New(apierr.ErrUpstream, "upstream_error", "")
	// ErrTimeout: no answer in time (504 upstream_timeout).
	ErrTimeout = apierr.New(apierr.ErrUpstreamTimeout, "upstream_timeout", "")
)

// Error is the error type of every failure this package reports.
type Error struct {
	Kind *apierr.Error
	// Msg is safe to show to API clients.
	Msg string
	// RetryAfter is the upstream's Retry-After, when it sent one.
	RetryAfter time.Duration
	// Err is the cause, for logs.
	Err error
}

func (e *Error) Error() string {
	s := e.Kind.Code + ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap exposes the sentinel (and through it the apierr kind) and the
// cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// As gives errors.As(err, **apierr.Error) the API form of e.
func (e *Error) As(target any) bool {
	p, ok := target.(**apierr.Error)
	if !ok {
		return false
	}
	out := &apierr.Error{Status: e.Kind.Status, Code: e.Kind.Code, Message: e.Msg, Kind: e.Kind.Kind, RetryAfter: e.RetryAfter}
	if e.Kind == ErrRateLimited || e.Kind == ErrUnavailable {
		// Callers get a hint even when EDGAR sent none.
		out.RetryAfter = max(out.RetryAfter, time.Second)
	}
	*p = out
	return true
}
