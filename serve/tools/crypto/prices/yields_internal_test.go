package prices

import (
	"context"
	"errors"
	"testing"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/token"
)

func TestYieldsNeedMarkets(t *testing.T) {
	cc := chain.Default()
	cc.Chains["bsc"].Lending = nil
	// The production configuration's clients, as the family builds them.
	evm := chain.EVMs{}
	for name, ch := range cc.Chains {
		if ch.Kind != "evm" {
			continue
		}
		c, err := chain.NewEVM(ch, chain.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		evm[name] = c
	}
	tools := New(evm, nil, token.Resolver{EVM: evm}, Config{})
	// Refused before any RPC call: the endpoints are the public ones.
	err := tools.checkPrices(context.Background(), &Input{YieldsChain: "bsc"})
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != "yields_not_supported" {
		t.Errorf("err %v, want yields_not_supported", err)
	}
}
