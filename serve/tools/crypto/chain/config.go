package chain

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

//go:embed chains.json
var defaultJSON []byte

// EVMChains are the EVM chain names, in the order tools list them.
var EVMChains = []string{"ethereum", "base", "arbitrum", "optimism", "polygon", "bsc"}

// AllChains adds solana.
var AllChains = append(slices.Clone(EVMChains), "solana")

// ErrConfig marks a malformed configuration file.
var ErrConfig = errors.New("chain: bad configuration")

// Config is the versioned chain configuration.
type Config struct {
	Version string            `json:"version"`
	Chains  map[string]*Chain `json:"chains"`
}

// Chain is one chain's configuration.
type Chain struct {
	Name    string   `json:"-"`
	Kind    string   `json:"kind"` // evm or solana
	ChainID uint64   `json:"chain_id,omitempty"`
	RPC     []string `json:"rpc"`
	Native  string   `json:"native"`
	// BlockTime is the nominal seconds per block, a first guess for
	// finding the block of 24 hours ago.
	BlockTime     float64        `json:"block_time"`
	WrappedNative common.Address `json:"wrapped_native"`
	USDC          common.Address `json:"usdc"`
	Multicall3    common.Address `json:"multicall3"`
	DEXes         []DEX          `json:"dexes,omitempty"`
	Tokens        []Token        `json:"tokens,omitempty"`
	// Listed are the tokens of the installed token lists (AddList), for
	// symbol lookups only.
	Listed []Token `json:"-"`
	// Flagged are known malicious contracts and accounts (drainers,
	// phishing spenders); wallet_report reports interactions with them.
	Flagged []Flagged `json:"flagged,omitempty"`
	// Lending are the lending markets crypto_prices reads yields from.
	Lending []Lending `json:"lending,omitempty"`
	// Whirlpool is where Solana prices come from (solana only).
	Whirlpool *Whirlpool `json:"whirlpool,omitempty"`
}

// Whirlpool is an Orca-Whirlpool-style program on Solana: pools are the
// program-derived addresses of ("whirlpool", Config, mint A, mint B, tick
// spacing) for the TickSpacings tried, priced against USDCMint and WSOLMint
// (base58).
type Whirlpool struct {
	Program      string   `json:"program"`
	Config       string   `json:"config"`
	TickSpacings []uint16 `json:"tick_spacings"`
	USDCMint     string   `json:"usdc_mint"`
	WSOLMint     string   `json:"wsol_mint"`
}

// Lending is a lending market: kind aave-v3 is an Aave-V3-style Pool
// (getReserveData per asset), kind compound-v3 a Compound-V3 Comet (one
// base asset, read with baseToken).
type Lending struct {
	Name    string         `json:"name"`
	Kind    string         `json:"kind"`
	Address common.Address `json:"address"`
}

// Flagged is a known bad address.
type Flagged struct {
	Address common.Address `json:"address"`
	Label   string         `json:"label"`
}

// DEX is a Uniswap-V2-style exchange (kind v2: a factory with getPair, a
// router, one fee) or a Uniswap-V3-style one (kind v3: a factory with
// getPool per fee tier, QuoterV2, SwapRouter02).
type DEX struct {
	Name    string         `json:"name"`
	Kind    string         `json:"kind"` // v2 or v3
	Factory common.Address `json:"factory"`
	Router  common.Address `json:"router"`
	FeeBps  int64          `json:"fee_bps,omitempty"`
	// V3: the quoter and the fee tiers (hundredths of a basis point).
	Quoter   common.Address `json:"quoter,omitempty"`
	FeeTiers []int64        `json:"fee_tiers,omitempty"`
	// V2Factory is the V2 factory a V3 DEX's SwapRouter02 swaps through
	// (its factoryV2): routes mixing V3 hops with V2 hops of that factory
	// become one router multicall.
	V2Factory common.Address `json:"v2_factory,omitempty"`
}

// Token is a known token of a chain.
type Token struct {
	Symbol   string         `json:"symbol"`
	Name     string         `json:"name,omitempty"`
	Address  common.Address `json:"address"`
	Decimals uint8          `json:"decimals"`
	// Source is the token list it came from; "" is the configuration.
	Source string `json:"-"`
}

// Default returns the embedded configuration.
func Default() *Config {
	c, err := Parse(defaultJSON)
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return c
}

// Load reads a configuration file; "" is the embedded one.
func Load(path string) (*Config, error) {
	if path == "" {
		return Default(), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// Parse decodes and checks a configuration.
func Parse(b []byte) (*Config, error) {
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if c.Version == "" || len(c.Chains) == 0 {
		return nil, fmt.Errorf("%w: version and chains are required", ErrConfig)
	}
	for name, ch := range c.Chains {
		ch.Name = name
		if !slices.Contains(AllChains, name) {
			return nil, fmt.Errorf("%w: unknown chain %q", ErrConfig, name)
		}
		if ch.Kind != "evm" && ch.Kind != "solana" {
			return nil, fmt.Errorf("%w: %s: kind must be evm or solana", ErrConfig, name)
		}
		for _, d := range ch.DEXes {
			if d.Kind != "v2" && d.Kind != "v3" || d.Kind == "v3" && (d.Quoter == (common.Address{}) || len(d.FeeTiers) == 0) {
				return nil, fmt.Errorf("%w: %s: DEX %q must be kind v2, or v3 with a quoter and fee tiers", ErrConfig, name, d.Name)
			}
		}
		for _, l := range ch.Lending {
			if l.Kind != "aave-v3" && l.Kind != "compound-v3" || l.Address == (common.Address{}) {
				return nil, fmt.Errorf("%w: %s: lending market %q must be kind aave-v3 or compound-v3 with an address", ErrConfig, name, l.Name)
			}
		}
		if ch.Kind == "evm" && (ch.WrappedNative == (common.Address{}) || ch.USDC == (common.Address{}) || ch.Multicall3 == (common.Address{})) {
			return nil, fmt.Errorf("%w: %s: wrapped_native, usdc and multicall3 are required", ErrConfig, name)
		}
	}
	return &c, nil
}

// SetRPC replaces the RPC endpoints of a chain ("chain=url[,url]").
func (c *Config) SetRPC(spec string) error {
	name, urls, ok := strings.Cut(spec, "=")
	ch := c.Chains[strings.TrimSpace(name)]
	if !ok || ch == nil || urls == "" {
		return fmt.Errorf("%w: --crypto-rpc wants chain=URL, got %q", ErrConfig, spec)
	}
	ch.RPC = strings.Split(urls, ",")
	return nil
}

// TokenBySymbol finds a token of the chain by symbol, case-insensitively:
// a configured one first, then a listed one.
func (ch *Chain) TokenBySymbol(sym string) (Token, bool) {
	for _, l := range [][]Token{ch.Tokens, ch.Listed} {
		for _, t := range l {
			if strings.EqualFold(t.Symbol, sym) {
				return t, true
			}
		}
	}
	return Token{}, false
}

// TokenByAddress finds a known token by address.
func (ch *Chain) TokenByAddress(a common.Address) (Token, bool) {
	for _, t := range ch.Tokens {
		if t.Address == a {
			return t, true
		}
	}
	return Token{}, false
}
