package crypto

import (
	"context"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
	"github.com/openshelf/openshelf/serve/tools/crypto/gas"
	"github.com/openshelf/openshelf/serve/tools/crypto/prices"
	"github.com/openshelf/openshelf/serve/tools/crypto/swaproute"
	"github.com/openshelf/openshelf/serve/tools/crypto/tokenreport"
)

// BenchmarkTools measures tool calls per second against the local test
// chain (JSON-RPC over loopback HTTP) and what each call asks of the node:
// HTTP requests, JSON-RPC calls, and reads (what a client without JSON-RPC
// batches or Multicall3 would send as separate calls). "cold" clears every
// cache before each call; "warm" keeps them (pair addresses, token
// metadata, headers; gas figures for 3 s).
//
//	go test -run '^$' -bench BenchmarkTools -benchtime 3s ./serve/tools/crypto/
func BenchmarkTools(b *testing.B) {
	c := evmtest.New(b)
	cc := c.Config()
	tools, err := New(Config{Chains: cc, RPCOptions: chain.Options{RatePerSecond: 1e6, Burst: 1e6}})
	if err != nil {
		b.Fatal(err)
	}
	defer tools.Close()
	ctx := context.Background()
	// The tools in packages of their own are called through their
	// handlers.
	gasTracker := tools.gas.Endpoints()[0]
	cryptoPrices := tools.prices.Endpoints()[0]
	tokenReport := tools.report.Endpoints()[0]
	swapRoute := tools.swap.Endpoints()[0]
	cases := []struct {
		name string
		call func() error
	}{
		{"gas_tracker", func() error {
			_, err := gasTracker.Handle(ctx, &gas.Input{Chains: "ethereum", USD: true})
			return err
		}},
		{"crypto_prices", func() error {
			_, err := cryptoPrices.Handle(ctx, &prices.Input{Tokens: "GOOD,ETH,ethereum:" + c.FEE.Hex(), Change24h: true})
			return err
		}},
		{"crypto_prices_yields", func() error {
			_, err := cryptoPrices.Handle(ctx, &prices.Input{Tokens: "GOOD,ETH,ethereum:" + c.FEE.Hex(), Change24h: true, YieldsChain: "ethereum"})
			return err
		}},
		{"crypto_prices_routed", func() error {
			// TAIL only through GOOD, VTT only in a V3 pool.
			_, err := cryptoPrices.Handle(ctx, &prices.Input{Tokens: "ethereum:" + c.TAIL.Hex() + ",ethereum:" + c.VTT.Hex() + ",ethereum:" + c.FEE.Hex(), Change24h: true})
			return err
		}},
		{"swap_route_multihop", func() error {
			_, err := swapRoute.Handle(ctx, &swaproute.Input{Chain: "ethereum", TokenIn: "USDC", TokenOut: c.VTT.Hex(), Amount: "100000"})
			return err
		}},
		{"token_report", func() error {
			_, err := tokenReport.Handle(ctx, &tokenreport.Input{Chain: "ethereum", Address: c.FEE.Hex()})
			return err
		}},
	}
	evm := tools.evm["ethereum"]
	for _, tc := range cases {
		for _, mode := range []string{"cold", "warm"} {
			b.Run(tc.name+"/"+mode, func(b *testing.B) {
				if err := tc.call(); err != nil { // warm-up, and fail early
					b.Fatal(err)
				}
				st := evm.Stats()
				req0, calls0, reads0 := st.Requests.Load(), st.Calls.Load(), st.Reads.Load()
				srv0, srvReq0 := c.Calls(), c.Requests()
				for b.Loop() {
					if mode == "cold" {
						evm.Forget()
						tools.exp.Clear()
					}
					if err := tc.call(); err != nil {
						b.Fatal(err)
					}
				}
				n := float64(b.N)
				b.ReportMetric(float64(st.Requests.Load()-req0)/n, "http-req/op")
				b.ReportMetric(float64(st.Calls.Load()-calls0)/n, "rpc-calls/op")
				b.ReportMetric(float64(st.Reads.Load()-reads0)/n, "unbatched-reads/op")
				if got, want := c.Calls()-srv0, st.Calls.Load()-calls0; got != want {
					b.Errorf("the node served %d calls, the client counted %d", got, want)
				}
				if got, want := c.Requests()-srvReq0, st.Requests.Load()-req0; got != want {
					b.Errorf("the node served %d requests, the client counted %d", got, want)
				}
				b.ReportMetric(n/b.Elapsed().Seconds(), "calls/s")
			})
		}
	}
}
