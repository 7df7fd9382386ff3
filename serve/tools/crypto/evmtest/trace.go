package evmtest

import (
	"crypto/ecdsa"
	_ "embed"
	"math/big"
	"reflect"
	"sync"
	"unsafe"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"

	// The callTracer debug_traceCall is asked for.
	_ "github.com/ethereum/go-ethereum/eth/tracers/native"
)

//go:embed contracts/trace_artifacts.json
var traceJSON []byte

var (
	traceOnce sync.Once
	traceArts map[string]*Contract
	traceErr  error
)

// TraceArtifact returns a compiled contract of Trace.sol (simulate_tx's
// tracing scenario); it panics on an unknown name.
func TraceArtifact(name string) *Contract {
	traceOnce.Do(func() { traceArts, traceErr = parseArtifacts(traceJSON) })
	if traceErr != nil {
		panic(traceErr)
	}
	c, ok := traceArts[name]
	if !ok {
		panic("evmtest: no contract " + name + " in Trace.sol")
	}
	return c
}

// Tracing is the scenario of simulate_tx's call-tracing tests, deployed by
// DeployTracing. Wallet holds NFT721 token NFTID and MultiAmount units of
// Multi1155 token MultiID, has approved Router for RouterAllowance USDC
// and Market for both collections (setApprovalForAll).
type Tracing struct {
	// Vault takes at most VaultLimit wei per call.
	Vault, Router, NFT, Multi, Market common.Address
}

// Constants of the tracing scenario.
var (
	VaultLimit      = Units(1, 18)
	RouterAllowance = Units(1_000, 6)
	MarketFunds     = Units(10, 18)
)

const (
	NFTID       = 7
	MultiID     = 3
	MultiAmount = 10
)

// DeployTracing deploys Trace.sol's contracts and sets up the wallet's
// NFTs and approvals (a dozen transactions).
func (c *Chain) DeployTracing() *Tracing {
	c.t.Helper()
	s := &Tracing{
		Vault:  c.createTrace("Vault", VaultLimit),
		Router: c.createTrace("TraceRouter"),
		NFT:    c.createTrace("NFT721"),
		Multi:  c.createTrace("Multi1155"),
		Market: c.createTrace("Market"),
	}
	w := c.WalletAddr
	c.tx(c.Deployer, &s.Market, MarketFunds, nil)
	c.sendTrace(c.Deployer, s.NFT, "NFT721", "mint", w, big.NewInt(NFTID))
	c.sendTrace(c.Deployer, s.Multi, "Multi1155", "mint", w, big.NewInt(MultiID), big.NewInt(MultiAmount))
	c.Send(c.Wallet, c.USDC, nil, "Token", "approve", s.Router, RouterAllowance)
	c.sendTrace(c.Wallet, s.NFT, "NFT721", "setApprovalForAll", s.Market, true)
	c.sendTrace(c.Wallet, s.Multi, "Multi1155", "setApprovalForAll", s.Market, true)
	return s
}

func (c *Chain) createTrace(name string, args ...any) common.Address {
	c.t.Helper()
	art := TraceArtifact(name)
	in, err := art.ABI.Pack("", args...)
	if err != nil {
		c.t.Fatalf("evmtest: pack %s constructor: %v", name, err)
	}
	return c.tx(c.Deployer, nil, nil, append(append([]byte{}, art.Bin...), in...)).ContractAddress
}

func (c *Chain) sendTrace(key *ecdsa.PrivateKey, to common.Address, contract, method string, args ...any) {
	c.t.Helper()
	data, err := TraceArtifact(contract).ABI.Pack(method, args...)
	if err != nil {
		c.t.Fatalf("evmtest: pack %s.%s: %v", contract, method, err)
	}
	c.tx(key, &to, nil, data)
}

// EnableDebug serves go-ethereum's debug namespace (debug_traceCall and
// the other tracers APIs, with the native tracers) next to the node's own
// APIs, as a node started with --http.api=eth,debug does. The simulated
// backend does not register it and its node cannot take APIs once
// started, so the relay routes debug_* calls to a separate RPC server
// over the same chain.
func (c *Chain) EnableDebug() {
	c.t.Helper()
	srv := rpc.NewServer()
	for _, api := range tracers.APIs(ethOf(c).APIBackend) {
		if err := srv.RegisterName(api.Namespace, api.Service); err != nil {
			c.t.Fatal(err)
		}
	}
	c.t.Cleanup(srv.Stop)
	c.relay.mu.Lock()
	c.relay.debug = rpc.DialInProc(srv)
	c.relay.mu.Unlock()
}

// ethOf digs the *eth.Ethereum out of the simulated backend's node: both
// fields are unexported, and the tracers API needs the chain's API
// backend. Test-only reflection over go-ethereum's pinned version.
func ethOf(c *Chain) *eth.Ethereum {
	nf := reflect.ValueOf(c.Backend).Elem().FieldByName("node")
	n := reflect.NewAt(nf.Type(), unsafe.Pointer(nf.UnsafeAddr())).Elem().Interface().(*node.Node)
	lf := reflect.ValueOf(n).Elem().FieldByName("lifecycles")
	lcs := reflect.NewAt(lf.Type(), unsafe.Pointer(lf.UnsafeAddr())).Elem().Interface().([]node.Lifecycle)
	for _, l := range lcs {
		if e, ok := l.(*eth.Ethereum); ok {
			return e
		}
	}
	c.t.Fatal("evmtest: the simulated node runs no eth service")
	return nil
}

// Served is how many calls of method the chain has served (refused ones
// included).
func (c *Chain) Served(method string) int {
	c.relay.mu.Lock()
	defer c.relay.mu.Unlock()
	return c.relay.served[method]
}

// SendRaw sends a transaction with raw calldata, mines it and fails the
// test if it reverts.
func (c *Chain) SendRaw(key *ecdsa.PrivateKey, to common.Address, value *big.Int, data []byte) *types.Receipt {
	c.t.Helper()
	return c.tx(key, &to, value, data)
}
