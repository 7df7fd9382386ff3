package crypto_test

import (
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
)

// The caches keep what a block says for that block only: a repeated call
// in the same block asks the node nothing, and a value changed on chain
// (reserves, a balance, a token's transfer fee, its supply) is in the
// answer as soon as the tools see the next block.
func TestNextBlockSeesChanges(t *testing.T) {
	e := newEnv(t)
	c := e.chain
	prices := func() map[string]any {
		return e.PaidCall(t, http.MethodGet, "/v1/crypto/prices", map[string]any{"tokens": "GOOD"})["prices"].([]any)[0].(map[string]any)
	}
	usdc := func() float64 {
		m := e.PaidCall(t, http.MethodGet, "/v1/crypto/portfolio", map[string]any{"address": c.WalletAddr.Hex(), "chains": "ethereum"})
		for _, h := range m["chains"].([]any)[0].(map[string]any)["tokens"].([]any) {
			if h := h.(map[string]any); h["symbol"] == "USDC" {
				return num(t, h, "balance")
			}
		}
		t.Fatalf("no USDC holding: %v", m)
		return 0
	}
	report := func() map[string]any {
		return e.PaidCall(t, http.MethodPost, "/v1/crypto/token-report", map[string]any{"chain": "ethereum", "address": c.FEE.Hex()})
	}
	tax := func(m map[string]any) float64 {
		return num(t, m["sell_tests"].([]any)[0].(map[string]any), "effective_tax_pct")
	}

	before := cryptotest.ReserveRatio(t, c, 0, "GOOD/USDC", 6, 18, c.GOOD)
	if got := num(t, prices(), "price_usd"); !near(got, before, 1e-9) {
		t.Fatalf("GOOD %v, pool says %v", got, before)
	}
	if got := usdc(); got != 5000 {
		t.Fatalf("USDC balance %v, want 5000", got)
	}
	r := report()
	if got := tax(r); !near(got, evmtest.FeeBps/100, 1e-3) {
		t.Fatalf("FEE tax %v%%, want %v%%", got, evmtest.FeeBps/100)
	}

	// The same calls again in the same block: answered from the block's
	// reads, the node is not asked.
	calls := c.Calls()
	if got := num(t, prices(), "price_usd"); !near(got, before, 1e-9) {
		t.Errorf("GOOD repeated: %v, want %v", got, before)
	}
	report()
	if n := c.Calls() - calls; n != 0 {
		t.Errorf("repeated calls in the same block asked the node %d times", n)
	}

	// On chain: a 50,000 USDC buy of GOOD, 1,234.5 USDC to the wallet, the
	// fee of FEE raised to 12% and 1,000,000 FEE minted.
	maxU := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	c.Send(c.Deployer, c.USDC, nil, "Token", "approve", c.Router, maxU)
	c.Send(c.Deployer, c.Router, nil, "UniswapV2Router02", "swapExactTokensForTokens", evmtest.Units(50_000, 6), big.NewInt(0),
		[]common.Address{c.USDC, c.GOOD}, c.DeployerAddr, big.NewInt(time.Now().Add(72*time.Hour).Unix())) // chain time is a day ahead
	c.Send(c.Deployer, c.USDC, nil, "Token", "transfer", c.WalletAddr, big.NewInt(1_234_500_000))
	c.Send(c.Deployer, c.FEE, nil, "FeeToken", "setFee", big.NewInt(1200))
	c.Send(c.Deployer, c.FEE, nil, "FeeToken", "mint", c.DeployerAddr, evmtest.Units(1_000_000, 18))
	e.later() // the head's TTL has passed: the tools see the new block

	after := cryptotest.ReserveRatio(t, c, 0, "GOOD/USDC", 6, 18, c.GOOD)
	if after <= before {
		t.Fatalf("the buy did not move the pool: %v → %v", before, after)
	}
	if got := num(t, prices(), "price_usd"); !near(got, after, 1e-9) {
		t.Errorf("GOOD after the buy %v, pool says %v (before %v)", got, after, before)
	}
	if got := usdc(); got != 6234.5 {
		t.Errorf("USDC balance after the transfer %v, want 6234.5", got)
	}
	r2 := report()
	if got := tax(r2); !near(got, 12, 1e-3) {
		t.Errorf("FEE tax after setFee(1200) %v%%, want 12%%", got)
	}
	// The same call again at the block it was answered for: nothing asked.
	calls = c.Calls()
	report()
	if n := c.Calls() - calls; n != 0 {
		t.Errorf("a repeated token_report at the new block asked the node %d times", n)
	}
	supply := c.Read(c.FEE, "Token", "totalSupply")[0].(*big.Int)
	if got := r2["token"].(map[string]any)["total_supply"]; got != supply.String() {
		t.Errorf("FEE total supply %v, chain says %v (before %v)", got, supply, r["token"].(map[string]any)["total_supply"])
	}
}

// /metrics says how many node requests each tool spent; they add up to
// what the node served.
func TestNodeRequestsInMetrics(t *testing.T) {
	e := newEnv(t)
	c := e.chain
	e.PaidCall(t, http.MethodGet, "/v1/crypto/prices", map[string]any{"tokens": "GOOD,ETH"})
	e.PaidCall(t, http.MethodPost, "/v1/crypto/token-audit", map[string]any{"chain": "ethereum", "address": c.GOOD.Hex()})
	rec := httptest.NewRecorder()
	e.App.HTTP.Metrics().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	per := map[string]float64{}
	total := 0.0
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		name, val, ok := strings.Cut(line, " ")
		if !ok || !strings.HasPrefix(name, `openshelf_crypto_node_requests_total{chain="ethereum",tool="`) {
			continue
		}
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			t.Fatal(line)
		}
		per[strings.TrimSuffix(strings.TrimPrefix(name, `openshelf_crypto_node_requests_total{chain="ethereum",tool="`), `"}`)] = f
		total += f
	}
	if per["crypto_prices"] == 0 || per["token_audit"] == 0 {
		t.Errorf("requests by tool: %v\n%s", per, rec.Body.String())
	}
	if total != float64(c.Requests()) {
		t.Errorf("metrics count %v node requests, the node served %d (%v)", total, c.Requests(), per)
	}
}
