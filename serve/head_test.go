package serve

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve/x402"
)

// TestHead: HEAD works wherever GET does, with the same status and
// headers and no body, and never charges: a paid route answers HEAD with
// its challenge even when a valid payment is attached.
func TestHead(t *testing.T) {
	a := newTestApp(t, testsnap.Copy(t), nil)
	id := firstDocumentID(t, a.HTTP)
	serve := func(method, target string, hdr http.Header) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, nil)
		req.RemoteAddr = "192.0.2.1:1234"
		for k, v := range hdr {
			req.Header.Set(k, v[0])
		}
		rec := httptest.NewRecorder()
		a.HTTP.ServeHTTP(rec, req)
		return rec
	}
	for _, target := range []string{"/api/stats", "/api/catalog?limit=2", "/api/search?q=cells", "/openapi.json",
		"/llms.txt", "/healthz", "/api/document/" + id, "/api/document/pmc-999999999", "/api/search?q=cells&page=2"} {
		get, head := serve(http.MethodGet, target, nil), serve(http.MethodHead, target, nil)
		if head.Code != get.Code || head.Header().Get("Content-Type") != get.Header().Get("Content-Type") ||
			head.Header().Get(x402.HeaderPaymentRequired) != get.Header().Get(x402.HeaderPaymentRequired) {
			t.Errorf("HEAD %s: %d %v, GET: %d %v", target, head.Code, head.Header(), get.Code, get.Header())
		}
	}

	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	target := "/api/document/" + id
	p := signFor(t, a.HTTP, key, target)
	rec := serve(http.MethodHead, target, http.Header{x402.HeaderPaymentSignature: {x402.EncodeHeader(p)}})
	if rec.Code != http.StatusPaymentRequired || rec.Header().Get(x402.HeaderPaymentRequired) == "" {
		t.Fatalf("paid HEAD: %d %v, want the 402 challenge", rec.Code, rec.Header())
	}
	if n := settledCount(t, a); n != 0 {
		t.Fatalf("HEAD settled %d payments", n)
	}
	// The payment is still good for the GET it was made for.
	rec = serve(http.MethodGet, target, http.Header{x402.HeaderPaymentSignature: {x402.EncodeHeader(p)}})
	if rec.Code != http.StatusOK || settledCount(t, a) != 1 {
		t.Fatalf("GET after HEAD: %d %s, settled %d", rec.Code, rec.Body, settledCount(t, a))
	}
}
