package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve/registry"
)

// A real facilitator without an explicit recipient is refused: there is
// no default address for real money.
func TestPayToRequiredWithRealFacilitator(t *testing.T) {
	for _, tt := range []struct {
		facilitator, payTo string
		ok                 bool
	}{
		{"https://facilitator.example/x402", "", false},
		{"https://facilitator.example/x402", DefaultPayTo, false},
		{"https://facilitator.example/x402", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", true},
		{"local", "", true},
		{"", "", true},
	} {
		c := Config{DataDir: "/nonexistent", Facilitator: tt.facilitator, PayTo: tt.payTo}
		err := c.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("facilitator %q pay-to %q: err = %v", tt.facilitator, tt.payTo, err)
		}
		if !tt.ok && (!errors.Is(err, ErrPayToRequired) || !strings.Contains(err.Error(), "--pay-to is required")) {
			t.Errorf("facilitator %q: unclear refusal %v", tt.facilitator, err)
		}
	}
}

func TestEnvironment(t *testing.T) {
	for _, tt := range []struct{ fac, network, want string }{
		{"local", "eip155:8453", "local"},
		{"https://f.example", "eip155:8453", "production"},
		{"https://f.example", "eip155:84532", "testnet"},
	} {
		if got := environment(tt.fac, tt.network); got != tt.want {
			t.Errorf("environment(%q, %q) = %q, want %q", tt.fac, tt.network, got, tt.want)
		}
	}
	if got := facilitatorName("https://user:pw@f.example/x402?key=secret"); got != "https://f.example/x402" {
		t.Errorf("facilitatorName leaks: %q", got)
	}
}

// /api and the discovery documents state the facilitator, the recipient,
// the network and a truthful environment.
func TestAPIStatesPayment(t *testing.T) {
	a, err := NewApp(context.Background(), Config{DataDir: testsnap.Copy(t), BaseURL: "https://api.openshelf.test"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	get := func(path string) map[string]any {
		rec := httptest.NewRecorder()
		a.HTTP.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return m
	}
	api := get("/api")
	pay, _ := api["payment"].(map[string]any)
	if api["environment"] != "local" || pay["facilitator"] != "local, no funds move" || pay["pay_to"] != DefaultPayTo ||
		pay["network"] != "eip155:8453" || pay["funds_move"] != false {
		t.Errorf("/api: environment %v, payment %v", api["environment"], pay)
	}
	svc, _ := get("/.well-known/ai-data.json")["service"].(map[string]any)
	if svc["environment"] != "local" {
		t.Errorf("ai-data environment %v", svc["environment"])
	}
	x := get("/.well-known/x402")
	if x["facilitator"] != "local, no funds move" || x["payTo"] != DefaultPayTo || x["environment"] != "local" {
		t.Errorf("/.well-known/x402: %v %v %v", x["facilitator"], x["payTo"], x["environment"])
	}
}

// An invalid price is a start-up error (Registry.Err), never a panic.
func TestInvalidPriceIsStartupError(t *testing.T) {
	reg := registry.New()
	reg.Add(registry.Spec[registry.NoInput]{Name: "bad_price", Method: http.MethodGet, Path: "/bad", Price: "1.",
		Handle: func(context.Context, *registry.NoInput) (*registry.Result, error) { return nil, nil }}.Endpoint())
	if err := reg.Err(); err == nil || !strings.Contains(err.Error(), "bad_price") {
		t.Fatalf("Err() = %v", err)
	}
	if reg.Lookup("bad_price") != nil {
		t.Error("an endpoint with an invalid price was registered")
	}
}
