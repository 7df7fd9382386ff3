package walletreport

import (
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
	"github.com/openshelf/openshelf/serve/tools/crypto/portfolio"
)

// Config configures wallet_report.
type Config struct {
	// History bounds the scan of a wallet's past logs (see HistoryConfig).
	History HistoryConfig
	Now     func() time.Time // default time.Now
	Logger  *slog.Logger     // default: discard
}

// Tools is wallet_report over the family's chain clients and its
// wallet_portfolio, whose answer the report includes.
type Tools struct {
	cfg Config
	evm chain.EVMs
	pf  *portfolio.Tools
	// logRange maps a chain name to the eth_getLogs range its last history
	// scan ended with, where the next one starts.
	logRange sync.Map
}

// New builds wallet_report.
func New(evm chain.EVMs, pf *portfolio.Tools, cfg Config) *Tools {
	cfg.History.fill()
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Tools{cfg: cfg, evm: evm, pf: pf}
}

// Forget drops what the tool has learnt of the nodes (the log range each
// chain's last scan ended with), so that the next scans start afresh.
func (t *Tools) Forget() { t.logRange.Clear() }

// Endpoints returns wallet_report's registry entry.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{registry.Spec[Input]{
		Name: "wallet_report", Method: http.MethodGet, Path: "/v1/crypto/wallet-report", Group: registry.GroupTools,
		Price:   "0.03",
		Summary: "Wallet reputation: portfolio, open token approvals (from logs, with current allowances), scam-token holdings (simulated sales), interactions with flagged contracts, and a verdict (clean, caution, high-risk, flagged, incomplete) with reasons.",
		Description: "History comes from the wallet's Approval, ApprovalForAll and Transfer logs, scanned back 2,000,000 blocks by default " +
			"(configurable) in chunks that adapt to the node's range and result limits; a scan cut short by its bounds makes the verdict " +
			"incomplete, with the reason. Allowances and balances are read now in one Multicall3 call per chain. Solana addresses get the " +
			"portfolio and the verdict incomplete.",
		Output: Output{}, Tool: call.Tool(),
		// A real mainnet example (USDC, a well-known wallet): what discovery shows.
		Example: map[string]any{"address": "0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045"},
		Handle:  call.Handle("wallet_report", t.walletReport),
	}.Endpoint()}
}
