package tokenreport

import (
	"net/http"

	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
	"github.com/openshelf/openshelf/serve/tools/crypto/tokenaudit"
)

// Input is the input of token_report: token_audit's.
type Input = tokenaudit.Input

// Tools is token_report over token_audit's analysis and the family's
// Solana client.
type Tools struct {
	audit *tokenaudit.Tools
	sol   *chain.Solana // nil: no Solana node configured
}

// New builds token_report on audit, the family's token_audit.
func New(audit *tokenaudit.Tools, sol *chain.Solana) *Tools {
	return &Tools{audit: audit, sol: sol}
}

// Endpoints returns token_report's registry entry.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{registry.Spec[Input]{
		Name: "token_report", Method: http.MethodPost, Path: "/v1/crypto/token-report", Group: registry.GroupTools,
		Price:   "0.05",
		Summary: "Token safety report: score 0 to 100 with every deduction explained, a verdict (low-risk, caution, high-risk, avoid), the audit flags, and simulated sales of 100 and 1,000 USD to USDC with received amount, effective tax and revert reason.",
		Description: "Sales run through the deepest pool (and the wrapped-native/USDC pool when needed) by eth_call with state " +
			"overrides: a seller contract and a token balance are placed for the call only; nothing is signed or sent. Solana: the " +
			"sales are quotes from Orca Whirlpool pool state (quote_only), not simulations.",
		Output: Output{}, Tool: call.Tool(),
		Example: map[string]any{"chain": "ethereum", "address": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"},
		Check:   call.Check("token_report", t.audit.Check),
		Handle:  call.Handle("token_report", t.tokenReport),
	}.Endpoint()}
}
