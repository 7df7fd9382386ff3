package x402

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/openshelf/openshelf/serve/apierr"
)

var testNow = time.Unix(1_800_000_000, 0)

const (
	testPayTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	testURL   = "https://openshelf.example/v1/documents/pmc-1/fulltext"
	otherURL  = "https://openshelf.example/v1/documents/pmc-2/fulltext"
)

// countingFacilitator wraps a facilitator to count calls and inject
// failures.
type countingFacilitator struct {
	Facilitator
	verifies, settles atomic.Int64

	mu         sync.Mutex
	verifyErr  error
	settleErr  error
	settleFail string
}

func (f *countingFacilitator) Verify(ctx context.Context, p *PaymentPayload, r PaymentRequirements) (VerifyResponse, error) {
	f.verifies.Add(1)
	f.mu.Lock()
	err := f.verifyErr
	f.mu.Unlock()
	if err != nil {
		return VerifyResponse{}, err
	}
	return f.Facilitator.Verify(ctx, p, r)
}

func (f *countingFacilitator) Settle(ctx context.Context, p *PaymentPayload, r PaymentRequirements) (SettlementResponse, error) {
	f.mu.Lock()
	err, fail := f.settleErr, f.settleFail
	f.mu.Unlock()
	if err != nil {
		return SettlementResponse{}, err
	}
	if fail != "" {
		return SettlementResponse{ErrorReason: fail, Network: r.Network}, nil
	}
	resp, err := f.Facilitator.Settle(ctx, p, r)
	if err == nil && resp.Success {
		f.settles.Add(1)
	}
	return resp, err
}

func (f *countingFacilitator) set(fn func(f *countingFacilitator)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

type env struct {
	t      testing.TB
	path   string
	ledger *Ledger
	fac    *countingFacilitator
	core   *Core
	key    *ecdsa.PrivateKey
	req    PaymentRequired

	mu       sync.Mutex
	outcomes map[string]int
}

func newEnv(t testing.TB, opts ...func(*Config)) *env {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "x402.db")
	return newEnvAt(t, path, opts...)
}

