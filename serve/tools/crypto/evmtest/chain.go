package evmtest

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"
)

// ChainID of the simulated chain (go-ethereum's dev chain).
const ChainID = 1337

// Multicall3Address is the canonical Multicall3 address; the test chain has
// Multicall3 there from genesis, as real chains do.
var Multicall3Address = common.HexToAddress("0xcA11bde05977b3631167028862bE2a173976CA11")

// Dead is the burn address LP tokens are sent to when liquidity is locked.
var Dead = common.HexToAddress("0x000000000000000000000000000000000000dEaD")

// FeeBps is FEE's transfer fee.
const FeeBps = 500

// Chain is a running test chain with the scenario deployed.
type Chain struct {
	Backend *simulated.Backend
	Client  *ethclient.Client
	// URL serves JSON-RPC over HTTP on loopback.
	URL   string
	relay *relay

	Deployer     *ecdsa.PrivateKey
	DeployerAddr common.Address
	// Wallet holds 2 ETH, 5,000 USDC, 1,000 GOOD and 100 MOON, with an
	// unlimited USDC approval to the router and a 500 GOOD approval to
	// Spender.
	Wallet     *ecdsa.PrivateKey
	WalletAddr common.Address
	Spender    common.Address

	// Tokens: USDC (6 decimals), WETH, GOOD (plain, no owner), FEE (5%
	// transfer fee, owner can mint and change the fee), MOON (honeypot,
	// owner, blacklist, pause).
	USDC, WETH, GOOD, FEE, MOON common.Address
	Factory, Router             common.Address
	// V3Factory and V3Quoter serve V3Pool, a Uniswap-V3-style WETH/USDC
	// pool (fee 0.05%, full range) at 3,000 USDC per WETH holding 100 WETH
	// and 300,000 USDC: shallower and cheaper than the V2 pool.
	V3Factory, V3Quoter, V3Pool common.Address
	// Pairs by "A/B": WETH/USDC, GOOD/USDC, GOOD/WETH, FEE/WETH, MOON/USDC,
	// TAIL/GOOD.
	Pairs map[string]common.Address
	// Markets: the SwapRouter02-style V3Router, the tokens only a route
	// reaches and the lending markets (market.go).
	Market
	// Proxy is an EIP-1967 proxy whose implementation is ProxyImpl.
	Proxy, ProxyImpl common.Address
	// Before24h is the last block before the GOOD price moved; the move
	// happened more than 24 hours (chain time) later.
	Before24h uint64

	ctx context.Context
	t   testing.TB
}

// Units returns n·10^dec.
func Units(n int64, dec int) *big.Int {
	return new(big.Int).Mul(big.NewInt(n), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec)), nil))
}

// New starts the chain and deploys the scenario (about 40 transactions);
// everything stops at the end of the test.
func New(t testing.TB) *Chain {
	t.Helper()
	dep, _ := crypto.HexToECDSA("b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313e0c8a0a1d1c1d5e1d")
	wal, _ := crypto.HexToECDSA("8a1f9a8f95be41cd7ccb6168179afb4504aefe388d1e14474d32c45c72ce7b7a")
	c := &Chain{Deployer: dep, DeployerAddr: crypto.PubkeyToAddress(dep.PublicKey),
		Wallet: wal, WalletAddr: crypto.PubkeyToAddress(wal.PublicKey),
		Spender: common.HexToAddress("0x5bE4De4000000000000000000000000000000bEE"),
		Pairs:   map[string]common.Address{}, ctx: context.Background(), t: t}
	alloc := types.GenesisAlloc{
		c.DeployerAddr:    {Balance: Units(1_000_000, 18)},
		c.WalletAddr:      {Balance: Units(2, 18)},
		Multicall3Address: {Code: Artifact("Multicall3").Runtime, Balance: big.NewInt(0)},
	}
	c.Backend = simulated.NewBackend(alloc, func(_ *node.Config, ec *ethconfig.Config) {
		ec.RPCGasCap = 50_000_000
	})
	t.Cleanup(func() { c.Backend.Close() })
	rc := rpcOf(c.Backend)
	c.Client = ethclient.NewClient(rc)
	c.relay = &relay{rpc: rc}
	srv := httptest.NewServer(c.relay)
	t.Cleanup(srv.Close)
	c.URL = srv.URL
	c.deploy()
	return c
}

