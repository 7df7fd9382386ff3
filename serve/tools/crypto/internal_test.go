package crypto

import (
	"context"
	"errors"
	"testing"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

func TestParseUnits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		dec  uint8
		want string
	}{{"1.5", 6, "1500000"}, {"250.5", 6, "250500000"}, {"0.0000001", 6, "0"}, {"3", 18, "3000000000000000000"}} {
		if got := parseUnits(tc.in, tc.dec).String(); got != tc.want {
			t.Errorf("%s@%d = %s, want %s", tc.in, tc.dec, got, tc.want)
		}
	}
}

func TestYieldsNeedMarkets(t *testing.T) {
	cc := chain.Default()
	cc.Chains["bsc"].Lending = nil
	tools, err := New(Config{Chains: cc})
	if err != nil {
		t.Fatal(err)
	}
	defer tools.Close()
	// Refused before any RPC call: the endpoints are the public ones.
	err = tools.checkPrices(context.Background(), &PricesInput{YieldsChain: "bsc"})
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != "yields_not_supported" {
		t.Errorf("err %v, want yields_not_supported", err)
	}
}
