// Package cryptotest runs the whole server with the crypto family over a
// test chain (package evmtest) and replaying explorers, for the tests of
// the crypto tools' packages.
package cryptotest

import (
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	ethcrypto "github.com/ethereum/go-ethereum/crypto"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/servetest"
	"github.com/openshelf/openshelf/serve/tools/crypto"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
)

// Env is the whole server over a test chain and replaying Sourcify and
// Etherscan servers.
type Env struct {
	*servetest.Env
	Chain *evmtest.Chain
	// Sourcify and Etherscan map a lower-case address (Lower) to the
	// fixture of ../shared/fixtures/upstreams/evm served for it; any other
	// address gets the real "not verified" answer.
	Sourcify, Etherscan map[string]string
	// The RPC clients' clock (now): start, plus skew from Later.
	start time.Time
	skew  atomic.Int64
}

// Options adjust the environment.
type Options struct {
	// Chain is the test chain; nil starts a new one.
	Chain *evmtest.Chain
	// Solana, when set, is the Solana node, configured as "solana".
	Solana http.Handler
	// Chains adjusts the chain configuration before the server starts.
	Chains func(*evmtest.Chain, *chain.Config)
	// Config adjusts the family's configuration, last.
	Config func(*crypto.Config)
}

// New starts the test chain, the explorers and the server.
func New(t *testing.T, o Options) *Env {
	t.Helper()
	c := o.Chain
	if c == nil {
		c = evmtest.New(t)
	}
	e := &Env{Chain: c, Sourcify: map[string]string{}, Etherscan: map[string]string{}, start: time.Now()}
	exp := httptest.NewServer(http.HandlerFunc(e.explorer(t)))
	t.Cleanup(exp.Close)
	cc := c.Config()
	if o.Solana != nil {
		sol := httptest.NewServer(o.Solana)
		t.Cleanup(sol.Close)
		cc.Chains["solana"] = &chain.Chain{Name: "solana", Kind: "solana", RPC: []string{sol.URL}, Native: "SOL"}
	}
	if o.Chains != nil {
		o.Chains(c, cc)
	}
	cfg := crypto.Config{Chains: cc, SourcifyURL: exp.URL + "/sourcify", EtherscanURL: exp.URL + "/etherscan/v2/api",
		RPCOptions: chain.Options{Now: e.now}}
	if o.Config != nil {
		o.Config(&cfg)
	}
	e.Env = servetest.New(t, func(sc *serve.Config) { sc.Use(&crypto.Family{Config: cfg}) })
	return e
}

// now is the RPC clients' clock. It stands still but for Later, so that
// a test's calls are in one block however slowly a loaded machine runs
// them: the head's TTL is at most a second of this clock.
func (e *Env) now() time.Time { return e.start.Add(time.Duration(e.skew.Load())) }

// Later moves the RPC clients' clock past the head's TTL, as the next
// block's time would: the tools ask for the head again.
func (e *Env) Later() { e.skew.Add(int64(time.Minute)) }

// Upstream is the path of a recorded upstream answer under
// ../shared/fixtures/upstreams.
func Upstream(t testing.TB, elem ...string) string {
	return fixtures.Path(t, append([]string{"upstreams"}, elem...)...)
}

// Lower is an address as the explorer maps key it.
func Lower(a common.Address) string { return strings.ToLower(a.Hex()) }

// Selector is the 4-byte selector of a function signature, in hex.
func Selector(sig string) string {
	return "0x" + common.Bytes2Hex(ethcrypto.Keccak256([]byte(sig))[:4])
}

func (e *Env) explorer(t testing.TB) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasPrefix(r.URL.Path, "/sourcify/v2/contract/"):
			addr := strings.ToLower(filepath.Base(r.URL.Path))
			if f, ok := e.Sourcify[addr]; ok {
				ServeFile(t, w, http.StatusOK, Upstream(t, "evm", f))
				return
			}
			ServeFile(t, w, http.StatusNotFound, Upstream(t, "evm", "sourcify_v2_contract_404_not_verified.openapi-example.json"))
		case r.URL.Path == "/etherscan/v2/api":
			addr := strings.ToLower(r.URL.Query().Get("address"))
			if f, ok := e.Etherscan[addr]; ok {
				ServeFile(t, w, http.StatusOK, Upstream(t, "evm", f))
				return
			}
			ServeFile(t, w, http.StatusOK, Upstream(t, "evm", "etherscan_getsourcecode_not_verified.json"))
		default:
			http.NotFound(w, r)
		}
	}
}

