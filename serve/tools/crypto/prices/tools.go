package prices

import (
	"net/http"
	"time"

	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/token"
)

// Config configures crypto_prices.
type Config struct {
	Now func() time.Time // default time.Now
}

// Tools is crypto_prices over the family's chain clients and token lookup.
type Tools struct {
	cfg    Config
	evm    chain.EVMs
	sol    *chain.Solana // nil: no Solana node configured
	tokens token.Resolver
}

// New builds crypto_prices.
func New(evm chain.EVMs, sol *chain.Solana, tokens token.Resolver, cfg Config) *Tools {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Tools{cfg: cfg, evm: evm, sol: sol, tokens: tokens}
}

// Endpoints returns crypto_prices' registry entry.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{registry.Spec[Input]{
		Name: "crypto_prices", Method: http.MethodGet, Path: "/v1/crypto/prices", Group: registry.GroupTools,
		Price:   "0.001",
		Summary: "Token prices in USD from on-chain pools (against USDC and the wrapped native token, EVM and Solana) with pool depth, a confidence measure and the 24-hour change; optional lending yields (Aave V3, Compound V3).",
		Description: "At most 10 tokens, as symbols, chain:address or solana:MINT. The deepest V2- or V3-style pool sets the price; " +
			"a token with neither a USDC nor a wrapped-native pool is priced through the listed tokens. The 24-hour change compares " +
			"with pool state at the block of 24 hours ago (EVM only). Solana prices come from Orca Whirlpool pools. yields_chain adds " +
			"supply and borrow APR and APY from the chain's lending markets. A token with no pool is a 404 before payment.",
		Output: Output{}, Tool: call.Tool(),
		Example: map[string]any{"tokens": "ETH,USDC"},
		Check:   call.Check("crypto_prices", t.checkPrices),
		Handle:  call.Handle("crypto_prices", t.prices),
	}.Endpoint()}
}
