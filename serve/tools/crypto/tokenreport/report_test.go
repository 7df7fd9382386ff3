package tokenreport_test

import (
	"math/big"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
)

func TestTokenReport(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{})
	c := e.Chain
	report := func(addr common.Address) map[string]any {
		return e.PaidCall(t, http.MethodPost, "/v1/crypto/token-report", map[string]any{"chain": "ethereum", "address": addr.Hex()})
	}

	t.Run("clean token", func(t *testing.T) {
		m := report(c.GOOD)
		f := cryptotest.Flags(m)
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
			if got := cryptotest.Num(t, s, "received_usdc"); !cryptotest.Near(got, want, 1e-9) || cryptotest.Num(t, s, "effective_tax_pct") != 0 || s["reverted"] != false {
				t.Errorf("sale of %v USD: received %v, router quotes %v; tax %v", s["usd"], got, want, s["effective_tax_pct"])
			}
		}
	})

	t.Run("fee on transfer", func(t *testing.T) {
		m := report(c.FEE)
		f := cryptotest.Flags(m)
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
			if tax := cryptotest.Num(t, s, "effective_tax_pct"); tax < 4.9 || tax > 5.1 || len(s["path"].([]any)) != 2 {
				t.Errorf("sale %v USD: tax %v%%, path %v; want 5%% over two pools", s["usd"], tax, s["path"])
			}
		}
		if m["verdict"] != "avoid" {
			t.Errorf("verdict %v (score %v)", m["verdict"], m["score"])
		}
	})

	t.Run("honeypot", func(t *testing.T) {
		m := report(c.MOON)
		f := cryptotest.Flags(m)
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
