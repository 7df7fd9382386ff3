package alarm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/pgtest"
	"github.com/openshelf/openshelf/internal/testsnap"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		os.Exit(crashChild(dir))
	}
	code := m.Run()
	pgtest.Stop()
	testsnap.Cleanup()
	os.Exit(code)
}

// delivery is one request a receiver got.
type delivery struct {
	ID       string
	Attempt  int
	At       time.Time
	Body     string
	Verified bool
	Err      string
	Header   http.Header
}

// receiver is a webhook endpoint that verifies every signature against the
// secrets it was told, records every request and answers what respond
// says (200 by default).
type receiver struct {
	mu      sync.Mutex
	secrets map[string]string
	got     []delivery
	bad     []delivery
	// respond picks the answer; a negative status hangs until the request
	// is cancelled (a timeout, or the client dying).
	respond func(id string, attempt int) int
	// hook, when set, runs at the start of each request.
	hook func(id string, attempt int)
}

func newReceiver() *receiver { return &receiver{secrets: map[string]string{}} }

func (r *receiver) secret(id, s string) {
	r.mu.Lock()
	r.secrets[id] = s
	r.mu.Unlock()
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	id := req.Header.Get(HeaderAlarmID)
	attempt, _ := strconv.Atoi(req.Header.Get(HeaderAttempt))
	d := delivery{ID: id, Attempt: attempt, At: time.Now(), Body: string(body), Header: req.Header.Clone()}
	r.mu.Lock()
	secret, known := r.secrets[id]
	r.mu.Unlock()
	switch {
	case req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/json":
		d.Err = fmt.Sprintf("method %s, content type %q", req.Method, req.Header.Get("Content-Type"))
	case !known:
		d.Err = "unknown alarm id " + id
	default:
		if err := Verify(secret, req.Header.Get(HeaderSignature), body, time.Now(), 0); err != nil {
			d.Err = err.Error()
		} else {
			d.Verified = true
		}
	}
	r.mu.Lock()
	if d.Verified {
		r.got = append(r.got, d)
	} else {
		r.bad = append(r.bad, d)
	}
	hook, respond := r.hook, r.respond
	r.mu.Unlock()
	if hook != nil {
		hook(id, attempt)
	}
	status := http.StatusOK
	if respond != nil {
		status = respond(id, attempt)
	}
	if status < 0 {
		<-req.Context().Done()
		return
	}
	w.WriteHeader(status)
}

// deliveries returns the verified deliveries so far; the test fails if any
// request was not verified.
func (r *receiver) deliveries(t testing.TB) []delivery {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range r.bad {
		t.Errorf("receiver refused a request for %s attempt %d: %s", d.ID, d.Attempt, d.Err)
	}
	r.bad = nil
	return append([]delivery(nil), r.got...)
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got) + len(r.bad)
}

// memSender delivers to an http.Handler in memory: no sockets, so it runs
// inside a synctest bubble. A negative answer hangs until ctx ends.
type memSender struct{ h http.Handler }

func (m memSender) Send(ctx context.Context, url string, body []byte, header http.Header) (int, error) {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header = header.Clone()
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { m.h.ServeHTTP(rec, req); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		<-done
		return 0, ctx.Err()
	}
	return rec.Code, nil
}

// testKey returns a sealer with a fresh key file in dir.
func testKey(t testing.TB, dir string) *Sealer {
	t.Helper()
	s, err := LoadKey(filepath.Join(dir, "alarms.key"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func openSQLite(t testing.TB, path string) Store {
	t.Helper()
	st, err := OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// newService opens a service over st with cfg's overrides; it is closed
// at the end of the test.
func newService(t testing.TB, st Store, sl *Sealer, cfg Config) *Service {
	t.Helper()
	cfg.Store, cfg.Sealer = st, sl
	svc, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}
