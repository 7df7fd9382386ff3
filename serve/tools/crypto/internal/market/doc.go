// Package market prices tokens from on-chain pools, for the crypto tools
// that quote, value or sell them: Uniswap-V2-style pairs and V3-style
// pools found through the chain's factories and read in Multicall3 calls
// (USDPrices, FindPools, TokenInfo), the block of a past time (BlockAt),
// and on Solana Orca Whirlpool pools read with getMultipleAccounts
// (SolPrices), with the base58 and program-address arithmetic they need.
// USDC is taken as 1 USD; a token is priced against USDC, the wrapped
// native token or, failing both, the chain's listed tokens, and the
// deepest pool sets the price.
package market
