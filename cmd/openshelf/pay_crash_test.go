package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/openshelf/openshelf/internal/pgtest"
	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve/x402"
)

// Crash tests of the payment path over real HTTP: the real binary, a
// facilitator written here that speaks the facilitator API (POST /verify,
// POST /settle, GET /supported; bodies as in /work/shared/docs/x402.md)
// and records settlements like a chain would (a nonce settles once, a
// second settlement is refused with invalid_exact_evm_nonce_already_used),
// kill -9 while settlements are in flight, restart, re-send.

const crashPayTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// chainFacilitator is the test's facilitator. While hold is set, every
// settlement after the first `free` ones blocks until release: half of
// them after the transfer went through (the server dies before hearing
// the answer), half before (the settlement never arrived).
type chainFacilitator struct {
	mu        sync.Mutex
	settled   map[string]string // nonce → tx
	attempts  map[string]int
	successes map[string]int // successful /settle answers per nonce
	hold      bool
	free      int
	held      int
	release   chan struct{}
	heldNow   atomic.Int32
}

func newChainFacilitator() *chainFacilitator {
	return &chainFacilitator{settled: map[string]string{}, attempts: map[string]int{}, successes: map[string]int{}, release: make(chan struct{})}
}

type facRequest struct {
	X402Version         int                       `json:"x402Version"`
	PaymentPayload      *x402.PaymentPayload      `json:"paymentPayload"`
	PaymentRequirements *x402.PaymentRequirements `json:"paymentRequirements"`
}

func (f *chainFacilitator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reply := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	if r.Method == http.MethodGet && r.URL.Path == "/supported" {
		reply(map[string]any{"kinds": []any{map[string]any{"x402Version": 2, "scheme": "exact", "network": x402.NetworkBase}},
			"extensions": []string{}, "signers": map[string]any{}})
		return
	}
	var req facRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.PaymentPayload == nil || req.PaymentRequirements == nil {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	a := req.PaymentPayload.Payload.Authorization
	nonce := strings.ToLower(a.Nonce)
	valid := strings.EqualFold(a.To, req.PaymentRequirements.PayTo) && a.Value == req.PaymentRequirements.Amount
	switch r.URL.Path {
	case "/verify":
		f.mu.Lock()
		_, used := f.settled[nonce]
		f.mu.Unlock()
		switch {
		case !valid:
			reply(x402.VerifyResponse{InvalidReason: "invalid_exact_evm_payload_recipient_mismatch", Payer: a.From})
		case used:
			reply(x402.VerifyResponse{InvalidReason: x402.ReasonNonceAlreadyUsed, Payer: a.From})
		default:
			reply(x402.VerifyResponse{IsValid: true, Payer: a.From})
		}
	case "/settle":
		f.mu.Lock()
		f.attempts[nonce]++
		block := f.hold && f.free <= 0
		f.free--
		recordFirst := false
		if block {
			f.held++
			recordFirst = f.held%2 == 1
		}
		f.mu.Unlock()
		if block && !recordFirst {
			// The settlement never reaches the chain.
			f.heldNow.Add(1)
			<-f.release
			http.Error(w, `{"error":"gone"}`, http.StatusServiceUnavailable)
			return
		}
		f.mu.Lock()
		_, used := f.settled[nonce]
		tx := fmt.Sprintf("0x%064x", len(f.settled)+1)
		if !used && valid {
			f.settled[nonce] = tx
		}
		f.mu.Unlock()
		if block {
			// On chain; the server will not live to hear it.
			f.heldNow.Add(1)
			<-f.release
		}
		switch {
		case !valid:
			reply(x402.SettlementResponse{ErrorReason: "invalid_exact_evm_payload_recipient_mismatch", Payer: a.From, Network: req.PaymentRequirements.Network})
		case used:
			reply(x402.SettlementResponse{ErrorReason: x402.ReasonNonceAlreadyUsed, Payer: a.From, Network: req.PaymentRequirements.Network})
		default:
			f.mu.Lock()
			f.successes[nonce]++
			f.mu.Unlock()
			reply(x402.SettlementResponse{Success: true, Transaction: tx, Payer: a.From, Network: req.PaymentRequirements.Network})
		}
	default:
		http.NotFound(w, r)
	}
}

func (f *chainFacilitator) settledNonces() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for k, v := range f.settled {
		out[k] = v
	}
	return out
}

