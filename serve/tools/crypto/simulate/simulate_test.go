package simulate_test

import (
	"encoding/base64"
	"math/big"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/openshelf/openshelf/serve/tools/crypto/cryptotest"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
)

func pack(t *testing.T, contract, method string, args ...any) string {
	b, err := evmtest.Artifact(contract).ABI.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	return hexutil.Encode(b)
}

func TestSimulateTx(t *testing.T) {
	e := newEnv(t)
	c := e.Chain
	sim := func(in map[string]any) map[string]any {
		in["chain"] = "ethereum"
		return e.PaidCall(t, http.MethodPost, "/v1/crypto/simulate-tx", in)
	}
	w := c.WalletAddr.Hex()

	t.Run("erc20 transfer", func(t *testing.T) {
		m := sim(map[string]any{"from": w, "to": c.USDC.Hex(), "data": pack(t, "Token", "transfer", c.Spender, evmtest.Units(100, 6))})
		out := m["assets_leaving"].([]any)
		// The test node has no debug API: the local EVM traced the call.
		if len(out) != 1 || m["success"] != true || m["method"] != "local_evm" {
			t.Fatalf("%v", m)
		}
		mv := out[0].(map[string]any)
		if mv["standard"] != "erc20" || mv["symbol"] != "USDC" || cryptotest.Num(t, mv, "amount") != 100 || mv["counterparty"] != c.Spender.Hex() {
			t.Errorf("move %v", mv)
		}
		if m["risk_level"] != "medium" || cryptotest.Num(t, m, "gas_used") < 21000 {
			t.Errorf("risk %v gas %v", m["risk_level"], m["gas_used"])
		}
	})

	t.Run("unlimited approval", func(t *testing.T) {
		maxU := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
		m := sim(map[string]any{"from": w, "to": c.GOOD.Hex(), "data": pack(t, "Token", "approve", c.Spender, maxU)})
		ap := m["approvals"].([]any)
		if len(ap) != 1 || ap[0].(map[string]any)["unlimited"] != true || m["risk_level"] != "high" {
			t.Errorf("approvals %v risk %v", ap, m["risk_level"])
		}
	})

	t.Run("swap", func(t *testing.T) {
		amt := evmtest.Units(300, 6)
		data := pack(t, "UniswapV2Router02", "swapExactTokensForTokens", amt, big.NewInt(0), []common.Address{c.USDC, c.GOOD}, c.WalletAddr, evmtest.Units(1, 12))
		m := sim(map[string]any{"from": w, "to": c.Router.Hex(), "data": data})
		in := m["assets_entering"].([]any)
		want := cryptotest.RouterQuote(c, amt, c.USDC, c.GOOD)
		if len(in) != 1 || in[0].(map[string]any)["amount_raw"] != want.String() || m["risk_level"] != "low" {
			t.Errorf("entering %v (router quotes %v), risk %v", in, want, m["risk_level"])
		}
	})

	t.Run("native value", func(t *testing.T) {
		m := sim(map[string]any{"from": w, "to": c.Spender.Hex(), "value": "0x6f05b59d3b20000"}) // 0.5 ETH
		out := m["assets_leaving"].([]any)
		if len(out) != 1 || out[0].(map[string]any)["standard"] != "native" || cryptotest.Num(t, out[0].(map[string]any), "amount") != 0.5 {
			t.Errorf("leaving %v", out)
		}
	})

	t.Run("revert", func(t *testing.T) {
		m := sim(map[string]any{"from": w, "to": c.USDC.Hex(), "data": pack(t, "Token", "transfer", c.Spender, evmtest.Units(1_000_000, 6))})
		if m["success"] != false || m["revert_reason"] != "ERC20: transfer amount exceeds balance" {
			t.Errorf("success %v reason %v", m["success"], m["revert_reason"])
		}
	})
}

// legacySolanaTx builds an unsigned legacy transaction (one empty
// signature, two accounts, one instruction) in the wire format documented
// at solana.com/docs/core/transactions: written for this test.
func legacySolanaTx() string {
	b := []byte{1}
	b = append(b, make([]byte, 64)...)
	b = append(b, 1, 0, 1, 2)
	k1, k2 := make([]byte, 32), make([]byte, 32)
	k1[0], k2[31] = 7, 9
	b = append(b, k1...)
	b = append(b, k2...)
	b = append(b, make([]byte, 32)...) // recent blockhash
	b = append(b, 1, 1, 1, 0, 4, 2, 0, 0, 0)
	return base64.StdEncoding.EncodeToString(b)
}

func TestSimulateTxSolana(t *testing.T) {
	e := newEnv(t)
	m := e.PaidCall(t, http.MethodPost, "/v1/crypto/simulate-tx", map[string]any{"chain": "solana", "transaction": legacySolanaTx()})
	// The recorded answer: success, 1714 units, fee 5000 lamports, 4 logs.
	if m["success"] != true || cryptotest.Num(t, m, "units_consumed") != 1714 || cryptotest.Num(t, m, "fee_native") != 0.000005 || len(m["logs"].([]any)) != 4 {
		t.Errorf("%v", m)
	}
	res, body := e.Call(t, http.MethodPost, "/v1/crypto/simulate-tx", map[string]any{"chain": "solana", "transaction": "bm90IGEgdHg="}, "")
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("garbage transaction: %d %v", res.StatusCode, body)
	}
	res, body = e.Call(t, http.MethodPost, "/v1/crypto/simulate-tx", map[string]any{"chain": "ethereum", "from": "0x1", "to": e.Chain.USDC.Hex()}, "")
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("bad from: %d %v", res.StatusCode, body)
	}
}