// newEnvAt opens a ledger at path and builds a core over it, like a
// process starting up.
func newEnvAt(t testing.TB, path string, opts ...func(*Config)) *env {
	t.Helper()
	l, err := OpenLedgerURL(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	e := &env{t: t, path: path, ledger: l, outcomes: map[string]int{}}
	local := NewLocal(l)
	local.Now = func() time.Time { return testNow }
	e.fac = &countingFacilitator{Facilitator: local}
	cfg := Config{
		PayTo: testPayTo, Facilitator: e.fac, Ledger: l, MaxTimeoutSeconds: 60,
		Now:          func() time.Time { return testNow },
		PollInterval: time.Millisecond,
		Metrics: func(o string) {
			e.mu.Lock()
			e.outcomes[o]++
			e.mu.Unlock()
		},
	}
	for _, o := range opts {
		o(&cfg)
	}
	if e.core, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	if e.key, err = crypto.HexToECDSA(kaKey); err != nil {
		t.Fatal(err)
	}
	e.req = e.core.Requirements(testURL, "full text", "application/json", "0.001")
	return e
}

func (e *env) payment() *PaymentPayload {
	e.t.Helper()
	p, err := NewPayment(e.key, e.req, testNow)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) outcome(o string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.outcomes[o]
}

func (e *env) settledCount() int {
	e.t.Helper()
	n, _, err := e.ledger.CountSettlements(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

func ok(ctx context.Context, _ Payment) (string, error) { return "content", nil }

func TestRequirements(t *testing.T) {
	e := newEnv(t)
	want := PaymentRequirements{Scheme: "exact", Network: "eip155:8453", Amount: "1000",
		Asset: USDCBase, PayTo: testPayTo, MaxTimeoutSeconds: 60, Extra: Extra{Name: "USD Coin", Version: "2"}}
	if e.req.X402Version != 2 || len(e.req.Accepts) != 1 || e.req.Accepts[0] != want {
		t.Fatalf("requirements %+v", e.req)
	}
	if e.req.Resource != (Resource{URL: testURL, Description: "full text", MimeType: "application/json"}) {
		t.Errorf("resource %+v", e.req.Resource)
	}
	for _, price := range []string{"0", "-1", "abc", "0.0000001"} {
		if _, err := e.core.NewRequirements(testURL, "", "", price); err == nil {
			t.Errorf("price %q accepted", price)
		}
		bad := e.core.Requirements(testURL, "", "", price)
		if len(bad.Accepts) != 0 {
			t.Errorf("price %q: accepts %+v", price, bad.Accepts)
		}
		_, _, err := Pay(context.Background(), e.core, bad, e.payment(), ok, nil)
		if err == nil || errors.Is(err, apierr.ErrPaymentRequired) || apierr.From(err).Status != 500 {
			t.Errorf("price %q: Pay err = %v, want a 500", price, err)
		}
	}
}

func TestNewConfig(t *testing.T) {
	l, err := OpenLedger(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	fac := NewLocal(nil)
	base := Config{PayTo: testPayTo, Facilitator: fac, Ledger: l}
	tests := []struct {
		name string
		mod  func(*Config)
		ok   bool
	}{
		{"defaults", func(*Config) {}, true},
		{"lower-case payTo", func(c *Config) { c.PayTo = "0x209693bc6afc0c5328ba36faf03c514ef312287c" }, true},
		{"bad checksum", func(c *Config) { c.PayTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287c" }, false},
		{"zero payTo", func(c *Config) { c.PayTo = "0x0000000000000000000000000000000000000000" }, false},
		{"no payTo", func(c *Config) { c.PayTo = "" }, false},
		{"sepolia", func(c *Config) { c.Network = NetworkBaseSepolia }, true},
		{"chain mismatch", func(c *Config) { c.ChainID = 1 }, false},
		{"unknown network without asset", func(c *Config) { c.Network = "eip155:1" }, false},
		{"bad network", func(c *Config) { c.Network = "base-goerli" }, false},
		{"network alias base", func(c *Config) { c.Network = "base" }, true},
		{"tiny timeout", func(c *Config) { c.MaxTimeoutSeconds = 5 }, false},
		{"no facilitator", func(c *Config) { c.Facilitator = nil }, false},
		{"no ledger", func(c *Config) { c.Ledger = nil }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			tt.mod(&cfg)
			c, err := New(cfg)
			if (err == nil) != tt.ok {
				t.Fatalf("New err = %v, want ok=%v", err, tt.ok)
			}
			if err != nil {
				return
			}
			got := c.Config()
			if got.PayTo != testPayTo || got.MaxTimeoutSeconds != 300 {
				t.Errorf("config %+v", got)
			}
			if cfg.Network == NetworkBaseSepolia && (got.AssetName != "USDC" || got.Asset != USDCBaseSepolia || got.ChainID != 84532) {
				t.Errorf("sepolia defaults %+v", got)
			}
			if cfg.Network == "" && (got.AssetName != "USD Coin" || got.Asset != USDCBase || got.ChainID != 8453 || got.AssetVersion != "2") {
				t.Errorf("base defaults %+v", got)
			}
		})
	}
}

func TestPaySettles(t *testing.T) {
	e := newEnv(t)
	p := e.payment()
	v, receipt, err := Pay(context.Background(), e.core, e.req, p, ok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v != "content" {
		t.Errorf("result %q", v)
	}
	if !receipt.Success || receipt.Network != NetworkBase || receipt.Payer != kaFrom || len(receipt.Transaction) != 66 || receipt.Amount != "1000" {
		t.Errorf("receipt %+v", receipt)
	}
	note, _ := receipt.Extensions["local-facilitator"].(map[string]any)["info"].(map[string]any)["note"].(string)
	if note != LocalNote {
		t.Errorf("receipt does not say no funds moved: %+v", receipt.Extensions)
	}
	if e.fac.verifies.Load() != 1 || e.fac.settles.Load() != 1 || e.settledCount() != 1 {
		t.Errorf("verifies %d settles %d ledger %d", e.fac.verifies.Load(), e.fac.settles.Load(), e.settledCount())
	}
	if e.outcome(OutcomeSettled) != 1 {
		t.Errorf("outcomes %v", e.outcomes)
	}
}

// TestPayRefuses: one case per bad payment; each is a 402 with a specific
// reason, runs no handler and settles nothing.
func TestPayRefuses(t *testing.T) {
	other, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	unix := func(d time.Duration) string { return strconv.FormatInt(testNow.Add(d).Unix(), 10) }
	tests := []struct {
		name   string
		mutate func(e *env, p *PaymentPayload) *PaymentPayload
		want   string
	}{
		{"no payment", func(e *env, p *PaymentPayload) *PaymentPayload { return nil }, ReasonPaymentRequired},
		{"version 1", func(e *env, p *PaymentPayload) *PaymentPayload { p.X402Version = 1; return p }, ReasonInvalidVersion},
		{"scheme", func(e *env, p *PaymentPayload) *PaymentPayload { p.Accepted.Scheme = "upto"; return p }, ReasonInvalidScheme},
		{"network", func(e *env, p *PaymentPayload) *PaymentPayload { p.Accepted.Network = NetworkBaseSepolia; return p }, ReasonInvalidNetwork},
		{"asset", func(e *env, p *PaymentPayload) *PaymentPayload { p.Accepted.Asset = USDCBaseSepolia; return p }, ReasonAssetMismatch},
		{"payTo", func(e *env, p *PaymentPayload) *PaymentPayload { p.Accepted.PayTo = kaFrom; return p }, ReasonPayToMismatch},
		{"amount", func(e *env, p *PaymentPayload) *PaymentPayload { p.Accepted.Amount = "1"; return p }, ReasonAmountMismatch},
		{"amount not canonical", func(e *env, p *PaymentPayload) *PaymentPayload { p.Accepted.Amount = "01000"; return p }, ReasonAmountMismatch},
		{"maxTimeoutSeconds", func(e *env, p *PaymentPayload) *PaymentPayload { p.Accepted.MaxTimeoutSeconds = 3600; return p }, ReasonRequirementsMismatch},
		{"extra name", func(e *env, p *PaymentPayload) *PaymentPayload { p.Accepted.Extra.Name = "USDC"; return p }, ReasonRequirementsMismatch},
		{"permit2", func(e *env, p *PaymentPayload) *PaymentPayload {
			p.Accepted.Extra.AssetTransferMethod = "permit2"
			return p
		}, ReasonRequirementsMismatch},
		{"resource", func(e *env, p *PaymentPayload) *PaymentPayload { p.Resource.URL = otherURL; return p }, ReasonResourceMismatch},
		{"recipient", func(e *env, p *PaymentPayload) *PaymentPayload {
			p.Payload.Authorization.To = kaFrom
			must(e.t, p.Sign(e.key))
			return p
		}, ReasonRecipientMismatch},
		{"value", func(e *env, p *PaymentPayload) *PaymentPayload {
			p.Payload.Authorization.Value = "999"
			must(e.t, p.Sign(e.key))
			return p
		}, ReasonValueMismatch},
		{"not yet valid", func(e *env, p *PaymentPayload) *PaymentPayload {
			p.Payload.Authorization.ValidAfter = unix(time.Minute)
			must(e.t, p.Sign(e.key))
			return p
		}, ReasonNotYetValid},
		{"expired", func(e *env, p *PaymentPayload) *PaymentPayload {
			p.Payload.Authorization.ValidBefore = unix(-time.Second)
			must(e.t, p.Sign(e.key))
			return p
		}, ReasonExpired},
		{"expires within the block buffer", func(e *env, p *PaymentPayload) *PaymentPayload {
			p.Payload.Authorization.ValidBefore = unix(3 * time.Second)
			must(e.t, p.Sign(e.key))
			return p
		}, ReasonExpired},
		{"valid for too long", func(e *env, p *PaymentPayload) *PaymentPayload {
			p.Payload.Authorization.ValidBefore = unix(24 * time.Hour)
			must(e.t, p.Sign(e.key))
			return p
		}, ReasonExpired},
		{"signed by another key", func(e *env, p *PaymentPayload) *PaymentPayload {
			must(e.t, p.Sign(other))
			return p
		}, ReasonInvalidSignature},
		{"nonce changed after signing", func(e *env, p *PaymentPayload) *PaymentPayload {
			n := []byte(p.Payload.Authorization.Nonce)
			if n[2] == 'a' { // change a digit of what was signed
				n[2] = 'b'
			} else {
				n[2] = 'a'
			}
			p.Payload.Authorization.Nonce = string(n)
			return p
		}, ReasonInvalidSignature},
		{"from changed after signing", func(e *env, p *PaymentPayload) *PaymentPayload {
			p.Payload.Authorization.From = crypto.PubkeyToAddress(other.PublicKey).Hex()
			return p
		}, ReasonInvalidSignature},
		{"signature truncated", func(e *env, p *PaymentPayload) *PaymentPayload {
			p.Payload.Signature = p.Payload.Signature[:100]
			return p
		}, ReasonInvalidSignature},
		{"malformed from", func(e *env, p *PaymentPayload) *PaymentPayload { p.Payload.Authorization.From = "alice"; return p }, ReasonInvalidPayload},
		{"malformed nonce", func(e *env, p *PaymentPayload) *PaymentPayload { p.Payload.Authorization.Nonce = "0x01"; return p }, ReasonInvalidPayload},
		{"value not decimal", func(e *env, p *PaymentPayload) *PaymentPayload { p.Payload.Authorization.Value = "0x3e8"; return p }, ReasonInvalidPayload},
		{"empty payload", func(e *env, p *PaymentPayload) *PaymentPayload { p.Payload = ExactPayload{}; return p }, ReasonInvalidPayload},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			p := tt.mutate(e, e.payment())
			ran := false
			_, receipt, err := Pay(context.Background(), e.core, e.req, p, func(context.Context, Payment) (string, error) {
				ran = true
				return "x", nil
			}, nil)
			checkRefused(t, err, tt.want, e.req)
			if ran || receipt != nil {
				t.Errorf("handler ran %v, receipt %+v", ran, receipt)
			}
			if e.fac.settles.Load() != 0 || e.settledCount() != 0 {
				t.Errorf("settled")
			}
			want := OutcomeRejected
			if tt.want == ReasonPaymentRequired {
				want = OutcomeRequired
			}
			if e.outcome(want) != 1 {
				t.Errorf("outcomes %v, want one %s", e.outcomes, want)
			}
		})
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// checkRefused asserts err is a 402 *PaymentError with reason, carrying our
// own requirements.
func checkRefused(t *testing.T, err error, reason string, req PaymentRequired) *PaymentError {
	t.Helper()
	pe, ok := AsPaymentError(err)
	if !ok {
		t.Fatalf("err = %v, want a *PaymentError %s", err, reason)
	}
	if pe.Reason != reason {
		t.Fatalf("reason %q (%s), want %q", pe.Reason, pe.Message, reason)
	}
	if !errors.Is(err, apierr.ErrPaymentRequired) {
		t.Error("not errors.Is ErrPaymentRequired")
	}
	if ae := apierr.From(err); ae.Status != 402 || ae.Code != reason {
		t.Errorf("apierr %d %s", ae.Status, ae.Code)
	}
	if pe.Required.Error == "" || len(pe.Required.Accepts) != 1 || pe.Required.Accepts[0] != req.Accepts[0] ||
		pe.Required.Resource != req.Resource || pe.Required.X402Version != 2 {
		t.Errorf("402 body %+v", pe.Required)
	}
	return pe
}

func TestPayHeaderErrors(t *testing.T) {
	e := newEnv(t)
	_, _, err := PayHeader(context.Background(), e.core, e.req, "***", ok, nil)
	if pe := checkRefused(t, err, ReasonInvalidPaymentHeader, e.req); !errors.Is(pe, ErrHeaderNotBase64) {
		t.Error("cause not ErrHeaderNotBase64")
	}
	_, _, err = PayHeader(context.Background(), e.core, e.req, EncodeHeader("just a string"), ok, nil)
	if pe := checkRefused(t, err, ReasonInvalidPaymentJSON, e.req); !errors.Is(pe, ErrHeaderNotJSON) {
		t.Error("cause not ErrHeaderNotJSON")
	}
	_, _, err = PayHeader(context.Background(), e.core, e.req, "", ok, nil)
	checkRefused(t, err, ReasonPaymentRequired, e.req)
	v, receipt, err := PayHeader(context.Background(), e.core, e.req, EncodeHeader(e.payment()), ok, nil)
	if err != nil || v != "content" || !receipt.Success {
		t.Fatalf("valid header: %v %v %+v", v, err, receipt)
	}
}

func TestReplaySameResource(t *testing.T) {
	e := newEnv(t)
	p := e.payment()
	_, first, err := Pay(context.Background(), e.core, e.req, p, ok, nil)
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	v, second, err := Pay(context.Background(), e.core, e.req, p, func(context.Context, Payment) (string, error) {
		runs++
		return "again", nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v != "again" || runs != 1 {
		t.Errorf("replay did not run the handler: %q %d", v, runs)
	}
	if EncodeHeader(first) != EncodeHeader(second) {
		t.Errorf("receipts differ:\n%+v\n%+v", first, second)
	}
	if e.fac.settles.Load() != 1 || e.fac.verifies.Load() != 1 || e.settledCount() != 1 {
		t.Errorf("settles %d verifies %d ledger %d", e.fac.settles.Load(), e.fac.verifies.Load(), e.settledCount())
	}
	if e.outcome(OutcomeSettled) != 1 || e.outcome(OutcomeReplayed) != 1 {
		t.Errorf("outcomes %v", e.outcomes)
	}
	// A failing handler on replay returns its error and changes nothing.
	boom := errors.New("boom")
	if _, _, err := Pay(context.Background(), e.core, e.req, p, func(context.Context, Payment) (string, error) { return "", boom }, nil); err != boom {
		t.Errorf("err = %v", err)
	}
	if _, third, err := Pay(context.Background(), e.core, e.req, p, ok, nil); err != nil || EncodeHeader(third) != EncodeHeader(first) {
		t.Errorf("replay after failed replay: %v %+v", err, third)
	}
}

func TestReplayOtherResource(t *testing.T) {
	e := newEnv(t)
	p := e.payment()
	if _, _, err := Pay(context.Background(), e.core, e.req, p, ok, nil); err != nil {
		t.Fatal(err)
	}
	other := e.core.Requirements(otherURL, "other", "application/json", "0.001")
	for _, resource := range []*Resource{{URL: otherURL}, nil} {
		q := *p
		q.Resource = resource // unsigned: a client can change it
		_, _, err := Pay(context.Background(), e.core, other, &q, ok, nil)
		checkRefused(t, err, ReasonNonceAlreadyUsed, other)
	}
	if e.fac.settles.Load() != 1 || e.settledCount() != 1 {
		t.Errorf("settles %d", e.fac.settles.Load())
	}
}

// TestConcurrentOnePayment: 50 requests carrying one signed payment give
// exactly one settlement, and all 50 get the same receipt.
func TestConcurrentOnePayment(t *testing.T) {
	e := newEnv(t)
	p := e.payment()
	const n = 50
	var (
		wg       sync.WaitGroup
		start    = make(chan struct{})
		receipts [n]*SettlementResponse
		errs     [n]error
		runs     atomic.Int64
	)
	for i := range n {
		wg.Go(func() {
			<-start
			_, receipts[i], errs[i] = Pay(context.Background(), e.core, e.req, p, func(context.Context, Payment) (string, error) {
				runs.Add(1)
				return "content", nil
			}, nil)
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		if EncodeHeader(receipts[i]) != EncodeHeader(receipts[0]) {
			t.Fatalf("receipt %d differs: %+v vs %+v", i, receipts[i], receipts[0])
		}
	}
	if e.fac.settles.Load() != 1 || e.fac.verifies.Load() != 1 || e.settledCount() != 1 {
		t.Errorf("settles %d verifies %d ledger %d", e.fac.settles.Load(), e.fac.verifies.Load(), e.settledCount())
	}
	if runs.Load() != n || e.outcome(OutcomeSettled) != 1 || e.outcome(OutcomeReplayed) != n-1 {
		t.Errorf("runs %d outcomes %v", runs.Load(), e.outcomes)
	}
}

// TestConcurrentAcrossProcesses: two cores on one ledger file (as two
// server processes would be, each its own instance) share one chain; one
// payment sent to both settles once.
func TestConcurrentAcrossProcesses(t *testing.T) {
	a := newEnv(t, func(c *Config) { c.Instance = "a" })
	b := newEnvAt(t, a.path, func(c *Config) { c.Instance = "b" })
	chain := NewLocal(nil) // one chain for both
	chain.Now = func() time.Time { return testNow }
	a.fac.Facilitator, b.fac.Facilitator = chain, chain
	p := a.payment()
	const n = 20
	var wg sync.WaitGroup
	receipts := make([]*SettlementResponse, n)
	errs := make([]error, n)
	for i := range n {
		c := a.core
		if i%2 == 1 {
			c = b.core
		}
		wg.Go(func() { _, receipts[i], errs[i] = Pay(context.Background(), c, a.req, p, ok, nil) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		if EncodeHeader(receipts[i]) != EncodeHeader(receipts[0]) {
			t.Fatalf("receipt %d differs", i)
		}
	}
	if s := a.fac.settles.Load() + b.fac.settles.Load(); s != 1 {
		t.Errorf("%d settlements", s)
	}
	if a.settledCount() != 1 {
		t.Errorf("ledger has %d settlements", a.settledCount())
	}
}

func TestLedgerSurvivesRestart(t *testing.T) {
	e := newEnv(t)
	p := e.payment()
	_, first, err := Pay(context.Background(), e.core, e.req, p, ok, nil)
	if err != nil {
		t.Fatal(err)
	}
	must(t, e.ledger.Close())

	e2 := newEnvAt(t, e.path) // a new process: new core, new facilitator
	_, again, err := Pay(context.Background(), e2.core, e2.req, p, ok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if EncodeHeader(again) != EncodeHeader(first) {
		t.Errorf("receipt after restart %+v, want %+v", again, first)
	}
	if e2.fac.settles.Load() != 0 || e2.fac.verifies.Load() != 0 || e2.settledCount() != 1 {
		t.Errorf("after restart: settles %d verifies %d ledger %d", e2.fac.settles.Load(), e2.fac.verifies.Load(), e2.settledCount())
	}
	other := e2.core.Requirements(otherURL, "", "", "0.001")
	q := *p
	q.Resource = &Resource{URL: otherURL}
	_, _, err = Pay(context.Background(), e2.core, other, &q, ok, nil)
	checkRefused(t, err, ReasonNonceAlreadyUsed, other)
	// The local facilitator's record of used authorizations survives too.
	vr, err := e2.fac.Facilitator.Verify(context.Background(), p, e2.req.Accepts[0])
	if err != nil || vr.IsValid || vr.InvalidReason != ReasonNonceAlreadyUsed {
		t.Errorf("local facilitator after restart: %+v %v", vr, err)
	}
}

func TestHandlerFailureReleases(t *testing.T) {
	e := newEnv(t)
	p := e.payment()
	boom := apierr.NotFound("document_not_found", "no such document")
	_, receipt, err := Pay(context.Background(), e.core, e.req, p, func(context.Context, Payment) (string, error) { return "partial", boom }, nil)
	if err != boom || receipt != nil {
		t.Fatalf("err = %v (want the handler's, unchanged), receipt %+v", err, receipt)
	}
	if e.fac.settles.Load() != 0 || e.settledCount() != 0 || e.outcome(OutcomeHandlerError) != 1 {
		t.Errorf("settles %d ledger %d outcomes %v", e.fac.settles.Load(), e.settledCount(), e.outcomes)
	}
	// The claim was released: the same authorization pays for a later call.
	if _, receipt, err := Pay(context.Background(), e.core, e.req, p, ok, nil); err != nil || !receipt.Success {
		t.Fatalf("retry: %v %+v", err, receipt)
	}
	if e.fac.settles.Load() != 1 {
		t.Errorf("settles %d", e.fac.settles.Load())
	}
}

func TestHandlerPanicReleases(t *testing.T) {
	e := newEnv(t)
	p := e.payment()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic swallowed")
			}
		}()
		Pay(context.Background(), e.core, e.req, p, func(context.Context, Payment) (string, error) { panic("handler bug") }, nil)
	}()
	if _, _, err := Pay(context.Background(), e.core, e.req, p, ok, nil); err != nil {
		t.Fatalf("after panic: %v", err)
	}
}

func TestSettleFailureServesNothing(t *testing.T) {
	e := newEnv(t)
	e.fac.set(func(f *countingFacilitator) { f.settleFail = "insufficient_funds" })
	p := e.payment()
	v, receipt, err := Pay(context.Background(), e.core, e.req, p, ok, nil)
	pe := checkRefused(t, err, ReasonSettlementFailed, e.req)
	if v != "" || receipt != nil {
		t.Errorf("served %q %+v", v, receipt)
	}
	if pe.Settlement == nil || pe.Settlement.Success || pe.Settlement.ErrorReason != "insufficient_funds" ||
		pe.Settlement.Transaction != "" || pe.Settlement.Network != NetworkBase || pe.Settlement.Payer != kaFrom {
		t.Errorf("failure receipt %+v", pe.Settlement)
	}
	if e.settledCount() != 0 || e.outcome(OutcomeSettleFailed) != 1 {
		t.Errorf("ledger %d outcomes %v", e.settledCount(), e.outcomes)
	}
	// Funds did not move: the claim is released and a retry can pay.
	e.fac.set(func(f *countingFacilitator) { f.settleFail = "" })
	if _, _, err := Pay(context.Background(), e.core, e.req, p, ok, nil); err != nil {
		t.Fatalf("retry: %v", err)
	}
}

func TestFacilitatorErrors(t *testing.T) {
	tests := []struct {
		name       string
		set        func(f *countingFacilitator)
		wantStatus int
		wantCode   string
		unknown    int
	}{
		{"settle timeout", func(f *countingFacilitator) { f.settleErr = context.DeadlineExceeded }, 504, "facilitator_timeout", 1},
		{"settle unreachable", func(f *countingFacilitator) { f.settleErr = errors.New("connection refused") }, 502, "facilitator_error", 1},
		{"verify timeout", func(f *countingFacilitator) { f.verifyErr = context.DeadlineExceeded }, 504, "facilitator_timeout", 0},
		{"verify unreachable", func(f *countingFacilitator) { f.verifyErr = errors.New("connection refused") }, 502, "facilitator_error", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.fac.set(tt.set)
			p := e.payment()
			v, receipt, err := Pay(context.Background(), e.core, e.req, p, ok, nil)
			if v != "" || receipt != nil {
				t.Errorf("served %q %+v", v, receipt)
			}
			if _, isPE := AsPaymentError(err); isPE || errors.Is(err, apierr.ErrPaymentRequired) {
				t.Fatalf("facilitator failure answered as a 402: %v", err)
			}
			if ae := apierr.From(err); ae.Status != tt.wantStatus || ae.Code != tt.wantCode {
				t.Errorf("got %d %s, want %d %s", ae.Status, ae.Code, tt.wantStatus, tt.wantCode)
			}
			settled, unknown, _ := e.ledger.CountSettlements(context.Background())
			if settled != 0 || unknown != tt.unknown || e.outcome(OutcomeFacilitatorError) != 1 {
				t.Errorf("settled %d unknown %d outcomes %v", settled, unknown, e.outcomes)
			}
			e.fac.set(func(f *countingFacilitator) { f.settleErr, f.verifyErr = nil, nil })
			if _, _, err := Pay(context.Background(), e.core, e.req, p, ok, nil); err != nil {
				t.Fatalf("claim not released: %v", err)
			}
		})
	}
}

// TestFacilitatorRejects: an authorization the chain already used (here:
// settled directly with the facilitator) passes local checks and is
// refused by the facilitator's verify.
func TestFacilitatorRejects(t *testing.T) {
	e := newEnv(t)
	p := e.payment()
	if sr, err := e.fac.Facilitator.Settle(context.Background(), p, e.req.Accepts[0]); err != nil || !sr.Success {
		t.Fatal(sr, err)
	}
	_, _, err := Pay(context.Background(), e.core, e.req, p, ok, nil)
	pe := checkRefused(t, err, ReasonFacilitatorRejected, e.req)
	if pe.Message == "" {
		t.Error("no facilitator reason in message")
	}
	if e.settledCount() != 0 {
		t.Error("settled")
	}
}

// claimAs writes a claim of p by owner as a process would, with a lease
// ending at leaseEnd.
func claimAs(t *testing.T, e *env, p *PaymentPayload, owner string, leaseEnd time.Time) claimKey {
	t.Helper()
	a, f := checkExact(e.req.Accepts[0], p, checkOptions{now: testNow})
	if f != nil {
		t.Fatal(f)
	}
	k := keyOf(e.req.Accepts[0], a)
	res, err := e.ledger.claim(context.Background(), k, claimArgs{resource: testURL, owner: owner, amount: e.req.Accepts[0].Amount,
		payment: storedOf(t, e, p), validBefore: clampInt64(a.Before), leaseMs: leaseEnd.UnixMilli(), nowMs: testNow.UnixMilli()})
	if err != nil || res.state != claimOwned {
		t.Fatal(res, err)
	}
	return k
}

// storedOf is what a request keeps in the ledger to settle p again.
func storedOf(t *testing.T, e *env, p *PaymentPayload) string {
	t.Helper()
	b, err := json.Marshal(storedPayment{Payload: p, Requirements: e.req.Accepts[0]})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStaleClaimIsTakenOver(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.ClaimLease = time.Minute })
	p := e.payment()
	// A process that died left a claim whose lease has ended.
	claimAs(t, e, p, "dead.x.1", testNow.Add(-time.Second))
	if _, _, err := Pay(context.Background(), e.core, e.req, p, ok, nil); err != nil {
		t.Fatalf("stale claim not taken over: %v", err)
	}
	if e.settledCount() != 1 {
		t.Error("not settled")
	}
}

func TestLeaseBoundedByValidBefore(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.ClaimLease = time.Hour })
	p := e.payment()
	vb, _ := strconv.ParseInt(p.Payload.Authorization.ValidBefore, 10, 64)
	if got := e.core.lease(testNow, vb); got != vb*1000 {
		t.Fatalf("lease ends %d, want validBefore %d", got, vb*1000)
	}
}

func TestPendingClaimAnswers409(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Wait = 50 * time.Millisecond })
	p := e.payment()
	// Another live process holds the claim and does not finish.
	claimAs(t, e, p, "busy.x.1", testNow.Add(time.Minute))
	_, _, err := Pay(context.Background(), e.core, e.req, p, ok, nil)
	ae := apierr.From(err)
	if !errors.Is(err, ErrPaymentInProgress) || ae.Status != 409 || ae.RetryAfter < time.Second {
		t.Fatalf("err = %v (%+v), want 409 payment_in_progress with Retry-After", err, ae)
	}
	if e.fac.verifies.Load() != 0 {
		t.Error("verified while another process held the claim")
	}
	if e.outcome(OutcomeInProgress) != 1 {
		t.Error("in_progress not counted")
	}
}

// memCodec stores strings as they are.
type memCodec struct{}

func (memCodec) Encode(v string, max int) ([]byte, string, bool) { return []byte(v), v, len(v) <= max }
func (memCodec) Decode(b []byte) (string, error)                 { return string(b), nil }

func TestReplayServesStoredAnswer(t *testing.T) {
	e := newEnv(t)
	p := e.payment()
	var runs atomic.Int32
	run := func(context.Context, Payment) (string, error) {
		return fmt.Sprintf("answer %d", runs.Add(1)), nil
	}
	first, r1, err := Pay(context.Background(), e.core, e.req, p, run, memCodec{})
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		v, r, err := Pay(context.Background(), e.core, e.req, p, run, memCodec{})
		if err != nil || v != first || r.Transaction != r1.Transaction {
			t.Fatalf("re-send: %q %v %v, want %q", v, r, err, first)
		}
	}
	if runs.Load() != 1 || e.fac.settles.Load() != 1 {
		t.Fatalf("handler ran %d times, %d settlements; want 1 and 1", runs.Load(), e.fac.settles.Load())
	}
	// A fresh process over the same ledger serves it from the ledger.
	e2 := newEnvAt(t, e.path)
	if v, _, err := Pay(context.Background(), e2.core, e2.req, p, run, memCodec{}); err != nil || v != first || runs.Load() != 1 {
		t.Fatalf("after restart: %q %v, runs %d", v, err, runs.Load())
	}
}

func TestTooLargeAnswerRunsAgain(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxAnswerBytes = 4 })
	p := e.payment()
	var runs atomic.Int32
	run := func(_ context.Context, pay Payment) (string, error) {
		runs.Add(1)
		return fmt.Sprintf("replay=%v", pay.Replay), nil
	}
	if v, _, err := Pay(context.Background(), e.core, e.req, p, run, memCodec{}); err != nil || v != "replay=false" {
		t.Fatal(v, err)
	}
	if v, _, err := Pay(context.Background(), e.core, e.req, p, run, memCodec{}); err != nil || v != "replay=true" {
		t.Fatal(v, err)
	}
	if runs.Load() != 2 || e.fac.settles.Load() != 1 {
		t.Fatalf("runs %d settles %d", runs.Load(), e.fac.settles.Load())
	}
}

// A process died after telling the ledger it was settling: whether or not
// its settlement reached the facilitator, the re-send is served once, from
// the stored answer, and settled once.
func TestRecoverSettlingOnResend(t *testing.T) {
	for _, reached := range []bool{false, true} {
		t.Run(fmt.Sprintf("reached=%v", reached), func(t *testing.T) {
			e := newEnv(t)
			p := e.payment()
			k := claimAs(t, e, p, "dead.x.1", testNow.Add(time.Minute))
			if ok, err := e.ledger.settling(context.Background(), k, "dead.x.1", []byte("stored answer"), testNow.Add(time.Hour).Unix(), testNow.Add(-time.Second).UnixMilli(), testNow.UnixMilli()); !ok || err != nil {
				t.Fatal(ok, err)
			}
			if reached {
				if r, err := e.fac.Settle(context.Background(), p, e.req.Accepts[0]); err != nil || !r.Success {
					t.Fatal(r, err)
				}
			}
			var runs atomic.Int32
			run := func(context.Context, Payment) (string, error) { runs.Add(1); return "fresh", nil }
			v, r, err := Pay(context.Background(), e.core, e.req, p, run, memCodec{})
			if err != nil || v != "stored answer" || !r.Success || runs.Load() != 0 {
				t.Fatalf("re-send: %q %+v %v runs=%d", v, r, err, runs.Load())
			}
			recs, _ := e.ledger.Records(context.Background(), 0)
			if len(recs) != 1 || recs[0].State != StateServed {
				t.Fatalf("records %+v", recs)
			}
			if n := e.settledCount(); n != 1 {
				t.Fatalf("%d settlement rows", n)
			}
		})
	}
}

func TestRecoverAtStartup(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Instance = "web1" })
	claimed, settling := e.payment(), e.payment()
	// The previous run of instance web1 held both, with live leases.
	claimAs(t, e, claimed, "web1.aaaa.1", testNow.Add(time.Minute))
	k := claimAs(t, e, settling, "web1.aaaa.2", testNow.Add(time.Minute))
	if ok, err := e.ledger.settling(context.Background(), k, "web1.aaaa.2", nil, testNow.Add(time.Hour).Unix(), testNow.Add(time.Minute).UnixMilli(), testNow.UnixMilli()); !ok || err != nil {
		t.Fatal(ok, err)
	}
	// Another instance's live claim is not ours to take.
	other := e.payment()
	claimAs(t, e, other, "web2.bbbb.1", testNow.Add(time.Minute))
	n, err := e.core.Recover(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("recovered %d, %v", n, err)
	}
	counts, _ := e.ledger.CountStates(context.Background())
	if counts[StateReleased] != 1 || counts[StateSettled] != 1 || counts[StateClaimed] != 1 {
		t.Fatalf("states %v", counts)
	}
	// The settled one is served (handler runs: no answer was stored).
	if v, _, err := Pay(context.Background(), e.core, e.req, settling, ok, nil); err != nil || v != "content" {
		t.Fatal(v, err)
	}
	counts, _ = e.ledger.CountStates(context.Background())
	if counts[StateServed] != 1 || counts[StateSettled] != 0 {
		t.Fatalf("states %v", counts)
	}
}

