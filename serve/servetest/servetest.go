// Package servetest runs the whole server in a test: the fixture snapshot,
// the real router, registry and x402 core with the local facilitator, and a
// wallet that pays like an x402 client does. Tool families use it for their
// end-to-end tests (from an external test package, which may import serve).
package servetest

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/x402"
)

// Base is the public base URL the test server believes it has.
const Base = "https://api.openshelf.test"

// PayTo is the test recipient.
const PayTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// Env is a running test server and a paying client.
type Env struct {
	App *serve.App
	Key *ecdsa.PrivateKey
}

// New builds an App over a private copy of the fixture snapshot. The guarded
// fetch client may reach loopback (the documented test option); mod adjusts
// the config further.
func New(t testing.TB, mod func(*serve.Config)) *Env {
	t.Helper()
	cfg := serve.Config{DataDir: testsnap.Copy(t), BaseURL: Base, PayTo: PayTo,
		Fetch: fetch.Config{AllowLoopback: true, Timeout: 5 * time.Second}}
	if mod != nil {
		mod(&cfg)
	}
	a, err := serve.NewApp(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return &Env{App: a, Key: key}
}

// Call sends in to method path: the query string for GET, a JSON body
// otherwise. payment is a PAYMENT-SIGNATURE value or "". The body is decoded
// when it is JSON.
func (e *Env) Call(t testing.TB, method, path string, in map[string]any, payment string) (*http.Response, map[string]any) {
	t.Helper()
	var body string
	target := path
	hdr := map[string]string{}
	if method == http.MethodGet || method == http.MethodHead {
		q := url.Values{}
		for k, v := range in {
			q.Set(k, fmt.Sprint(v))
		}
		if len(q) > 0 {
			target += "?" + q.Encode()
		}
	} else {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		body = string(b)
		hdr["Content-Type"] = "application/json"
	}
	if payment != "" {
		hdr[x402.HeaderPaymentSignature] = payment
	}
	return Do(t, e.App.HTTP, method, target, body, hdr)
}

// Do sends one request to h from a public client address, with the given
// body and headers, and decodes the answer when it is JSON.
func Do(t testing.TB, h http.Handler, method, target, body string, hdr map[string]string) (*http.Response, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	req.RemoteAddr = "192.0.2.1:1234"
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	var m map[string]any
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
			t.Fatalf("%s %s: body is not JSON: %v", method, target, err)
		}
	}
	return res, m
}

// Pay does what a client does: the unpaid call must be a 402 with readable
// requirements; Pay returns a fresh authorization signed for them.
func (e *Env) Pay(t testing.TB, method, path string, in map[string]any) string {
	t.Helper()
	res, m := e.Call(t, method, path, in, "")
	if res.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("%s %s %v without payment: %d %v, want 402", method, path, in, res.StatusCode, m)
	}
	req, err := x402.DecodeRequiredHeader(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil || len(req.Accepts) == 0 {
		t.Fatalf("%s %s: 402 without readable requirements: %v", method, path, err)
	}
	p, err := x402.NewPayment(e.Key, *req, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return x402.EncodeHeader(p)
}

// PaidCall pays for one call and makes it. It fails the test unless the
// answer is 200 with a successful receipt and exactly one new settlement.
func (e *Env) PaidCall(t testing.TB, method, path string, in map[string]any) map[string]any {
	t.Helper()
	before := e.Settlements(t)
	res, m := e.Call(t, method, path, in, e.Pay(t, method, path, in))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s %s paid: %d %v", method, path, res.StatusCode, m)
	}
	receipt, err := x402.DecodeSettlementHeader(res.Header.Get(x402.HeaderPaymentResponse))
	if err != nil || !receipt.Success {
		t.Fatalf("%s %s: receipt %+v (%v)", method, path, receipt, err)
	}
	if got := e.Settlements(t); got != before+1 {
		t.Fatalf("%s %s: settlements %d -> %d, want +1", method, path, before, got)
	}
	return m
}

// Settlements is how many payments the ledger has settled.
func (e *Env) Settlements(t testing.TB) int {
	t.Helper()
	n, _, err := e.App.Payments.Core.Config().Ledger.CountSettlements(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// ErrCode is the stable error code of a JSON error body, or "".
func ErrCode(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}
