package crypto_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
)

// env is the whole server over a test chain, a replaying Solana node and
// replaying Sourcify and Etherscan servers.
type env struct {
	*cryptotest.Env
	chain               *evmtest.Chain
	sourcify, etherscan map[string]string
}

// later moves the RPC clients' clock past the head's TTL.
func (e *env) later() { e.Later() }

func newEnv(t *testing.T) *env { return newEnvWith(t, nil) }

// newEnvWith lets a test adjust the chain configuration.
func newEnvWith(t *testing.T, mod func(*evmtest.Chain, *chain.Config)) *env {
	t.Helper()
	return wrap(cryptotest.New(t, cryptotest.Options{Solana: solanaReplay(t), Chains: mod}))
}

func wrap(ce *cryptotest.Env) *env {
	return &env{Env: ce, chain: ce.Chain, sourcify: ce.Sourcify, etherscan: ce.Etherscan}
}

// solanaReplay answers each Solana method with a real recorded answer,
// and the pool accounts and mint samples of these tests.
func solanaReplay(t testing.TB) http.Handler {
	return cryptotest.SolanaReplay(t, func(w http.ResponseWriter, raw []byte) bool {
		if strings.Contains(string(raw), `"method":"getMultipleAccounts"`) {
			serveAccounts(t, w, raw) // solprice_test.go
			return true
		}
		for m, b := range solanaSamples {
			if strings.Contains(string(raw), `"method":"`+m+`"`) {
				w.Header().Set("Content-Type", "application/json")
				if m == "getAccountInfo" && !strings.Contains(string(raw), testMint) {
					b = `{"jsonrpc":"2.0","result":{"context":{"slot":341197053},"value":null},"id":1}`
				}
				io.WriteString(w, b)
				return true
			}
		}
		return false
	})
}

func lower(a common.Address) string { return cryptotest.Lower(a) }

func num(t *testing.T, m map[string]any, keys ...string) float64 {
	t.Helper()
	return cryptotest.Num(t, m, keys...)
}

func near(a, b, rel float64) bool { return cryptotest.Near(a, b, rel) }

// testMint is the mint the Solana samples below describe.
const testMint = "2cHr7QS3xfuSV8wdxo3ztuF4xbiarF6Nrgx3qpx3HzXR"

// solanaSamples are answers written for these tests (no recorded ones
// exist in the shared fixtures) in the documented formats of
// solana.com/docs/rpc/http/getaccountinfo (jsonParsed mint account) and
// .../gettokenlargestaccounts: a mint without mint authority but with a
// freeze authority, supply 1,000,000 (6 decimals), its largest account
// holding 60%.
var solanaSamples = map[string]string{
	"getAccountInfo":          `{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.0.15","slot":341197053},"value":{"data":{"parsed":{"info":{"decimals":6,"freezeAuthority":"7dGbd2QZcCKcTndnHcTL8q7SMVXAkp688NTQYwrRCrar","isInitialized":true,"mintAuthority":null,"supply":"1000000000000"},"type":"mint"},"program":"spl-token","space":82},"executable":false,"lamports":1461600,"owner":"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA","rentEpoch":18446744073709551615,"space":82}},"id":1}`,
	"getTokenLargestAccounts": `{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.0.15","slot":341197053},"value":[{"address":"FYjHNoFtSQ5uijKrZFyYAxvEr87hsKXkXcxkcmkBAf4r","amount":"600000000000","decimals":6,"uiAmount":600000.0,"uiAmountString":"600000"},{"address":"BnsywxTcaYeNUtzrPxQUvzAWxfzZe3ZLUJ4wMMuLESnu","amount":"100000000000","decimals":6,"uiAmount":100000.0,"uiAmountString":"100000"}]},"id":1}`,
}
