package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve/x402"
)

// TestServeUnsafeAllowTargets runs the real binary with
// -unsafe-allow-targets 127.0.0.2/32: a live tool reaches a server on that
// listed address by its literal URL (the pre-payment check admits it, the
// guarded client dials it), while an unlisted loopback address, the cloud
// metadata address and a redirect out of the list stay refused, the
// first two before any payment is asked, the last without a charge.
// Linux answers on all of 127.0.0.0/8, so 127.0.0.2 and 127.0.0.3 stand
// for two hosts of a private test network.
func TestServeUnsafeAllowTargets(t *testing.T) {
	var listedHits, unlistedHits atomic.Int32
	page := func(hits *atomic.Int32) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				http.NotFound(w, r)
				return
			}
			hits.Add(1)
			if to := r.URL.Query().Get("to"); to != "" {
				http.Redirect(w, r, to, http.StatusFound)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, `<!doctype html><html><head><title>Listed</title></head><body><article><h1>Listed</h1><p>`+
				strings.Repeat("This page lives on a listed private address. ", 12)+`</p></article></body></html>`)
		})
	}
	listed := serveOn(t, "127.0.0.2:0", page(&listedHits))
	unlisted := serveOn(t, "127.0.0.3:0", page(&unlistedHits))

	srv := startServe(t, openshelfBinary(t), freeAddr(t), "-data", testsnap.Copy(t), "-unsafe-allow-targets", "127.0.0.2/32")
	if logs := srv.logs.String(); !strings.Contains(logs, "UNSAFE for production") || !strings.Contains(logs, `"prefixes":"127.0.0.2/32"`) {
		t.Errorf("no start-up warning naming the prefixes:\n%s", logs)
	}

	// Refused before payment: 400 without a payment header.
	for _, u := range []string{unlisted + "/a", "http://169.254.169.254/latest/meta-data/", "http://localhost:1/"} {
		status, body, _ := postExtract(t, srv.url, u, "")
		if status != http.StatusBadRequest || !bytes.Contains(body, []byte(`"invalid_input"`)) {
			t.Errorf("%s: %d %s, want 400 invalid_input", u, status, body)
		}
	}

	// Listed: 402, then paid and fetched.
	key, _ := crypto.GenerateKey()
	status, body, res := postExtract(t, srv.url, listed+"/a", "")
	if status != http.StatusPaymentRequired {
		t.Fatalf("listed target without payment: %d %s", status, body)
	}
	req, err := x402.DecodeRequiredHeader(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil {
		t.Fatal(err)
	}
	status, body, res = postExtract(t, srv.url, listed+"/a", signed(t, key, *req))
	if status != http.StatusOK || !bytes.Contains(body, []byte("listed private address")) || res.Header.Get(x402.HeaderPaymentResponse) == "" {
		t.Fatalf("paid call to a listed target: %d %s", status, body)
	}

	// A redirect from the listed server to the unlisted one: 403
	// forbidden_target after DNS/dial, and no charge.
	hop := listed + "/r?to=" + unlisted + "/b"
	_, _, res = postExtract(t, srv.url, hop, "")
	req, err = x402.DecodeRequiredHeader(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil {
		t.Fatal(err)
	}
	status, body, res = postExtract(t, srv.url, hop, signed(t, key, *req))
	if status != http.StatusForbidden || !bytes.Contains(body, []byte(`"forbidden_target"`)) || res.Header.Get(x402.HeaderPaymentResponse) != "" {
		t.Errorf("redirect out of the list: %d %s", status, body)
	}
	if n := unlistedHits.Load(); n != 0 {
		t.Errorf("the unlisted server was reached %d times", n)
	}
	if n := listedHits.Load(); n != 2 {
		t.Errorf("the listed server was reached %d times, want 2", n)
	}
}

// serveOn serves h on addr and returns its base URL.
func serveOn(t *testing.T, addr string, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewUnstartedServer(h)
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	return s.URL
}

// postExtract calls POST /v1/extract for url, with payment when not "".
func postExtract(t *testing.T, base, url, payment string) (int, []byte, *http.Response) {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"url": url})
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/extract", bytes.NewReader(in))
	req.Header.Set("Content-Type", "application/json")
	if payment != "" {
		req.Header.Set(x402.HeaderPaymentSignature, payment)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b, res
}
