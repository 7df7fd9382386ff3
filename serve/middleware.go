package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

type ctxKey int

const requestIDKey ctxKey = iota

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// Metrics are the server's Prometheus collectors, on a registry of the
// server's own (no global state). The payment core reports into them before
// the HTTP server exists, so they are made first and handed to both.
type Metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	payments *prometheus.CounterVec
}

// NewMetrics returns a fresh set of collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "openshelf_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "openshelf_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .02, .05, .1, .25, .5, 1, 2.5, 10},
		}, []string{"route"}),
		payments: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "openshelf_payments_total", Help: "x402 payments by outcome.",
		}, []string{"outcome"}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.payments,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the collectors in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// CountPayment records a payment outcome.
func (m *Metrics) CountPayment(outcome string) { m.payments.WithLabelValues(outcome).Inc() }

// statusWriter remembers the status for logging and metrics.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// instrument records the request under route, which is the registered
// pattern, never the raw path, so metrics cardinality stays bounded.
func (s *Server) instrument(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		id := r.Header.Get("X-Request-Id")
		if id == "" || len(id) > 64 {
			var b [8]byte
			rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		sw.Header().Set("X-Request-Id", id)
		ctx := context.WithValue(r.Context(), requestIDKey, id)
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic", "route", route, "panic", fmt.Sprint(p), "request_id", id)
				if sw.status == 0 {
					s.writeError(sw, r.WithContext(ctx), fmt.Errorf("panic: %v", p))
				}
			}
			if sw.status == 0 {
				sw.status = http.StatusOK
			}
			d := time.Since(start)
			s.metrics.requests.WithLabelValues(route, r.Method, strconv.Itoa(sw.status)).Inc()
			s.metrics.latency.WithLabelValues(route).Observe(d.Seconds())
			if s.cfg.AccessLog {
				s.log.Info("request", "method", r.Method, "route", route, "path", r.URL.Path,
					"status", sw.status, "bytes", sw.bytes, "duration", d, "request_id", id)
			}
		}()
		h.ServeHTTP(sw, r.WithContext(ctx))
	})
}
