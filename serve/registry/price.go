package registry

import (
	"fmt"
	"strings"
)

// USDCDecimals is the number of decimals of USDC's atomic unit.
const USDCDecimals = 6

// AtomicUSDC converts a USD decimal string to USDC atomic units: "0.001" is
// "1000". It refuses negative numbers, more than six decimals and anything
// that is not a plain decimal.
func AtomicUSDC(usd string) (string, error) {
	whole, frac, _ := strings.Cut(usd, ".")
	if whole == "" || !digitsOnly(whole) || !digitsOnly(frac) || len(frac) > USDCDecimals || strings.Count(usd, ".") > 1 {
		return "", fmt.Errorf("bad USD price %q", usd)
	}
	frac += strings.Repeat("0", USDCDecimals-len(frac))
	n := strings.TrimLeft(whole+frac, "0")
	if n == "" {
		return "", fmt.Errorf("price %q is zero: leave it empty for a free endpoint", usd)
	}
	return n, nil
}

func digitsOnly(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
