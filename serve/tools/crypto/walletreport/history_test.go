package walletreport_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto"
	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
	"github.com/openshelf/openshelf/serve/tools/crypto/walletreport"
)

// oldBlocks is how many empty blocks follow the wallet's approvals. Real
// chains have millions, but the simulated backend mines about 150 blocks a
// second here, so the test scales the chunk sizes down instead: the scan
// still takes several growing chunks to reach the approvals.
const oldBlocks = 600

// TestWalletReportHistory runs wallet_report's history scan on the real
// EVM: approvals far behind the head are found by growing chunks; a
// shallow depth does not see them; a request bound makes the report
// incomplete with a reason.
// envOn starts the server over the test chain c with wallet_report's
// history bounds h.
func envOn(t *testing.T, c *evmtest.Chain, h walletreport.HistoryConfig) *cryptotest.Env {
	t.Helper()
	return cryptotest.New(t, cryptotest.Options{Chain: c, Config: func(cc *crypto.Config) { cc.History = h }})
}

func TestWalletReportHistory(t *testing.T) {
	c := evmtest.New(t)
	for range oldBlocks {
		c.Backend.Commit()
	}
	report := func(e *cryptotest.Env) (map[string]any, map[string]any, map[string]any) {
		m := e.PaidCall(t, http.MethodGet, "/v1/crypto/wallet-report", map[string]any{"address": c.WalletAddr.Hex()})
		rep := m["chains"].([]any)[0].(map[string]any)
		return m, rep, rep["history"].(map[string]any)
	}

	t.Run("chunks grow back to genesis", func(t *testing.T) {
		m, rep, h := report(envOn(t, c, walletreport.HistoryConfig{InitialRange: 25, MaxRange: 200}))
		if h["complete"] != true || cryptotest.Num(t, h, "from_block") != 0 || cryptotest.Num(t, h, "to_block") < oldBlocks {
			t.Fatalf("history %v", h)
		}
		// 25, 50, 100, 200, 200, 200 blocks: six requests.
		if n := cryptotest.Num(t, h, "requests"); n != 6 {
			t.Errorf("%v requests", n)
		}
		open := map[string]map[string]any{}
		for _, a := range rep["open_approvals"].([]any) {
			a := a.(map[string]any)
			open[a["symbol"].(string)] = a
		}
		if open["USDC"] == nil || open["GOOD"] == nil || open["USDC"]["spender"] != c.Router.Hex() {
			t.Errorf("open approvals %v", rep["open_approvals"])
		}
		if m["verdict"] != "high-risk" {
			t.Errorf("verdict %v %v", m["verdict"], m["reasons"])
		}
	})

	t.Run("depth bound", func(t *testing.T) {
		_, rep, h := report(envOn(t, c, walletreport.HistoryConfig{Blocks: 500}))
		if len(rep["open_approvals"].([]any)) != 0 || h["complete"] != true || cryptotest.Num(t, h, "wanted_from_block") == 0 {
			t.Errorf("500 blocks back: approvals %v history %v", rep["open_approvals"], h)
		}
	})

	t.Run("request bound", func(t *testing.T) {
		m, _, h := report(envOn(t, c, walletreport.HistoryConfig{InitialRange: 2, MaxRange: 2, MaxRequests: 3}))
		reasons := strings.Join(cryptotest.Strings(m["reasons"]), "; ")
		if h["complete"] != false || cryptotest.Num(t, h, "requests") != 3 || !strings.Contains(reasons, "history incomplete (stopped after 3 requests") {
			t.Errorf("history %v reasons %s", h, reasons)
		}
	})
}
