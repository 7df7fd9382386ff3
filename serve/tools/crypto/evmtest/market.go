package evmtest

import (
	"crypto/ecdsa"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Market is what the multi-hop routes and the lending yields are tested
// on, deployed after the rest of the scenario.
type Market struct {
	// V3Router is a SwapRouter02-style router over V3Factory's pools and
	// the V2 Factory's pairs.
	V3Router common.Address
	// VTT trades only in V3Pool2, a full-range VTT/WETH pool (fee 0.3%)
	// holding 1,000,000 VTT and 100 WETH; TAIL trades only in the V2
	// pair TAIL/GOOD holding 1,000,000 TAIL and 100,000 GOOD.
	VTT, TAIL common.Address
	V3Pool2   common.Address
	// AavePool lists USDC and WETH with the rates of AaveRates; Comet is
	// a USDC market with CometRates, 1,000,000 USDC supplied and 850,000
	// borrowed.
	AavePool, Comet common.Address
}

// V3Fee2 is V3Pool2's fee tier.
const V3Fee2 = 3000

// AaveRates are the listed reserves' currentLiquidityRate and
// currentVariableBorrowRate in ray (1e27 = 100% a year).
var AaveRates = map[string][2]*big.Int{
	"USDC": {ray(35, 3), ray(52, 3)}, // 3.5% and 5.2% a year
	"WETH": {ray(19, 3), ray(28, 3)}, // 1.9% and 2.8%
}

func ray(n, scale int64) *big.Int {
	return new(big.Int).Div(Units(n, 27), new(big.Int).Exp(big.NewInt(10), big.NewInt(scale), nil))
}

// CometRates are the Comet's constructor rates, as Comet's configuration
// names them: supply kink, slope low, slope high, base, then the same for
// borrows (1e18 scale, per second; kinks are utilizations).
var CometRates = [8]uint64{
	900_000_000_000_000_000, 1_870_877_727, 95_129_375_951, 0,
	900_000_000_000_000_000, 1_934_297_311, 101_471_334_348, 475_646_879,
}

func (c *Chain) market() {
	m := &c.Market
	m.V3Router = c.Create(c.Deployer, "SwapRouter02", c.V3Factory, c.Factory)
	m.VTT = c.Create(c.Deployer, "Token", "V3 Only", "VTT", uint8(18), Units(1_000_000_000, 18))
	m.TAIL = c.Create(c.Deployer, "Token", "Tail Token", "TAIL", uint8(18), Units(1_000_000_000, 18))
	m.V3Pool2 = c.v3Pool(m.VTT, Units(1_000_000, 18), c.WETH, Units(100, 18), V3Fee2)
	c.pool("TAIL/GOOD", m.TAIL, Units(1_000_000, 18), c.GOOD, Units(100_000, 18), Dead)

	m.AavePool = c.Create(c.Deployer, "AavePool")
	for sym, tok := range map[string]common.Address{"USDC": c.USDC, "WETH": c.WETH} {
		r := AaveRates[sym]
		c.Send(c.Deployer, m.AavePool, nil, "AavePool", "setReserve", tok, r[0], r[1], common.BytesToAddress(append([]byte{0xa7}, tok[1:]...)))
	}
	m.Comet = c.Create(c.Deployer, "Comet", c.USDC, CometRates)
	c.Send(c.Deployer, m.Comet, nil, "Comet", "setTotals", Units(1_000_000, 6), Units(850_000, 6))
}

// v3Pool creates a full-range V3-style pool of a and b at the price of the
// amounts given, and funds it.
func (c *Chain) v3Pool(a common.Address, amtA *big.Int, b common.Address, amtB *big.Int, fee int64) common.Address {
	c.Send(c.Deployer, c.V3Factory, nil, "UniswapV3Factory", "createPool", a, b, big.NewInt(fee))
	p := c.Read(c.V3Factory, "UniswapV3Factory", "getPool", a, b, big.NewInt(fee))[0].(common.Address)
	x, y := amtA, amtB
	if b.Cmp(a) < 0 {
		x, y = y, x // x is token0's amount
	}
	// Full range: price = y/x (token1 per token0, base units); L = √(x·y).
	prec := uint(512)
	fx, fy := new(big.Float).SetPrec(prec).SetInt(x), new(big.Float).SetPrec(prec).SetInt(y)
	sqrtP := new(big.Float).SetPrec(prec).Sqrt(new(big.Float).SetPrec(prec).Quo(fy, fx))
	sqrtP.Mul(sqrtP, new(big.Float).SetPrec(prec).SetInt(new(big.Int).Lsh(big.NewInt(1), 96)))
	sp, _ := sqrtP.Int(nil)
	l, _ := new(big.Float).SetPrec(prec).Sqrt(new(big.Float).SetPrec(prec).Mul(fx, fy)).Int(nil)
	c.Send(c.Deployer, a, nil, "Token", "transfer", p, amtA)
	c.Send(c.Deployer, b, nil, "Token", "transfer", p, amtB)
	c.Send(c.Deployer, p, nil, "UniswapV3Pool", "initialize", sp, l)
	return p
}

// SendData sends a transaction with raw call data (an unsigned
// transaction a tool built), mines it and returns its receipt; it fails
// the test if it reverts.
func (c *Chain) SendData(key *ecdsa.PrivateKey, to common.Address, value *big.Int, data []byte) *types.Receipt {
	c.t.Helper()
	return c.tx(key, &to, value, data)
}
