package chain

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// UniswapDefaultList is where scripts/setup.sh installs the Uniswap Labs
// default token list (npm @uniswap/default-token-list, pinned in
// tokenlists/package.json), relative to the token lists directory.
const UniswapDefaultList = "node_modules/@uniswap/default-token-list/build/uniswap-default.tokenlist.json"

// TokenList is a token list in the Token Lists format
// (github.com/Uniswap/token-lists: name, version, tokens with chainId,
// address, symbol, name, decimals).
type TokenList struct {
	Name    string `json:"name"`
	Version struct {
		Major int `json:"major"`
		Minor int `json:"minor"`
		Patch int `json:"patch"`
	} `json:"version"`
	Tokens []struct {
		ChainID  uint64 `json:"chainId"`
		Address  string `json:"address"`
		Symbol   string `json:"symbol"`
		Name     string `json:"name"`
		Decimals uint8  `json:"decimals"`
	} `json:"tokens"`
}

// Label names the list and its version, as answers cite it.
func (l *TokenList) Label() string {
	return fmt.Sprintf("%s token list %d.%d.%d", l.Name, l.Version.Major, l.Version.Minor, l.Version.Patch)
}

// LoadTokenList reads a token list file.
func LoadTokenList(path string) (*TokenList, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l TokenList
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%w: token list %s: %v", ErrConfig, filepath.Base(path), err)
	}
	if l.Name == "" || len(l.Tokens) == 0 {
		return nil, fmt.Errorf("%w: token list %s has no name or no tokens", ErrConfig, filepath.Base(path))
	}
	return &l, nil
}

// AddList adds the list's tokens of each EVM chain (matched by chain ID)
// to the chain's Listed tokens: symbols are looked up in the chain's
// configured tokens first, then in the lists, first entry first. Listed
// tokens serve symbol lookups only; routes, portfolios and yields use the
// configured tokens. Entries that are not EVM addresses are skipped.
func (c *Config) AddList(l *TokenList) {
	for _, ch := range c.Chains {
		if ch.Kind != "evm" || ch.ChainID == 0 {
			continue
		}
		for _, t := range l.Tokens {
			if t.ChainID != ch.ChainID || !common.IsHexAddress(t.Address) || !strings.HasPrefix(t.Address, "0x") {
				continue
			}
			ch.Listed = append(ch.Listed, Token{Symbol: t.Symbol, Name: t.Name, Address: common.HexToAddress(t.Address),
				Decimals: t.Decimals, Source: l.Label()})
		}
	}
}

// wrappedForms are the symbols of the wrapped tokens a coin without an EVM
// contract is priced as, most traded first.
var wrappedForms = map[string][]string{"BTC": {"WBTC", "cbBTC"}}

// Resolve finds a symbol's token on the chain: the token of that symbol,
// or for a coin that has no contract on EVM chains (BTC) its first listed
// wrapped form (WBTC, then cbBTC). Alias is the symbol actually found
// when it differs from sym.
func (ch *Chain) Resolve(sym string) (tok Token, alias string, ok bool) {
	if t, ok := ch.TokenBySymbol(sym); ok {
		return t, "", true
	}
	for _, w := range wrappedForms[strings.ToUpper(sym)] {
		if t, ok := ch.TokenBySymbol(w); ok {
			return t, t.Symbol, true
		}
	}
	return Token{}, "", false
}
