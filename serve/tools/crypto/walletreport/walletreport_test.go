package walletreport_test

import (
	"net/http"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
)

func TestWalletReport(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{})
	c := e.Chain
	m := e.PaidCall(t, http.MethodGet, "/v1/crypto/wallet-report", map[string]any{"address": c.WalletAddr.Hex()})
	rep := m["chains"].([]any)[0].(map[string]any)
	// The wallet sent two transactions (its approvals).
	if cryptotest.Num(t, rep, "transactions_sent") != 2 || rep["is_contract"] != false {
		t.Errorf("reputation %v", rep)
	}
	open := map[string]map[string]any{}
	for _, a := range rep["open_approvals"].([]any) {
		a := a.(map[string]any)
		open[a["symbol"].(string)] = a
	}
	if a := open["USDC"]; a == nil || a["unlimited"] != true || a["spender"] != c.Router.Hex() || a["spender_is_eoa"] != false {
		t.Errorf("USDC approval %v", a)
	}
	if a := open["GOOD"]; a == nil || a["allowance_raw"] != evmtest.Units(500, 18).String() || a["spender_is_eoa"] != true {
		t.Errorf("GOOD approval %v", a)
	}
	scam := rep["scam_tokens"].([]any)
	if len(scam) != 1 || scam[0].(map[string]any)["token"] != c.MOON.Hex() {
		t.Errorf("scam tokens %v", scam)
	}
	if m["verdict"] != "high-risk" || len(m["reasons"].([]any)) < 2 {
		t.Errorf("verdict %v reasons %v", m["verdict"], m["reasons"])
	}
	if m["portfolio"].(map[string]any)["total_usd"].(float64) <= 5000 {
		t.Errorf("portfolio %v", m["portfolio"])
	}
}

func TestWalletReportFlagged(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{Chains: func(c *evmtest.Chain, cc *chain.Config) {
		cc.Chains["ethereum"].Flagged = []chain.Flagged{{Address: c.Spender, Label: "test drainer"}}
	}})
	m := e.PaidCall(t, http.MethodGet, "/v1/crypto/wallet-report", map[string]any{"address": e.Chain.WalletAddr.Hex()})
	rep := m["chains"].([]any)[0].(map[string]any)
	if m["verdict"] != "flagged" || len(rep["flagged_interactions"].([]any)) != 1 {
		t.Errorf("verdict %v flagged %v", m["verdict"], rep["flagged_interactions"])
	}
	// A wallet with nothing to note is clean.
	m = e.PaidCall(t, http.MethodGet, "/v1/crypto/wallet-report", map[string]any{"address": "0x00000000000000000000000000000000000c1ea0"})
	if m["verdict"] != "clean" {
		t.Errorf("empty wallet: %v %v", m["verdict"], m["reasons"])
	}
}
