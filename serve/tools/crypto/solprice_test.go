package crypto_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
)

// The Solana pool accounts below are written for these tests (the shared
// fixtures have no recorded Whirlpool or token account): each follows the
// documented layout of the Whirlpool program (github.com/orca-so/
// whirlpools, programs/whirlpool/src/state/whirlpool.rs, 653 bytes) and of
// SPL token accounts (165 bytes, amount at 64) and mints (82 bytes,
// decimals at 44), served as getMultipleAccounts answers in the format of
// solana.com/docs/rpc/http/getmultipleaccounts (base64 encoding).

const (
	wsolMint       = "So11111111111111111111111111111111111111112"
	usdcMint       = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	whirlProgram   = "whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc"
	whirlConfig    = "2LecshUwdy9xi7meFgHtFJQNSKk4KdTrcpvaB56dP2NQ"
	splToken       = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
	solUSDCAddress = "Czfq3xZZDmsdGdUyrNLtRhGc47cXcZtLG4crryfu44zE" // the real SOL/USDC pool, tick spacing 4
)

// testPool is a sample pool: reserves of each mint in base units; its
// price is their ratio and its liquidity √(a·b), as for a full range.
type testPool struct {
	addr         string
	mintX, mintY string
	resX, resY   uint64
	tickSpacing  uint16
	feeRate      uint16
}

var (
	solOnce     sync.Once
	solAccounts map[string]string // address → account JSON
	// The pools: SOL/USDC at 150 USDC, testMint at 0.001 SOL (deep) and
	// at 0.15 USDC (a tenth as deep).
	testPools = []*testPool{
		{mintX: wsolMint, mintY: usdcMint, resX: 10_000e9, resY: 1_500_000e6, tickSpacing: 4, feeRate: 400},
		{mintX: testMint, mintY: wsolMint, resX: 10_000_000e6, resY: 10_000e9, tickSpacing: 64, feeRate: 3000},
		{mintX: testMint, mintY: usdcMint, resX: 1_000_000e6, resY: 150_000e6, tickSpacing: 8, feeRate: 500},
	}
	mintDecimals = map[string]byte{wsolMint: 9, usdcMint: 6, testMint: 6}
)

func b58(t testing.TB, s string) []byte {
	const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	n := new(big.Int)
	for _, c := range s {
		n.Mul(n, big.NewInt(58)).Add(n, big.NewInt(int64(strings.IndexRune(alphabet, c))))
	}
	b := n.Bytes()
	for _, c := range s {
		if c != '1' {
			break
		}
		b = append([]byte{0}, b...)
	}
	if len(b) != 32 {
		t.Fatalf("%s: %d bytes", s, len(b))
	}
	return b
}

func enc58(b []byte) string {
	const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	n := new(big.Int).SetBytes(b)
	var out []byte
	m := new(big.Int)
	for n.Sign() > 0 {
		n.DivMod(n, big.NewInt(58), m)
		out = append([]byte{alphabet[m.Int64()]}, out...)
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append([]byte{'1'}, out...)
	}
	return string(out)
}

func account(owner string, data []byte) string {
	j, _ := json.Marshal(map[string]any{"data": []string{base64.StdEncoding.EncodeToString(data), "base64"},
		"executable": false, "lamports": 2039280, "owner": owner, "space": len(data)})
	return strings.Replace(string(j), `"space"`, `"rentEpoch":18446744073709551615,"space"`, 1)
}

func putLE128(b []byte, v *big.Int) {
	x := v.Bytes()
	for i := range x {
		b[i] = x[len(x)-1-i]
	}
}

