package tokenaudit_test

import (
	"net/http"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
)

func TestTokenAudit(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{})
	c := e.Chain
	m := e.PaidCall(t, http.MethodPost, "/v1/crypto/token-audit", map[string]any{"chain": "ethereum", "address": c.Proxy.Hex()})
	f := cryptotest.Flags(m)
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
	if tok := m["token"].(map[string]any); tok["symbol"] != "MOON" || cryptotest.Num(t, tok, "price_usd") != 0.05 {
		t.Errorf("token %v", tok)
	}
}
