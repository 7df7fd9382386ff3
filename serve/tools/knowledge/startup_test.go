package knowledge_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/servetest"
	"github.com/openshelf/openshelf/snapshot"
	"github.com/openshelf/openshelf/specs"
)

// TestStartWithoutSpecs checks that the server answers while its specs
// table is still loading: the spec tools say 503 specs_loading with
// Retry-After before asking for payment, the status endpoint says
// "loading", the archive answers, and once the table is in the tools
// answer.
//
// The load is held deterministically: specs.parquet is a named pipe, so
// the loader, once it gets to open it, blocks until the test opens the
// pipe's other end; before it gets there, the load is in progress too.
func TestStartWithoutSpecs(t *testing.T) {
	var table, pipe, held string
	env := servetest.New(t, func(c *serve.Config) {
		snap, err := snapshot.Open(c.DataDir)
		if err != nil {
			t.Fatal(err)
		}
		table = filepath.Join(snap.Dir, specs.TableFile)
		held = table + ".held"
		pipe = filepath.Join(t.TempDir(), "pipe") // a second name of the FIFO, to open it later
		if err := os.Rename(table, held); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(table, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(table, pipe); err != nil {
			t.Fatal(err)
		}
	})

	// Release a held load before the server closes (cleanups run last
	// first), whatever happens below.
	t.Cleanup(func() {
		if w, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	for _, call := range []struct {
		path string
		in   map[string]any
	}{
		{"/v1/specs", map[string]any{"quantity": "thermal_conductivity"}},
		{"/v1/search", map[string]any{"query": "thermal conductivity > 200 W/mK"}},
	} {
		res, m := env.Call(t, http.MethodPost, call.path, call.in, "")
		e, _ := m["error"].(map[string]any)
		ra, _ := strconv.Atoi(res.Header.Get("Retry-After"))
		if res.StatusCode != http.StatusServiceUnavailable || e["code"] != "specs_loading" || ra < 1 ||
			res.Header.Get("PAYMENT-REQUIRED") != "" {
			t.Errorf("%s while loading: %d %v Retry-After %q, want 503 specs_loading before payment", call.path,
				res.StatusCode, m, res.Header.Get("Retry-After"))
		}
	}
	if res, m := env.Call(t, http.MethodGet, "/v1/specs/status", nil, ""); res.StatusCode != 200 || m["state"] != "loading" ||
		m["loading"] == nil {
		t.Errorf("status while loading: %d %v", res.StatusCode, m)
	}
	if res, _ := env.Call(t, http.MethodGet, "/api/stats", nil, ""); res.StatusCode != http.StatusOK {
		t.Errorf("/api/stats while the specs load: %d", res.StatusCode)
	}
	// A search without constraints in the general category needs no table.
	res, m := env.Call(t, http.MethodPost, "/v1/search", map[string]any{"query": "graphene", "category": "general"}, "")
	if res.StatusCode != http.StatusPaymentRequired {
		t.Errorf("general search while loading: %d %v, want 402", res.StatusCode, m)
	}

	// Put the real table in place, then release the load if it is held
	// in the pipe (a non-blocking open of the writing end fails with ENXIO
	// when no reader waits): it reads an empty pipe and fails, and a later
	// request loads the real file. A loader that had not got to the open
	// reads the real file at once.
	if err := os.Rename(held, table); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err == nil {
		w.Close()
	} else if !errors.Is(err, syscall.ENXIO) {
		t.Fatal(err)
	}
	var st map[string]any
	for range 6000 {
		// An unpaid call starts a reload after a failed one.
		env.Call(t, http.MethodPost, "/v1/specs", map[string]any{"quantity": "thermal_conductivity"}, "")
		if _, st = env.Call(t, http.MethodGet, "/v1/specs/status", nil, ""); st["state"] == "ready" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st["statements"].(float64) < 100 {
		t.Errorf("status once loaded: %v", st)
	}
	m = env.PaidCall(t, http.MethodPost, "/v1/specs", map[string]any{"quantity": "thermal_conductivity", "min": 1000, "unit": "W/mK"})
	if m["total"] != float64(1) {
		t.Errorf("query once loaded: %v", m)
	}
}
