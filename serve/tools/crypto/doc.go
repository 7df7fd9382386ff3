// Package crypto is the crypto tool family: the on-chain checks under
// /v1/crypto. contract_abi, gas_tracker, wallet_portfolio and simulate_tx
// are packages of their own (contractabi, gas, portfolio, simulate);
// token_audit, token_report, swap_route, crypto_prices and wallet_report
// are here.
// New builds them all over one set of chain clients (package chain), one
// explorer client (package internal/explorer) and the pool pricing they
// share (package internal/market), and the family (Family) opens them as
// one group.
//
// Every answer comes from chain state read over JSON-RPC (package chain):
// Uniswap-V2-style pairs and V3-style pools (quoted by QuoterV2) for prices
// and multi-hop routes, Aave V3 Pools and Compound V3 Comets for lending
// yields, Orca Whirlpool accounts for Solana prices, eth_feeHistory for
// gas, bytecode and storage for audits, eth_call with state overrides for
// simulated sells and transactions. Verified ABIs come from a
// Sourcify-style server with an Etherscan-style fallback (package
// internal/explorer); proxies are resolved from chain state (package
// internal/proxy). Nothing is ever signed or broadcast. Symbols resolve
// through the chain configuration, then the token list setup installs (the
// Uniswap default list). Each tool call runs under chain.WithPlan (package
// internal/call): its reads see one block, are kept for it and are
// prefetched when the same call comes at a later block, and its node
// requests are counted per tool (metrics.go).
//
// wallet_report reads a wallet's past logs in adaptive chunks
// (history.go); the token events it and simulate_tx read are named in
// package internal/events.
//
// The tests run against a real EVM (package evmtest) with deployed tokens,
// pools, a honeypot and a proxy, and against local servers replaying real
// Sourcify, Etherscan and Solana answers.
package crypto