// rpcOf digs the in-process RPC client out of the backend: the simulated
// package hides its *ethclient.Client in an embedded field on purpose, but
// the relay needs raw JSON-RPC, which only that client offers.
func rpcOf(b *simulated.Backend) *rpc.Client {
	ec := reflect.ValueOf(b.Client()).FieldByName("Client").Interface().(*ethclient.Client)
	return ec.Client()
}

// Refuse makes the node answer method with "method not found" (-32601),
// as nodes without it do; Refuse(method, false) restores it.
func (c *Chain) Refuse(method string, on bool) {
	c.relay.mu.Lock()
	defer c.relay.mu.Unlock()
	if c.relay.refused == nil {
		c.relay.refused = map[string]bool{}
	}
	c.relay.refused[method] = on
}

// RefuseOverrides makes the node refuse eth_call state overrides (a third
// parameter) with "invalid params" (-32602), as nodes without them do.
func (c *Chain) RefuseOverrides(on bool) {
	c.relay.mu.Lock()
	defer c.relay.mu.Unlock()
	c.relay.noOverrides = on
}

// Calls is how many JSON-RPC calls the chain has served (batch entries
// counted one by one).
func (c *Chain) Calls() int64 { return c.relay.calls.Load() }

// Requests is how many HTTP requests carried those calls.
func (c *Chain) Requests() int64 { return c.relay.requests.Load() }

func (c *Chain) deploy() {
	d := c.DeployerAddr
	c.USDC = c.Create(c.Deployer, "Token", "USD Coin", "USDC", uint8(6), Units(1_000_000_000, 6))
	c.WETH = c.Create(c.Deployer, "WETH9")
	c.GOOD = c.Create(c.Deployer, "Token", "Good Token", "GOOD", uint8(18), Units(1_000_000_000, 18))
	c.FEE = c.Create(c.Deployer, "FeeToken", Units(100_000_000, 18), big.NewInt(FeeBps))
	c.MOON = c.Create(c.Deployer, "Honeypot", Units(100_000_000, 18))
	c.Factory = c.Create(c.Deployer, "UniswapV2Factory")
	c.Router = c.Create(c.Deployer, "UniswapV2Router02", c.Factory, c.WETH)
	c.ProxyImpl = c.Create(c.Deployer, "Token", "Proxied", "PRX", uint8(18), Units(1, 18))
	c.Proxy = c.Create(c.Deployer, "ERC1967Proxy", c.ProxyImpl, d)
	c.Send(c.Deployer, c.WETH, Units(2_000, 18), "WETH9", "deposit")

	c.pool("WETH/USDC", c.WETH, Units(1_000, 18), c.USDC, Units(3_000_000, 6), Dead)
	c.pool("GOOD/USDC", c.GOOD, Units(1_000_000, 18), c.USDC, Units(2_000_000, 6), Dead)
	c.pool("GOOD/WETH", c.GOOD, Units(300_000, 18), c.WETH, Units(200, 18), Dead)
	c.pool("FEE/WETH", c.FEE, Units(1_000_000, 18), c.WETH, Units(100, 18), d)
	c.pool("MOON/USDC", c.MOON, Units(1_000_000, 18), c.USDC, Units(50_000, 6), d)
	c.Send(c.Deployer, c.MOON, nil, "Honeypot", "setPair", c.Pairs["MOON/USDC"])
	c.v3()

	// The wallet's holdings and approvals.
	w := c.WalletAddr
	c.Send(c.Deployer, c.USDC, nil, "Token", "transfer", w, Units(5_000, 6))
	c.Send(c.Deployer, c.GOOD, nil, "Token", "transfer", w, Units(1_000, 18))
	c.Send(c.Deployer, c.MOON, nil, "Token", "transfer", w, Units(100, 18))
	maxU := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	c.Send(c.Wallet, c.USDC, nil, "Token", "approve", c.Router, maxU)
	c.Send(c.Wallet, c.GOOD, nil, "Token", "approve", c.Spender, Units(500, 18))

	// 25 hours later someone buys GOOD with 100,000 USDC: GOOD's price
	// rises from 2 USDC, which crypto_prices reports as its 24h change.
	// The simulated beacon refuses to move time while its pending block
	// holds a transaction (the pool can still be promoting one after its
	// receipt was read): seal it and try again.
	// AdjustTime seals a block carrying the jump.
	for i := 0; ; i++ {
		n := c.BlockNumber()
		err := c.Backend.AdjustTime(25 * time.Hour)
		if err == nil {
			c.Before24h = n
			break
		}
		if i == 5 {
			c.t.Fatal(err)
		}
		c.Backend.Commit()
	}
	c.Send(c.Deployer, c.USDC, nil, "Token", "approve", c.Router, maxU)
	c.Send(c.Deployer, c.Router, nil, "UniswapV2Router02", "swapExactTokensForTokens",
		Units(100_000, 6), big.NewInt(0), []common.Address{c.USDC, c.GOOD}, d, big.NewInt(time.Now().Add(72*time.Hour).Unix()))
	c.market()
}

