package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/index/content"
	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve/x402"
	"github.com/openshelf/openshelf/serve/x402/facilitatortest"
	"github.com/openshelf/openshelf/snapshot"
)

// payerKey is Hardhat/Anvil test account #0 (a public test key).
const payerKey = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

func testPayer(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.HexToECDSA(payerKey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// rightsFields must be in every paid content response and bundle line.
var rightsFields = []string{"license", "license_url", "attribution", "copyright_notice"}

// paidFixture is what the fixture corpus offers for sale: a document with
// full text and references, and a topic.
type paidFixture struct {
	doc, other, topic string
}

// resources lists the four paid resources of f.
func (f paidFixture) resources() []string {
	return []string{"/api/document/" + f.doc, "/api/document/" + f.doc + "/fulltext",
		"/api/document/" + f.doc + "/references", "/api/topic/" + f.topic + "/content"}
}

func findPaidFixture(t testing.TB, h http.Handler) paidFixture {
	t.Helper()
	var f paidFixture
	_, page := getJSONAny(t, h, "/api/catalog?limit=50")
	for _, it := range page["items"].([]any) {
		e := it.(map[string]any)
		switch {
		case f.doc == "" && e["has_fulltext"] == true && e["has_references"] == true:
			f.doc = e["id"].(string)
		case f.other == "":
			f.other = e["id"].(string)
		}
	}
	_, tl := getJSONAny(t, h, "/api/topics")
	best := 0.0
	for _, x := range tl["topics"].([]any) {
		tp := x.(map[string]any)
		if n := tp["documents"].(float64); n > best {
			best, f.topic = n, tp["slug"].(string)
		}
	}
	if f.doc == "" || f.other == "" || f.topic == "" {
		t.Fatalf("fixture corpus lacks a document with full text and references, a second document or a topic: %+v", f)
	}
	return f
}

func getJSONAny(t testing.TB, h http.Handler, target string) (int, map[string]any) {
	t.Helper()
	res, body := rawGET(t, h, target, nil)
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("GET %s: %d, body is not JSON: %v: %.300s", target, res.StatusCode, err, body)
	}
	return res.StatusCode, m
}

// request sends a GET through h and returns the response with its body.
func rawGET(t testing.TB, h http.Handler, target string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.RemoteAddr = "192.0.2.1:1234"
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

// paid sends a GET with a PAYMENT-SIGNATURE header.
func paidGET(t testing.TB, h http.Handler, target, payment string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	m := map[string]string{x402.HeaderPaymentSignature: payment}
	for k, v := range hdr {
		m[k] = v
	}
	return rawGET(t, h, target, m)
}

// required asks for target without paying and returns the requirements
// of its 402, checking that the PAYMENT-REQUIRED header and the JSON body
// say the same.
func requiredOf(t testing.TB, h http.Handler, target string) x402.PaymentRequired {
	t.Helper()
	res, body := rawGET(t, h, target, nil)
	if res.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("GET %s unpaid: %d, want 402: %.300s", target, res.StatusCode, body)
	}
	pr, err := x402.DecodeRequiredHeader(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil {
		t.Fatalf("GET %s: PAYMENT-REQUIRED: %v", target, err)
	}
	var fromBody x402.PaymentRequired
	if err := json.Unmarshal(body, &fromBody); err != nil {
		t.Fatalf("GET %s: 402 body: %v", target, err)
	}
	hb, _ := json.Marshal(pr)
	bb, _ := json.Marshal(fromBody)
	if !bytes.Equal(hb, bb) {
		t.Errorf("GET %s: 402 header and body differ:\n%s\n%s", target, hb, bb)
	}
	if pr.X402Version != 2 || len(pr.Accepts) != 1 || pr.Resource.URL == "" {
		t.Fatalf("GET %s: requirements %+v", target, pr)
	}
	return *pr
}

// sign returns a fresh payment for target, signed now.
func signFor(t testing.TB, h http.Handler, key *ecdsa.PrivateKey, target string) *x402.PaymentPayload {
	t.Helper()
	p, err := x402.NewPayment(key, requiredOf(t, h, target), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func settledCount(t testing.TB, a *App) int {
	t.Helper()
	n, _, err := a.Payments.Core.Config().Ledger.CountSettlements(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// receiptOf decodes the PAYMENT-RESPONSE of a paid answer.
func receiptOf(t testing.TB, res *http.Response) *x402.SettlementResponse {
	t.Helper()
	h := res.Header.Get(x402.HeaderPaymentResponse)
	if h == "" {
		t.Fatalf("no %s header", x402.HeaderPaymentResponse)
	}
	r, err := x402.DecodeSettlementHeader(h)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// paymentMetrics reads openshelf_payments_total by outcome from /metrics.
func paymentMetrics(t testing.TB, h http.Handler) map[string]int {
	t.Helper()
	if s, ok := h.(*Server); ok {
		h = s.Metrics() // the operator listener's handler, off the public router
	}
	_, body := rawGET(t, h, "/metrics", nil)
	re := regexp.MustCompile(`(?m)^openshelf_payments_total\{outcome="([a-z_]+)"\} ([0-9]+)$`)
	out := map[string]int{}
	for _, m := range re.FindAllStringSubmatch(string(body), -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	return out
}

// checkRights fails unless m carries every rights field, non-empty.
func checkRights(t testing.TB, what string, m map[string]any) {
	t.Helper()
	for _, k := range rightsFields {
		if s, _ := m[k].(string); strings.TrimSpace(s) == "" {
			t.Errorf("%s: rights field %s missing or empty (%v)", what, k, m[k])
		}
	}
	if m["license"] == "CC-BY-SA" {
		if s, _ := m["share_alike_notice"].(string); s == "" {
			t.Errorf("%s: CC BY-SA without share_alike_notice", what)
		}
	}
}

// ndjsonLines parses NDJSON, failing on any bad line.
func ndjsonLines(t testing.TB, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("bundle line %d is not JSON: %v: %.200s", len(out)+1, err, sc.Bytes())
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPaidResources buys each paid resource once, checks what it got, then
// sends the same payment again: same content and receipt, no second
// charge. /metrics counts every outcome.
func TestPaidResources(t *testing.T) {
	a := newTestApp(t, testsnap.Copy(t), nil)
	h := a.HTTP
	key := testPayer(t)
	f := findPaidFixture(t, h)

	for _, target := range f.resources() {
		before := settledCount(t, a)
		p := signFor(t, h, key, target)
		hdr := x402.EncodeHeader(p)
		res, body := paidGET(t, h, target, hdr, nil)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s paid: %d %.300s", target, res.StatusCode, body)
		}
		r := receiptOf(t, res)
		if !r.Success || r.Transaction == "" || r.Network != x402.NetworkBase || !strings.EqualFold(r.Payer, p.Payload.Authorization.From) ||
			r.Amount != p.Accepted.Amount {
			t.Errorf("GET %s: receipt %+v", target, r)
		}
		if got := settledCount(t, a); got != before+1 {
			t.Errorf("GET %s: %d settlements, want %d", target, got, before+1)
		}
		if res.Header.Get(x402.HeaderPaymentRequired) != "" {
			t.Errorf("GET %s: 200 carries PAYMENT-REQUIRED", target)
		}
		if strings.HasSuffix(target, "/content") {
			if ct := res.Header.Get("Content-Type"); ct != "application/x-ndjson" {
				t.Errorf("bundle Content-Type %q", ct)
			}
			lines := ndjsonLines(t, body)
			if len(lines) == 0 {
				t.Fatalf("bundle %s is empty", target)
			}
			for i, l := range lines {
				checkRights(t, fmt.Sprintf("%s line %d", target, i+1), l)
			}
		} else {
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatalf("GET %s: %v", target, err)
			}
			if m["id"] != f.doc || m["title"] == "" {
				t.Errorf("GET %s: content %.300s", target, body)
			}
			checkRights(t, target, m)
			switch {
			case strings.HasSuffix(target, "/fulltext"):
				if secs, _ := m["sections"].([]any); len(secs) == 0 {
					t.Errorf("fulltext without sections: %.300s", body)
				}
			case strings.HasSuffix(target, "/references"):
				if refs, _ := m["references"].([]any); len(refs) == 0 {
					t.Errorf("references empty: %.300s", body)
				}
			}
		}

		// The same payment again for the same resource: same content,
		// same receipt, not charged twice.
		res2, body2 := paidGET(t, h, target, hdr, nil)
		if res2.StatusCode != 200 || !bytes.Equal(body, body2) {
			t.Errorf("GET %s resent: %d, same body %v", target, res2.StatusCode, bytes.Equal(body, body2))
		}
		if res2.Header.Get(x402.HeaderPaymentResponse) != res.Header.Get(x402.HeaderPaymentResponse) {
			t.Errorf("GET %s resent: receipt differs", target)
		}
		if got := settledCount(t, a); got != before+1 {
			t.Errorf("GET %s resent: %d settlements, want %d", target, got, before+1)
		}
	}
	m := paymentMetrics(t, h)
	if m["settled"] != 4 || m["replayed"] != 4 || m["required"] != 4 || m["rejected"] != 0 {
		t.Errorf("payment metrics %v, want settled 4, replayed 4, required 4", m)
	}
}

// TestBadPayments sends one bad payment per case: each is refused with 402
// and a specific reason, serves nothing and settles nothing.
func TestBadPayments(t *testing.T) {
	a := newTestApp(t, testsnap.Copy(t), nil)
	h := a.HTTP
	key := testPayer(t)
	f := findPaidFixture(t, h)
	target := "/api/document/" + f.doc
	other := "/api/document/" + f.other
	otherKey, _ := crypto.GenerateKey()

	// An authorization settled for other, to be reused for target.
	used := signFor(t, h, key, other)
	if res, body := paidGET(t, h, other, x402.EncodeHeader(used), nil); res.StatusCode != 200 {
		t.Fatalf("buying %s: %d %.300s", other, res.StatusCode, body)
	}

	now := time.Now()
	// resign alters a fresh payment for target and signs it again, so
	// only the altered field is wrong.
	resign := func(alter func(p *x402.PaymentPayload)) string {
		p := signFor(t, h, key, target)
		alter(p)
		if err := p.Sign(key); err != nil {
			t.Fatal(err)
		}
		return x402.EncodeHeader(p)
	}
	// alter changes a fresh payment without signing it again.
	alter := func(change func(p *x402.PaymentPayload)) string {
		p := signFor(t, h, key, target)
		change(p)
		return x402.EncodeHeader(p)
	}
	rawJSON := func(change func(m map[string]any)) string {
		var m map[string]any
		json.Unmarshal([]byte(mustOK(base64.StdEncoding.DecodeString(x402.EncodeHeader(signFor(t, h, key, target))))), &m)
		change(m)
		b, _ := json.Marshal(m)
		return base64.StdEncoding.EncodeToString(b)
	}
	tests := []struct {
		name, header, reason string
	}{
		{"not base64", "%%% not base64 %%%", x402.ReasonInvalidPaymentHeader},
		{"not JSON", base64.StdEncoding.EncodeToString([]byte("{not json")), x402.ReasonInvalidPaymentJSON},
		{"JSON of the wrong shape", rawJSON(func(m map[string]any) { m["accepted"] = "exact" }), x402.ReasonInvalidPaymentJSON},
		{"wrong version", rawJSON(func(m map[string]any) { m["x402Version"] = 1 }), x402.ReasonInvalidVersion},
		{"wrong scheme", resign(func(p *x402.PaymentPayload) { p.Accepted.Scheme = "upto" }), x402.ReasonInvalidScheme},
		{"wrong network", resign(func(p *x402.PaymentPayload) { p.Accepted.Network = x402.NetworkBaseSepolia }), x402.ReasonInvalidNetwork},
		{"wrong asset", resign(func(p *x402.PaymentPayload) { p.Accepted.Asset = x402.USDCBaseSepolia }), x402.ReasonAssetMismatch},
		{"wrong payTo", resign(func(p *x402.PaymentPayload) {
			p.Accepted.PayTo = "0x000000000000000000000000000000000000dEaD"
			p.Payload.Authorization.To = p.Accepted.PayTo
		}), x402.ReasonPayToMismatch},
		{"wrong amount", resign(func(p *x402.PaymentPayload) { p.Accepted.Amount = "1"; p.Payload.Authorization.Value = "1" }), x402.ReasonAmountMismatch},
		{"authorization to someone else", resign(func(p *x402.PaymentPayload) {
			p.Payload.Authorization.To = "0x000000000000000000000000000000000000dEaD"
		}), x402.ReasonRecipientMismatch},
		{"authorization for less", resign(func(p *x402.PaymentPayload) { p.Payload.Authorization.Value = "999" }), x402.ReasonValueMismatch},
		{"expired", resign(func(p *x402.PaymentPayload) {
			p.Payload.Authorization.ValidBefore = strconv.FormatInt(now.Add(-time.Minute).Unix(), 10)
		}), x402.ReasonExpired},
		{"valid for too long", resign(func(p *x402.PaymentPayload) {
			p.Payload.Authorization.ValidBefore = strconv.FormatInt(now.Add(24*time.Hour).Unix(), 10)
		}), x402.ReasonExpired},
		{"not yet valid", resign(func(p *x402.PaymentPayload) {
			p.Payload.Authorization.ValidAfter = strconv.FormatInt(now.Add(time.Hour).Unix(), 10)
		}), x402.ReasonNotYetValid},
		{"signature by another key", alter(func(p *x402.PaymentPayload) {
			if err := p.Sign(otherKey); err != nil {
				t.Fatal(err)
			}
		}), x402.ReasonInvalidSignature},
		{"nonce changed after signing", alter(func(p *x402.PaymentPayload) {
			p.Payload.Authorization.Nonce = "0x" + strings.Repeat("ab", 32)
		}), x402.ReasonInvalidSignature},
		{"corrupt signature", alter(func(p *x402.PaymentPayload) {
			s := []byte(p.Payload.Signature)
			s[10] = map[bool]byte{true: '1', false: '0'}[s[10] == '0'] // another hex digit in r
			p.Payload.Signature = string(s)
		}), x402.ReasonInvalidSignature},
		{"truncated signature", alter(func(p *x402.PaymentPayload) { p.Payload.Signature = p.Payload.Signature[:40] }), x402.ReasonInvalidSignature},
		{"payment for another resource", alter(func(p *x402.PaymentPayload) {
			p.Resource.URL = testBase + other
		}), x402.ReasonResourceMismatch},
		{"nonce already used for another resource", func() string {
			p := *used
			r := *p.Resource
			r.URL = testBase + target
			p.Resource = &r
			return x402.EncodeHeader(&p)
		}(), x402.ReasonNonceAlreadyUsed},
		{"nonce already used, resource left out", func() string {
			p := *used
			p.Resource = nil
			return x402.EncodeHeader(&p)
		}(), x402.ReasonNonceAlreadyUsed},
	}
	before := settledCount(t, a)
	rejectedBefore := paymentMetrics(t, h)["rejected"]
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := paidGET(t, h, target, tt.header, nil)
			if res.StatusCode != http.StatusPaymentRequired {
				t.Fatalf("status %d, want 402: %.300s", res.StatusCode, body)
			}
			pr, err := x402.DecodeRequiredHeader(res.Header.Get(x402.HeaderPaymentRequired))
			if err != nil {
				t.Fatalf("PAYMENT-REQUIRED: %v", err)
			}
			if !strings.HasPrefix(pr.Error, tt.reason) {
				t.Errorf("header error %q, want reason %s", pr.Error, tt.reason)
			}
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatalf("402 body: %v", err)
			}
			if e, _ := m["error"].(string); !strings.HasPrefix(e, tt.reason) {
				t.Errorf("body error %q, want reason %s", e, tt.reason)
			}
			for _, k := range []string{"title", "license", "abstract"} {
				if _, ok := m[k]; ok {
					t.Errorf("402 body carries content field %s", k)
				}
			}
			if res.Header.Get(x402.HeaderPaymentResponse) != "" {
				t.Errorf("402 carries a receipt")
			}
			if got := settledCount(t, a); got != before {
				t.Errorf("%d settlements after a bad payment, want %d", got, before)
			}
		})
	}
	if got := paymentMetrics(t, h)["rejected"] - rejectedBefore; got != len(tests) {
		t.Errorf("metrics count %d rejected payments, want %d", got, len(tests))
	}
	// A good payment still works afterwards.
	if res, body := paidGET(t, h, target, x402.EncodeHeader(signFor(t, h, key, target)), nil); res.StatusCode != 200 {
		t.Fatalf("good payment after bad ones: %d %.300s", res.StatusCode, body)
	}
}

func mustOK[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestPaidNotFound answers 404 before any payment: no PAYMENT-REQUIRED, and
// a payment sent along is neither verified nor settled.
func TestPaidNotFound(t *testing.T) {
	a := newTestApp(t, testsnap.Copy(t), nil)
	h := a.HTTP
	key := testPayer(t)
	f := findPaidFixture(t, h)
	p := signFor(t, h, key, "/api/document/"+f.doc)
	before := paymentMetrics(t, h)
	for _, target := range []string{"/api/document/pmc-99999999999", "/api/document/pmc-99999999999/fulltext",
		"/api/document/doi-0123456789abcdef0123/references", "/api/topic/no-such-topic/content"} {
		for _, hdr := range []string{"", x402.EncodeHeader(p)} {
			res, body := paidGET(t, h, target, hdr, nil)
			if res.StatusCode != 404 || res.Header.Get(x402.HeaderPaymentRequired) != "" || res.Header.Get(x402.HeaderPaymentResponse) != "" {
				t.Errorf("GET %s (payment %v): %d %v %.200s", target, hdr != "", res.StatusCode, res.Header, body)
			}
		}
	}
	if n := settledCount(t, a); n != 0 {
		t.Errorf("%d settlements", n)
	}
	if m := paymentMetrics(t, h); fmt.Sprint(m) != fmt.Sprint(before) {
		t.Errorf("404s changed the payment metrics: %v, before %v", m, before)
	}
}

// TestPaidHandlerFailure: the resource exists (Check passes) but the
// handler fails reading it. Nothing is charged, and the authorization can
// be used again once the resource is readable.
func TestPaidHandlerFailure(t *testing.T) {
	dir := testsnap.Copy(t)
	a := newTestApp(t, dir, nil)
	h := a.HTTP
	key := testPayer(t)
	f := findPaidFixture(t, h)
	target := "/api/document/" + f.doc + "/fulltext"
	p := signFor(t, h, key, target)

	snap, err := snapshot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Full text is read from the content store, which the server keeps
	// open: emptying the file in place makes the read fail.
	ft := filepath.Join(snap.Dir, filepath.FromSlash(content.File))
	saved, err := os.ReadFile(ft)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(ft, 0); err != nil {
		t.Fatal(err)
	}
	res, body := paidGET(t, h, target, x402.EncodeHeader(p), nil)
	if res.StatusCode < 500 || res.Header.Get(x402.HeaderPaymentResponse) != "" || bytes.Contains(body, []byte(`"sections"`)) {
		t.Fatalf("handler failure: %d %v %.300s", res.StatusCode, res.Header, body)
	}
	if n := settledCount(t, a); n != 0 {
		t.Fatalf("%d settlements after a failed handler", n)
	}
	if m := paymentMetrics(t, h); m["handler_error"] != 1 || m["settled"] != 0 {
		t.Errorf("metrics %v", m)
	}

	// Restored: the same authorization pays once.
	if err := os.WriteFile(ft, saved, 0o644); err != nil {
		t.Fatal(err)
	}
	res, body = paidGET(t, h, target, x402.EncodeHeader(p), nil)
	if res.StatusCode != 200 || !receiptOf(t, res).Success {
		t.Fatalf("after restore: %d %.300s", res.StatusCode, body)
	}
	if n := settledCount(t, a); n != 1 {
		t.Fatalf("%d settlements, want 1", n)
	}
}

// TestConcurrentPaymentHTTP sends one signed payment on 50 concurrent
// requests over real HTTP: it settles once and every 200 carries the same
// receipt. After a restart on the same data directory, a replay is served
// from the ledger, not charged again.
func TestConcurrentPaymentHTTP(t *testing.T) {
	dir := testsnap.Copy(t)
	a := newTestApp(t, dir, nil)
	srv := httptest.NewServer(a.HTTP)
	f := findPaidFixture(t, a.HTTP)
	target := "/api/document/" + f.doc + "/fulltext"
	hdr := x402.EncodeHeader(signFor(t, a.HTTP, testPayer(t), target))

	get := func(base string) (int, string, []byte, error) {
		req, _ := http.NewRequest(http.MethodGet, base+target, nil)
		req.Header.Set(x402.HeaderPaymentSignature, hdr)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, "", nil, err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get(x402.HeaderPaymentResponse), b, err
	}
	const n = 50
	type answer struct {
		status  int
		receipt string
		body    []byte
		err     error
	}
	answers := make([]answer, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			a := &answers[i]
			a.status, a.receipt, a.body, a.err = get(srv.URL)
		}()
	}
	close(start)
	wg.Wait()
	srv.Close()
	for i, an := range answers {
		if an.err != nil || an.status != 200 {
			t.Fatalf("request %d: %d %v %.200s", i, an.status, an.err, an.body)
		}
		if an.receipt == "" || an.receipt != answers[0].receipt || !bytes.Equal(an.body, answers[0].body) {
			t.Errorf("request %d: receipt or body differs from request 0", i)
		}
	}
	if got := settledCount(t, a); got != 1 {
		t.Fatalf("%d settlements for one payment, want 1", got)
	}
	m := paymentMetrics(t, a.HTTP)
	if m["settled"] != 1 || m["replayed"] != n-1 {
		t.Errorf("metrics %v, want settled 1, replayed %d", m, n-1)
	}

	// Restart: close the app, open another on the same data directory.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b := newTestApp(t, dir, nil)
	srv = httptest.NewServer(b.HTTP)
	defer srv.Close()
	status, receipt, body, err := get(srv.URL)
	if err != nil || status != 200 || receipt != answers[0].receipt || !bytes.Equal(body, answers[0].body) {
		t.Fatalf("replay after restart: %d %v, same receipt %v, same body %v", status, err, receipt == answers[0].receipt, bytes.Equal(body, answers[0].body))
	}
	if got := settledCount(t, b); got != 1 {
		t.Fatalf("%d settlements after a replay across a restart, want 1", got)
	}
	if m := paymentMetrics(t, b.HTTP); m["replayed"] != 1 || m["settled"] != 0 {
		t.Errorf("metrics after restart %v", m)
	}
}

// TestPaidFacilitatorFailures runs the app against an HTTP facilitator that
// stalls, breaks or refuses: a timeout is a 504 facilitator_timeout, a
// broken facilitator a 502 facilitator_error, never a fresh 402; a refused
// settlement is a 402 with the failed receipt. Nothing is served or
// charged, and the authorization stays usable.
func TestPaidFacilitatorFailures(t *testing.T) {
	fac := facilitatortest.New(nil)
	defer fac.Close()
	a := newTestApp(t, testsnap.Copy(t), func(c *Config) {
		c.Facilitator = fac.URL
		c.FacilitatorTimeout = 300 * time.Millisecond
	})
	h := a.HTTP
	key := testPayer(t)
	f := findPaidFixture(t, h)
	target := "/api/document/" + f.doc
	p := x402.EncodeHeader(signFor(t, h, key, target))

	noContent := func(what string, res *http.Response, body []byte) {
		t.Helper()
		if bytes.Contains(body, []byte(`"title"`)) {
			t.Errorf("%s: content served: %.200s", what, body)
		}
		if n := settledCount(t, a); n != 0 {
			t.Errorf("%s: %d settlements", what, n)
		}
	}
	apiCode := func(body []byte) string {
		var m map[string]any
		json.Unmarshal(body, &m)
		return errCode(m)
	}

	for _, tt := range []struct {
		name          string
		setup         func()
		status        int
		code          string
		settleAttempt bool
	}{
		{"verify times out", func() { fac.SetDelay(5*time.Second, 0) }, 504, "facilitator_timeout", false},
		{"settle times out", func() { fac.SetDelay(0, 5*time.Second) }, 504, "facilitator_timeout", true},
		{"facilitator broken", func() { fac.FailStatus(http.StatusBadGateway) }, 502, "facilitator_error", false},
	} {
		fac.SetDelay(0, 0)
		fac.FailStatus(0)
		tt.setup()
		res, body := paidGET(t, h, target, p, nil)
		if res.StatusCode != tt.status || apiCode(body) != tt.code {
			t.Errorf("%s: %d %q, want %d %q: %.200s", tt.name, res.StatusCode, apiCode(body), tt.status, tt.code, body)
		}
		if res.Header.Get(x402.HeaderPaymentRequired) != "" || res.Header.Get(x402.HeaderPaymentResponse) != "" {
			t.Errorf("%s: answer carries payment headers: %v", tt.name, res.Header)
		}
		noContent(tt.name, res, body)
	}
	fac.SetDelay(0, 0)
	fac.FailStatus(0)

	// Unknown settlement outcomes are logged for reconciliation: the
	// timed-out settlement, and its recovery on the next re-send (which
	// asks the facilitator again before anything else, and found it
	// broken).
	if _, unknown, err := a.Payments.Core.Config().Ledger.CountSettlements(context.Background()); err != nil || unknown != 2 {
		t.Errorf("unknown settlements %d (%v), want 2", unknown, err)
	}

	// A refused settlement: 402 with the failed receipt.
	fac.FailSettle("insufficient_funds")
	res, body := paidGET(t, h, target, p, nil)
	if res.StatusCode != 402 {
		t.Fatalf("refused settlement: %d %.200s", res.StatusCode, body)
	}
	if r := receiptOf(t, res); r.Success || r.ErrorReason != "insufficient_funds" || r.Transaction != "" {
		t.Errorf("refused settlement receipt %+v", r)
	}
	if pr, err := x402.DecodeRequiredHeader(res.Header.Get(x402.HeaderPaymentRequired)); err != nil || !strings.HasPrefix(pr.Error, x402.ReasonSettlementFailed) {
		t.Errorf("refused settlement PAYMENT-REQUIRED %+v %v", pr, err)
	}
	noContent("refused settlement", res, body)
	fac.FailSettle("")

	// The authorization was never used: it pays now.
	res, body = paidGET(t, h, target, p, nil)
	if res.StatusCode != 200 || !receiptOf(t, res).Success {
		t.Fatalf("after the failures: %d %.200s", res.StatusCode, body)
	}
	if n := settledCount(t, a); n != 1 {
		t.Errorf("%d settlements, want 1", n)
	}
	m := paymentMetrics(t, h)
	if m["facilitator_error"] != 3 || m["settle_failed"] != 1 || m["settled"] != 1 || m["required"] != 1 {
		t.Errorf("payment metrics %v", m)
	}
}

// TestPaidBundleEncoding: with Accept-Encoding zstd the bundle is the stored
// file byte for byte; without, it is the same lines decompressed. Every line
// carries the rights fields.
func TestPaidBundleEncoding(t *testing.T) {
	dir := testsnap.Copy(t)
	a := newTestApp(t, dir, nil)
	h := a.HTTP
	key := testPayer(t)
	f := findPaidFixture(t, h)
	target := "/api/topic/" + f.topic + "/content"
	snap, err := snapshot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	path, err := snap.BundlePath(f.topic)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	plain, err := dec.DecodeAll(stored, nil)
	if err != nil {
		t.Fatal(err)
	}

	p := x402.EncodeHeader(signFor(t, h, key, target))
	res, body := paidGET(t, h, target, p, map[string]string{"Accept-Encoding": "gzip, zstd"})
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "zstd" || !bytes.Equal(body, stored) {
		t.Fatalf("zstd: %d %q, %d bytes, stored %d", res.StatusCode, res.Header.Get("Content-Encoding"), len(body), len(stored))
	}
	if cl := res.Header.Get("Content-Length"); cl != strconv.Itoa(len(stored)) {
		t.Errorf("zstd Content-Length %q, want %d", cl, len(stored))
	}
	if !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
		t.Errorf("Vary %q", res.Header.Get("Vary"))
	}
	got, err := dec.DecodeAll(body, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := ndjsonLines(t, got)
	_, tl := getJSONAny(t, h, "/api/topics")
	for _, x := range tl["topics"].([]any) {
		if tp := x.(map[string]any); tp["slug"] == f.topic && int(tp["documents"].(float64)) != len(lines) {
			t.Errorf("bundle has %d lines, topic lists %v documents", len(lines), tp["documents"])
		}
	}
	for i, l := range lines {
		checkRights(t, fmt.Sprintf("line %d", i+1), l)
		if ts, _ := l["topics"].([]any); !contains(ts, f.topic) {
			t.Errorf("line %d is not in topic %s: %v", i+1, f.topic, l["topics"])
		}
	}

	// Same payment, no zstd: plain NDJSON, no Content-Encoding; the
	// resend is a replay and not charged.
	for _, ae := range []string{"", "gzip, br", "zstd;q=0"} {
		res, body = paidGET(t, h, target, p, map[string]string{"Accept-Encoding": ae})
		if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, plain) {
			t.Errorf("Accept-Encoding %q: %d %q, %d bytes, want %d plain", ae, res.StatusCode, res.Header.Get("Content-Encoding"), len(body), len(plain))
		}
	}
	if n := settledCount(t, a); n != 1 {
		t.Errorf("%d settlements, want 1", n)
	}
}
