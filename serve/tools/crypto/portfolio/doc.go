// Package portfolio serves wallet_portfolio (GET /v1/crypto/portfolio): a
// wallet's native balances and token holdings with USD values and totals
// per chain. EVM: the configured token list plus up to 20 given tokens,
// read in one Multicall3 call per chain and priced from on-chain pools
// (package internal/market); a chain whose node fails is reported with an
// error, and the call fails only when every chain does. Solana: SOL and
// the SPL token accounts, priced from Orca Whirlpool pools.
//
// It is one of the crypto family's tools: package crypto opens it with the
// family's chain clients, and wallet_report starts from its answer
// (Tools.Portfolio). Its end-to-end tests run the whole server over the
// test chain (package cryptotest).
package portfolio
