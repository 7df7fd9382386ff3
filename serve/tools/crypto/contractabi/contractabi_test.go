package contractabi_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
)

func hasFunc(list any, sig string) bool {
	for _, f := range list.([]any) {
		m := f.(map[string]any)
		if m["signature"] == sig && m["selector"] == cryptotest.Selector(sig) {
			return true
		}
	}
	return false
}

func TestContractABISourcify(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{})
	c := e.Chain
	e.Sourcify[cryptotest.Lower(c.GOOD)] = "sourcify_v2_contract_fields_all.openapi-example.json"
	m := e.PaidCall(t, http.MethodGet, "/v1/crypto/contract-abi", map[string]any{
		"chain": "ethereum", "address": c.GOOD.Hex(), "include_source": true})
	if m["verified_by"] != "sourcify" || m["name"] != "MyContract" || m["compiler_version"] != "v0.8.12+commit.f00d7308" {
		t.Errorf("compilation: %v %v %v", m["verified_by"], m["name"], m["compiler_version"])
	}
	if d := m["deployment"].(map[string]any); d["transaction_hash"] != "0xb6ee9d528b336942dd70d3b41e2811be10a473776352009fd73f85604f5ed206" {
		t.Errorf("deployment %v", d)
	}
	files := m["source_files"].(map[string]any)
	if _, ok := files["contracts/Storage.sol"]; !ok || len(files) != 2 {
		t.Errorf("source files: %v", files)
	}
	if m["proxy"] != nil {
		t.Errorf("GOOD is no proxy: %v", m["proxy"])
	}
}

func TestContractABIEtherscanProxy(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{})
	c := e.Chain
	// Sourcify does not know the proxy; the Etherscan-style fallback has
	// it, and the implementation the chain points to.
	e.Etherscan[cryptotest.Lower(c.Proxy)] = "etherscan_getsourcecode_proxy_hemispheres.json"
	e.Etherscan[cryptotest.Lower(c.ProxyImpl)] = "etherscan_getsourcecode_bayc_flattened.json"
	m := e.PaidCall(t, http.MethodGet, "/v1/crypto/contract-abi", map[string]any{"chain": "ethereum", "address": c.Proxy.Hex()})
	if m["verified_by"] != "etherscan" || m["name"] != "Hemispheres" || m["compiler_version"] != "v0.8.17+commit.8df45f5f" || m["optimizer"] != true {
		t.Errorf("compilation: %v %v %v %v", m["verified_by"], m["name"], m["compiler_version"], m["optimizer"])
	}
	// The proxy's own ABI is a constructor, fallback, receive and three
	// events: no functions; events carry their topic hash.
	if fns := m["functions"].([]any); len(fns) != 0 {
		t.Errorf("proxy functions: %v", fns)
	}
	upgraded := false
	for _, ev := range m["events"].([]any) {
		ev := ev.(map[string]any)
		upgraded = upgraded || (ev["signature"] == "Upgraded(address)" && ev["selector"] == crypto.Keccak256Hash([]byte("Upgraded(address)")).Hex())
	}
	if !upgraded {
		t.Errorf("events lack Upgraded(address) with its topic: %v", m["events"])
	}
	p := m["proxy"].(map[string]any)
	// The truth is the chain's EIP-1967 slot, not the explorer's hint.
	if p["type"] != "EIP-1967" || p["implementation"] != c.ProxyImpl.Hex() || p["admin"] != c.DeployerAddr.Hex() {
		t.Errorf("proxy %v, want EIP-1967 to %v admin %v", p, c.ProxyImpl, c.DeployerAddr)
	}
	if p["implementation_verified"] != true || p["implementation_name"] != "BoredApeYachtClub" || !hasFunc(p["implementation_functions"], "mintApe(uint256)") {
		t.Errorf("implementation ABI: %v %v", p["implementation_verified"], p["implementation_name"])
	}
	if _, ok := m["source_files"]; ok {
		t.Error("source without include_source")
	}
}

func TestContractABIStandardJSONSource(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{})
	c := e.Chain
	e.Etherscan[cryptotest.Lower(c.FEE)] = "etherscan_getsourcecode_proxy_stdjson_InitializableAdminUpgradeabilityProxy.json"
	m := e.PaidCall(t, http.MethodGet, "/v1/crypto/contract-abi", map[string]any{"chain": "ethereum", "address": c.FEE.Hex(), "include_source": true})
	files := m["source_files"].(map[string]any)
	var names []string
	for n := range files {
		names = append(names, n)
	}
	if !slices.Contains(names, "contracts/dependencies/open-zeppelin/Address.sol") {
		t.Errorf("standard-JSON sources not unpacked: %v", names)
	}
	// No proxy slot on chain: the explorer's report is passed on, and its
	// implementation is not verified anywhere.
	p := m["proxy"].(map[string]any)
	if p["type"] != "explorer-reported" || p["implementation"] != common.HexToAddress("0xbe607a58206180fef691bf1b5ae9670174284388").Hex() || p["implementation_verified"] != false {
		t.Errorf("proxy %v", p)
	}
}

func TestContractABIRefusedBeforePayment(t *testing.T) {
	e := cryptotest.New(t, cryptotest.Options{})
	before := e.Settlements(t)
	for _, tc := range []struct {
		in     map[string]any
		status int
		code   string
	}{
		{map[string]any{"chain": "ethereum", "address": e.Chain.MOON.Hex()}, 404, "contract_not_verified"},
		{map[string]any{"chain": "ethereum", "address": "0x1234"}, 400, "invalid_input"},
		{map[string]any{"chain": "solana", "address": e.Chain.MOON.Hex()}, 400, "invalid_input"},
		{map[string]any{"chain": "base", "address": e.Chain.MOON.Hex()}, 400, "invalid_input"}, // not configured in the test
	} {
		res, m := e.Call(t, http.MethodGet, "/v1/crypto/contract-abi", tc.in, "")
		if res.StatusCode != tc.status || m["error"].(map[string]any)["code"] != tc.code {
			t.Errorf("%v: %d %v, want %d %s", tc.in, res.StatusCode, m, tc.status, tc.code)
		}
	}
	if e.Settlements(t) != before {
		t.Error("a refused call was charged")
	}
}