// serveProc is one `openshelf serve` process.
type serveProc struct {
	cmd  *exec.Cmd
	url  string
	logs *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func startServe(t *testing.T, bin, addr string, args ...string) *serveProc {
	t.Helper()
	p := &serveProc{url: "http://" + addr, logs: &lockedBuffer{}}
	p.cmd = exec.Command(bin, append([]string{"serve", "-addr", addr, "-watch", "0", "-rate", "0", "-log-level", "info"}, args...)...)
	p.cmd.Stderr = p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.kill() })
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		res, err := http.Get(p.url + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return p
			}
		}
		if p.cmd.ProcessState != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("serve on %s did not come up:\n%s", addr, p.logs.String())
	return nil
}

// kill is kill -9.
func (p *serveProc) kill() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	}
}

// paidResult is one paid request's outcome.
type paidResult struct {
	status  int
	body    []byte
	receipt *x402.SettlementResponse
	err     error
	longest time.Duration // the longest single attempt
	waited  time.Duration // from the first attempt to the last answer
}

// sendPaid GETs target with the payment, following 409 Retry-After for up
// to budget (a client would); it reports the last answer.
func sendPaid(client *http.Client, base, target, payment string, budget time.Duration) (out paidResult) {
	first := time.Now()
	end := first.Add(budget)
	defer func() { out.waited = time.Since(first) }()
	for {
		req, _ := http.NewRequest(http.MethodGet, base+target, nil)
		req.Header.Set(x402.HeaderPaymentSignature, payment)
		start := time.Now()
		res, err := client.Do(req)
		out.longest = max(out.longest, time.Since(start))
		if err != nil {
			out.err = err
			return out
		}
		out.body, _ = io.ReadAll(res.Body)
		res.Body.Close()
		out.status = res.StatusCode
		if h := res.Header.Get(x402.HeaderPaymentResponse); h != "" {
			out.receipt, _ = x402.DecodeSettlementHeader(h)
		}
		if res.StatusCode != http.StatusConflict || time.Now().After(end) {
			return out
		}
		wait, _ := strconv.Atoi(res.Header.Get("Retry-After"))
		time.Sleep(time.Duration(max(wait, 1)) * time.Second)
	}
}

// payments signs n distinct payments for target on the server at base.
func payments(t *testing.T, base, target string, n int) []string {
	t.Helper()
	res, err := http.Get(base + target)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("%s without payment: %d", target, res.StatusCode)
	}
	req, err := x402.DecodeRequiredHeader(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, n)
	for i := range out {
		key, _ := crypto.GenerateKey()
		out[i] = signed(t, key, *req)
	}
	return out
}

