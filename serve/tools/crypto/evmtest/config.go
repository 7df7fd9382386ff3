package evmtest

import "github.com/openshelf/openshelf/serve/tools/crypto/chain"

// Config is the crypto tools' chain configuration of the test chain as
// "ethereum": its DEXes, lending markets and listed tokens.
func (c *Chain) Config() *chain.Config {
	return &chain.Config{Version: "bench", Chains: map[string]*chain.Chain{
		"ethereum": {Name: "ethereum", Kind: "evm", ChainID: ChainID, RPC: []string{c.URL}, Native: "ETH", BlockTime: 1,
			WrappedNative: c.WETH, USDC: c.USDC, Multicall3: Multicall3Address,
			DEXes: []chain.DEX{{Name: "uniswap-v2", Kind: "v2", Factory: c.Factory, Router: c.Router, FeeBps: 30},
				{Name: "uniswap-v3", Kind: "v3", Factory: c.V3Factory, Quoter: c.V3Quoter, Router: c.V3Router, FeeTiers: []int64{500, 3000}, V2Factory: c.Factory}},
			Lending: []chain.Lending{{Name: "aave-v3", Kind: "aave-v3", Address: c.AavePool}, {Name: "compound-v3-usdc", Kind: "compound-v3", Address: c.Comet}},
			Tokens:  []chain.Token{{Symbol: "USDC", Address: c.USDC, Decimals: 6}, {Symbol: "WETH", Address: c.WETH, Decimals: 18}, {Symbol: "GOOD", Address: c.GOOD, Decimals: 18}}},
	}}
}