// buildSolana writes the accounts of testPools; the pool addresses are the
// program-derived ones the tool computes (its PDA code is checked against
// the real SOL/USDC pool address in TestWhirlpoolAddress).
func buildSolana(t testing.TB, derive func(a, b string, ts uint16) string) {
	solOnce.Do(func() {
		solAccounts = map[string]string{}
		for m, d := range mintDecimals {
			data := make([]byte, 82)
			data[44], data[45] = d, 1
			solAccounts[m] = account(splToken, data)
		}
		for _, p := range testPools {
			a, b, ra, rb := p.mintX, p.mintY, p.resX, p.resY
			if bytes.Compare(b58(t, a), b58(t, b)) > 0 {
				a, b, ra, rb = b, a, rb, ra
			}
			p.addr = derive(a, b, p.tickSpacing)
			vault := func(m string, amt uint64) string {
				h := sha256.Sum256([]byte("vault:" + p.addr + m))
				data := make([]byte, 165)
				copy(data, b58(t, m))
				binary.LittleEndian.PutUint64(data[64:], amt)
				addr := enc58(h[:])
				solAccounts[addr] = account(splToken, data)
				return addr
			}
			va, vb := vault(a, ra), vault(b, rb)
			data := make([]byte, 653)
			d := sha256.Sum256([]byte("account:Whirlpool"))
			copy(data, d[:8])
			copy(data[8:], b58(t, whirlConfig))
			binary.LittleEndian.PutUint16(data[41:], p.tickSpacing)
			binary.LittleEndian.PutUint16(data[45:], p.feeRate)
			prec := uint(256)
			fa, fb := new(big.Float).SetPrec(prec).SetUint64(ra), new(big.Float).SetPrec(prec).SetUint64(rb)
			l, _ := new(big.Float).SetPrec(prec).Sqrt(new(big.Float).SetPrec(prec).Mul(fa, fb)).Int(nil)
			sq := new(big.Float).SetPrec(prec).Sqrt(new(big.Float).SetPrec(prec).Quo(fb, fa))
			sqi, _ := sq.Mul(sq, new(big.Float).SetPrec(prec).SetInt(new(big.Int).Lsh(big.NewInt(1), 64))).Int(nil)
			putLE128(data[49:], l)
			putLE128(data[65:], sqi)
			copy(data[101:], b58(t, a))
			copy(data[133:], b58(t, va))
			copy(data[181:], b58(t, b))
			copy(data[213:], b58(t, vb))
			solAccounts[p.addr] = account(whirlProgram, data)
		}
	})
}

