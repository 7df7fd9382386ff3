package serve

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/openshelf/openshelf/serve/apierr"
)

// writeError is the one place an error becomes a response. 5xx are logged
// with the request id; 4xx only at debug level.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errClientGone) {
		s.log.Info("client went away", "method", r.Method, "path", r.URL.Path, "err", err,
			"request_id", requestID(r.Context()))
		writeJSON(w, errClientGone.Status, apierr.From(err).Envelope()) // for logs and metrics; nobody reads it
		return
	}
	e := apierr.From(err)
	level := slog.LevelDebug
	if e.Status >= 500 {
		level = slog.LevelError
	}
	s.log.Log(r.Context(), level, "request failed", "method", r.Method, "path", r.URL.Path,
		"status", e.Status, "code", e.Code, "err", err, "request_id", requestID(r.Context()))
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", e.RetryAfterSeconds())
	}
	body := e.Envelope()
	body.Error.RequestID = requestID(r.Context())
	writeJSON(w, e.Status, body)
}

// writeJSON sends v compactly with a trailing newline.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(apierr.From(err).Envelope())
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Del("Content-Length")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
