package x402_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/x402"
	"github.com/openshelf/openshelf/serve/x402/facilitatortest"
)

const payTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// setup returns a core paying through the HTTP facilitator client against a
// test facilitator server, and a signed payment for its requirements.
func setup(t *testing.T, timeouts x402.Timeouts) (*x402.Core, *facilitatortest.Server, x402.PaymentRequired, *x402.PaymentPayload) {
	t.Helper()
	srv := facilitatortest.New(nil)
	t.Cleanup(srv.Close)
	l, err := x402.OpenLedger(filepath.Join(t.TempDir(), "x402.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	core, err := x402.New(x402.Config{
		PayTo: payTo, Ledger: l, MaxTimeoutSeconds: 120,
		Facilitator: &x402.HTTPFacilitator{BaseURL: srv.URL + "/", Client: srv.Client(), Timeouts: timeouts},
	})
	if err != nil {
		t.Fatal(err)
	}
	req := core.Requirements("http://127.0.0.1/v1/paid", "paid thing", "application/json", "0.01")
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	p, err := x402.NewPayment(key, req, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return core, srv, req, p
}

func okHandler(context.Context, x402.Payment) ([]byte, error) { return []byte(`{"ok":true}`), nil }

func TestHTTPFacilitatorPay(t *testing.T) {
	core, srv, req, p := setup(t, x402.Timeouts{})
	body, receipt, err := x402.PayHeader(context.Background(), core, req, x402.EncodeHeader(p), okHandler, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != `{"ok":true}` || !receipt.Success || receipt.Payer != p.Payload.Authorization.From || receipt.Amount != "10000" {
		t.Errorf("body %s receipt %+v", body, receipt)
	}
	// The receipt survives the header round trip a client does.
	back, err := x402.DecodeSettlementHeader(x402.EncodeHeader(receipt))
	if err != nil || back.Transaction != receipt.Transaction {
		t.Errorf("receipt header: %+v %v", back, err)
	}
	// Replay: served from the ledger without asking the facilitator.
	if _, again, err := x402.Pay(context.Background(), core, req, p, okHandler, nil); err != nil || again.Transaction != receipt.Transaction {
		t.Fatalf("replay: %+v %v", again, err)
	}
	if v, s := srv.Counts(); v != 1 || s != 1 {
		t.Errorf("facilitator saw %d verify, %d settle", v, s)
	}
}

func TestHTTPFacilitatorAnswers(t *testing.T) {
	_, srv, req, p := setup(t, x402.Timeouts{})
	f := &x402.HTTPFacilitator{BaseURL: srv.URL}
	ctx := context.Background()

	sup, err := f.Supported(ctx)
	if err != nil || len(sup.Kinds) == 0 || sup.Kinds[0].X402Version != 2 || sup.Kinds[0].Scheme != "exact" {
		t.Fatalf("supported %+v %v", sup, err)
	}
	vr, err := f.Verify(ctx, p, req.Accepts[0])
	if err != nil || !vr.IsValid || vr.Payer != p.Payload.Authorization.From {
		t.Fatalf("verify %+v %v", vr, err)
	}
	wrong := req.Accepts[0]
	wrong.Amount = "20000"
	if vr, err := f.Verify(ctx, p, wrong); err != nil || vr.IsValid || vr.InvalidReason != x402.ReasonValueMismatch {
		t.Errorf("verify wrong amount: %+v %v", vr, err)
	}
	sr, err := f.Settle(ctx, p, req.Accepts[0])
	if err != nil || !sr.Success || sr.Transaction == "" {
		t.Fatalf("settle %+v %v", sr, err)
	}
	if sr, err := f.Settle(ctx, p, req.Accepts[0]); err != nil || sr.Success || sr.ErrorReason != x402.ReasonNonceAlreadyUsed {
		t.Errorf("second settle %+v %v", sr, err)
	}
	if vr, err := f.Verify(ctx, p, req.Accepts[0]); err != nil || vr.IsValid {
		t.Errorf("verify after settle %+v %v", vr, err)
	}
}

func TestHTTPFacilitatorTimeout(t *testing.T) {
	core, srv, req, p := setup(t, x402.Timeouts{Settle: 50 * time.Millisecond})
	srv.SetDelay(0, time.Minute)
	_, receipt, err := x402.Pay(context.Background(), core, req, p, okHandler, nil)
	if receipt != nil {
		t.Errorf("receipt %+v", receipt)
	}
	if errors.Is(err, apierr.ErrPaymentRequired) {
		t.Fatalf("timeout answered as 402: %v", err)
	}
	if !errors.Is(err, apierr.ErrUpstreamTimeout) {
		t.Fatalf("err = %v, want upstream timeout", err)
	}
	if ae := apierr.From(err); ae.Status != http.StatusGatewayTimeout || ae.Code != "facilitator_timeout" {
		t.Errorf("apierr %d %s", ae.Status, ae.Code)
	}
}

func TestHTTPFacilitatorBrokenUpstream(t *testing.T) {
	core, srv, req, p := setup(t, x402.Timeouts{})
	srv.FailStatus(http.StatusBadGateway)
	_, _, err := x402.Pay(context.Background(), core, req, p, okHandler, nil)
	if ae := apierr.From(err); ae.Status != http.StatusBadGateway || ae.Code != "facilitator_error" {
		t.Fatalf("got %d %s (%v), want 502 facilitator_error", ae.Status, ae.Code, err)
	}
	srv.FailStatus(0)
	if _, _, err := x402.Pay(context.Background(), core, req, p, okHandler, nil); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
}

func TestHTTPFacilitatorUnreachable(t *testing.T) {
	core, srv, req, p := setup(t, x402.Timeouts{})
	srv.Close()
	_, _, err := x402.Pay(context.Background(), core, req, p, okHandler, nil)
	if ae := apierr.From(err); ae.Status != http.StatusBadGateway || ae.Code != "facilitator_error" {
		t.Fatalf("got %d %s (%v)", ae.Status, ae.Code, err)
	}
}

func TestHTTPFacilitatorSettleRefused(t *testing.T) {
	core, srv, req, p := setup(t, x402.Timeouts{})
	srv.FailSettle("insufficient_funds")
	body, _, err := x402.Pay(context.Background(), core, req, p, okHandler, nil)
	pe, ok := x402.AsPaymentError(err)
	if !ok || pe.Reason != x402.ReasonSettlementFailed || pe.Settlement == nil || pe.Settlement.ErrorReason != "insufficient_funds" {
		t.Fatalf("err = %v", err)
	}
	if body != nil {
		t.Errorf("served %s", body)
	}
}

// A facilitator may answer isValid:false with a non-2xx status; that is an
// answer, not a transport error.
func TestHTTPFacilitatorNon2xxAnswer(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /verify", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"isValid":false,"invalidReason":"insufficient_funds"}`))
	})
	mux.HandleFunc("POST /settle", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"success":false,"errorReason":"unexpected_settle_error","transaction":"","network":"eip155:8453"}`))
	})
	ts := newServer(t, mux)
	f := &x402.HTTPFacilitator{BaseURL: ts}
	vr, err := f.Verify(context.Background(), &x402.PaymentPayload{}, x402.PaymentRequirements{})
	if err != nil || vr.IsValid || vr.InvalidReason != "insufficient_funds" {
		t.Errorf("verify %+v %v", vr, err)
	}
	sr, err := f.Settle(context.Background(), &x402.PaymentPayload{}, x402.PaymentRequirements{})
	if err != nil || sr.Success || sr.ErrorReason != "unexpected_settle_error" {
		t.Errorf("settle %+v %v", sr, err)
	}
	if _, err := f.Supported(context.Background()); err == nil {
		t.Error("404 /supported accepted")
	}
}