// ServeFile answers with a file's bytes and a status.
func ServeFile(t testing.TB, w http.ResponseWriter, status int, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
	}
	w.WriteHeader(status)
	w.Write(b)
}

// SolanaReplay answers each Solana method with a real recorded answer
// (fees, performance samples, a balance, token accounts, a simulation);
// extra, when set, is asked first and reports whether it answered.
func SolanaReplay(t testing.TB, extra func(w http.ResponseWriter, raw []byte) bool) http.Handler {
	files := map[string]string{
		"getRecentPrioritizationFees": "getRecentPrioritizationFees.docs-example.json",
		"getRecentPerformanceSamples": "getRecentPerformanceSamples.docs-example.json",
		"getBalance":                  "getBalance.blocto-devnet.json",
		"getTokenAccountsByOwner":     "getTokenAccountsByOwner_jsonParsed.docs-example.json",
		"simulateTransaction":         "simulateTransaction.docs-example.json",
	}
	body := map[string][]byte{}
	for m, f := range files {
		b, err := os.ReadFile(Upstream(t, "solana", f))
		if err != nil {
			t.Fatal(err)
		}
		body[m] = b
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		if extra != nil && extra(w, raw) {
			return
		}
		for m, b := range body {
			if strings.Contains(string(raw), `"method":"`+m+`"`) {
				w.Header().Set("Content-Type", "application/json")
				w.Write(b)
				return
			}
		}
		http.Error(w, "no recording for "+string(raw), http.StatusNotFound)
	})
}

// Num reads a JSON number at a path of map keys.
func Num(t *testing.T, m map[string]any, keys ...string) float64 {
	t.Helper()
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: not an object at %q in %v", keys, k, m)
		}
		v = mm[k]
	}
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v = %v (%T), want a number", keys, v, v)
	}
	return f
}

// Near reports whether a is within rel of b, relatively.
func Near(a, b, rel float64) bool {
	if b == 0 {
		return a == 0
	}
	d := a/b - 1
	return d < rel && d > -rel
}

// Flags maps the ids of an audit's flags (token_audit, token_report) to
// their severity.
func Flags(m map[string]any) map[string]string {
	out := map[string]string{}
	for _, f := range m["flags"].([]any) {
		f := f.(map[string]any)
		out[f["id"].(string)] = f["severity"].(string)
	}
	return out
}

// RouterQuote is the Uniswap-V2 router's own quote (getAmountsOut) of
// selling amt along path: the truth the tools' quotes are checked against.
func RouterQuote(c *evmtest.Chain, amt *big.Int, path ...common.Address) *big.Int {
	q := c.Read(c.Router, "UniswapV2Router02", "getAmountsOut", amt, path)[0].([]*big.Int)
	return q[len(q)-1]
}

// Strings is a JSON array of strings from an answer.
func Strings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// ReserveRatio is a V2 pair's price of base in the quote token from its
// reserves at block (0: the head): the truth pool prices are checked against.
func ReserveRatio(t *testing.T, c *evmtest.Chain, block uint64, pair string, quoteDec, baseDec int, base any) float64 {
	t.Helper()
	var r []any
	if block == 0 {
		r = c.Read(c.Pairs[pair], "UniswapV2Pair", "getReserves")
	} else {
		r = c.ReadAt(block, c.Pairs[pair], "UniswapV2Pair", "getReserves")
	}
	t0 := c.Read(c.Pairs[pair], "UniswapV2Pair", "token0")[0]
	rb, rq := r[0].(*big.Int), r[1].(*big.Int)
	if t0 != base {
		rb, rq = rq, rb
	}
	q, _ := new(big.Float).Quo(new(big.Float).SetInt(rq), new(big.Float).SetInt(evmtest.Units(1, quoteDec))).Float64()
	b, _ := new(big.Float).Quo(new(big.Float).SetInt(rb), new(big.Float).SetInt(evmtest.Units(1, baseDec))).Float64()
	return q / b
}