// serveAccounts answers getMultipleAccounts from solAccounts (null for
// any other address).
func serveAccounts(t testing.TB, w http.ResponseWriter, raw []byte) {
	var req struct {
		Params []json.RawMessage `json:"params"`
	}
	var addrs []string
	if err := json.Unmarshal(raw, &req); err != nil || len(req.Params) == 0 || json.Unmarshal(req.Params[0], &addrs) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var vals []string
	for _, a := range addrs {
		v, ok := solAccounts[a]
		if !ok {
			v = "null"
		}
		vals = append(vals, v)
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.0.15","slot":341197053},"value":[%s]},"id":1}`, strings.Join(vals, ","))
}

func whirlpoolConfig() *chain.Whirlpool {
	return &chain.Whirlpool{Program: whirlProgram, Config: whirlConfig, TickSpacings: []uint16{1, 2, 4, 8, 16, 64, 96, 128, 256},
		USDCMint: usdcMint, WSOLMint: wsolMint}
}

func newSolanaEnv(t *testing.T) *env {
	buildSolana(t, func(a, b string, ts uint16) string { return whirlpoolPDA(whirlProgram, whirlConfig, a, b, ts) })
	return newEnvWith(t, func(_ *evmtest.Chain, cc *chain.Config) { cc.Chains["solana"].Whirlpool = whirlpoolConfig() })
}

// cpOut is the constant-product output on actual reserves after the fee:
// for a full-range pool the same as the tool's virtual-reserve V3 step.
func cpOut(in float64, p *testPool, sellX bool, feeRate uint16) float64 {
	x, y := float64(p.resX), float64(p.resY)
	if !sellX {
		x, y = y, x
	}
	dx := in * (1 - float64(feeRate)/1e6)
	return y * dx / (x + dx)
}

func TestSolanaPrices(t *testing.T) {
	e := newSolanaEnv(t)
	m := e.PaidCall(t, http.MethodGet, "/v1/crypto/prices", map[string]any{"tokens": "SOL,solana:" + testMint + ",solana:USDC"})
	ps := m["prices"].([]any)
	if len(ps) != 3 {
		t.Fatalf("prices %v", ps)
	}
	sol, tok, usdc := ps[0].(map[string]any), ps[1].(map[string]any), ps[2].(map[string]any)
	if got := num(t, sol, "price_usd"); !near(got, 150, 1e-9) || sol["pool"] != solUSDCAddress || sol["symbol"] != "SOL" {
		t.Errorf("SOL %v in %v, want 150 in %s", got, sol["pool"], solUSDCAddress)
	}
	if d := num(t, sol, "depth_usd"); !near(d, 3_000_000, 1e-9) {
		t.Errorf("SOL depth %v", d)
	}
	if got := num(t, tok, "price_usd"); !near(got, 0.15, 1e-9) || tok["quote_token"] != "SOL" || len(tok["sources"].([]any)) != 2 {
		t.Errorf("token %v via %v, sources %v", got, tok["quote_token"], tok["sources"])
	}
	if tok["confidence_label"] != "high" || num(t, tok, "decimals") != 6 || num(t, tok, "block") != 341197053 {
		t.Errorf("token %v", tok)
	}
	if num(t, usdc, "price_usd") != 1 || usdc["peg_assumed"] != true {
		t.Errorf("USDC %v", usdc)
	}

	t.Run("no pool is refused before payment", func(t *testing.T) {
		before := e.Settlements(t)
		res, body := e.Call(t, http.MethodGet, "/v1/crypto/prices", map[string]any{"tokens": "solana:A1TMhSGzQxMr1TboBKtgixKz1sS6REASMxPo1qsyTSJd"}, "")
		if res.StatusCode != 404 || body["error"].(map[string]any)["code"] != "no_pool" || e.Settlements(t) != before {
			t.Errorf("%d %v", res.StatusCode, body)
		}
	})

	t.Run("portfolio in USD", func(t *testing.T) {
		m := e.PaidCall(t, http.MethodGet, "/v1/crypto/portfolio", map[string]any{"address": "A1TMhSGzQxMr1TboBKtgixKz1sS6REASMxPo1qsyTSJd"})
		cp := m["chains"].([]any)[0].(map[string]any)
		native := cp["native"].(map[string]any)
		// getBalance (blocto devnet recording): 114,638,463,277 lamports.
		if got := num(t, native, "usd"); !near(got, 114.638463277*150, 1e-9) {
			t.Errorf("SOL %v USD", got)
		}
		hold := cp["tokens"].([]any)[0].(map[string]any)
		// The docs example's account holds 420,000,000 of testMint.
		if got := num(t, hold, "usd"); !near(got, 420_000_000*0.15, 1e-9) {
			t.Errorf("token %v USD", got)
		}
		if got := num(t, m, "total_usd"); !near(got, 114.638463277*150+420_000_000*0.15, 1e-9) {
			t.Errorf("total %v", got)
		}
	})

	t.Run("report sells are pool quotes", func(t *testing.T) {
		m := e.PaidCall(t, http.MethodPost, "/v1/crypto/token-report", map[string]any{"chain": "solana", "address": testMint})
		sells := m["sell_tests"].([]any)
		if len(sells) != 2 {
			t.Fatalf("sells %v", sells)
		}
		for _, s := range sells {
			st := s.(map[string]any)
			usd := num(t, st, "usd")
			// testMint → SOL in the deep pool, SOL → USDC.
			in := usd / 0.15 * 1e6
			sol := cpOut(math.Floor(in), testPools[1], true, 3000)
			want := cpOut(math.Floor(sol), testPools[0], true, 400) / 1e6
			if st["quote_only"] != true || st["skipped"] != nil || !near(num(t, st, "received_usdc"), want, 1e-6) {
				t.Errorf("sale of %v USD: %v, want %v USDC", usd, st, want)
			}
			if p := st["path"].([]any); len(p) != 2 || p[1] != solUSDCAddress {
				t.Errorf("path %v", p)
			}
		}
	})
}

// whirlpoolPDA is the address of the Whirlpool pool of mints a and b (in
// order) under program and config.
func whirlpoolPDA(program, config, a, b string, ts uint16) string {
	p, _ := market.Base58Decode(program)
	c, _ := market.Base58Decode(config)
	x, _ := market.Base58Decode(a)
	y, _ := market.Base58Decode(b)
	pda, ok := market.FindPDA(p, []byte("whirlpool"), c, x, y, binary.LittleEndian.AppendUint16(nil, ts))
	if !ok {
		return ""
	}
	return market.Base58Encode(pda)
}
