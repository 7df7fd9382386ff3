package market

import (
	"context"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

// Pool is a Uniswap-V2-style pair with its reserves at some block.
type Pool struct {
	DEX      chain.DEX
	Addr     common.Address
	T0, T1   common.Address
	R0, R1   *big.Int
	LPSupply *big.Int
}

// Other is the pair's token that is not t.
func (p *Pool) Other(t common.Address) common.Address {
	if p.T0 == t {
		return p.T1
	}
	return p.T0
}

// Reserves returns (reserve of in, reserve of the other token).
func (p *Pool) Reserves(in common.Address) (*big.Int, *big.Int) {
	if p.T0 == in {
		return p.R0, p.R1
	}
	return p.R1, p.R0
}

// AmountOut is the V2 constant-product output with the DEX fee.
func (p *Pool) AmountOut(in common.Address, amt *big.Int) *big.Int {
	rIn, rOut := p.Reserves(in)
	if amt.Sign() <= 0 || rIn.Sign() <= 0 || rOut.Sign() <= 0 {
		return new(big.Int)
	}
	fee := p.DEX.FeeBps
	if fee <= 0 {
		fee = 30
	}
	inFee := new(big.Int).Mul(amt, big.NewInt(10000-fee))
	num := new(big.Int).Mul(inFee, rOut)
	den := new(big.Int).Add(new(big.Int).Mul(rIn, big.NewInt(10000)), inFee)
	return num.Div(num, den)
}

func keyString(k pairKey) string { return k.dex.Hex() + k.a.Hex() + k.b.Hex() }

// TokenMeta is what the tools show of a token: facts that do not change.
type TokenMeta struct {
	Address  common.Address
	Symbol   string
	Name     string
	Decimals uint8
	OK       bool // decimals answered: an ERC-20
}

// metaCalls are the reads of token t's symbol, name and decimals.
func metaCalls(t common.Address) []chain.Call {
	return []chain.Call{{Target: t, Method: "symbol"}, {Target: t, Method: "name"}, {Target: t, Method: "decimals"}}
}

// WantMeta asks for the metadata of the tokens not known yet to ride along
// with the call's next Multicall3 read (chain.EVM.Want): a tool that will
// need them after a read they do not depend on spends no call on them.
func WantMeta(ctx context.Context, c *chain.EVM, tokens []common.Address) {
	var calls []chain.Call
	for _, t := range tokens {
		if _, ok := c.Cache.Get("meta:" + t.Hex()); !ok {
			calls = append(calls, metaCalls(t)...)
		}
	}
	c.Want(ctx, calls...)
}

// TokenInfo reads name, symbol and decimals of tokens in one Multicall3
// call; they are kept until least recently used (a token's metadata does
// not change).
func TokenInfo(ctx context.Context, c *chain.EVM, tokens []common.Address) (map[common.Address]*TokenMeta, error) {
	out := map[common.Address]*TokenMeta{}
	var calls []chain.Call
	var miss []common.Address
	for _, t := range tokens {
		if _, dup := out[t]; dup {
			continue
		}
		if v, ok := c.Cache.Get("meta:" + t.Hex()); ok {
			out[t] = v.(*TokenMeta)
			continue
		}
		out[t] = nil
		miss = append(miss, t)
		calls = append(calls, metaCalls(t)...)
	}
	if len(calls) > 0 {
		res, err := c.Multicall(ctx, calls, nil)
		if err != nil {
			return nil, err
		}
		for i, t := range miss {
			m := &TokenMeta{Address: t}
			if r := res[3*i]; r.OK {
				m.Symbol, _ = r.Out[0].(string)
			}
			if r := res[3*i+1]; r.OK {
				m.Name, _ = r.Out[0].(string)
			}
			if r := res[3*i+2]; r.OK {
				m.Decimals, m.OK = r.Out[0].(uint8)
			}
			if m.Symbol == "" {
				if k, ok := c.Chain.TokenByAddress(t); ok {
					m.Symbol = k.Symbol
				}
			}
			out[t] = m
			if m.OK {
				c.Cache.Put("meta:"+t.Hex(), m, chain.Forever)
			}
		}
	}
	return out, nil
}

// ToFloat converts base units to a float in whole units.
func ToFloat(v *big.Int, dec uint8) float64 {
	if v == nil {
		return 0
	}
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(v), new(big.Float).SetInt(pow10(dec))).Float64()
	return f
}

func pow10(dec uint8) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec)), nil)
}

// FromFloat converts whole units to base units.
func FromFloat(f float64, dec uint8) *big.Int {
	if f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return new(big.Int)
	}
	v, _ := new(big.Float).Mul(big.NewFloat(f), new(big.Float).SetInt(pow10(dec))).Int(nil)
	return v
}
