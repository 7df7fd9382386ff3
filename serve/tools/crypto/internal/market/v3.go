package market

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

// V3Pool is a Uniswap-V3-style pool's state: price and in-range liquidity.
type V3Pool struct {
	DEX    chain.DEX
	Addr   common.Address
	T0, T1 common.Address
	Fee    int64    // hundredths of a basis point
	SqrtP  *big.Int // sqrtPriceX96
	L      *big.Int // in-range liquidity
}

var q96 = new(big.Float).SetInt(new(big.Int).Lsh(big.NewInt(1), 96))

// RawPrice is token1 per token0 in base units: (sqrtPriceX96 / 2^96)^2.
func (p *V3Pool) RawPrice() float64 {
	s, _ := new(big.Float).Quo(new(big.Float).SetInt(p.SqrtP), q96).Float64()
	return s * s
}

// VirtualReserve of token t: the constant-product reserve equivalent of
// the in-range liquidity (L/√P for token0, L·√P for token1). Liquidity
// outside the current range is not counted, so this is a lower bound near
// the price and an overstatement far from it.
func (p *V3Pool) VirtualReserve(t common.Address) float64 {
	l, _ := new(big.Float).SetInt(p.L).Float64()
	s, _ := new(big.Float).Quo(new(big.Float).SetInt(p.SqrtP), q96).Float64()
	if s == 0 {
		return 0
	}
	if t == p.T0 {
		return l / s
	}
	return l * s
}

func v3key(d chain.DEX, a, b common.Address, fee int64) string {
	return fmt.Sprintf("v3:%s%s%s%d", d.Factory.Hex(), a.Hex(), b.Hex(), fee)
}

// v3Source prices token t in quote token q from a V3-style pool; usdQ is
// q's USD price.
func v3Source(p *V3Pool, t, q common.Address, decT, decQ uint8, usdQ float64, quoteSym string) Source {
	raw := p.RawPrice() // token1 per token0
	if t != p.T0 {
		if raw == 0 {
			return Source{}
		}
		raw = 1 / raw
	}
	px := raw * pow10f(int(decT)-int(decQ))
	return Source{Pool: p.Addr.Hex(), DEX: fmt.Sprintf("%s (fee %.2f%%)", p.DEX.Name, float64(p.Fee)/1e4), Quote: quoteSym,
		PriceUSD: px * usdQ, DepthUSD: 2 * p.VirtualReserve(q) / pow10f(int(decQ)) * usdQ}
}

func pow10f(n int) float64 {
	f := 1.0
	for ; n > 0; n-- {
		f *= 10
	}
	for ; n < 0; n++ {
		f /= 10
	}
	return f
}

// Other is the pool's token that is not t.
func (p *V3Pool) Other(t common.Address) common.Address {
	if p.T0 == t {
		return p.T1
	}
	return p.T0
}
