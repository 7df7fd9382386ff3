// Package token resolves the tokens users name to the crypto tools
// (crypto_prices, swap_route): "chain:0x..", "chain:SYMBOL", a bare symbol
// looked up chain by chain, the native coin, and on Solana SOL, USDC or a
// mint address. Symbols resolve through the chain configuration, then the
// token lists installed beside it; the answer says which token a symbol
// stood for (Resolution). It also holds the token summary the tools'
// answers share (Summary).
package token

import (
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
)

// Summary is the token's metadata and price.
type Summary struct {
	Name        string   `json:"name,omitempty"`
	Symbol      string   `json:"symbol,omitempty"`
	Decimals    uint8    `json:"decimals"`
	TotalSupply string   `json:"total_supply,omitempty"`
	PriceUSD    *float64 `json:"price_usd,omitempty"`
}

// Ref is a resolved token of a chain.
type Ref struct {
	Input string
	Chain string
	Addr  common.Address
	Mint  string // solana
	// Resolved says which token a symbol stood for (nil for addresses).
	Resolved *Resolution
}

// Resolution is the token a symbol was resolved to, and from where.
type Resolution struct {
	Symbol  string `json:"symbol"`
	Name    string `json:"name,omitempty"`
	Address string `json:"address"`
	Chain   string `json:"chain"`
	// Source is "chain configuration", "native coin" or the token list
	// and its version.
	Source string `json:"source"`
	// Note explains an alias: BTC priced as a wrapped form.
	Note string `json:"note,omitempty"`
}

// Resolver resolves tokens on the family's chains.
type Resolver struct {
	EVM chain.EVMs
	Sol *chain.Solana // nil: no Solana node configured
}

// nativeSymbols map a native coin to its chain (priced as its wrapped token).
var nativeSymbols = map[string]string{"ETH": "ethereum", "POL": "polygon", "MATIC": "polygon", "BNB": "bsc"}

// symbolRef resolves a symbol on one chain: the native coin (as its wrapped
// token), a configured token, a token of the installed lists, or a wrapped
// form of a coin without an EVM contract (BTC).
func symbolRef(input, sym string, c *chain.EVM) (Ref, bool) {
	ch := c.Chain
	if strings.EqualFold(sym, "native") || strings.EqualFold(sym, ch.Native) {
		return nativeRef(input, c), true
	}
	tok, alias, ok := ch.Resolve(sym)
	if !ok {
		return Ref{}, false
	}
	r := &Resolution{Symbol: tok.Symbol, Name: tok.Name, Address: tok.Address.Hex(), Chain: ch.Name, Source: tok.Source}
	if r.Source == "" {
		r.Source = "chain configuration"
	}
	if alias != "" {
		r.Note = strings.ToUpper(sym) + " has no contract on " + ch.Name + ": priced as " + alias + ", its wrapped form there"
	}
	return Ref{Input: input, Chain: ch.Name, Addr: tok.Address, Resolved: r}, true
}

// nativeRef is the chain's native coin, priced as its wrapped token.
func nativeRef(input string, c *chain.EVM) Ref {
	ch := c.Chain
	return Ref{Input: input, Chain: ch.Name, Addr: ch.WrappedNative, Resolved: &Resolution{Symbol: ch.Native,
		Address: ch.WrappedNative.Hex(), Chain: ch.Name, Source: "native coin",
		Note: ch.Native + " is priced as its wrapped token"}}
}

// Resolve turns "chain:0x..", "chain:SYM", "SYM" or "native" (with a
// chain) into an address on a configured EVM chain. A bare symbol is
// looked up chain by chain, ethereum first. field names the input in
// errors.
func (t Resolver) Resolve(field, s, defChain string) (Ref, error) {
	s = strings.TrimSpace(s)
	name, rest, ok := strings.Cut(s, ":")
	if !ok {
		name, rest = defChain, s
	}
	name = strings.ToLower(name)
	if name == "solana" || name == "" && (strings.EqualFold(rest, "SOL") || strings.EqualFold(rest, "WSOL")) {
		return t.resolveSolana(field, s, rest)
	}
	if name == "" {
		up := strings.ToUpper(rest)
		if ch, ok := nativeSymbols[up]; ok && t.EVM[ch] != nil {
			return nativeRef(s, t.EVM[ch]), nil
		}
		for _, ch := range chain.EVMChains {
			if c := t.EVM[ch]; c != nil {
				if r, ok := symbolRef(s, rest, c); ok {
					return r, nil
				}
			}
		}
		return Ref{}, apierr.Invalid(field, "unknown symbol "+quoteStr(rest)+" (not in the configured tokens nor the installed token lists of any chain); use chain:0x... for other tokens")
	}
	c, err := t.EVM.Client(field, name)
	if err != nil {
		return Ref{}, err
	}
	if common.IsHexAddress(rest) && strings.HasPrefix(rest, "0x") {
		return Ref{Input: s, Chain: name, Addr: common.HexToAddress(rest)}, nil
	}
	if r, ok := symbolRef(s, rest, c); ok {
		return r, nil
	}
	return Ref{}, apierr.Invalid(field, "not an address or known symbol of "+name+": "+quoteStr(rest))
}

// resolveSolana turns SOL, USDC or a mint address into a Solana token.
func (t Resolver) resolveSolana(field, input, rest string) (Ref, error) {
	w := market.SolWhirlpool(t.Sol)
	if w == nil {
		return Ref{}, apierr.Invalid(field, "Solana prices are not configured on this server")
	}
	r := Ref{Input: input, Chain: "solana"}
	switch {
	case strings.EqualFold(rest, "SOL") || strings.EqualFold(rest, "WSOL") || strings.EqualFold(rest, "native"):
		r.Mint = w.WSOLMint
	case strings.EqualFold(rest, "USDC"):
		r.Mint = w.USDCMint
	case market.IsSolanaAddress(rest):
		r.Mint = rest
	default:
		return Ref{}, apierr.Invalid(field, "not a Solana mint address or SOL/USDC: "+quoteStr(rest))
	}
	return r, nil
}

// quoteStr quotes a user-given word for an error message.
func quoteStr(s string) string { return fmt.Sprintf("%q", s) }
