package tokenaudit

import (
	"net/http"
	"time"

	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
)

// Config configures token_audit.
type Config struct {
	// LogWindow is how many recent blocks the holder concentration is
	// read from (Transfer logs); default 5000.
	LogWindow uint64
	Now       func() time.Time // default time.Now
}

// Tools is token_audit over the family's chain clients.
type Tools struct {
	cfg Config
	evm chain.EVMs
	sol *chain.Solana // nil: no Solana node configured
}

// New builds token_audit.
func New(evm chain.EVMs, sol *chain.Solana, cfg Config) *Tools {
	if cfg.LogWindow == 0 {
		cfg.LogWindow = 5000
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Tools{cfg: cfg, evm: evm, sol: sol}
}

// Endpoints returns token_audit's registry entry.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{registry.Spec[Input]{
		Name: "token_audit", Method: http.MethodPost, Path: "/v1/crypto/token-audit", Group: registry.GroupTools,
		Price:   "0.001",
		Summary: "Severity-ranked risk flags of a token from its bytecode and state: owner privileges, mint, pause, blacklist, fee setters, proxy upgradability, honeypot (simulated sale), liquidity lock and holder concentration.",
		Description: "Privileged functions are found by their selectors in the bytecode (the implementation's, behind a proxy); a " +
			"100 USD sale to USDC is simulated with eth_call state overrides (nothing is sent). An address without code is a 404 before payment.",
		Output: Output{}, Tool: call.Tool(),
		Example: map[string]any{"chain": "ethereum", "address": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"},
		Check:   call.Check("token_audit", t.Check),
		Handle:  call.Handle("token_audit", t.tokenAudit),
	}.Endpoint()}
}
