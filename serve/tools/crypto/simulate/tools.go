package simulate

import (
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/explorer"
)

// Config configures simulate_tx.
type Config struct {
	// StateReads bounds the RPC calls the local EVM may make to read
	// state (nodes without debug_traceCall); past it the simulation falls
	// back to eth_simulateV1. Default 1000.
	StateReads int
	Now        func() time.Time // default time.Now
	Logger     *slog.Logger     // default: discard
}

// Tools is simulate_tx over the family's chain clients and explorer (the
// explorer tells verified spenders from unverified ones).
type Tools struct {
	cfg Config
	evm chain.EVMs
	sol *chain.Solana // nil: no Solana node configured
	exp *explorer.Client
	// debugOK maps a chain name to whether its node offers debug_traceCall
	// with the callTracer (absent: not asked yet).
	debugOK sync.Map
}

// New builds simulate_tx.
func New(evm chain.EVMs, sol *chain.Solana, exp *explorer.Client, cfg Config) *Tools {
	if cfg.StateReads <= 0 {
		cfg.StateReads = 1000
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Tools{cfg: cfg, evm: evm, sol: sol, exp: exp}
}

// Forget drops what the tool has learnt of the nodes (which offer
// debug_traceCall), so that the next calls ask again.
func (t *Tools) Forget() { t.debugOK.Clear() }

// Endpoints returns simulate_tx's registry entry.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{registry.Spec[Input]{
		Name: "simulate_tx", Method: http.MethodPost, Path: "/v1/crypto/simulate-tx", Group: registry.GroupTools,
		Price:   "0.0015",
		Summary: "Simulate a transaction without sending it: the call tree, assets leaving and entering (native, ERC-20, ERC-721, ERC-1155, also when inner calls move them), approvals granted, revert reason and where it came from, gas and fee, and a risk level; Solana simulateTransaction with logs and balance changes.",
		Description: "EVM: the call is traced at the head block, with optional state overrides, by the node's debug_traceCall " +
			"(callTracer) or, on nodes without it, by a local EVM over state read from the node; eth_simulateV1 (assets from logs, no " +
			"call tree) when the local EVM would need too much state, eth_call without it. Solana: simulateTransaction with signature " +
			"checks off and a fresh blockhash. Nothing is broadcast.",
		Output: Output{}, Tool: call.Tool(),
		Example: map[string]any{"chain": "ethereum", "from": "0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045", "to": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
			"data": "0x70a08231000000000000000000000000d8da6bf26964af9d7eed9e03e53415d37aa96045"},
		Handle: call.Handle("simulate_tx", t.simulate),
	}.Endpoint()}
}
