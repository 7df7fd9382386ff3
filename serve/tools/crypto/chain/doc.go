// Package chain holds what the crypto tools know about each chain and how
// they talk to it: the versioned per-chain configuration (RPC endpoints,
// wrapped native token, USDC, Multicall3, pool factories, tokens), embedded
// and overridable from a file, and the installed token lists symbols are
// resolved from (tokenlist.go); an EVM JSON-RPC client with a timeout, a
// rate limiter counting HTTP requests, and batching (JSON-RPC batches and
// Multicall3 aggregate3); and a minimal Solana JSON-RPC client.
//
// The EVM client asks the node as little as answers allow. A tool call
// (WithCall) pins each chain's head block at its first read (pin.go; a
// first Multicall3 read names the block it was read at, multicall.go);
// answers of reads naming a block are kept for that block, Multicall3
// entries one by one, so repeated and concurrent calls in one block share
// them (reads.go, multicall.go); reads a call will need later ride along
// with its next Multicall3 read (Want), and a lens placed by state
// override makes a factory lookup and the pool's reads, or a code read,
// one Multicall3 entry, and placed at the EIP-4788 beacon-roots contract
// counts the blocks since a past time (lens.go); aggregates at several
// blocks go in one JSON-RPC batch (MulticallBlocks); facts that cannot change are kept in a
// bounded least-recently-used Cache (cache.go); and a call asked again at
// a new block sends last time's reads at once, in one request
// (prefetch.go). Requests are counted per tool (Spent).
//
// Nothing here signs or sends a transaction: the EVM client offers reads,
// eth_call (with state overrides) and gas estimation only.
package chain