// V3Fee is the fee tier of V3Pool (hundredths of a basis point).
const V3Fee = 500

// v3 deploys the V3-style factory, quoter and the WETH/USDC pool.
func (c *Chain) v3() {
	c.V3Factory = c.Create(c.Deployer, "UniswapV3Factory")
	c.V3Quoter = c.Create(c.Deployer, "QuoterV2", c.V3Factory)
	c.Send(c.Deployer, c.V3Factory, nil, "UniswapV3Factory", "createPool", c.WETH, c.USDC, big.NewInt(V3Fee))
	c.V3Pool = c.Read(c.V3Factory, "UniswapV3Factory", "getPool", c.WETH, c.USDC, big.NewInt(V3Fee))[0].(common.Address)
	x, y := Units(100, 18), Units(300_000, 6) // WETH, USDC
	if c.USDC.Cmp(c.WETH) < 0 {
		x, y = y, x // token0 is USDC
	}
	// Full range: price = y/x (token1 per token0, base units); L = √(x·y).
	prec := uint(512)
	fx, fy := new(big.Float).SetPrec(prec).SetInt(x), new(big.Float).SetPrec(prec).SetInt(y)
	sqrtP := new(big.Float).SetPrec(prec).Sqrt(new(big.Float).SetPrec(prec).Quo(fy, fx))
	sqrtP.Mul(sqrtP, new(big.Float).SetPrec(prec).SetInt(new(big.Int).Lsh(big.NewInt(1), 96)))
	sp, _ := sqrtP.Int(nil)
	l, _ := new(big.Float).SetPrec(prec).Sqrt(new(big.Float).SetPrec(prec).Mul(fx, fy)).Int(nil)
	c.Send(c.Deployer, c.WETH, nil, "Token", "transfer", c.V3Pool, Units(100, 18))
	c.Send(c.Deployer, c.USDC, nil, "Token", "transfer", c.V3Pool, Units(300_000, 6))
	c.Send(c.Deployer, c.V3Pool, nil, "UniswapV3Pool", "initialize", sp, l)
}

