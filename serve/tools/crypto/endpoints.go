package crypto

import (
	"net/http"

	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
)

// Endpoints returns the registry entries of the crypto tools. Input rules
// (chains, addresses, list sizes) are checked while decoding and in Check,
// so bad input and unknown contracts are refused before payment.
func (t *Tools) Endpoints() []*registry.Endpoint {
	eps := append(t.abi.Endpoints(), t.gas.Endpoints()...)
	eps = append(eps, t.pricesEndpoint())
	eps = append(eps, t.audit.Endpoints()...)
	eps = append(eps, t.report.Endpoints()...)
	eps = append(eps, t.swap.Endpoints()...)
	eps = append(eps, t.pf.Endpoints()...)
	eps = append(eps, t.sim.Endpoints()...)
	return append(eps, t.wallet.Endpoints()...)
}

func (t *Tools) pricesEndpoint() *registry.Endpoint {
	return registry.Spec[PricesInput]{
		Name: "crypto_prices", Method: http.MethodGet, Path: "/v1/crypto/prices", Group: registry.GroupTools,
		Price:   "0.001",
		Summary: "Token prices in USD from on-chain pools (against USDC and the wrapped native token, EVM and Solana) with pool depth, a confidence measure and the 24-hour change; optional lending yields (Aave V3, Compound V3).",
		Description: "At most 10 tokens, as symbols, chain:address or solana:MINT. The deepest V2- or V3-style pool sets the price; " +
			"a token with neither a USDC nor a wrapped-native pool is priced through the listed tokens. The 24-hour change compares " +
			"with pool state at the block of 24 hours ago (EVM only). Solana prices come from Orca Whirlpool pools. yields_chain adds " +
			"supply and borrow APR and APY from the chain's lending markets. A token with no pool is a 404 before payment.",
		Output: PricesOutput{}, Tool: call.Tool(),
		Example: map[string]any{"tokens": "ETH,USDC"},
		Check:   call.Check("crypto_prices", t.checkPrices),
		Handle:  call.Handle("crypto_prices", t.prices),
	}.Endpoint()
}
