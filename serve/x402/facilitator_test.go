package x402

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The Core hands its verification to a Local facilitator through the
// context; Local still checks the validity window on its own clock, and
// anything but the very payload and requirements the Core verified is
// verified in full.
func TestLocalTakesCoreVerification(t *testing.T) {
	e := newEnv(t)
	p := e.payment()
	req := e.req.Accepts[0]
	a, f := checkExact(req, p, checkOptions{now: testNow})
	if f != nil {
		t.Fatal(f)
	}
	ctx := withVerified(context.Background(), p, req, a)

	forged := *p
	// The other recovery id: the signature recovers to another signer.
	v := "1c"
	if strings.HasSuffix(p.Payload.Signature, v) {
		v = "1b"
	}
	forged.Payload.Signature = p.Payload.Signature[:len(p.Payload.Signature)-2] + v
	otherReq := req
	otherReq.Amount = "2000"
	late := &Local{Now: func() time.Time { return testNow.Add(time.Hour) }}
	tests := []struct {
		name   string
		local  *Local
		p      *PaymentPayload
		req    PaymentRequirements
		reason string // "" = valid
	}{
		{"verified", &Local{Now: func() time.Time { return testNow }}, p, req, ""},
		{"verified, but expired on the facilitator's clock", late, p, req, ReasonExpired},
		{"another payload object", &Local{Now: func() time.Time { return testNow }}, &forged, req, ReasonInvalidSignature},
		{"other requirements", &Local{Now: func() time.Time { return testNow }}, p, otherReq, ReasonValueMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vr, err := tt.local.Verify(ctx, tt.p, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if vr.IsValid != (tt.reason == "") || vr.InvalidReason != tt.reason {
				t.Fatalf("verify: %+v, want reason %q", vr, tt.reason)
			}
			sr, err := tt.local.Settle(ctx, tt.p, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if sr.Success != (tt.reason == "") || sr.ErrorReason != tt.reason {
				t.Fatalf("settle: %+v, want reason %q", sr, tt.reason)
			}
		})
	}
}
