package tokenaudit

import (
	"bytes"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
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
