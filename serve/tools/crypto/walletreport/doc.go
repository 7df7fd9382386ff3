// Package walletreport serves wallet_report (GET /v1/crypto/wallet-report):
// a wallet's reputation from its portfolio (package portfolio), the token
// approvals it still has open (Approval and ApprovalForAll logs, with the
// current allowances), the tokens it holds that a simulated sale shows
// cannot be sold (package internal/sell), its interactions with flagged
// contracts, and a verdict (clean, caution, high-risk, flagged,
// incomplete) with reasons. Solana addresses get the portfolio only.
//
// The wallet's past logs are read in chunks that adapt to the node's range
// and result limits, bounded per chain (history.go, HistoryConfig); a scan
// cut short makes the verdict incomplete, with the reason. The chains are
// read concurrently. It is one of the crypto family's tools: package
// crypto opens it with the family's chain clients and wallet_portfolio.
package walletreport
