package crypto_test

import (
	"math/big"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func flagsOf(m map[string]any) map[string]string {
	out := map[string]string{}
	for _, f := range m["flags"].([]any) {
		f := f.(map[string]any)
		out[f["id"].(string)] = f["severity"].(string)
	}
	return out
}

func TestTokenReport(t *testing.T) {
	e := newEnv(t)
	c := e.chain
	report := func(addr common.Address) map[string]any {
		return e.PaidCall(t, http.MethodPost, "/v1/crypto/token-report", map[string]any{"chain": "ethereum", "address": addr.Hex()})
	}

	t.Run("clean token", func(t *testing.T) {
		m := report(c.GOOD)
		f := flagsOf(m)
		for _, bad := range []string{"owner", "mint", "pause", "blacklist", "fee_setter", "honeypot", "sell_tax", "upgradeable", "liquidity_unlocked"} {
			if _, ok := f[bad]; ok {
				t.Errorf("GOOD flagged %s: %v", bad, f)
			}
		}
		// Truths of the chain: the LP tokens went to the dead address, and
		// the deployer still holds almost all of the supply.
		if f["liquidity_locked"] != "info" || f["holder_concentration"] != "high" {
			t.Errorf("flags %v", f)
		}
		if m["score"].(float64) != 75 || m["verdict"] != "caution" || len(m["deductions"].([]any)) != 1 {
			t.Errorf("score %v verdict %v deductions %v", m["score"], m["verdict"], m["deductions"])
		}
		// The sales pay exactly what the router quotes for the same amount.
		for _, s := range m["sell_tests"].([]any) {
			s := s.(map[string]any)
			in, _ := new(big.Int).SetString(s["amount_in"].(string), 10)
			q := c.Read(c.Router, "UniswapV2Router02", "getAmountsOut", in, []common.Address{c.GOOD, c.USDC})[0].([]*big.Int)
			want, _ := new(big.Float).Quo(new(big.Float).SetInt(q[1]), big.NewFloat(1e6)).Float64()
			if got := num(t, s, "received_usdc"); !near(got, want, 1e-9) || num(t, s, "effective_tax_pct") != 0 || s["reverted"] != false {
				t.Errorf("sale of %v USD: received %v, router quotes %v; tax %v", s["usd"], got, want, s["effective_tax_pct"])
			}
		}
	})

	t.Run("fee on transfer", func(t *testing.T) {
		m := report(c.FEE)
		f := flagsOf(m)
		want := map[string]string{"owner": "low", "mint": "high", "fee_setter": "medium", "liquidity_unlocked": "high", "sell_tax": "medium"}
		for id, sev := range want {
			if f[id] != sev {
				t.Errorf("flag %s = %q, want %q (all: %v)", id, f[id], sev, f)
			}
		}
		if m["owner"] != c.DeployerAddr.Hex() {
			t.Errorf("owner %v", m["owner"])
		}
		for _, s := range m["sell_tests"].([]any) {
			s := s.(map[string]any)
			// FEE takes 5% of every transfer; the sale goes FEE→WETH→USDC.
			if tax := num(t, s, "effective_tax_pct"); tax < 4.9 || tax > 5.1 || len(s["path"].([]any)) != 2 {
				t.Errorf("sale %v USD: tax %v%%, path %v; want 5%% over two pools", s["usd"], tax, s["path"])
			}
		}
		if m["verdict"] != "avoid" {
			t.Errorf("verdict %v (score %v)", m["verdict"], m["score"])
		}
	})

	t.Run("honeypot", func(t *testing.T) {
		m := report(c.MOON)
		f := flagsOf(m)
		if f["honeypot"] != "critical" || f["blacklist"] != "medium" || f["pause"] != "medium" {
			t.Errorf("flags %v", f)
		}
		if m["flags"].([]any)[0].(map[string]any)["id"] != "honeypot" || m["risk_level"] != "critical" {
			t.Errorf("honeypot is not ranked first: %v", m["flags"])
		}
		for _, s := range m["sell_tests"].([]any) {
			s := s.(map[string]any)
			if s["reverted"] != true || s["revert_reason"] != "HP: transfer to pair forbidden" {
				t.Errorf("sale %v", s)
			}
		}
		if m["score"].(float64) != 0 || m["verdict"] != "avoid" {
			t.Errorf("score %v verdict %v", m["score"], m["verdict"])
		}
	})
}

func TestTokenAudit(t *testing.T) {
	e := newEnv(t)
	c := e.chain
	m := e.PaidCall(t, http.MethodPost, "/v1/crypto/token-audit", map[string]any{"chain": "ethereum", "address": c.Proxy.Hex()})
	f := flagsOf(m)
	p := m["proxy"].(map[string]any)
	if f["upgradeable"] != "high" || p["implementation"] != c.ProxyImpl.Hex() || p["admin"] != c.DeployerAddr.Hex() {
		t.Errorf("proxy %v flags %v", p, f)
	}
	if f["no_liquidity"] != "high" || m["risk_level"] != "high" {
		t.Errorf("flags %v risk %v", f, m["risk_level"])
	}
	m = e.PaidCall(t, http.MethodPost, "/v1/crypto/token-audit", map[string]any{"chain": "ethereum", "address": c.MOON.Hex()})
	if s := m["sell_test"].(map[string]any); s["reverted"] != true || m["risk_level"] != "critical" {
		t.Errorf("MOON audit: %v", m)
	}
	if tok := m["token"].(map[string]any); tok["symbol"] != "MOON" || num(t, tok, "price_usd") != 0.05 {
		t.Errorf("token %v", tok)
	}
}

func TestTokenAuditRefusedBeforePayment(t *testing.T) {
	e := newEnv(t)
	before := e.Settlements(t)
	for _, tc := range []struct {
		in     map[string]any
		status int
		code   string
	}{
		{map[string]any{"chain": "ethereum", "address": e.chain.WalletAddr.Hex()}, 404, "token_not_found"},
		{map[string]any{"chain": "ethereum", "address": "0xnothex"}, 400, "invalid_input"},
		{map[string]any{"chain": "solana", "address": e.chain.USDC.Hex()}, 400, "invalid_input"},
		{map[string]any{"chain": "solana", "address": "A1TMhSGzQxMr1TboBKtgixKz1sS6REASMxPo1qsyTSJd"}, 404, "token_not_found"},
	} {
		for _, path := range []string{"/v1/crypto/token-audit", "/v1/crypto/token-report"} {
			res, m := e.Call(t, http.MethodPost, path, tc.in, "")
			if res.StatusCode != tc.status || m["error"].(map[string]any)["code"] != tc.code {
				t.Errorf("%s %v: %d %v, want %d %s", path, tc.in, res.StatusCode, m, tc.status, tc.code)
			}
		}
	}
	if e.Settlements(t) != before {
		t.Error("a refused call was charged")
	}
}

func TestTokenReportSolana(t *testing.T) {
	e := newEnv(t)
	m := e.PaidCall(t, http.MethodPost, "/v1/crypto/token-report", map[string]any{"chain": "solana", "address": testMint})
	f := flagsOf(m)
	if f["freeze"] != "high" || f["mint_disabled"] != "info" || f["holder_concentration"] != "high" {
		t.Errorf("flags %v", f)
	}
	if m["score"].(float64) != 50 || m["verdict"] != "high-risk" {
		t.Errorf("score %v verdict %v", m["score"], m["verdict"])
	}
	if h := m["holders"].(map[string]any); num(t, h, "top10_pct") != 70 {
		t.Errorf("holders %v", h)
	}
	for _, s := range m["sell_tests"].([]any) {
		if s.(map[string]any)["skipped"] == nil {
			t.Errorf("sale on Solana not marked skipped: %v", s)
		}
	}
	a := e.PaidCall(t, http.MethodPost, "/v1/crypto/token-audit", map[string]any{"chain": "solana", "address": testMint})
	if a["risk_level"] != "high" {
		t.Errorf("audit %v", a)
	}
}
