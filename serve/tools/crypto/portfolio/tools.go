package portfolio

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
)

// Tools is wallet_portfolio over the family's chain clients.
type Tools struct {
	evm    chain.EVMs
	sol    *chain.Solana // nil: no Solana node configured
	now    func() time.Time
	logger *slog.Logger
}

// New builds wallet_portfolio.
func New(evm chain.EVMs, sol *chain.Solana, now func() time.Time, logger *slog.Logger) *Tools {
	return &Tools{evm: evm, sol: sol, now: now, logger: logger}
}

// Endpoints returns wallet_portfolio's registry entry.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{registry.Spec[Input]{
		Name: "wallet_portfolio", Method: http.MethodGet, Path: "/v1/crypto/portfolio", Group: registry.GroupTools,
		Price:   "0.001",
		Summary: "Native balances and token holdings of a wallet with USD values and totals per chain (EVM and Solana addresses).",
		Description: "EVM: the configured token list plus up to 20 given tokens, read in one Multicall3 call per chain and priced " +
			"from on-chain pools. Solana: SOL and SPL token accounts, priced from Orca Whirlpool pools against USDC and SOL. A chain " +
			"whose node fails is reported with an error; the call fails only when every chain does.",
		Output: Output{}, Tool: call.Tool(),
		Example: map[string]any{"address": "0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045"},
		Handle:  call.Handle("wallet_portfolio", t.Portfolio),
	}.Endpoint()}
}
