package x402_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func newServer(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}
