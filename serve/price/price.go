package price

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Decimals is the number of decimals of USDC, the asset prices are paid in.
const Decimals = 6

// ErrInvalid reports a price that is not a plain non-negative decimal with
// at most Decimals fraction digits, or that does not fit an Atomic.
var ErrInvalid = errors.New("invalid price")

// Atomic is an amount in USDC base units (10^-6 USD). uint64 bounds a
// price at about 18 trillion USD, far beyond any price we declare.
type Atomic uint64

// String is the amount in base units, as x402's "amount" field carries it.
func (a Atomic) String() string { return strconv.FormatUint(uint64(a), 10) }

// USD is the amount as a canonical USD decimal ("0.001").
func (a Atomic) USD() string {
	whole, frac := uint64(a)/1e6, uint64(a)%1e6
	if frac == 0 {
		return strconv.FormatUint(whole, 10)
	}
	f := strings.TrimRight(fmt.Sprintf("%06d", frac), "0")
	return strconv.FormatUint(whole, 10) + "." + f
}

// Parse converts a USD price such as "0.001" to base units. Parsing is
// exact decimal: no floats, exponents, signs, spaces or non-ASCII digits,
// at least one digit on each side of a decimal point ("1." and ".5" are
// errors) and at most six fraction digits ("0.0000001" is an error, not a
// rounding). Zero parses; whether zero is allowed is the caller's rule.
func Parse(usd string) (Atomic, error) {
	bad := func(why string) (Atomic, error) { return 0, fmt.Errorf("%w %q: %s", ErrInvalid, usd, why) }
	if usd == "" {
		return bad("empty")
	}
	whole, frac, hasDot := strings.Cut(usd, ".")
	if whole == "" {
		return bad("no digits before the decimal point")
	}
	if hasDot && frac == "" {
		return bad("no digits after the decimal point")
	}
	for _, part := range []string{whole, frac} {
		for _, r := range part {
			if r < '0' || r > '9' {
				if r == '-' {
					return bad("negative")
				}
				return bad(fmt.Sprintf("unexpected %q", r))
			}
		}
	}
	if len(frac) > Decimals {
		return bad(fmt.Sprintf("more than %d decimals", Decimals))
	}
	digits := strings.TrimLeft(whole+frac+strings.Repeat("0", Decimals-len(frac)), "0")
	if digits == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return bad("too large")
	}
	return Atomic(n), nil
}
