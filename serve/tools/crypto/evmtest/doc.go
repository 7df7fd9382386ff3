// Package evmtest starts a real EVM for the crypto tools' tests: go-ethereum's
// simulated backend served as JSON-RPC over HTTP on loopback, with the test
// contracts of contracts/ deployed (plain, fee-on-transfer and honeypot
// ERC-20 tokens, WETH9, a Uniswap-V2-style factory, pairs and router, an
// EIP-1967 proxy, Multicall3 at its canonical address) and a known state, so
// every tool answer can be checked against the truth of that chain.
//
// contracts/artifacts.json is generated from the .sol sources by
// contracts/build.sh (npm solc); the tests only read the committed file.
// The same script writes the runtime code the tools place by state
// override: SellTester's (../sellcode_gen.go) and Lens's
// (../chain/lenscode_gen.go). The relay in front of the node counts
// requests and can refuse methods or state overrides as some nodes do.
package evmtest
