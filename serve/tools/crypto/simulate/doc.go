// Package simulate serves simulate_tx (POST /v1/crypto/simulate-tx): a
// transaction run at the head block without being sent, with its call
// tree, the assets leaving and entering the sender (native, ERC-20,
// ERC-721, ERC-1155, also when inner calls move them), the approvals it
// grants, the revert reason and where it came from, gas and fee, and a
// risk level; on Solana, simulateTransaction with logs and balance changes.
//
// Calls are traced with go-ethereum's callTracer: the node's
// debug_traceCall where offered (trace.go), else a local EVM over state
// read lazily from the node at the pinned block (localevm.go), so internal
// calls (a router's transferFrom, native value sent by inner calls, a
// revert deep in the tree) are seen. Past Config.StateReads reads the
// local EVM gives way to eth_simulateV1 (assets from logs, no call tree).
//
// It is one of the crypto family's tools: package crypto opens it with the
// family's chain clients and explorer (which tells verified spenders from
// unverified ones). Its end-to-end tests run the whole server over the test
// chain (package cryptotest).
package simulate
