package portfolio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/num"
)

// Input is the input of wallet_portfolio.
type Input struct {
	Address string  `json:"address" doc:"Wallet: 0x address (EVM chains) or base58 Solana address." minLength:"1" maxLength:"64"`
	Chains  string  `json:"chains,omitempty" doc:"EVM only: comma list of ethereum, base, arbitrum, optimism, polygon, bsc; default all." maxLength:"100"`
	Tokens  string  `json:"tokens,omitempty" doc:"EVM only: up to 20 extra tokens as chain:0x..., comma-separated." maxLength:"1400"`
	MinUSD  float64 `json:"min_usd,omitempty" doc:"Leave out holdings worth less (holdings without a price are kept only at 0)." min:"0" default:"0"`
}

// Validate checks the address form and the EVM-only options.
func (in *Input) Validate() error {
	solana := market.IsSolanaAddress(in.Address)
	if !solana && !call.IsAddress(in.Address) {
		return apierr.Invalid("address", "want a 0x address or a base58 Solana address")
	}
	if solana && (in.Chains != "" || in.Tokens != "") {
		return apierr.Invalid("chains", "chains and tokens apply to EVM addresses only")
	}
	for _, c := range call.List(in.Chains) {
		if !slices.Contains(chain.EVMChains, strings.ToLower(c)) {
			return apierr.Invalid("chains", fmt.Sprintf("unknown EVM chain %q", c))
		}
	}
	toks := call.List(in.Tokens)
	if len(toks) > 20 {
		return apierr.Invalid("tokens", fmt.Sprintf("at most 20 tokens, got %d", len(toks)))
	}
	for _, tk := range toks {
		ch, addr, ok := strings.Cut(tk, ":")
		if !ok || !slices.Contains(chain.EVMChains, strings.ToLower(ch)) || !call.IsAddress(addr) {
			return apierr.Invalid("tokens", fmt.Sprintf("want chain:0x..., got %q", tk))
		}
	}
	return nil
}

// Output is the answer of wallet_portfolio.
type Output struct {
	Address   string    `json:"address"`
	Kind      string    `json:"kind"` // evm or solana
	Chains    []Chain   `json:"chains"`
	TotalUSD  float64   `json:"total_usd"`
	Complete  bool      `json:"complete"` // every chain answered
	CheckedAt time.Time `json:"checked_at"`
}

// Chain is one chain's holdings.
type Chain struct {
	Chain    string    `json:"chain"`
	Native   *Holding  `json:"native,omitempty"`
	Tokens   []Holding `json:"tokens"`
	TotalUSD float64   `json:"total_usd"`
	Error    string    `json:"error,omitempty"`
	Note     string    `json:"note,omitempty"`
}

// Holding is one balance.
type Holding struct {
	Address  string   `json:"address,omitempty"` // token contract or mint
	Symbol   string   `json:"symbol,omitempty"`
	Name     string   `json:"name,omitempty"`
	Decimals uint8    `json:"decimals"`
	Raw      string   `json:"balance_raw"`
	Balance  float64  `json:"balance"`
	PriceUSD *float64 `json:"price_usd,omitempty"`
	USD      *float64 `json:"usd,omitempty"`
}

// Portfolio answers wallet_portfolio; wallet_report starts from it.
func (t *Tools) Portfolio(ctx context.Context, in *Input) (*Output, error) {
	if market.IsSolanaAddress(in.Address) {
		return t.solanaPortfolio(ctx, in)
	}
	owner := common.HexToAddress(in.Address)
	names := call.List(strings.ToLower(in.Chains))
	if len(names) == 0 {
		for _, n := range chain.EVMChains {
			if t.evm[n] != nil {
				names = append(names, n)
			}
		}
	}
	extra := map[string][]common.Address{}
	for _, tk := range call.List(in.Tokens) {
		ch, addr, _ := strings.Cut(tk, ":")
		extra[strings.ToLower(ch)] = append(extra[strings.ToLower(ch)], common.HexToAddress(addr))
	}
	out := &Output{Address: owner.Hex(), Kind: "evm", Chains: make([]Chain, len(names)), Complete: true, CheckedAt: t.now().UTC()}
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cp, err := t.chainPortfolio(ctx, n, owner, extra[n], in.MinUSD)
			if err != nil {
				t.logger.Warn("crypto: portfolio chain failed", "chain", n, "err", err)
				errs[i] = err
				cp = Chain{Chain: n, Tokens: []Holding{}, Error: apierr.From(err).Message}
			}
			out.Chains[i] = cp
		}()
	}
	wg.Wait()
	failed := 0
	for i, e := range errs {
		if e != nil {
			failed++
			out.Complete = false
			continue
		}
		out.TotalUSD += out.Chains[i].TotalUSD
	}
	if failed == len(names) {
		return nil, errors.Join(errs...)
	}
	out.TotalUSD = num.Round(out.TotalUSD, 10)
	return out, nil
}

