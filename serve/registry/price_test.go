package registry

import (
	"context"
	"errors"
	"testing"

	"github.com/openshelf/openshelf/serve/price"
)

func TestAddParsesPriceOnce(t *testing.T) {
	h := func(context.Context, *NoInput) (*Result, error) { return &Result{}, nil }
	r := New()
	for _, tt := range []struct {
		name, price string
		ok          bool
	}{
		{"good", "0.001", true},
		{"free", "", true},
		{"trailing_dot", "1.", false},
		{"zero", "0.000", false},
		{"too_precise", "0.0000001", false},
	} {
		r.Add(Spec[NoInput]{Name: tt.name, Method: "GET", Path: "/" + tt.name, Price: tt.price, Handle: h}.Endpoint())
		if got := r.Lookup(tt.name) != nil; got != tt.ok {
			t.Errorf("%s (%q): registered = %v", tt.name, tt.price, got)
		}
	}
	if e := r.Lookup("good"); e.Amount != 1000 || e.Amount.String() != "1000" {
		t.Errorf("Amount = %v", e.Amount)
	}
	if err := r.Err(); !errors.Is(err, price.ErrInvalid) {
		t.Errorf("Err() = %v", err)
	}
}

func TestHandlePaidReceivesCharge(t *testing.T) {
	var got Charge
	e := Spec[NoInput]{Name: "paid", Method: "GET", Path: "/p", Price: "0.01",
		HandlePaid: func(_ context.Context, _ *NoInput, c Charge) (*Result, error) { got = c; return &Result{}, nil }}.Endpoint()
	if _, err := e.HandlePaid(context.Background(), e.NewInput(), Charge{ID: "abc", Payer: "0x1"}); err != nil || got.ID != "abc" {
		t.Fatalf("charge %+v, %v", got, err)
	}
	// A free call of a paid-only handler runs with no charge.
	if _, err := e.Handle(context.Background(), e.NewInput()); err != nil || got.ID != "" {
		t.Fatalf("free call charge %+v, %v", got, err)
	}
}
