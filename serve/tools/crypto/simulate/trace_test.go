package simulate_test

import (
	"encoding/json"
	"math/big"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/openshelf/openshelf/serve/tools/crypto"
	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
)

// newEnv is the whole server over a new test chain, replaying explorers
// and a replaying Solana node.
func newEnv(t *testing.T) *cryptotest.Env {
	t.Helper()
	return cryptotest.New(t, cryptotest.Options{Solana: cryptotest.SolanaReplay(t, nil)})
}

// newEnvCfg is newEnv with the debug API of the node on or off, a hook
// run on the chain before the server starts, and a change to the crypto
// configuration.
func newEnvCfg(t *testing.T, debug bool, prep func(*evmtest.Chain), mod func(*crypto.Config)) *cryptotest.Env {
	t.Helper()
	c := evmtest.New(t)
	if debug {
		c.EnableDebug()
	}
	if prep != nil {
		prep(c)
	}
	return envOn(t, c, mod)
}

// envOn starts a server over an existing test chain.
func envOn(t *testing.T, c *evmtest.Chain, mod func(*crypto.Config)) *cryptotest.Env {
	t.Helper()
	return cryptotest.New(t, cryptotest.Options{Chain: c, Solana: cryptotest.SolanaReplay(t, nil), Config: mod})
}

// traceCase is one transaction of the tracing scenario and what the
// deployed contracts say it does.
type traceCase struct {
	name  string
	in    func(c *evmtest.Chain, s *evmtest.Tracing) map[string]any
	check func(t *testing.T, c *evmtest.Chain, s *evmtest.Tracing, m map[string]any)
}