// pool creates the pair of a and b, adds the liquidity and sends the LP
// tokens to lp.
func (c *Chain) pool(name string, a common.Address, amtA *big.Int, b common.Address, amtB *big.Int, lp common.Address) {
	c.Send(c.Deployer, c.Factory, nil, "UniswapV2Factory", "createPair", a, b)
	out := c.Read(c.Factory, "UniswapV2Factory", "getPair", a, b)
	pair := out[0].(common.Address)
	c.Pairs[name] = pair
	c.Send(c.Deployer, a, nil, "Token", "transfer", pair, amtA)
	c.Send(c.Deployer, b, nil, "Token", "transfer", pair, amtB)
	c.Send(c.Deployer, pair, nil, "UniswapV2Pair", "mint", lp)
}

// BlockNumber is the head block number.
func (c *Chain) BlockNumber() uint64 {
	n, err := c.Client.BlockNumber(c.ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	return n
}

// Create deploys contract name with constructor args and mines it.
func (c *Chain) Create(key *ecdsa.PrivateKey, name string, args ...any) common.Address {
	c.t.Helper()
	art := Artifact(name)
	in, err := art.ABI.Pack("", args...)
	if err != nil {
		c.t.Fatalf("evmtest: pack %s constructor: %v", name, err)
	}
	r := c.tx(key, nil, nil, append(append([]byte{}, art.Bin...), in...))
	return r.ContractAddress
}

// Send calls method of contract (an artifact name) at to, mines it and
// fails the test if it reverts.
func (c *Chain) Send(key *ecdsa.PrivateKey, to common.Address, value *big.Int, contract, method string, args ...any) *types.Receipt {
	c.t.Helper()
	data, err := Artifact(contract).ABI.Pack(method, args...)
	if err != nil {
		c.t.Fatalf("evmtest: pack %s.%s: %v", contract, method, err)
	}
	return c.tx(key, &to, value, data)
}

// Read calls a view method at the head block.
func (c *Chain) Read(to common.Address, contract, method string, args ...any) []any {
	c.t.Helper()
	a := Artifact(contract).ABI
	data, err := a.Pack(method, args...)
	if err != nil {
		c.t.Fatalf("evmtest: pack %s.%s: %v", contract, method, err)
	}
	ret, err := c.Client.CallContract(c.ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		c.t.Fatalf("evmtest: %s.%s: %v", contract, method, err)
	}
	out, err := a.Unpack(method, ret)
	if err != nil {
		c.t.Fatalf("evmtest: unpack %s.%s: %v", contract, method, err)
	}
	return out
}

// ReadAt is Read at block n.
func (c *Chain) ReadAt(n uint64, to common.Address, contract, method string, args ...any) []any {
	c.t.Helper()
	a := Artifact(contract).ABI
	data, _ := a.Pack(method, args...)
	ret, err := c.Client.CallContract(c.ctx, ethereum.CallMsg{To: &to, Data: data}, new(big.Int).SetUint64(n))
	if err != nil {
		c.t.Fatalf("evmtest: %s.%s at %d: %v", contract, method, n, err)
	}
	out, err := a.Unpack(method, ret)
	if err != nil {
		c.t.Fatal(err)
	}
	return out
}

func (c *Chain) tx(key *ecdsa.PrivateKey, to *common.Address, value *big.Int, data []byte) *types.Receipt {
	c.t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := c.Client.PendingNonceAt(c.ctx, from)
	if err != nil {
		c.t.Fatal(err)
	}
	head, err := c.Client.HeaderByNumber(c.ctx, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	if value == nil {
		value = new(big.Int)
	}
	tip := big.NewInt(1_000_000_000)
	fee := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(ChainID), Nonce: nonce, GasTipCap: tip, GasFeeCap: fee,
		Gas: 6_000_000, To: to, Value: value, Data: data})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(big.NewInt(ChainID)), key)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.Client.SendTransaction(c.ctx, signed); err != nil {
		c.t.Fatalf("evmtest: send: %v", err)
	}
	c.Backend.Commit()
	r, err := c.Client.TransactionReceipt(c.ctx, signed.Hash())
	if err != nil {
		c.t.Fatal(err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		c.t.Fatalf("evmtest: transaction to %v reverted", to)
	}
	return r
}
