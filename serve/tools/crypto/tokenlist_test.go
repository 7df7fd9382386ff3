package crypto

import (
	"path/filepath"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
)

// The symbols agents ask for first resolve, on the production chain
// configuration, through the Uniswap default token list scripts/setup.sh
// installs: mainnet addresses as the list gives them, BTC as its wrapped
// forms, the chain-configured tokens first.
func TestSymbolsFromInstalledTokenList(t *testing.T) {
	root, err := fixtures.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	tools, err := New(Config{TokenLists: filepath.Join(root, "tokenlists")})
	if err != nil {
		t.Fatal(err)
	}
	defer tools.Close()
	for _, tc := range []struct {
		in, chain, addr, symbol, source string
		alias                           bool
	}{
		{"BTC", "ethereum", "0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599", "WBTC", "chain configuration", true},
		{"base:BTC", "base", "0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf", "cbBTC", "list", true},
		{"arbitrum:btc", "arbitrum", "0x2f2a2543B76A4166549F7aaB2e75Bef0aefC5B0f", "WBTC", "list", true},
		{"LINK", "ethereum", "0x514910771AF9Ca656af840dff83E8264EcF986CA", "LINK", "list", false},
		{"UNI", "ethereum", "0x1f9840a85d5aF5bf1D1762F925BDADdC4201F984", "UNI", "list", false},
		{"aave", "ethereum", "0x7Fc66500c84A76Ad7e9c93437bFc5Ac33E2DDaE9", "AAVE", "list", false},
		{"ARB", "ethereum", "0xB50721BCf8d664c30412Cfbc6cf7a15145234ad1", "ARB", "list", false},
		{"arbitrum:ARB", "arbitrum", "0x912CE59144191C1204E64559FE8253a0e49E6548", "ARB", "list", false},
		{"OP", "optimism", "0x4200000000000000000000000000000000000042", "OP", "list", false},
		{"USDC", "ethereum", "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "USDC", "chain configuration", false},
		{"ETH", "ethereum", "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", "ETH", "native coin", true},
	} {
		r, err := tools.tokens.Resolve("tokens", tc.in, "")
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		res := r.Resolved
		if r.Chain != tc.chain || r.Addr.Hex() != tc.addr || res == nil || res.Symbol != tc.symbol || res.Address != tc.addr {
			t.Errorf("%s: %s %s %+v, want %s %s %s", tc.in, r.Chain, r.Addr.Hex(), res, tc.chain, tc.addr, tc.symbol)
			continue
		}
		want := tc.source
		if want == "list" {
			want = "Uniswap Labs Default token list 22.21.0"
		}
		if res.Source != want || (res.Note != "") != tc.alias {
			t.Errorf("%s: source %q note %q, want %q (alias %v)", tc.in, res.Source, res.Note, want, tc.alias)
		}
	}
	if _, err := tools.tokens.Resolve("tokens", "NOSUCHCOIN", ""); err == nil {
		t.Error("an unknown symbol resolved")
	}
}
