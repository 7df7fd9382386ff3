// Package apierr defines the errors every handler, the x402 core and the MCP
// adapter return, and how they map to HTTP statuses and stable error codes.
//
// Handlers return errors; one wrapper in package serve turns them into
// {"error":{"code":"...","message":"..."}} responses. Wrap a sentinel with
// context (fmt.Errorf("...: %w", apierr.ErrNotFound)) or build an *Error for
// a specific code.
package apierr

import (
	"errors"
	"net/http"
	"strconv"
	"time"
)

// Sentinels, checked with errors.Is.
var (
	ErrInvalidInput    = &Error{Status: http.StatusBadRequest, Code: "invalid_input"}
	ErrNotFound        = &Error{Status: http.StatusNotFound, Code: "not_found"}
	ErrForbidden       = &Error{Status: http.StatusForbidden, Code: "forbidden"}
	ErrPaymentRequired = &Error{Status: http.StatusPaymentRequired, Code: "payment_required"}
	ErrUpstream        = &Error{Status: http.StatusBadGateway, Code: "upstream_error"}
	ErrUpstreamTimeout = &Error{Status: http.StatusGatewayTimeout, Code: "upstream_timeout"}
	ErrRateLimited     = &Error{Status: http.StatusTooManyRequests, Code: "rate_limited"}
	ErrUnavailable     = &Error{Status: http.StatusServiceUnavailable, Code: "unavailable"}
	ErrInternal        = &Error{Status: http.StatusInternalServerError, Code: "internal_error"}
)

// Error is an API error with an HTTP status and a stable code.
type Error struct {
	Status  int
	Code    string
	Message string
	// Field names the input field at fault, for invalid_input.
	Field string
	// Position, when set, is the byte offset in Field's value where the
	// problem is (a search query's syntax error), so a client can point
	// at it.
	Position *int
	// RetryAfter, when positive, is sent as the Retry-After header.
	RetryAfter time.Duration
	// Kind is the sentinel this error specialises, so errors.Is(e, ErrNotFound)
	// holds for a more specific code such as topic_not_found.
	Kind *Error
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + e.Message
}

// Is reports whether target is e itself or the sentinel e specialises.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return e == t || (e.Kind != nil && e.Kind == t)
}

// New returns an error of kind's status, with its own code and message.
func New(kind *Error, code, message string) *Error {
	if code == "" {
		code = kind.Code
	}
	return &Error{Status: kind.Status, Code: code, Message: message, Kind: kind}
}

// Invalid returns an invalid_input error naming field.
func Invalid(field, message string) *Error {
	e := New(ErrInvalidInput, "", message)
	e.Field = field
	if field != "" {
		e.Message = field + ": " + message
	}
	return e
}

// NotFound returns a 404 with a specific code, e.g. "document_not_found".
func NotFound(code, message string) *Error { return New(ErrNotFound, code, message) }

// From finds the *Error in err's chain. An error without one is an internal
// error whose message is not shown to clients.
//
// A client error (4xx) that wraps a bare sentinel takes the wrapping text
// as its message: it describes the client's input. A server error (5xx)
// never does: its wrapping text may hold file paths, addresses or SQL, which
// go to the log with the request id, and the client gets the id.
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		out := *e
		if out.Message == "" {
			out.Message = http.StatusText(out.Status)
		}
		if w := err.Error(); out.Status < 500 && out.Kind == nil && e.Message == "" && w != e.Error() {
			out.Message = w
		}
		return &out
	}
	return &Error{Status: http.StatusInternalServerError, Code: ErrInternal.Code, Message: "internal error"}
}

// Body is the JSON error envelope.
type Body struct {
	Error BodyError `json:"error"`
}

// BodyError is the inside of the envelope.
type BodyError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
	// Position is the byte offset of the problem in the field's value.
	Position *int `json:"position,omitempty"`
	// RequestID is the X-Request-Id of the failed request, the key to the
	// server's log entry for it.
	RequestID string `json:"request_id,omitempty"`
}

// Envelope returns the JSON body for e.
func (e *Error) Envelope() Body {
	return Body{Error: BodyError{Code: e.Code, Message: e.Message, Field: e.Field, Position: e.Position}}
}

// RetryAfterSeconds formats RetryAfter for the header, rounding up.
func (e *Error) RetryAfterSeconds() string {
	s := int((e.RetryAfter + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return strconv.Itoa(s)
}
