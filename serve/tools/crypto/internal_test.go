package crypto

import (
	"context"
	"errors"
	"testing"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

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
