// Package tokenaudit serves token_audit (POST /v1/crypto/token-audit):
// severity-ranked risk flags of a token from its bytecode and state. The
// owner's privileges are found by their selectors in the bytecode (the
// implementation's, behind a proxy: package internal/proxy), liquidity
// from the deepest pool and how much of its LP supply is burned, holder
// concentration from the Transfer logs of the last blocks, and a honeypot
// from a simulated sale (package internal/sell). On Solana the mint's
// authorities, its Token-2022 extensions and its largest accounts are
// read instead (solaudit.go).
//
// The analysis (Run, Audit) is also token_report's (package tokenreport),
// which adds sales of its own and a score. It is one of the crypto
// family's tools: package crypto opens it with the family's chain clients.
package tokenaudit