func moves(m map[string]any, key string) []map[string]any {
	var out []map[string]any
	for _, x := range m[key].([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

func wantMove(t *testing.T, got map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("move %v: %s = %v, want %v", got, k, got[k], v)
		}
	}
	for _, k := range []string{"pulled_by"} {
		if _, ok := want[k]; !ok && got[k] != nil {
			t.Errorf("move %v: unexpected %s", got, k)
		}
	}
}

var (
	ethWei = func(milli int64) string { return new(big.Int).Mul(big.NewInt(milli), big.NewInt(1e15)).String() }
	// fresh holds nothing on the test chain.
	fresh = common.HexToAddress("0x00000000000000000000000000000000F0e5f0e5")
)

var traceCases = []traceCase{
	{
		name: "router pulls tokens and forwards value in inner calls",
		in: func(c *evmtest.Chain, s *evmtest.Tracing) map[string]any {
			return map[string]any{"from": c.WalletAddr.Hex(), "to": s.Router.Hex(), "value": ethWei(300),
				"data": packTraceT("TraceRouter", "pullAndForward", c.USDC, evmtest.Units(250, 6), c.Spender, s.Vault)}
		},
		check: func(t *testing.T, c *evmtest.Chain, s *evmtest.Tracing, m map[string]any) {
			out := moves(m, "assets_leaving")
			if m["success"] != true || len(out) != 2 || len(moves(m, "assets_entering")) != 0 {
				t.Fatalf("%v", m)
			}
			// The call's own value to the router, then the router's
			// transferFrom of the wallet's USDC to Spender.
			wantMove(t, out[0], map[string]any{"standard": "native", "amount_raw": ethWei(300), "counterparty": s.Router.Hex()})
			wantMove(t, out[1], map[string]any{"standard": "erc20", "symbol": "USDC", "amount_raw": "250000000",
				"counterparty": c.Spender.Hex(), "pulled_by": s.Router.Hex()})
			// The trace shows the inner native transfer to the vault.
			fr := m["trace"].(map[string]any)["frames"].([]any)
			if len(fr) != 3 {
				t.Fatalf("frames %v", fr)
			}
			inner := fr[2].(map[string]any)
			if inner["to"] != s.Vault.Hex() || inner["value_wei"] != ethWei(300) || cryptotest.Num(t, inner, "depth") != 1 {
				t.Errorf("inner frame %v", inner)
			}
			if m["risk_level"] != "medium" {
				t.Errorf("risk %v %v", m["risk_level"], m["risk_reasons"])
			}
		},
	},
	{
		name: "market takes an ERC-721 and ERC-1155 units and pays native value",
		in: func(c *evmtest.Chain, s *evmtest.Tracing) map[string]any {
			return map[string]any{"from": c.WalletAddr.Hex(), "to": s.Market.Hex(),
				"data": packTraceT("Market", "sell", s.NFT, big.NewInt(evmtest.NFTID), s.Multi, big.NewInt(evmtest.MultiID), big.NewInt(4), evmtest.Units(1, 17))}
		},
		check: func(t *testing.T, c *evmtest.Chain, s *evmtest.Tracing, m map[string]any) {
			out, in := moves(m, "assets_leaving"), moves(m, "assets_entering")
			if m["success"] != true || len(out) != 2 || len(in) != 1 {
				t.Fatalf("%v", m)
			}
			wantMove(t, out[0], map[string]any{"standard": "erc721", "token": s.NFT.Hex(), "token_id": "7", "counterparty": s.Market.Hex(), "pulled_by": s.Market.Hex()})
			wantMove(t, out[1], map[string]any{"standard": "erc1155", "token": s.Multi.Hex(), "token_id": "3", "amount_raw": "4", "counterparty": s.Market.Hex(), "pulled_by": s.Market.Hex()})
			wantMove(t, in[0], map[string]any{"standard": "native", "amount_raw": evmtest.Units(1, 17).String(), "counterparty": s.Market.Hex()})
			if m["risk_level"] != "low" {
				t.Errorf("risk %v %v", m["risk_level"], m["risk_reasons"])
			}
		},
	},
	{
		name: "custom error deep in the call tree",
		in: func(c *evmtest.Chain, s *evmtest.Tracing) map[string]any {
			return map[string]any{"from": c.WalletAddr.Hex(), "to": s.Router.Hex(), "value": ethWei(1500),
				"data": packTraceT("TraceRouter", "pullAndForward", c.USDC, evmtest.Units(250, 6), c.Spender, s.Vault)}
		},
		check: func(t *testing.T, c *evmtest.Chain, s *evmtest.Tracing, m map[string]any) {
			id := evmtest.TraceArtifact("Vault").ABI.Errors["Refused"].ID
			sel := hexutil.Encode(id[:4])
			if m["success"] != false || m["revert_reason"] != "custom error "+sel {
				t.Fatalf("success %v reason %v", m["success"], m["revert_reason"])
			}
			o := m["trace"].(map[string]any)["revert_origin"].(map[string]any)
			if o["to"] != s.Vault.Hex() || cryptotest.Num(t, o, "depth") != 1 || o["from"] != s.Router.Hex() {
				t.Errorf("revert origin %v", o)
			}
			if len(moves(m, "assets_leaving")) != 0 {
				t.Errorf("a reverted call moves nothing: %v", m["assets_leaving"])
			}
		},
	},
	{
		name: "string reason from an inner call",
		in: func(c *evmtest.Chain, s *evmtest.Tracing) map[string]any {
			return map[string]any{"from": c.WalletAddr.Hex(), "to": s.Router.Hex(), "value": ethWei(1500),
				"data": packTraceT("TraceRouter", "forwardDeposit", s.Vault)}
		},
		check: func(t *testing.T, c *evmtest.Chain, s *evmtest.Tracing, m map[string]any) {
			o := m["trace"].(map[string]any)["revert_origin"].(map[string]any)
			if m["success"] != false || m["revert_reason"] != "Vault: over limit" || o["to"] != s.Vault.Hex() || o["revert_reason"] != "Vault: over limit" {
				t.Errorf("success %v reason %v origin %v", m["success"], m["revert_reason"], o)
			}
		},
	},
	{
		name: "state override funds an empty account",
		in: func(c *evmtest.Chain, s *evmtest.Tracing) map[string]any {
			return map[string]any{"from": fresh.Hex(), "to": c.Spender.Hex(), "value": ethWei(500),
				"state_overrides": map[string]any{fresh.Hex(): map[string]any{"balance": ethWei(1000)}}}
		},
		check: func(t *testing.T, c *evmtest.Chain, s *evmtest.Tracing, m map[string]any) {
			out := moves(m, "assets_leaving")
			if m["success"] != true || len(out) != 1 {
				t.Fatalf("%v", m)
			}
			wantMove(t, out[0], map[string]any{"standard": "native", "amount_raw": ethWei(500), "counterparty": c.Spender.Hex()})
		},
	},
	{
		name: "without the override the account cannot pay",
		in: func(c *evmtest.Chain, s *evmtest.Tracing) map[string]any {
			return map[string]any{"from": fresh.Hex(), "to": c.Spender.Hex(), "value": ethWei(500)}
		},
		check: func(t *testing.T, c *evmtest.Chain, s *evmtest.Tracing, m map[string]any) {
			if m["success"] != false || m["revert_reason"] != "insufficient funds for transfer" {
				t.Errorf("success %v reason %v", m["success"], m["revert_reason"])
			}
		},
	},
	{
		name: "approval to an account without code",
		in: func(c *evmtest.Chain, s *evmtest.Tracing) map[string]any {
			return map[string]any{"from": c.WalletAddr.Hex(), "to": c.GOOD.Hex(), "data": packT("Token", "approve", c.Spender, evmtest.Units(10, 18))}
		},
		check: func(t *testing.T, c *evmtest.Chain, s *evmtest.Tracing, m map[string]any) {
			ap := m["approvals"].([]any)
			if len(ap) != 1 || ap[0].(map[string]any)["unlimited"] != false || m["risk_level"] != "high" {
				t.Errorf("approvals %v risk %v %v", ap, m["risk_level"], m["risk_reasons"])
			}
		},
	},
}

// packTraceT and packT pack without a *testing.T: the cases are built
// before a test runs.
func packTraceT(contract, method string, args ...any) string {
	b, err := evmtest.TraceArtifact(contract).ABI.Pack(method, args...)
	if err != nil {
		panic(err)
	}
	return hexutil.Encode(b)
}

func packT(contract, method string, args ...any) string {
	b, err := evmtest.Artifact(contract).ABI.Pack(method, args...)
	if err != nil {
		panic(err)
	}
	return hexutil.Encode(b)
}

// TestSimulateTrace runs every case through debug_traceCall (the node's
// callTracer) and through the local EVM (a node without debug), checks
// each against the contracts' behaviour, and checks both paths agree.
func TestSimulateTrace(t *testing.T) {
	paths := []struct {
		debug  bool
		method string
	}{{true, "debug_traceCall"}, {false, "local_evm"}}
	answers := map[string][]map[string]any{}
	for _, p := range paths {
		t.Run(p.method, func(t *testing.T) {
			var s *evmtest.Tracing
			e := newEnvCfg(t, p.debug, func(c *evmtest.Chain) { s = c.DeployTracing() }, nil)
			for _, tc := range traceCases {
				t.Run(tc.name, func(t *testing.T) {
					in := tc.in(e.Chain, s)
					in["chain"] = "ethereum"
					m := e.PaidCall(t, http.MethodPost, "/v1/crypto/simulate-tx", in)
					if m["method"] != p.method {
						t.Fatalf("method %v, want %s", m["method"], p.method)
					}
					tc.check(t, e.Chain, s, m)
					answers[tc.name] = append(answers[tc.name], m)
				})
			}
			// debug_traceCall's support was asked once; the local EVM
			// read state only where the node has no debug API.
			if n := e.Chain.Served("debug_traceCall"); n != len(traceCases) && p.debug || n != 1 && !p.debug {
				t.Errorf("debug_traceCall asked %d times", n)
			}
			if n := e.Chain.Served("eth_getCode"); p.debug && n > 2*len(traceCases) {
				t.Errorf("debug path read code %d times", n)
			}
		})
	}
	for name, ms := range answers {
		if len(ms) != 2 {
			continue // a path failed above
		}
		for _, k := range []string{"success", "revert_reason", "assets_leaving", "assets_entering", "approvals", "gas_used", "risk_level"} {
			a, _ := json.Marshal(ms[0][k])
			b, _ := json.Marshal(ms[1][k])
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s: %s differs: debug_traceCall %s, local EVM %s", name, k, a, b)
			}
		}
	}
}

