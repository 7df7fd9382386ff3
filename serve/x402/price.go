package x402

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// Decimals is the number of decimals of USDC, the asset prices are paid in.
const Decimals = 6

// ErrInvalidPrice reports a price that is not a plain non-negative decimal
// with at most Decimals fraction digits.
var ErrInvalidPrice = errors.New("x402: invalid price")

// maxUint256 bounds amounts: EIP-3009 values are uint256.
var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// PriceToAtomic converts a USD price such as "0.001" to USDC atomic units
// ("1000"). Parsing is exact decimal: no floats, no exponents, no sign, at
// most six fraction digits ("0.0000001" is an error, not a rounding).
func PriceToAtomic(price string) (string, error) {
	n, err := parsePrice(price)
	if err != nil {
		return "", err
	}
	return n.String(), nil
}

func parsePrice(price string) (*big.Int, error) {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrInvalidPrice, price, why) }
	if price == "" {
		return nil, bad("empty")
	}
	whole, frac, hasDot := strings.Cut(price, ".")
	if whole == "" {
		return nil, bad("no digits before the decimal point")
	}
	if hasDot && frac == "" {
		return nil, bad("no digits after the decimal point")
	}
	for _, part := range []string{whole, frac} {
		for _, r := range part {
			if r < '0' || r > '9' {
				if r == '-' {
					return nil, bad("negative")
				}
				return nil, bad(fmt.Sprintf("unexpected %q", r))
			}
		}
	}
	if len(frac) > Decimals {
		return nil, bad(fmt.Sprintf("more than %d decimals", Decimals))
	}
	digits := whole + frac + strings.Repeat("0", Decimals-len(frac))
	if len(digits) > 78 { // > 10^78 cannot be a uint256
		return nil, bad("too large")
	}
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok || n.Cmp(maxUint256) > 0 {
		return nil, bad("too large")
	}
	return n, nil
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
