package chain

import (
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

func TestDefaultConfig(t *testing.T) {
	c := Default()
	for _, name := range AllChains {
		ch := c.Chains[name]
		if ch == nil || len(ch.RPC) == 0 || ch.Native == "" {
			t.Fatalf("%s missing or without RPC/native: %+v", name, ch)
		}
		if ch.Kind == "solana" {
			continue
		}
		if ch.ChainID == 0 || len(ch.DEXes) == 0 || ch.Multicall3 != common.HexToAddress("0xcA11bde05977b3631167028862bE2a173976CA11") {
			t.Errorf("%s: chain id, DEXes or Multicall3 wrong: %+v", name, ch)
		}
		usdc, ok := ch.TokenByAddress(ch.USDC)
		if !ok || usdc.Symbol != "USDC" {
			t.Errorf("%s: USDC %v not in the token list", name, ch.USDC)
		}
		if _, ok := ch.TokenByAddress(ch.WrappedNative); !ok {
			t.Errorf("%s: wrapped native not in the token list", name)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for name, in := range map[string]string{
		"not json":      `{`,
		"no version":    `{"chains":{"base":{"kind":"evm"}}}`,
		"unknown chain": `{"version":"1","chains":{"dogechain":{"kind":"evm"}}}`,
		"bad kind":      `{"version":"1","chains":{"base":{"kind":"utxo"}}}`,
		"evm no usdc":   `{"version":"1","chains":{"base":{"kind":"evm","wrapped_native":"0x4200000000000000000000000000000000000006","multicall3":"0xcA11bde05977b3631167028862bE2a173976CA11"}}}`,
	} {
		if _, err := Parse([]byte(in)); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
}

func TestSetRPC(t *testing.T) {
	c := Default()
	if err := c.SetRPC("base=http://127.0.0.1:8545,http://127.0.0.1:8546"); err != nil {
		t.Fatal(err)
	}
	if got := c.Chains["base"].RPC; len(got) != 2 || got[0] != "http://127.0.0.1:8545" {
		t.Errorf("rpc %v", got)
	}
	for _, bad := range []string{"base", "nochain=http://x", "base="} {
		if err := c.SetRPC(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestCache(t *testing.T) {
	now := time.Unix(1000, 0)
	c := NewCache(2)
	c.now = func() time.Time { return now }
	c.Put("a", 1, time.Second)
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatal("fresh entry missing")
	}
	now = now.Add(2 * time.Second)
	if _, ok := c.Get("a"); ok {
		t.Error("expired entry returned")
	}
	c.Put("b", 2, time.Hour)
	c.Put("c", 3, time.Hour) // full: the expired a goes first
	if _, ok := c.Get("b"); !ok {
		t.Error("live entry evicted while an expired one was there")
	}
}

func TestRevertReason(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		// Error(string) "HP: transfer to pair forbidden" as solc encodes it.
		{"0x08c379a0" + "0000000000000000000000000000000000000000000000000000000000000020" +
			"000000000000000000000000000000000000000000000000000000000000001e" +
			"48503a207472616e7366657220746f207061697220666f7262696464656e0000", "HP: transfer to pair forbidden"},
		{"0x4e487b71" + "0000000000000000000000000000000000000000000000000000000000000011", "arithmetic underflow or overflow"},
		{"0xdeadbeef", "custom error 0xdeadbeef"},
		{"0x", ""},
	} {
		if got := RevertReason(common.FromHex(tc.data)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.data[:10], got, tc.want)
		}
	}
}
