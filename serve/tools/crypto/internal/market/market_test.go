package market

import (
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

func TestBase58(t *testing.T) {
	for _, s := range []string{"A1TMhSGzQxMr1TboBKtgixKz1sS6REASMxPo1qsyTSJd", "11111111111111111111111111111111", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"} {
		b, ok := Base58Decode(s)
		if !ok || len(b) != 32 || Base58Encode(b) != s {
			t.Errorf("%s: %x %v round trip %q", s, b, ok, Base58Encode(b))
		}
	}
	for _, bad := range []string{"0OIl", "abc", "0x703c4b2bD70c169f5717101CaeE543299Fc946C7"} {
		if IsSolanaAddress(bad) {
			t.Errorf("%q taken for a Solana address", bad)
		}
	}
}

// TestWhirlpoolAddress checks the program-derived address code against
// the real Orca SOL/USDC pool (tick spacing 4) of the mainnet config.
func TestWhirlpoolAddress(t *testing.T) {
	w := chain.Default().Chains["solana"].Whirlpool
	s, err := chain.NewSolana(chain.Default().Chains["solana"], chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := WhirlpoolAddr(s, w, w.WSOLMint, w.USDCMint, 4)
	if !ok || got != "Czfq3xZZDmsdGdUyrNLtRhGc47cXcZtLG4crryfu44zE" {
		t.Errorf("SOL/USDC tick spacing 4: %s", got)
	}
	// Mint order does not matter.
	if again, _ := WhirlpoolAddr(s, w, w.USDCMint, w.WSOLMint, 4); again != got {
		t.Errorf("reversed mints: %s", again)
	}
}
