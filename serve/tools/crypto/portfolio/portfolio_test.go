package portfolio_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
)

func TestWalletPortfolio(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{Solana: cryptotest.SolanaReplay(t, nil)})
	c := e.Chain
	m := e.PaidCall(t, http.MethodGet, "/v1/crypto/portfolio", map[string]any{
		"address": c.WalletAddr.Hex(), "tokens": "ethereum:" + c.MOON.Hex(), "min_usd": 10})
	chains := m["chains"].([]any)
	if len(chains) != 1 || m["complete"] != true {
		t.Fatalf("chains %v", chains)
	}
	eth := chains[0].(map[string]any)
	// Native: what the node says, after the gas of two approvals.
	bal, err := c.Client.BalanceAt(context.Background(), c.WalletAddr, nil)
	if err != nil {
		t.Fatal(err)
	}
	nat := eth["native"].(map[string]any)
	if nat["balance_raw"] != bal.String() || cryptotest.Num(t, nat, "price_usd") != 3000 {
		t.Errorf("native %v, node says %v", nat, bal)
	}
	good := cryptotest.ReserveRatio(t, c, 0, "GOOD/USDC", 6, 18, c.GOOD)
	want := map[string]float64{"USDC": 5000, "GOOD": 1000 * good}
	toks := eth["tokens"].([]any)
	if len(toks) != 2 {
		t.Fatalf("tokens %v: MOON (5 USD) is under min_usd", toks)
	}
	sum := cryptotest.Num(t, nat, "usd")
	for _, tk := range toks {
		tk := tk.(map[string]any)
		if w, ok := want[tk["symbol"].(string)]; !ok || !cryptotest.Near(cryptotest.Num(t, tk, "usd"), w, 1e-9) {
			t.Errorf("%v: %v USD, want %v", tk["symbol"], tk["usd"], w)
		}
		sum += cryptotest.Num(t, tk, "usd")
	}
	if !cryptotest.Near(cryptotest.Num(t, m, "total_usd"), sum, 1e-9) {
		t.Errorf("total %v, holdings sum to %v", m["total_usd"], sum)
	}

	// Without min_usd the honeypot holding appears, priced at 0.05.
	m = e.PaidCall(t, http.MethodGet, "/v1/crypto/portfolio", map[string]any{"address": c.WalletAddr.Hex(), "tokens": "ethereum:" + c.MOON.Hex()})
	toks = m["chains"].([]any)[0].(map[string]any)["tokens"].([]any)
	if len(toks) != 3 || cryptotest.Num(t, toks[2].(map[string]any), "usd") != 5 {
		t.Errorf("tokens %v", toks)
	}
}

func TestWalletPortfolioSolana(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{Solana: cryptotest.SolanaReplay(t, nil)})
	m := e.PaidCall(t, http.MethodGet, "/v1/crypto/portfolio", map[string]any{"address": "A1TMhSGzQxMr1TboBKtgixKz1sS6REASMxPo1qsyTSJd"})
	sol := m["chains"].([]any)[0].(map[string]any)
	// The recorded answers: 114638463277 lamports; one SPL account of
	// 420000000000000 base units at 6 decimals.
	if nat := sol["native"].(map[string]any); nat["balance_raw"] != "114638463277" || cryptotest.Num(t, nat, "balance") != 114.638463277 {
		t.Errorf("native %v", nat)
	}
	tk := sol["tokens"].([]any)[0].(map[string]any)
	if tk["address"] != "2cHr7QS3xfuSV8wdxo3ztuF4xbiarF6Nrgx3qpx3HzXR" || cryptotest.Num(t, tk, "balance") != 420000000 {
		t.Errorf("token %v", tk)
	}
}

func TestWalletPortfolioBadInput(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{Solana: cryptotest.SolanaReplay(t, nil)})
	for _, in := range []map[string]any{
		{"address": "0x12"},
		{"address": "A1TMhSGzQxMr1TboBKtgixKz1sS6REASMxPo1qsyTSJd", "chains": "ethereum"},
		{"address": e.Chain.WalletAddr.Hex(), "tokens": "ethereum:USDC"},
		{"address": e.Chain.WalletAddr.Hex(), "min_usd": -1},
	} {
		res, m := e.Call(t, http.MethodGet, "/v1/crypto/portfolio", in, "")
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("%v: %d %v, want 400", in, res.StatusCode, m)
		}
	}
}