func TestNetworkAliasBase(t *testing.T) {
	e := newEnv(t)
	p := e.payment()
	p.Accepted.Network = "base"
	if _, _, err := Pay(context.Background(), e.core, e.req, p, ok, nil); err != nil {
		t.Fatalf("network \"base\" refused: %v", err)
	}
}

func TestCanceledBeforeSettleChargesNothing(t *testing.T) {
	e := newEnv(t)
	p := e.payment()
	ctx, cancel := context.WithCancel(context.Background())
	_, _, err := Pay(ctx, e.core, e.req, p, func(context.Context, Payment) (string, error) {
		cancel() // the client went away while the handler ran
		return "x", nil
	}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if e.fac.settles.Load() != 0 {
		t.Error("settled for a client that left")
	}
	if _, _, err := Pay(context.Background(), e.core, e.req, p, ok, nil); err != nil {
		t.Fatalf("claim not released: %v", err)
	}
}

func TestPrune(t *testing.T) {
	e := newEnv(t)
	p := e.payment()
	if _, _, err := Pay(context.Background(), e.core, e.req, p, ok, nil); err != nil {
		t.Fatal(err)
	}
	n, err := e.ledger.Prune(context.Background(), testNow, 0)
	if err != nil || n != 0 {
		t.Fatalf("pruned %d before expiry, %v", n, err)
	}
	n, err = e.ledger.Prune(context.Background(), testNow.Add(time.Hour), 0)
	if err != nil || n != 2 { // the record and the local transfer
		t.Fatalf("pruned %d after expiry, %v", n, err)
	}
	if e.settledCount() != 1 {
		t.Error("settlements log pruned")
	}
}
