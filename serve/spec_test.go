package serve

import (
	"testing"

	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve/registry"
)

// TestAPIPaymentStatus checks that /api states the payment status, the
// facilitator, the network and the pay-to address.
func TestAPIPaymentStatus(t *testing.T) {
	a := newTestApp(t, testsnap.Fixtures(t), nil)
	code, m := getJSON(t, a.HTTP, "/api")
	if code != 200 {
		t.Fatalf("/api: %d", code)
	}
	ps, _ := m["payment_status"].(map[string]any)
	want := map[string]any{"status": "active", "facilitator": "local", "moves_funds": false,
		"network": "eip155:8453", "pay_to": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}
	for k, v := range want {
		if ps[k] != v {
			t.Errorf("payment_status.%s = %v, want %v", k, ps[k], v)
		}
	}
}

func TestPaymentStatusFacilitatorURL(t *testing.T) {
	p := registry.Payment{Network: "eip155:8453", PayTo: "0xabc"}
	for _, tc := range []struct {
		in, want string
		moves    bool
	}{
		{"local", "local", false},
		{"", "local", false},
		{"https://user:secret@x402.example/facilitator?key=k#f", "https://x402.example/facilitator", true},
	} {
		st := paymentStatus(p, tc.in)
		if st.Facilitator != tc.want || st.MovesFunds != tc.moves || st.Status != "active" || st.PayTo != "0xabc" {
			t.Errorf("%q: %+v", tc.in, st)
		}
	}
}
