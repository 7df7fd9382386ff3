// Package tokenreport serves token_report (POST /v1/crypto/token-report):
// token_audit's flags (package tokenaudit), simulated sales of 100 and
// 1,000 USD to USDC (package internal/sell: eth_call with state overrides,
// nothing sent), a score from 0 to 100 with every deduction explained and
// a verdict. On Solana the sales are quotes from Orca Whirlpool pool state
// (solsell.go), not simulations.
//
// It is one of the crypto family's tools: package crypto opens it over the
// family's token_audit and Solana client.
package tokenreport
