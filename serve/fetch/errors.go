package fetch

import (
	"github.com/openshelf/openshelf/serve/apierr"
)

// Sentinels, checked with errors.Is. Each specialises an apierr kind, so
// errors.Is(err, apierr.ErrForbidden) also holds for ErrForbiddenTarget.
var (
	// ErrInvalidURL: the URL text is refused before any network access
	// (400 invalid_input, field "url").
	ErrInvalidURL = apierr.New(apierr.ErrInvalidInput, "invalid_input", "")
	// ErrForbiddenTarget: the target, or a redirect hop, resolves to or
	// names an address that is not public (403 forbidden_target).
	ErrForbiddenTarget = apierr.New(apierr.ErrForbidden, "forbidden_target", "")
	// ErrRobotsDisallowed: the site's robots.txt disallows our user agent
	// for this path, or could not be read (403 robots_disallowed).
	ErrRobotsDisallowed = apierr.New(apierr.ErrForbidden, "robots_disallowed", "")
	// ErrTooLarge: the body exceeds the byte cap (502 upstream_too_large).
	ErrTooLarge = apierr.New(apierr.ErrUpstream, "upstream_too_large", "")
	// ErrTooManyRedirects: more redirects than the cap (502 too_many_redirects).
	ErrTooManyRedirects = apierr.New(apierr.ErrUpstream, "too_many_redirects", "")
	// ErrUpstream: the connection or the HTTP exchange failed (502 upstream_error).
	ErrUpstream = apierr.New(apierr.ErrUpstream, "upstream_error", "")
	// ErrUpstreamStatus: the upstream answered with an error status; returned
	// by Response.CheckStatus, not by Get (502 upstream_status).
	ErrUpstreamStatus = apierr.New(apierr.ErrUpstream, "upstream_status", "")
	// ErrTimeout: the request did not finish within the time cap
	// (504 upstream_timeout).
	ErrTimeout = apierr.New(apierr.ErrUpstreamTimeout, "upstream_timeout", "")
)

// Error is the error type of every failure this package reports.
type Error struct {
	// Kind is one of this package's sentinels.
	Kind *apierr.Error
	// URL is the URL being fetched when the error happened (a redirect hop
	// or robots.txt URL, possibly); empty for CheckURL.
	URL string
	// Msg is a message safe to show to the API client.
	Msg string
	// Err is the underlying cause, for logs; it is not shown to clients
	// because it can name internal addresses.
	Err error
}

func newError(kind *apierr.Error, u, msg string, cause error) *Error {
	return &Error{Kind: kind, URL: u, Msg: msg, Err: cause}
}

func (e *Error) Error() string {
	s := e.Kind.Code + ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap exposes the sentinel (so errors.Is matches it and the apierr kind it
// specialises) and the cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// As lets errors.As(err, &apiErr) with apiErr *apierr.Error find the API
// form of e: the sentinel's status and code with e's client-safe message.
func (e *Error) As(target any) bool {
	p, ok := target.(**apierr.Error)
	if !ok {
		return false
	}
	out := &apierr.Error{Status: e.Kind.Status, Code: e.Kind.Code, Message: e.Msg, Kind: e.Kind.Kind}
	if e.Kind == ErrInvalidURL {
		out.Field = "url"
		out.Message = "url: " + e.Msg
	}
	*p = out
	return true
}
