package crypto

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
)

// BenchmarkNodeCost measures what one paid call of each of the nine tools
// asks of the node, counted by the relay in front of the test chain (the
// counting proxy): HTTP requests and JSON-RPC calls. A paid call is what
// the server runs for it: the check before payment, then the handler.
// "cold" clears every cache before each call; "warm" repeats the call in
// the same block; "next-block" mines an empty block before each call, so
// per-block reads are made again while facts that cannot change stay
// known. The limiter is the default one (20 requests a second, burst 40),
// so calls/s is what one chain sustains.
//
//	go test -run '^$' -bench BenchmarkNodeCost -benchtime 40x ./serve/tools/crypto/
func BenchmarkNodeCost(b *testing.B) {
	c := evmtest.New(b)
	exp := httptest.NewServer(sourcifyReplay(b, c))
	defer exp.Close()
	tools, err := New(Config{Chains: c.Config(), SourcifyURL: exp.URL, EtherscanURL: exp.URL + "/etherscan"})
	if err != nil {
		b.Fatal(err)
	}
	defer tools.Close()
	eps := map[string]*registry.Endpoint{}
	for _, e := range tools.Endpoints() {
		eps[e.Name] = e
	}
	transfer := hexutil.Encode(chain.Pack("transfer", c.Spender, evmtest.Units(100, 6)))
	cases := []struct {
		name, tool string
		in         map[string]any
	}{
		{"contract_abi", "contract_abi", map[string]any{"chain": "ethereum", "address": c.Proxy.Hex()}},
		{"gas_tracker", "gas_tracker", map[string]any{"chains": "ethereum"}},
		{"crypto_prices", "crypto_prices", map[string]any{"tokens": "GOOD,ETH,USDC,ethereum:" + c.FEE.Hex()}},
		{"token_audit", "token_audit", map[string]any{"chain": "ethereum", "address": c.FEE.Hex()}},
		{"token_report", "token_report", map[string]any{"chain": "ethereum", "address": c.FEE.Hex()}},
		{"swap_route", "swap_route", map[string]any{"chain": "ethereum", "token_in": "USDC", "token_out": c.VTT.Hex(), "amount": "100000"}},
		{"wallet_portfolio", "wallet_portfolio", map[string]any{"address": c.WalletAddr.Hex(), "chains": "ethereum"}},
		{"wallet_report", "wallet_report", map[string]any{"address": c.WalletAddr.Hex(), "chains": "ethereum"}},
		{"simulate_tx", "simulate_tx", map[string]any{"chain": "ethereum", "from": c.WalletAddr.Hex(), "to": c.USDC.Hex(), "data": transfer}},
	}
	ctx := context.Background()
	for _, tc := range cases {
		e := eps[tc.tool]
		body, _ := json.Marshal(tc.in)
		call := func() error {
			in := e.NewInput()
			if err := e.Input.DecodeJSON(in, body, nil); err != nil {
				return err
			}
			if err := e.Check(ctx, in); err != nil {
				return err
			}
			_, err := e.Handle(ctx, in)
			return err
		}
		for _, mode := range []string{"cold", "warm", "next-block"} {
			b.Run(tc.name+"/"+mode, func(b *testing.B) {
				if err := call(); err != nil { // warm-up, and fail early
					b.Fatal(err)
				}
				var calls, reqs int64
				st := tools.evm["ethereum"].Stats()
				creq0 := st.Requests.Load()
				for b.Loop() {
					b.StopTimer()
					switch mode {
					case "cold":
						tools.forget()
					case "next-block":
						c.Backend.Commit()
						tools.nextBlock()
					}
					calls0, reqs0 := c.Calls(), c.Requests()
					b.StartTimer()
					if err := call(); err != nil {
						b.Fatal(err)
					}
					calls += c.Calls() - calls0
					reqs += c.Requests() - reqs0
				}
				if got := st.Requests.Load() - creq0; got != reqs {
					b.Errorf("the node served %d requests, the client counted %d", reqs, got)
				}
				n := float64(b.N)
				b.ReportMetric(float64(reqs)/n, "http-req/op")
				b.ReportMetric(float64(calls)/n, "rpc-calls/op")
				b.ReportMetric(n/b.Elapsed().Seconds(), "calls/s")
			})
		}
	}
}

// sourcifyReplay answers Sourcify with real recorded answers: the proxy
// and its implementation verified, anything else not.
func sourcifyReplay(b *testing.B, c *evmtest.Chain) http.Handler {
	read := func(f string) []byte {
		raw, err := os.ReadFile(fixtures.Path(b, "upstreams", "evm", f))
		if err != nil {
			b.Fatal(err)
		}
		return raw
	}
	ok := read("sourcify_v2_contract_fields_all.openapi-example.json")
	missing := read("sourcify_v2_contract_404_not_verified.openapi-example.json")
	known := strings.ToLower(c.Proxy.Hex() + c.ProxyImpl.Hex())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		i := strings.LastIndex(r.URL.Path, "/")
		if strings.Contains(known, strings.ToLower(r.URL.Path[i+1:])) && i > 0 {
			w.Write(ok)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		w.Write(missing)
	})
}

// forget drops everything the tools remember of the chains.
func (t *Tools) forget() {
	for _, c := range t.evm {
		c.Forget()
	}
	t.exp.Clear()
	t.sim.Forget()
	t.wallet.Forget()
}

// nextBlock makes the tools see a newly mined block at once.
func (t *Tools) nextBlock() {
	for _, c := range t.evm {
		c.ForgetHead()
	}
}
