package crypto_test

import (
	"net/http"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
)

// token_audit and token_report share their input and their check before
// payment, and token_report embeds the audit: these tests run both.

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
	f := cryptotest.Flags(m)
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
