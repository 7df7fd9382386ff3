package simulate

import (
	"context"
	"log/slog"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/explorer"
)

// BenchmarkSimulate measures simulate_tx per tracing path against the local
// test chain (JSON-RPC over loopback HTTP): debug_traceCall (the node runs
// the callTracer), local_evm (go-ethereum's EVM here over state read from
// the node: eth_createAccessList, then batched account and slot reads) and,
// for comparison, eth_simulateV1 (logs and transfers only, no call tree).
// Two transactions: the router of the tracing scenario (an ERC-20 pulled
// by transferFrom, native value forwarded) and a two-hop Uniswap-V2 swap.
// rpc-calls/op counts every JSON-RPC call of the whole tool (pinned
// header, trace, fee, USD price, risk checks), http-req/op the requests
// carrying them.
//
//	go test -run '^$' -bench BenchmarkSimulate -benchtime 2s ./serve/tools/crypto/
func BenchmarkSimulate(b *testing.B) {
	c := evmtest.New(b)
	c.EnableDebug()
	s := c.DeployTracing()
	cc := &chain.Config{Version: "bench", Chains: map[string]*chain.Chain{
		"ethereum": {Name: "ethereum", Kind: "evm", ChainID: evmtest.ChainID, RPC: []string{c.URL}, Native: "ETH", BlockTime: 1,
			WrappedNative: c.WETH, USDC: c.USDC, Multicall3: evmtest.Multicall3Address,
			DEXes:  []chain.DEX{{Name: "uniswap-v2", Kind: "v2", Factory: c.Factory, Router: c.Router, FeeBps: 30}},
			Tokens: []chain.Token{{Symbol: "USDC", Address: c.USDC, Decimals: 6}, {Symbol: "WETH", Address: c.WETH, Decimals: 18}}},
	}}
	pack := func(art *evmtest.Contract, method string, args ...any) string {
		d, err := art.ABI.Pack(method, args...)
		if err != nil {
			b.Fatal(err)
		}
		return hexutil.Encode(d)
	}
	txs := []struct {
		name string
		in   Input
	}{
		{"router", Input{Chain: "ethereum", From: c.WalletAddr.Hex(), To: s.Router.Hex(), Value: "300000000000000000",
			Data: pack(evmtest.TraceArtifact("TraceRouter"), "pullAndForward", c.USDC, evmtest.Units(250, 6), c.Spender, s.Vault)}},
		{"swap", Input{Chain: "ethereum", From: c.WalletAddr.Hex(), To: c.Router.Hex(),
			Data: pack(evmtest.Artifact("UniswapV2Router02"), "swapExactTokensForTokens", evmtest.Units(300, 6), big.NewInt(0),
				[]common.Address{c.USDC, c.WETH, c.GOOD}, c.WalletAddr, evmtest.Units(1, 12))}},
	}
	paths := []struct {
		method string
		setup  func(*Tools)
	}{
		{"debug_traceCall", func(*Tools) {}},
		{"local_evm", func(t *Tools) { t.debugOK.Store("ethereum", false) }},
		{"eth_simulateV1", func(t *Tools) { t.debugOK.Store("ethereum", false); t.cfg.StateReads = 1 }},
	}
	ctx := context.Background()
	for _, tx := range txs {
		for _, p := range paths {
			b.Run(tx.name+"/"+p.method, func(b *testing.B) {
				ec, err := chain.NewEVM(cc.Chains["ethereum"], chain.Options{RatePerSecond: 1e6, Burst: 1e6})
				if err != nil {
					b.Fatal(err)
				}
				defer ec.Close()
				// No explorer answers: spenders are never verified.
				exp := explorer.New(explorer.Config{SourcifyURL: "http://127.0.0.1:1", EtherscanURL: "http://127.0.0.1:1", Timeout: time.Second, Logger: slog.New(slog.DiscardHandler)})
				tools := New(chain.EVMs{"ethereum": ec}, nil, exp, Config{})
				p.setup(tools)
				in := tx.in
				out, err := tools.simulate(ctx, &in) // warm-up, and fail early
				if err != nil || out.Method != p.method || !out.Success {
					b.Fatalf("%v: %+v", err, out)
				}
				st := tools.evm["ethereum"].Stats()
				req0, calls0 := st.Requests.Load(), st.Calls.Load()
				state := 0
				for b.Loop() {
					out, err := tools.simulate(ctx, &in)
					if err != nil {
						b.Fatal(err)
					}
					if out.Trace != nil {
						state += out.Trace.StateRPCCalls
					}
				}
				n := float64(b.N)
				b.ReportMetric(float64(st.Requests.Load()-req0)/n, "http-req/op")
				b.ReportMetric(float64(st.Calls.Load()-calls0)/n, "rpc-calls/op")
				b.ReportMetric(float64(state)/n, "state-rpc-calls/op")
				b.ReportMetric(n/b.Elapsed().Seconds(), "calls/s")
			})
		}
	}
}
