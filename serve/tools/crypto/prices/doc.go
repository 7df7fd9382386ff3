// Package prices serves crypto_prices (GET /v1/crypto/prices): token
// prices in USD from on-chain pools, with pool depth, a confidence measure
// and the 24-hour change, and optionally the lending yields of a chain.
//
// On EVM chains the deepest Uniswap-V2-style pair or V3-style pool against
// USDC or the wrapped native token sets the price, or failing both a pool
// against a listed token (package internal/market); the 24-hour change
// prices the same pools at the block of 24 hours ago (prices.go). Solana
// prices come from Orca Whirlpool pools (solprices.go). yields_chain adds
// the supply and borrow APR and APY of the chain's Aave V3 Pools and
// Compound V3 Comets (yields.go). Symbols resolve through package
// internal/token.
//
// It is one of the crypto family's tools: package crypto opens it with the
// family's chain clients and token lookup.
package prices
