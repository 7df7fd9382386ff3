// Package price is the one parser of openshelf prices: a USD decimal
// string as endpoints declare it ("0.001") becomes an [Atomic] amount of
// USDC base units (6 decimals, "1000") once, at registration. The registry,
// the discovery documents and the x402 core all use the parsed value, so a
// price that does not parse is a start-up error and never reaches a
// request.
package price
