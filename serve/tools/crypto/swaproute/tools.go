package swaproute

import (
	"net/http"
	"time"

	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/token"
)

// Tools is swap_route over the family's chain clients and token lookup.
type Tools struct {
	evm    chain.EVMs
	tokens token.Resolver
	now    func() time.Time
}

// New builds swap_route; now is the clock of the answers' checked_at
// (nil: time.Now).
func New(evm chain.EVMs, tokens token.Resolver, now func() time.Time) *Tools {
	if now == nil {
		now = time.Now
	}
	return &Tools{evm: evm, tokens: tokens, now: now}
}

// Endpoints returns swap_route's registry entry.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{registry.Spec[Input]{
		Name: "swap_route", Method: http.MethodGet, Path: "/v1/crypto/swap-route", Group: registry.GroupTools,
		Price:   "0.001",
		Summary: "Best swap route across Uniswap-V2-style pairs and V3-style pools (multi-hop, mixed V2/V3): output, minimum after slippage, price impact over the route, gas, USD value change; with a sender, an unsigned transaction and the allowance check.",
		Description: "Direct routes and routes through the wrapped native token, USDC and listed tokens (up to three hops, each hop " +
			"the best V2 pair or V3 pool of any fee tier) are quoted at the head block: V2 from reserves, V3 with the DEX's QuoterV2. " +
			"The transaction is a V2 router call, a SwapRouter02 exactInputSingle/exactInput, or a SwapRouter02 multicall for mixed " +
			"routes. native is handled as the wrapped token. Quotes only: no transaction is sent.",
		Output: Output{}, Tool: call.Tool(),
		Example: map[string]any{"chain": "ethereum", "token_in": "WETH", "token_out": "USDC", "amount": "1"},
		Check:   call.Check("swap_route", t.checkSwap),
		Handle:  call.Handle("swap_route", t.swapRoute),
	}.Endpoint()}
}
