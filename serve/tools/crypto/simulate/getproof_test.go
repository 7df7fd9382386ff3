package simulate_test

import (
	"net/http"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
)

// TestProxyAndStateWithoutGetProof: the proxy slots and the local EVM's
// accounts are read with eth_getProof, and with eth_getStorageAt and the
// account reads on a node without it; the answers are the same.
func TestProxyAndStateWithoutGetProof(t *testing.T) {
	for _, refused := range []bool{false, true} {
		e := newEnv(t)
		c := e.Chain
		c.Refuse("eth_getProof", refused)
		e.Etherscan[cryptotest.Lower(c.Proxy)] = "etherscan_getsourcecode_proxy_hemispheres.json"
		m := e.PaidCall(t, http.MethodGet, "/v1/crypto/contract-abi", map[string]any{"chain": "ethereum", "address": c.Proxy.Hex()})
		p, _ := m["proxy"].(map[string]any)
		if p["type"] != "EIP-1967" || p["implementation"] != c.ProxyImpl.Hex() || p["admin"] != c.DeployerAddr.Hex() {
			t.Errorf("eth_getProof refused %v: proxy %v", refused, p)
		}
		m = e.PaidCall(t, http.MethodPost, "/v1/crypto/simulate-tx", map[string]any{"chain": "ethereum", "from": c.WalletAddr.Hex(),
			"to": c.USDC.Hex(), "data": packT("Token", "transfer", c.Spender, evmtest.Units(100, 6))})
		if out := moves(m, "assets_leaving"); m["method"] != "local_evm" || m["success"] != true || len(out) != 1 || out[0]["amount_raw"] != "100000000" {
			t.Errorf("eth_getProof refused %v: simulation %v", refused, m)
		}
	}
}
