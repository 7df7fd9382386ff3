package prices_test

import (
	"fmt"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
)

// listedPool deploys token and a pool of amt of it against usdc USDC.
func listedPool(c *evmtest.Chain, name, sym string, dec uint8, amt *big.Int, usdc int64) common.Address {
	tok := c.Create(c.Deployer, "Token", name, sym, dec, evmtest.Units(1_000_000_000, int(dec)))
	c.Send(c.Deployer, c.Factory, nil, "UniswapV2Factory", "createPair", tok, c.USDC)
	pair := c.Read(c.Factory, "UniswapV2Factory", "getPair", tok, c.USDC)[0].(common.Address)
	c.Send(c.Deployer, tok, nil, "Token", "transfer", pair, amt)
	c.Send(c.Deployer, c.USDC, nil, "Token", "transfer", pair, evmtest.Units(usdc, 6))
	c.Send(c.Deployer, pair, nil, "UniswapV2Pair", "mint", c.DeployerAddr)
	return tok
}

// crypto_prices?tokens=BTC,LINK on a chain whose token list has WBTC and
// LINK: the symbols resolve through the list (BTC to its wrapped form),
// the answer says which token each stood for, and the prices are the
// pools'.
func TestPricesOfListedSymbols(t *testing.T) {
	var wbtc, link common.Address
	e := cryptotest.New(t, cryptotest.Options{Chains: func(c *evmtest.Chain, cc *chain.Config) {
		wbtc = listedPool(c, "Wrapped BTC", "WBTC", 8, evmtest.Units(10, 8), 900_000)
		link = listedPool(c, "ChainLink Token", "LINK", 18, evmtest.Units(10_000, 18), 150_000)
		// A token list in the Token Lists format (the schema of
		// github.com/Uniswap/token-lists, which the installed Uniswap
		// default list follows), written for the test chain's ID.
		list := fmt.Sprintf(`{"name":"Test List","timestamp":"2026-12-01T00:00:00Z","version":{"major":1,"minor":2,"patch":3},"tokens":[
{"chainId":1,"address":"0x514910771AF9Ca656af840dff83E8264EcF986CA","name":"ChainLink Token","symbol":"LINK","decimals":18},
{"chainId":%d,"address":%q,"name":"Wrapped BTC","symbol":"WBTC","decimals":8},
{"chainId":%d,"address":%q,"name":"ChainLink Token","symbol":"LINK","decimals":18}]}`,
			evmtest.ChainID, wbtc.Hex(), evmtest.ChainID, link.Hex())
		path := filepath.Join(t.TempDir(), "list.json")
		if err := os.WriteFile(path, []byte(list), 0o644); err != nil {
			t.Fatal(err)
		}
		tl, err := chain.LoadTokenList(path)
		if err != nil {
			t.Fatal(err)
		}
		cc.AddList(tl)
	}})
	m := e.PaidCall(t, http.MethodGet, "/v1/crypto/prices", map[string]any{"tokens": "BTC,link,ethereum:WBTC"})
	prices := m["prices"].([]any)
	if len(prices) != 3 {
		t.Fatalf("prices: %v", prices)
	}
	for i, want := range []struct {
		addr   common.Address
		symbol string
		price  float64
		alias  bool
	}{{wbtc, "WBTC", 90_000, true}, {link, "LINK", 15, false}, {wbtc, "WBTC", 90_000, false}} {
		p := prices[i].(map[string]any)
		res, _ := p["resolved"].(map[string]any)
		if p["address"] != want.addr.Hex() || res == nil || res["symbol"] != want.symbol || res["address"] != want.addr.Hex() ||
			res["chain"] != "ethereum" || res["source"] != "Test List token list 1.2.3" {
			t.Errorf("%v: resolved %v, want %s %s from the list", p["input"], res, want.symbol, want.addr.Hex())
			continue
		}
		if note, _ := res["note"].(string); want.alias != strings.Contains(note, "BTC has no contract on ethereum: priced as WBTC") {
			t.Errorf("%v: note %q", p["input"], note)
		}
		if got := cryptotest.Num(t, p, "price_usd"); !cryptotest.Near(got, want.price, 1e-9) {
			t.Errorf("%v: price %v, pool says %v", p["input"], got, want.price)
		}
	}

	// An address input says nothing about resolution; an unknown symbol
	// is still refused before payment.
	m = e.PaidCall(t, http.MethodGet, "/v1/crypto/prices", map[string]any{"tokens": "ethereum:" + wbtc.Hex()})
	if p := m["prices"].([]any)[0].(map[string]any); p["resolved"] != nil {
		t.Errorf("address input resolved: %v", p["resolved"])
	}
	res, body := e.Call(t, http.MethodGet, "/v1/crypto/prices", map[string]any{"tokens": "DOGE"}, "")
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("DOGE: %d %v", res.StatusCode, body)
	}
}
