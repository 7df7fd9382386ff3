package fetch_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/openshelf/openshelf/serve/fetch"
)

// TestInsecureTLS: an untrusted certificate fails a normal request, and
// with Options.InsecureTLS the response comes back with the connection
// state for the caller to verify. The guard still applies.
func TestInsecureTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	c := fetch.New(fetch.Config{AllowLoopback: true})
	defer c.Close()
	ctx := context.Background()

	if _, err := c.Get(ctx, srv.URL+"/", fetch.Options{IgnoreRobots: true}); !errors.Is(err, fetch.ErrUpstream) {
		t.Fatalf("untrusted certificate: got %v, want ErrUpstream", err)
	}
	resp, err := c.Get(ctx, srv.URL+"/", fetch.Options{IgnoreRobots: true, InsecureTLS: true})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusNoContent || resp.TLS == nil || len(resp.TLS.PeerCertificates) == 0 {
		t.Fatalf("status %d, tls %v", resp.Status, resp.TLS)
	}

	prod := fetch.New(fetch.Config{AllowedPorts: []int{443}})
	defer prod.Close()
	if _, err := prod.Get(ctx, srv.URL+"/", fetch.Options{InsecureTLS: true}); err == nil {
		t.Fatal("InsecureTLS bypassed the guard")
	}
}
