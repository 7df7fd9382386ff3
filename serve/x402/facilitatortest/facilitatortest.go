// Package facilitatortest serves an x402 facilitator over the real HTTP API
// (POST /verify, POST /settle, GET /supported) on loopback, for interop
// tests of x402.HTTPFacilitator and of servers using it. Verification runs
// in process (x402.Local by default); the server can be told to stall or to
// fail settlements, to exercise timeouts and failure handling.
package facilitatortest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openshelf/openshelf/serve/x402"
)

// Server is a running test facilitator.
type Server struct {
	*httptest.Server
	// Facilitator answers the requests.
	Facilitator x402.Facilitator

	verifies, settles atomic.Int64

	mu          sync.Mutex
	verifyDelay time.Duration
	settleDelay time.Duration
	settleFail  string
	status      int
}

// New starts a test facilitator on loopback backed by f (nil: an in-memory
// x402.Local). Close it when done.
func New(f x402.Facilitator) *Server {
	if f == nil {
		f = x402.NewLocal(nil)
	}
	s := &Server{Facilitator: f}
	s.Server = httptest.NewServer(s.Handler())
	return s
}

// SetDelay makes /verify and /settle wait before answering (the wait ends
// early if the client goes away).
func (s *Server) SetDelay(verify, settle time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.verifyDelay, s.settleDelay = verify, settle
}

// FailSettle makes /settle answer success:false with reason, without
// settling; "" restores normal settlement.
func (s *Server) FailSettle(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleFail = reason
}

// FailStatus makes every endpoint answer status with a non-JSON body, like
// a broken proxy in front of a facilitator; 0 restores normal answers.
func (s *Server) FailStatus(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = status
}

// Counts returns how many /verify and /settle requests were answered.
func (s *Server) Counts() (verify, settle int) {
	return int(s.verifies.Load()), int(s.settles.Load())
}

type request struct {
	X402Version         int                       `json:"x402Version"`
	PaymentPayload      *x402.PaymentPayload      `json:"paymentPayload"`
	PaymentRequirements *x402.PaymentRequirements `json:"paymentRequirements"`
}

// Handler returns the facilitator API as an http.Handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /verify", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		delay, status := s.verifyDelay, s.status
		s.mu.Unlock()
		// Read the body first: only then does the server notice a client
		// that gave up, which ends the wait.
		req, ok := decode(w, r)
		if !ok || !wait(r, delay) || fail(w, status) {
			return
		}
		s.verifies.Add(1)
		vr, err := s.Facilitator.Verify(r.Context(), req.PaymentPayload, *req.PaymentRequirements)
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, vr)
	})
	mux.HandleFunc("POST /settle", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		delay, status, failReason := s.settleDelay, s.status, s.settleFail
		s.mu.Unlock()
		// Read the body first: only then does the server notice a client
		// that gave up, which ends the wait.
		req, ok := decode(w, r)
		if !ok || !wait(r, delay) || fail(w, status) {
			return
		}
		s.settles.Add(1)
		if failReason != "" {
			writeJSON(w, http.StatusOK, x402.SettlementResponse{ErrorReason: failReason,
				Payer: req.PaymentPayload.Payload.Authorization.From, Network: req.PaymentRequirements.Network})
			return
		}
		sr, err := s.Facilitator.Settle(r.Context(), req.PaymentPayload, *req.PaymentRequirements)
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, sr)
	})
	mux.HandleFunc("GET /supported", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		status := s.status
		s.mu.Unlock()
		if fail(w, status) {
			return
		}
		sr, err := s.Facilitator.Supported(r.Context())
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, sr)
	})
	return mux
}

// decode reads a /verify or /settle body; like the reference facilitator it
// answers 400 when a part is missing.
func decode(w http.ResponseWriter, r *http.Request) (request, bool) {
	var req request
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid JSON: " + err.Error()})
		return req, false
	}
	if req.PaymentPayload == nil || req.PaymentRequirements == nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "Missing paymentPayload or paymentRequirements"})
		return req, false
	}
	return req, true
}

func wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func fail(w http.ResponseWriter, status int) bool {
	if status == 0 {
		return false
	}
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(status)
	_, _ = w.Write([]byte("<html><body>bad gateway</body></html>"))
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
