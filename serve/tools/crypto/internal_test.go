package crypto

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

func TestSelectorsSkipPushData(t *testing.T) {
	sel := crypto.Keccak256([]byte("mint(address,uint256)"))[:4]
	// PUSH4 <mint> ; PUSH32 whose data hides a PUSH4 of pause() (0x63 +
	// selector) that must not be read as code.
	pause := crypto.Keccak256([]byte("pause()"))[:4]
	code := append([]byte{0x63}, sel...)
	hidden := append(append([]byte{0x63}, pause...), bytes.Repeat([]byte{0}, 27)...)
	code = append(append(code, 0x7f), hidden...)
	got := selectors(code)
	if !got[[4]byte(sel)] || got[[4]byte(pause)] {
		t.Errorf("selectors %v", got)
	}
	if len(present(got, "mint")) != 1 || len(present(got, "pause")) != 0 {
		t.Error("present() disagrees")
	}
}

func TestParseUnits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		dec  uint8
		want string
	}{{"1.5", 6, "1500000"}, {"250.5", 6, "250500000"}, {"0.0000001", 6, "0"}, {"3", 18, "3000000000000000000"}} {
		if got := parseUnits(tc.in, tc.dec).String(); got != tc.want {
			t.Errorf("%s@%d = %s, want %s", tc.in, tc.dec, got, tc.want)
		}
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		score int
		risk  string
		want  string
	}{{100, "none", "low-risk"}, {80, "low", "low-risk"}, {75, "high", "caution"}, {50, "high", "high-risk"}, {34, "high", "avoid"}, {97, "critical", "avoid"}} {
		if got := verdict(tc.score, tc.risk); got != tc.want {
			t.Errorf("verdict(%d, %s) = %s, want %s", tc.score, tc.risk, got, tc.want)
		}
	}
}

func TestYieldsNeedMarkets(t *testing.T) {
	cc := chain.Default()
	cc.Chains["bsc"].Lending = nil
	tools, err := New(Config{Chains: cc})
	if err != nil {
		t.Fatal(err)
	}
	defer tools.Close()
	// Refused before any RPC call: the endpoints are the public ones.
	err = tools.checkPrices(context.Background(), &PricesInput{YieldsChain: "bsc"})
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != "yields_not_supported" {
		t.Errorf("err %v, want yields_not_supported", err)
	}
}