// chainPortfolio: one Multicall3 call for the native and token balances,
// then the prices of what is held.
func (t *Tools) chainPortfolio(ctx context.Context, name string, owner common.Address, extra []common.Address, minUSD float64) (Chain, error) {
	c, ok := t.evm[name]
	if !ok {
		return Chain{}, apierr.New(apierr.ErrUnavailable, "chain_not_configured", name+" has no RPC endpoint configured")
	}
	var toks []common.Address
	for _, tk := range c.Chain.Tokens {
		toks = append(toks, tk.Address)
	}
	for _, a := range extra {
		if !slices.Contains(toks, a) {
			toks = append(toks, a)
		}
	}
	calls := []chain.Call{{Target: c.Chain.Multicall3, Method: "getEthBalance", Args: []any{owner}}}
	for _, a := range toks {
		calls = append(calls, chain.Call{Target: a, Method: "balanceOf", Args: []any{owner}})
	}
	// The pools and metadata of every token that may be held ride along
	// with the balances: a cold call then reads the pools' state only.
	pairs, all := market.DirectPairs(c, toks)
	market.WantPools(ctx, c, pairs)
	market.WantMeta(ctx, c, all)
	res, err := c.Multicall(ctx, calls, nil)
	if err != nil {
		return Chain{}, err
	}
	held := []common.Address{c.Chain.WrappedNative}
	bal := map[common.Address]*big.Int{}
	for i, a := range toks {
		if v := res[i+1].Big(0); v != nil && v.Sign() > 0 {
			bal[a] = v
			held = append(held, a)
		}
	}
	prices, err := market.USDPrices(ctx, c, held, nil)
	if err != nil {
		return Chain{}, err
	}
	meta, err := market.TokenInfo(ctx, c, held)
	if err != nil {
		return Chain{}, err
	}
	cp := Chain{Chain: name, Tokens: []Holding{}}
	nat := res[0].Big(0)
	if nat == nil {
		nat = new(big.Int)
	}
	cp.Native = &Holding{Symbol: c.Chain.Native, Decimals: 18, Raw: nat.String(), Balance: market.ToFloat(nat, 18)}
	if q := prices[c.Chain.WrappedNative]; q != nil {
		cp.Native.PriceUSD, cp.Native.USD = num.Ptr(num.Round(q.PriceUSD, 10)), num.Ptr(num.Round(cp.Native.Balance*q.PriceUSD, 10))
		cp.TotalUSD += *cp.Native.USD
	}
	for _, a := range held[1:] {
		m := meta[a]
		if m == nil || !m.OK {
			continue
		}
		h := Holding{Address: a.Hex(), Symbol: m.Symbol, Name: m.Name, Decimals: m.Decimals, Raw: bal[a].String(), Balance: market.ToFloat(bal[a], m.Decimals)}
		if q := prices[a]; q != nil {
			h.PriceUSD, h.USD = num.Ptr(num.Round(q.PriceUSD, 10)), num.Ptr(num.Round(h.Balance*q.PriceUSD, 10))
		}
		if minUSD > 0 && (h.USD == nil || *h.USD < minUSD) {
			continue
		}
		if h.USD != nil {
			cp.TotalUSD += *h.USD
		}
		cp.Tokens = append(cp.Tokens, h)
	}
	sort.SliceStable(cp.Tokens, func(i, j int) bool { return usdOf(cp.Tokens[i]) > usdOf(cp.Tokens[j]) })
	cp.TotalUSD = num.Round(cp.TotalUSD, 10)
	return cp, nil
}

func usdOf(h Holding) float64 {
	if h.USD == nil {
		return -1
	}
	return *h.USD
}

// splTokenProgram owns classic SPL token accounts.
const splTokenProgram = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"