func signed(t *testing.T, key *ecdsa.PrivateKey, req x402.PaymentRequired) string {
	t.Helper()
	p, err := x402.NewPayment(key, req, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return x402.EncodeHeader(p)
}

func nonceOf(t *testing.T, payment string) string {
	t.Helper()
	p, err := x402.DecodePaymentHeader(payment)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ToLower(p.Payload.Authorization.Nonce)
}

func firstDocument(t *testing.T, base string) string {
	t.Helper()
	res, err := http.Get(base + "/api/catalog?limit=1")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var cat struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	if err := json.NewDecoder(res.Body).Decode(&cat); err != nil || len(cat.Items) == 0 {
		t.Fatalf("catalog: %v %+v", err, cat)
	}
	return "/api/document/" + cat.Items[0].ID
}

// fire sends every payment concurrently, each to the server chosen by
// pick, and returns the results in order.
func fire(payments []string, pick func(i int) string, target string, budget time.Duration) []paidResult {
	client := &http.Client{Timeout: 60 * time.Second}
	out := make([]paidResult, len(payments))
	var wg sync.WaitGroup
	for i, p := range payments {
		wg.Go(func() { out[i] = sendPaid(client, pick(i), target, p, budget) })
	}
	wg.Wait()
	return out
}

// maxResendWait bounds how long a customer re-sending a payment after a
// crash waits for its answer, 409s and their Retry-After included: a
// behavioural bound (recovery on the spot, a Retry-After that promises no
// more than recovery needs), far below the claim lease and the periodic
// recovery's interval, far above the work.
const maxResendWait = 10 * time.Second

// checkCrash asserts the promises after a crash and a re-send of every
// payment (again[i] re-sends pays[i % len(pays)]): every payment served
// (and with the document), every one settled exactly once, nothing
// served without settlement, no re-send waiting more than maxResendWait.
func checkCrash(t *testing.T, fac *chainFacilitator, pays []string, first, again []paidResult) {
	t.Helper()
	settled := fac.settledNonces()
	servedBefore := 0
	for i, r := range first {
		if r.status == 200 {
			servedBefore++
			if _, ok := settled[nonceOf(t, pays[i])]; !ok {
				t.Errorf("payment %d served before the crash without settlement", i)
			}
		}
	}
	var (
		want  []byte
		worst time.Duration
	)
	for i, r := range again {
		n := nonceOf(t, pays[i%len(pays)])
		worst = max(worst, r.waited)
		if r.waited > maxResendWait {
			t.Errorf("payment %d after restart: the customer waited %s (%d %.200s)", i, r.waited.Round(time.Millisecond), r.status, r.body)
		}
		if r.err != nil || r.status != 200 {
			t.Errorf("payment %d after restart: %v %d %.300s", i, r.err, r.status, r.body)
			continue
		}
		if r.receipt == nil || !r.receipt.Success {
			t.Errorf("payment %d served without a successful receipt: %+v", i, r.receipt)
		}
		if _, ok := settled[n]; !ok {
			t.Errorf("payment %d served after restart without settlement", i)
		}
		if want == nil {
			want = r.body
		} else if !bytes.Equal(r.body, want) {
			t.Errorf("payment %d: a different document body", i)
		}
		// The bound of one attempt is the configured wait plus work,
		// never the claim lease of minutes.
		if r.longest > maxResendWait {
			t.Errorf("payment %d: one attempt took %s", i, r.longest)
		}
	}
	if len(settled) != len(pays) {
		t.Errorf("%d of %d payments settled", len(settled), len(pays))
	}
	// Recovery may ask the facilitator again; it never answers success
	// twice for one nonce (the chain refuses a second transfer).
	fac.mu.Lock()
	for n, c := range fac.successes {
		if c > 1 {
			t.Errorf("nonce %s settled %d times", n, c)
		}
	}
	fac.mu.Unlock()
	t.Logf("served before the crash: %d of %d; settled: %d; longest re-send wait: %s", servedBefore, len(pays), len(settled),
		worst.Round(time.Millisecond))
}

// A server killed with settlements in flight and restarted on the same
// data, port and instance serves every payment sent again within
// maxResendWait, on either ledger: re-sends of payments its previous run
// held are recovered on the spot, whatever start-up recovery is doing.
// The periodic recovery and the claim lease keep their defaults (30 s, 2
// min), so neither can rescue a re-send in time.
func TestPaymentCrashRestart(t *testing.T) {
	for _, ledger := range []string{"sqlite", "postgres"} {
		t.Run(ledger, func(t *testing.T) { crashRestart(t, ledger) })
	}
}

func crashRestart(t *testing.T, ledger string) {
	bin := openshelfBinary(t)
	data := testsnap.Copy(t)
	fac := newChainFacilitator()
	facSrv := httptest.NewServer(fac)
	defer facSrv.Close()
	addr := freeAddr(t)
	args := []string{"-data", data, "-facilitator", facSrv.URL, "-pay-to", crashPayTo, "-instance", "crash1"}
	report := []string{"payments", "-data", data, "-json"}
	if ledger == "postgres" {
		dsn := pgtest.NewDatabase(t)
		args = append(args, "-ledger", dsn)
		report = append(report, "-ledger", dsn)
	}
	srv := startServe(t, bin, addr, args...)
	target := firstDocument(t, srv.url)
	pays := payments(t, srv.url, target, 40)

	fac.mu.Lock()
	fac.hold, fac.free = true, 16
	fac.mu.Unlock()
	done := make(chan []paidResult)
	go func() { done <- fire(pays, func(int) string { return srv.url }, target, 0) }()
	waitFor(t, func() bool { return fac.heldNow.Load() >= 12 })
	srv.kill() // kill -9 with settlements in flight
	first := <-done
	fac.mu.Lock()
	fac.hold = false
	fac.mu.Unlock()
	close(fac.release)

	// Restart: every payment is sent again at once, twice (a client that
	// also retried on its own), while start-up recovery runs.
	srv = startServe(t, bin, addr, args...)
	again := fire(append(pays[:len(pays):len(pays)], pays...), func(int) string { return srv.url }, target, time.Minute)
	checkCrash(t, fac, pays, first, again)

	// Reconciliation finds nothing left between settlement and service.
	srv.kill()
	var out bytes.Buffer
	code := dispatch(context.Background(), &env{stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }}, report)
	var rep struct {
		States           map[string]int `json:"states"`
		SettledNotServed int            `json:"settled_not_served"`
		Log              map[string]int `json:"settlement_log"`
	}
	if code != 0 || json.Unmarshal(out.Bytes(), &rep) != nil {
		t.Fatalf("openshelf payments: exit %d\n%s", code, out.String())
	}
	// One settlement recorded per payment: none settled twice.
	if rep.SettledNotServed != 0 || rep.States[x402.StateServed] != len(pays) || rep.Log["settled"] != len(pays) {
		t.Errorf("openshelf payments: %+v", rep)
	}
}

