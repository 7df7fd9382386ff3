// Package crypto is the crypto tool family: the on-chain checks under
// /v1/crypto. Each tool is its own package:
//
//   - contractabi: contract_abi (verified ABI, proxy resolution)
//   - gas: gas_tracker (fees, congestion)
//   - prices: crypto_prices (pool prices, 24-hour change, lending yields)
//   - tokenaudit: token_audit (risk flags from bytecode and state)
//   - tokenreport: token_report (token_audit's flags, sales, a score)
//   - swaproute: swap_route (multi-hop routes, unsigned router calls)
//   - portfolio: wallet_portfolio (balances valued in USD)
//   - simulate: simulate_tx (traced simulation of a transaction)
//   - walletreport: wallet_report (approvals, scam tokens, a verdict)
//
// This package holds the family's wiring: its Config and flags (Family),
// New, which builds every tool over one set of chain clients (package
// chain), one explorer client (package internal/explorer) and one token
// lookup (package internal/token), the order of their endpoints, and the
// node metrics (metrics.go). What the tools share is beside them: pool
// pricing (internal/market), simulated sales (internal/sell), proxies
// (internal/proxy), token events (internal/events), the call wrappers
// (internal/call) and rounding (internal/num).
//
// Every answer comes from chain state read over JSON-RPC (package chain):
// Uniswap-V2-style pairs and V3-style pools (quoted by QuoterV2) for prices
// and multi-hop routes, Aave V3 Pools and Compound V3 Comets for lending
// yields, Orca Whirlpool accounts for Solana prices, eth_feeHistory for
// gas, bytecode and storage for audits, eth_call with state overrides for
// simulated sells and transactions. Verified ABIs come from a
// Sourcify-style server with an Etherscan-style fallback; proxies are
// resolved from chain state. Nothing is ever signed or broadcast. Symbols
// resolve through the chain configuration, then the token list setup
// installs (the Uniswap default list). Each tool call runs under
// chain.WithPlan (package internal/call): its reads see one block, are kept
// for it and are prefetched when the same call comes at a later block, and
// its node requests are counted per tool (metrics.go).
//
// The tests of each tool are in its package; the tests here run several
// tools together (the caches across blocks, the metrics, Solana prices,
// a node without state overrides), as does BenchmarkNodeCost. They run
// against a real EVM (package evmtest) with deployed tokens, pools, a
// honeypot and a proxy, and against local servers replaying real
// Sourcify, Etherscan and Solana answers (package cryptotest).
package crypto