// TestSimulateTraceTruth sends the router case for real after simulating
// it and checks the balances moved as the simulation said.
func TestSimulateTraceTruth(t *testing.T) {
	var s *evmtest.Tracing
	e := newEnvCfg(t, false, func(c *evmtest.Chain) { s = c.DeployTracing() }, nil)
	c := e.Chain
	in := traceCases[0].in(c, s)
	in["chain"] = "ethereum"
	m := e.PaidCall(t, http.MethodPost, "/v1/crypto/simulate-tx", in)
	before := c.Read(c.USDC, "Token", "balanceOf", c.Spender)[0].(*big.Int)
	vault0, err := c.Client.BalanceAt(t.Context(), s.Vault, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := hexutil.Decode(in["data"].(string))
	r := c.SendRaw(c.Wallet, s.Router, evmtest.Units(3, 17), data)
	after := c.Read(c.USDC, "Token", "balanceOf", c.Spender)[0].(*big.Int)
	vault1, _ := c.Client.BalanceAt(t.Context(), s.Vault, nil)
	got := new(big.Int).Sub(after, before).String()
	if got != moves(m, "assets_leaving")[1]["amount_raw"] || new(big.Int).Sub(vault1, vault0).String() != ethWei(300) {
		t.Errorf("chain moved %s USDC and %v wei to the vault; simulated %v", got, new(big.Int).Sub(vault1, vault0), m["assets_leaving"])
	}
	if r.GasUsed != uint64(cryptotest.Num(t, m, "gas_used")) {
		t.Errorf("gas: chain %d, simulated %v", r.GasUsed, m["gas_used"])
	}
}

func TestSimulateOverridesRefused(t *testing.T) {
	e := newEnv(t)
	w := e.Chain.WalletAddr.Hex()
	for name, over := range map[string]any{
		"bad address":        map[string]any{"0x12": map[string]any{"balance": "1"}},
		"state and diff":     map[string]any{w: map[string]any{"state": map[string]any{"0x1": "0x2"}, "stateDiff": map[string]any{"0x1": "0x2"}}},
		"bad slot":           map[string]any{w: map[string]any{"stateDiff": map[string]any{"slot": "0x2"}}},
		"bad balance":        map[string]any{w: map[string]any{"balance": "lots"}},
		"not an object":      "0x",
		"code is not hex":    map[string]any{w: map[string]any{"code": "0xzz"}},
		"nonce out of range": map[string]any{w: map[string]any{"nonce": "0x1ffffffffffffffff"}},
	} {
		res, body := e.Call(t, http.MethodPost, "/v1/crypto/simulate-tx", map[string]any{"chain": "ethereum", "from": w, "to": w, "state_overrides": over}, "")
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d %v", name, res.StatusCode, body)
		}
	}
}

