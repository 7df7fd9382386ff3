// Package chain holds what the crypto tools know about each chain and how
// they talk to it: the versioned per-chain configuration (RPC endpoints,
// wrapped native token, USDC, Multicall3, pool factories, token lists),
// embedded and overridable from a file; an EVM JSON-RPC client with a
// timeout, a rate limiter, batching (JSON-RPC batches and Multicall3
// aggregate3) and a short cache; and a minimal Solana JSON-RPC client.
//
// Nothing here signs or sends a transaction: the EVM client offers reads,
// eth_call (with state overrides) and gas estimation only.
package chain
