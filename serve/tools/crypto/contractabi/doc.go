// Package contractabi serves contract_abi (GET /v1/crypto/contract-abi):
// the verified ABI of a contract from Sourcify or an Etherscan-style API
// (package explorer), its function, event and error signatures with their
// selectors, optionally its source, and behind a proxy (read from chain
// state by package proxy) the implementation's ABI.
//
// It is one of the crypto family's tools (package crypto opens it with the
// family's chain clients and explorer client); its tests run the whole
// server over the test chain (package cryptotest).
package contractabi