// solanaPortfolio reads the SOL balance and the SPL token accounts
// (jsonParsed), priced from the Whirlpool pools (solanaUSD).
func (t *Tools) solanaPortfolio(ctx context.Context, in *Input) (*Output, error) {
	if t.sol == nil {
		return nil, apierr.New(apierr.ErrUnavailable, "chain_not_configured", "solana has no RPC endpoint configured")
	}
	var balance struct {
		Value json.Number `json:"value"`
	}
	if err := t.sol.Call(ctx, &balance, "getBalance", in.Address); err != nil {
		return nil, chain.SolanaErr(err)
	}
	var accts struct {
		Value []struct {
			Pubkey  string `json:"pubkey"`
			Account struct {
				Data struct {
					Parsed struct {
						Info struct {
							Mint        string `json:"mint"`
							TokenAmount struct {
								Amount         string `json:"amount"`
								Decimals       uint8  `json:"decimals"`
								UIAmountString string `json:"uiAmountString"`
							} `json:"tokenAmount"`
						} `json:"info"`
					} `json:"parsed"`
				} `json:"data"`
			} `json:"account"`
		} `json:"value"`
	}
	if err := t.sol.Call(ctx, &accts, "getTokenAccountsByOwner", in.Address,
		map[string]string{"programId": splTokenProgram}, map[string]string{"encoding": "jsonParsed"}); err != nil {
		return nil, chain.SolanaErr(err)
	}
	lam, _ := new(big.Int).SetString(balance.Value.String(), 10)
	if lam == nil {
		return nil, apierr.New(apierr.ErrUpstream, "rpc_bad_answer", "solana: getBalance value is not an integer")
	}
	cp := Chain{Chain: "solana", Tokens: []Holding{},
		Native: &Holding{Symbol: "SOL", Decimals: 9, Raw: lam.String(), Balance: market.ToFloat(lam, 9)},
		Note:   "Solana holdings have no USD prices here (no Whirlpool configuration); min_usd does not apply."}
	for _, a := range accts.Value {
		ta := a.Account.Data.Parsed.Info.TokenAmount
		v, ok := new(big.Int).SetString(ta.Amount, 10)
		if !ok || v.Sign() == 0 {
			continue
		}
		cp.Tokens = append(cp.Tokens, Holding{Address: a.Account.Data.Parsed.Info.Mint, Decimals: ta.Decimals, Raw: v.String(), Balance: market.ToFloat(v, ta.Decimals)})
	}
	if err := t.priceSolana(ctx, &cp); err != nil {
		return nil, err
	}
	return &Output{Address: in.Address, Kind: "solana", Chains: []Chain{cp}, TotalUSD: cp.TotalUSD, Complete: true, CheckedAt: t.now().UTC()}, nil
}

// solanaUSD prices holdings of SOL (lamports) and up to 20 mints; a mint
// without a pool has no price.
func (t *Tools) solanaUSD(ctx context.Context, mints []string) (map[string]*market.SolQuote, error) {
	w := market.SolWhirlpool(t.sol)
	if w == nil {
		return nil, nil
	}
	if len(mints) > 20 {
		mints = mints[:20]
	}
	m, err := market.SolPrices(ctx, t.sol, mints)
	if err != nil {
		return nil, err
	}
	return m.Quotes, nil
}

// priceSolana adds USD prices and values to a Solana portfolio.
func (t *Tools) priceSolana(ctx context.Context, cp *Chain) error {
	w := market.SolWhirlpool(t.sol)
	if w == nil {
		return nil
	}
	var mints []string
	for _, h := range cp.Tokens {
		mints = append(mints, h.Address)
	}
	qs, err := t.solanaUSD(ctx, mints)
	if err != nil {
		// The holdings stand without prices.
		cp.Note = "USD prices unavailable: " + err.Error()
		return nil
	}
	set := func(h *Holding, q *market.SolQuote) {
		if q == nil || q.PriceUSD <= 0 {
			return
		}
		h.PriceUSD, h.USD = num.Ptr(num.Round(q.PriceUSD, 10)), num.Ptr(num.Round(h.Balance*q.PriceUSD, 10))
		cp.TotalUSD += *h.USD
	}
	cp.Note = "USD prices from Orca Whirlpool pools against USDC and SOL (the first 20 token accounts); min_usd does not apply."
	set(cp.Native, qs[w.WSOLMint])
	for i := range cp.Tokens {
		set(&cp.Tokens[i], qs[cp.Tokens[i].Address])
	}
	cp.TotalUSD = num.Round(cp.TotalUSD, 10)
	return nil
}
