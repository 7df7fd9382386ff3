package crypto

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/contractabi"
	"github.com/openshelf/openshelf/serve/tools/crypto/gas"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/explorer"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/token"
	"github.com/openshelf/openshelf/serve/tools/crypto/portfolio"
	"github.com/openshelf/openshelf/serve/tools/crypto/prices"
	"github.com/openshelf/openshelf/serve/tools/crypto/simulate"
	"github.com/openshelf/openshelf/serve/tools/crypto/swaproute"
	"github.com/openshelf/openshelf/serve/tools/crypto/tokenaudit"
	"github.com/openshelf/openshelf/serve/tools/crypto/tokenreport"
	"github.com/openshelf/openshelf/serve/tools/crypto/walletreport"
)

// Config configures the crypto tools. The zero value is the production
// setup with the embedded chain configuration and public endpoints.
type Config struct {
	// Chains replaces the chain configuration (tests); otherwise
	// ChainsFile is read, or the embedded chains.json when empty.
	Chains     *chain.Config
	ChainsFile string
	// RPC overrides endpoints, each "chain=url[,url]".
	RPC []string
	// TokenLists is the directory scripts/setup.sh installs the token
	// lists into (npm packages, chain.UniswapDefaultList); symbols are
	// resolved from them after the configured tokens. Default
	// "tokenlists"; a missing list is logged and symbols then come from
	// the chain configuration only.
	TokenLists string
	// SourcifyURL is the Sourcify server (v2 API); default
	// https://sourcify.dev/server.
	SourcifyURL string
	// EtherscanURL is the Etherscan-style v2 API (one URL for all chains,
	// chainid parameter); default https://api.etherscan.io/v2/api. With
	// no EtherscanKey the fallback is still tried (rate-limited tier).
	EtherscanURL string
	EtherscanKey string
	// RPCOptions bound every RPC client (timeout, rate).
	RPCOptions chain.Options
	// ExplorerTimeout bounds each explorer request; default 10s.
	ExplorerTimeout time.Duration
	// LogWindow is how many recent blocks token_audit and token_report
	// read Transfer logs from for holder concentration; default 5000.
	LogWindow uint64
	// SimStateReads bounds the RPC calls simulate_tx's local EVM may make
	// to read state (nodes without debug_traceCall); default 1000. Past
	// it the simulation falls back to eth_simulateV1.
	SimStateReads int
	// History bounds wallet_report's log scan (see
	// walletreport.HistoryConfig).
	History walletreport.HistoryConfig
	Logger  *slog.Logger
	Now     func() time.Time
}

// Tools is the crypto tool family: the tools' packages over one set of
// chain clients, one explorer client and one token lookup.
type Tools struct {
	evm    chain.EVMs
	sol    *chain.Solana
	exp    *explorer.Client
	tokens token.Resolver
	// The tools, in the order of their endpoints: contract_abi,
	// gas_tracker, crypto_prices, token_audit, token_report, swap_route,
	// wallet_portfolio, simulate_tx and wallet_report.
	abi    *contractabi.Tools
	gas    *gas.Tools
	prices *prices.Tools
	audit  *tokenaudit.Tools
	report *tokenreport.Tools
	swap   *swaproute.Tools
	pf     *portfolio.Tools
	sim    *simulate.Tools
	wallet *walletreport.Tools
}

// New builds the family; it fails on a bad chain configuration.
func New(cfg Config) (*Tools, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SourcifyURL == "" {
		cfg.SourcifyURL = "https://sourcify.dev/server"
	}
	if cfg.EtherscanURL == "" {
		cfg.EtherscanURL = "https://api.etherscan.io/v2/api"
	}
	if cfg.ExplorerTimeout <= 0 {
		cfg.ExplorerTimeout = 10 * time.Second
	}
	cc := cfg.Chains
	if cc == nil {
		var err error
		if cc, err = chain.Load(cfg.ChainsFile); err != nil {
			return nil, fmt.Errorf("crypto: %w", err)
		}
	}
	for _, spec := range cfg.RPC {
		if err := cc.SetRPC(spec); err != nil {
			return nil, err
		}
	}
	if cfg.TokenLists == "" {
		cfg.TokenLists = "tokenlists"
	}
	if l, err := chain.LoadTokenList(filepath.Join(cfg.TokenLists, chain.UniswapDefaultList)); err != nil {
		cfg.Logger.Warn("crypto: no token list; symbols come from the chain configuration only", "err", err)
	} else {
		cc.AddList(l)
	}
	t := &Tools{evm: chain.EVMs{},
		exp: explorer.New(explorer.Config{SourcifyURL: cfg.SourcifyURL, EtherscanURL: cfg.EtherscanURL,
			EtherscanKey: cfg.EtherscanKey, Timeout: cfg.ExplorerTimeout, Logger: cfg.Logger})}
	for name, ch := range cc.Chains {
		switch ch.Kind {
		case "evm":
			c, err := chain.NewEVM(ch, cfg.RPCOptions)
			if err != nil {
				return nil, err
			}
			t.evm[name] = c
		case "solana":
			s, err := chain.NewSolana(ch, cfg.RPCOptions)
			if err != nil {
				return nil, err
			}
			t.sol = s
		}
	}
	t.tokens = token.Resolver{EVM: t.evm, Sol: t.sol}
	t.abi = contractabi.New(t.evm, t.exp, cfg.Now)
	t.gas = gas.New(t.evm, t.sol, market.TokenUSD, cfg.Now, cfg.Logger)
	t.pf = portfolio.New(t.evm, t.sol, cfg.Now, cfg.Logger)
	t.prices = prices.New(t.evm, t.sol, t.tokens, prices.Config{Now: cfg.Now})
	t.audit = tokenaudit.New(t.evm, t.sol, tokenaudit.Config{LogWindow: cfg.LogWindow, Now: cfg.Now})
	t.report = tokenreport.New(t.audit, t.sol)
	t.swap = swaproute.New(t.evm, t.tokens, cfg.Now)
	t.sim = simulate.New(t.evm, t.sol, t.exp, simulate.Config{StateReads: cfg.SimStateReads, Now: cfg.Now, Logger: cfg.Logger})
	t.wallet = walletreport.New(t.evm, t.pf, walletreport.Config{History: cfg.History, Now: cfg.Now, Logger: cfg.Logger})
	return t, nil
}

// Close releases the RPC clients.
func (t *Tools) Close() error {
	for _, c := range t.evm {
		c.Close()
	}
	return nil
}
