package x402

import (
	"math/big"

	"github.com/openshelf/openshelf/serve/price"
)

// Decimals is the number of decimals of USDC, the asset prices are paid in.
const Decimals = price.Decimals

// ErrInvalidPrice reports a price that package price refuses.
var ErrInvalidPrice = price.ErrInvalid

// maxUint256 bounds amounts: EIP-3009 values are uint256.
var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// PriceToAtomic converts a USD price such as "0.001" to USDC atomic units
// ("1000") with [price.Parse], the one price parser.
func PriceToAtomic(usd string) (string, error) {
	a, err := price.Parse(usd)
	if err != nil {
		return "", err
	}
	return a.String(), nil
}

// parseUint256 parses a canonical decimal uint256 as EIP-3009 fields carry
// them: digits only, no sign, no leading zeros (except "0").
func parseUint256(s string) (*big.Int, bool) {
	if s == "" || len(s) > 78 || (len(s) > 1 && s[0] == '0') {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return nil, false
		}
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Cmp(maxUint256) > 0 {
		return nil, false
	}
	return n, true
}
