package crypto

import (
	"context"
	"flag"

	"github.com/openshelf/openshelf/serve/tools"
)

// Family plugs the crypto tools into the server. Its Config's zero value
// is the production setup; an empty Logger is the server's.
type Family struct {
	Config Config
}

// Name is the family's name.
func (*Family) Name() string { return "crypto" }

// RegisterFlags registers the chains', explorers' and bounds' flags
// (-crypto-*).
func (f *Family) RegisterFlags(fs *flag.FlagSet) {
	c := &f.Config
	fs.StringVar(&c.ChainsFile, "crypto-chains", "", "crypto tools: chain configuration file (default: the embedded chains.json)")
	fs.Func("crypto-rpc", "crypto tools: RPC endpoint of a chain, chain=URL[,URL] (repeatable)", func(v string) error {
		c.RPC = append(c.RPC, v)
		return nil
	})
	fs.StringVar(&c.TokenLists, "crypto-token-lists", "tokenlists", "crypto tools: directory of the token lists symbols are resolved from (npm packages installed by scripts/setup.sh)")
	fs.StringVar(&c.SourcifyURL, "crypto-sourcify-url", "https://sourcify.dev/server", "crypto tools: Sourcify server (v2 API) for verified ABIs")
	fs.StringVar(&c.EtherscanURL, "crypto-etherscan-url", "https://api.etherscan.io/v2/api", "crypto tools: Etherscan-style v2 API, the ABI fallback")
	fs.StringVar(&c.EtherscanKey, "crypto-etherscan-key", "", "crypto tools: Etherscan API key")
	fs.Uint64Var(&c.History.Blocks, "crypto-history-blocks", 2_000_000, "crypto tools: how many blocks back wallet_report scans a wallet's logs (more than the chain's height: from genesis)")
	fs.IntVar(&c.History.MaxRequests, "crypto-history-requests", 300, "crypto tools: bound on the eth_getLogs batches of one chain's wallet history scan")
	fs.IntVar(&c.SimStateReads, "crypto-sim-state-reads", 1000, "crypto tools: bound on the RPC calls simulate_tx's local EVM makes to read state (nodes without debug_traceCall)")
}

// Open builds the tools; a bad chain configuration stops the server.
func (f *Family) Open(_ context.Context, deps tools.Deps) ([]tools.Tools, error) {
	c := f.Config
	if c.Logger == nil {
		c.Logger = deps.Logger
	}
	t, err := New(c)
	if err != nil {
		return nil, err
	}
	return []tools.Tools{t}, nil
}