// TestSimulateFallbacks: a local EVM that would need more state reads
// than allowed falls back to eth_simulateV1 (logs and transfers, no call
// tree); without eth_simulateV1 either, to eth_call and eth_estimateGas
// (success, gas and the return value, or the revert reason, no assets).
func TestSimulateFallbacks(t *testing.T) {
	e := newEnvCfg(t, false, nil, func(cfg *crypto.Config) { cfg.SimStateReads = 1 })
	c := e.Chain
	sim := func(amount int64) map[string]any {
		return e.PaidCall(t, http.MethodPost, "/v1/crypto/simulate-tx", map[string]any{"chain": "ethereum", "from": c.WalletAddr.Hex(),
			"to": c.USDC.Hex(), "data": packT("Token", "transfer", c.Spender, evmtest.Units(amount, 6))})
	}
	m := sim(100)
	if out := moves(m, "assets_leaving"); m["method"] != "eth_simulateV1" || len(out) != 1 || out[0]["amount_raw"] != "100000000" || m["trace"] != nil {
		t.Errorf("%v", m)
	}
	c.Refuse("eth_simulateV1", true)
	m = sim(100)
	if m["method"] != "eth_call" || m["success"] != true || cryptotest.Num(t, m, "gas_used") < 21000 ||
		m["return_data"] != "0x0000000000000000000000000000000000000000000000000000000000000001" || len(m["assets_leaving"].([]any)) != 0 {
		t.Errorf("%v", m)
	}
	m = sim(1_000_000)
	if m["success"] != false || m["revert_reason"] != "execution reverted: ERC20: transfer amount exceeds balance" {
		t.Errorf("revert without eth_simulateV1: %v %v", m["success"], m["revert_reason"])
	}
}

// TestSimulateApprovalVerified: an approval to a contract no explorer has
// verified is high risk; to a verified one (Sourcify's recorded answer),
// medium like any limited approval.
func TestSimulateApprovalVerified(t *testing.T) {
	e := newEnv(t)
	c := e.Chain
	// Set before the first request, as the explorer replay reads the map
	// without a lock.
	e.Sourcify[cryptotest.Lower(c.Factory)] = "sourcify_v2_contract_fields_all.openapi-example.json"
	approve := func(spender common.Address) map[string]any {
		return e.PaidCall(t, http.MethodPost, "/v1/crypto/simulate-tx", map[string]any{"chain": "ethereum", "from": c.WalletAddr.Hex(),
			"to": c.GOOD.Hex(), "data": packT("Token", "approve", spender, evmtest.Units(10, 18))})
	}
	m := approve(c.Router)
	if m["risk_level"] != "high" || !strings.Contains(strings.Join(cryptotest.Strings(m["risk_reasons"]), ";"), "no explorer has verified") {
		t.Errorf("unverified spender: %v %v", m["risk_level"], m["risk_reasons"])
	}
	m = approve(c.Factory)
	if m["risk_level"] != "medium" || strings.Contains(strings.Join(cryptotest.Strings(m["risk_reasons"]), ";"), "verified") {
		t.Errorf("verified spender: %v %v", m["risk_level"], m["risk_reasons"])
	}
}