func TestPaymentCrashTwoInstancesPostgres(t *testing.T) {
	bin := openshelfBinary(t)
	dsn := pgtest.NewDatabase(t)
	fac := newChainFacilitator()
	facSrv := httptest.NewServer(fac)
	defer facSrv.Close()
	// Two replicas behind one (imagined) load balancer: one public base
	// URL, each with its own copy of the snapshot, one ledger.
	common := []string{"-base-url", "https://api.openshelf.test", "-facilitator", facSrv.URL, "-pay-to", crashPayTo,
		"-ledger", dsn, "-claim-lease", "4s", "-payment-wait", "2s", "-recover-every", "1s"}
	a := startServe(t, bin, freeAddr(t), append([]string{"-data", testsnap.Copy(t), "-instance", "a"}, common...)...)
	b := startServe(t, bin, freeAddr(t), append([]string{"-data", testsnap.Copy(t), "-instance", "b"}, common...)...)
	target := firstDocument(t, a.url)
	pays := payments(t, a.url, target, 40)

	fac.mu.Lock()
	fac.hold, fac.free = true, 8
	fac.mu.Unlock()
	// The first half goes to a, until 12 of a's settlements are in flight;
	// the second half to b meanwhile. Then a dies.
	doneA, doneB := make(chan []paidResult), make(chan []paidResult)
	go func() { doneA <- fire(pays[:20], func(int) string { return a.url }, target, 0) }()
	waitFor(t, func() bool { return fac.heldNow.Load() >= 12 })
	go func() { doneB <- fire(pays[20:], func(int) string { return b.url }, target, 0) }()
	a.kill()
	fac.mu.Lock()
	fac.hold = false
	fac.mu.Unlock()
	close(fac.release)
	first := append(<-doneA, <-doneB...)

	// Every payment re-sent to the survivor, which recovers a's records
	// when their leases end (409 with Retry-After until then).
	again := fire(pays, func(int) string { return b.url }, target, 30*time.Second)
	checkCrash(t, fac, pays, first, again)
	if !strings.Contains(b.logs.String(), "recovered") {
		t.Logf("b's log:\n%s", b.logs.String())
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 60 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A real facilitator URL without -pay-to is refused at start-up with a
// clear message, before anything is opened.
func TestServeRefusesRealFacilitatorWithoutPayTo(t *testing.T) {
	var stderr bytes.Buffer
	e := &env{stdout: io.Discard, stderr: &stderr, getenv: func(string) string { return "" }}
	code := dispatch(context.Background(), e, []string{"serve", "-data", t.TempDir(), "-facilitator", "https://facilitator.example/x402"})
	if code != exitUsage || !strings.Contains(stderr.String(), "--pay-to is required") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
}

func TestPaymentsCommandErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"payments", "-data", t.TempDir()}, exitFailure},        // no ledger there: not created
		{[]string{"payments", "-state", "paid"}, exitUsage},              // unknown state
		{[]string{"payments", "-data", t.TempDir(), "extra"}, exitUsage}, // stray argument
	} {
		var stderr bytes.Buffer
		e := &env{stdout: io.Discard, stderr: &stderr, getenv: func(string) string { return "" }}
		if code := dispatch(context.Background(), e, tt.args); code != tt.code {
			t.Errorf("%v: exit %d, want %d\n%s", tt.args, code, tt.code, stderr.String())
		}
	}
}
