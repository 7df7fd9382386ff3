package tokenaudit

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/num"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/proxy"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/sell"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/token"
)

// Input is the input of token_audit and token_report.
type Input struct {
	Chain   string `json:"chain" doc:"Chain of the token." enum:"ethereum|base|arbitrum|optimism|polygon|bsc|solana"`
	Address string `json:"address" doc:"Token contract address, or the mint address on Solana." minLength:"1" maxLength:"64"`
}

// Validate checks the address form for EVM chains.
func (in *Input) Validate() error {
	if in.Chain == "solana" {
		if !market.IsSolanaAddress(in.Address) {
			return apierr.Invalid("address", "want a base58 Solana mint address")
		}
		return nil
	}
	if !call.IsAddress(in.Address) {
		return apierr.Invalid("address", "want 0x followed by 40 hex digits")
	}
	return nil
}

// Flag is one finding. Severity is critical, high, medium, low or info.
type Flag struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Title    string `json:"title"`
	Detail   string `json:"detail"`
}

var severityRank = map[string]int{"critical": 4, "high": 3, "medium": 2, "low": 1, "info": 0}

// Output is the answer of token_audit.
type Output struct {
	Chain     string         `json:"chain"`
	Address   string         `json:"address"`
	Token     token.Summary  `json:"token"`
	RiskLevel string         `json:"risk_level"` // the worst flag: critical, high, medium, low or none
	Flags     []Flag         `json:"flags"`
	Owner     string         `json:"owner,omitempty"`
	Proxy     *proxy.Info    `json:"proxy,omitempty"`
	Liquidity *LiquidityInfo `json:"liquidity,omitempty"`
	Holders   *HolderInfo    `json:"holders,omitempty"`
	SellTest  *sell.Test     `json:"sell_test,omitempty"`
	Block     uint64         `json:"block"`
	CheckedAt time.Time      `json:"checked_at"`
}

// LiquidityInfo is the deepest pool and how much of its LP supply is
// burned (sent to the zero or dead address).
type LiquidityInfo struct {
	Pool      string  `json:"pool"`
	DEX       string  `json:"dex"`
	Quote     string  `json:"quote_token"`
	DepthUSD  float64 `json:"depth_usd"`
	LockedPct float64 `json:"lp_burned_pct"`
	Locked    bool    `json:"locked"`
}

// HolderInfo is the concentration among recent holders (addresses seen in
// Transfer logs of the last window blocks), pools and burn addresses
// excluded.
type HolderInfo struct {
	WindowBlocks uint64        `json:"window_blocks"`
	Seen         int           `json:"holders_seen"`
	Top10Pct     float64       `json:"top10_pct"`
	Top          []HolderShare `json:"top"`
}

// HolderShare is one holder's share of the supply.
type HolderShare struct {
	Address string  `json:"address"`
	Pct     float64 `json:"pct"`
}

// Selector groups looked for in the bytecode (PUSH4 operands).
var privilegeSigs = map[string][]string{
	"mint":      {"mint(address,uint256)", "mint(uint256)", "mintTo(address,uint256)"},
	"pause":     {"pause()", "setPaused(bool)"},
	"blacklist": {"blacklist(address,bool)", "blacklist(address)", "addToBlacklist(address)", "setBlacklist(address,bool)", "blacklistAddress(address,bool)", "addBlackList(address)", "setBots(address[],bool)", "setBot(address,bool)"},
	"fees":      {"setFee(uint256)", "setFees(uint256,uint256)", "setTaxFee(uint256)", "setBuyFee(uint256)", "setSellFee(uint256)", "setTaxes(uint256,uint256)", "updateFees(uint256,uint256)"},
	"limits":    {"setMaxTxAmount(uint256)", "setMaxWalletSize(uint256)", "setMaxWallet(uint256)"},
	"trading":   {"enableTrading()", "setTradingEnabled(bool)", "openTrading()"},
	"upgrade":   {"upgradeTo(address)", "upgradeToAndCall(address,bytes)"},
}

// selectors returns the 4-byte constants pushed by code: a superset of the
// function selectors its dispatcher compares against.
func selectors(code []byte) map[[4]byte]bool {
	out := map[[4]byte]bool{}
	for i := 0; i < len(code); i++ {
		op := code[i]
		if op == 0x63 && i+4 < len(code) { // PUSH4
			out[[4]byte(code[i+1:i+5])] = true
		}
		if op >= 0x60 && op <= 0x7f { // skip PUSH data
			i += int(op-0x60) + 1
		}
	}
	return out
}

func present(sel map[[4]byte]bool, group string) []string {
	var hit []string
	for _, s := range privilegeSigs[group] {
		if sel[[4]byte(crypto.Keccak256([]byte(s))[:4])] {
			hit = append(hit, s)
		}
	}
	return hit
}

// Audit is the analysis of a token that token_audit answers with and
// token_report builds on.
type Audit struct {
	Out   *Output
	c     *chain.EVM
	token common.Address
	meta  *market.TokenMeta
	// supply and owner are read at the pinned block (owner nil: the
	// token has no owner()).
	supply *big.Int
	owner  *common.Address
	q, wq  *market.Price
}

// Check refuses, before payment, an address without code (or, on Solana,
// one that is not a mint): the check of token_audit and token_report.
func (t *Tools) Check(ctx context.Context, in *Input) error {
	if in.Chain == "solana" {
		return t.checkSolanaToken(ctx, in)
	}
	c, err := t.evm.Client("chain", in.Chain)
	if err != nil {
		return err
	}
	st, err := proxy.Read(ctx, c, common.HexToAddress(in.Address))
	if err != nil {
		return err
	}
	if len(st.Code) == 0 {
		return apierr.NotFound("token_not_found", in.Address+" has no contract code on "+in.Chain)
	}
	return nil
}

// Run audits an EVM token; with sellUSD above zero it also simulates a
// sale of that many USD.
func (t *Tools) Run(ctx context.Context, in *Input, sellUSD float64) (*Audit, error) {
	c, err := t.evm.Client("chain", in.Chain)
	if err != nil {
		return nil, err
	}
	tok := common.HexToAddress(in.Address)
	st, err := proxy.Read(ctx, c, tok)
	if err != nil {
		return nil, err
	}
	if len(st.Code) == 0 {
		return nil, apierr.NotFound("token_not_found", in.Address+" has no contract code on "+in.Chain)
	}
	head, err := c.HeaderAt(ctx, nil)
	if err != nil {
		return nil, err
	}
	a := &Audit{c: c, token: tok, Out: &Output{Chain: c.Chain.Name, Address: tok.Hex(), Flags: []Flag{}, Proxy: st.Proxy,
		Block: head.Number, CheckedAt: t.cfg.Now().UTC()}}
	metas, err := market.TokenInfo(ctx, c, []common.Address{tok})
	if err != nil {
		return nil, err
	}
	a.meta = metas[tok]
	if a.meta == nil || !a.meta.OK {
		return nil, apierr.NotFound("not_a_token", in.Address+" does not answer decimals(): not an ERC-20 token")
	}
	a.Out.Token = token.Summary{Name: a.meta.Name, Symbol: a.meta.Symbol, Decimals: a.meta.Decimals}
	res, err := c.Multicall(ctx, []chain.Call{{Target: tok, Method: "owner"}, {Target: tok, Method: "totalSupply"}}, nil)
	if err != nil {
		return nil, err
	}
	if o, ok := res[0].Addr(0); ok {
		a.owner = &o
	}
	if a.supply = res[1].Big(0); a.supply != nil {
		a.Out.Token.TotalSupply = a.supply.String()
	}
	qs, err := market.USDPrices(ctx, c, []common.Address{tok, c.Chain.WrappedNative}, nil)
	if err != nil {
		return nil, err
	}
	a.q, a.wq = qs[tok], qs[c.Chain.WrappedNative]
	if a.q != nil {
		a.Out.Token.PriceUSD = num.Ptr(num.Round(a.q.PriceUSD, 10))
	}
	code := st.Code
	if st.Proxy != nil && len(st.ImplCode) > 0 {
		code = st.ImplCode
	}
	a.privileges(selectors(code))
	if err := a.liquidity(ctx); err != nil {
		return nil, err
	}
	if err := a.holders(ctx, head.Number, t.cfg.LogWindow); err != nil {
		return nil, err
	}
	if sellUSD > 0 {
		s := a.Sell(ctx, []float64{sellUSD})[0]
		a.Out.SellTest = &s
	}
	a.Finish()
	return a, nil
}

func (a *Audit) flag(id, sev, title, detail string) {
	a.Out.Flags = append(a.Out.Flags, Flag{ID: id, Severity: sev, Title: title, Detail: detail})
}

// privileges reads owner() and flags privileged functions; a privilege is
// serious only while someone holds it.
func (a *Audit) privileges(sel map[[4]byte]bool) {
	owned := false
	if a.owner != nil {
		o := *a.owner
		if o == (common.Address{}) || o == deadAddr {
			a.flag("ownership_renounced", "info", "Ownership renounced", "owner() is "+o.Hex()+": owner-only functions can no longer be called.")
		} else {
			owned = true
			a.Out.Owner = o.Hex()
			a.flag("owner", "low", "Token has an owner", "owner() is "+o.Hex()+", who can call the owner-only functions listed in other flags.")
		}
	}
	live := owned || a.Out.Proxy != nil
	sevIf := func(s string) string {
		if live {
			return s
		}
		return "low"
	}
	if hit := present(sel, "mint"); len(hit) > 0 {
		a.flag("mint", sevIf("high"), "Supply can be increased", "The code has "+strings.Join(hit, ", ")+": new tokens can be minted, diluting holders.")
	}
	if hit := present(sel, "pause"); len(hit) > 0 {
		a.flag("pause", sevIf("medium"), "Transfers can be paused", "The code has "+strings.Join(hit, ", ")+".")
	}
	if hit := present(sel, "blacklist"); len(hit) > 0 {
		a.flag("blacklist", sevIf("medium"), "Addresses can be blacklisted", "The code has "+strings.Join(hit, ", ")+": a holder can be blocked from transferring.")
	}
	if hit := present(sel, "fees"); len(hit) > 0 {
		a.flag("fee_setter", sevIf("medium"), "Transfer fees can be changed", "The code has "+strings.Join(hit, ", ")+": the tax on buys or sells can be raised.")
	}
	if hit := present(sel, "limits"); len(hit) > 0 {
		a.flag("tx_limits", sevIf("low"), "Transaction or wallet limits can be set", "The code has "+strings.Join(hit, ", ")+".")
	}
	if hit := present(sel, "trading"); len(hit) > 0 {
		a.flag("trading_switch", sevIf("medium"), "Trading can be switched", "The code has "+strings.Join(hit, ", ")+".")
	}
	if p := a.Out.Proxy; p != nil {
		d := fmt.Sprintf("%s proxy delegating to %s", p.Type, p.Implementation)
		if p.Admin != "" {
			d += "; admin " + p.Admin + " can replace the implementation and with it every rule of the token"
		}
		a.flag("upgradeable", "high", "Upgradeable proxy", d+".")
	}
}

var deadAddr = common.HexToAddress("0x000000000000000000000000000000000000dEaD")

// liquidity reports the deepest pool and how much of its LP supply is
// burned.
func (a *Audit) liquidity(ctx context.Context) error {
	if a.q == nil || a.q.Pool == nil {
		a.flag("no_liquidity", "high", "No pool against USDC or the wrapped native token", "The token cannot be sold on the configured exchanges.")
		return nil
	}
	p := a.q.Pool
	quote := "USDC"
	if p.Other(a.token) != a.c.Chain.USDC {
		quote = "wrapped native"
	}
	li := &LiquidityInfo{Pool: p.Addr.Hex(), DEX: p.DEX.Name, Quote: quote, DepthUSD: num.Round(a.q.PoolDepth, 8)}
	a.Out.Liquidity = li
	res, err := a.c.Multicall(ctx, []chain.Call{
		{Target: p.Addr, Method: "balanceOf", Args: []any{deadAddr}},
		{Target: p.Addr, Method: "balanceOf", Args: []any{common.Address{}}},
	}, nil)
	if err != nil {
		return err
	}
	burned := new(big.Int)
	for _, r := range res {
		if v := r.Big(0); v != nil {
			burned.Add(burned, v)
		}
	}
	if p.LPSupply != nil && p.LPSupply.Sign() > 0 {
		f, _ := new(big.Float).Quo(new(big.Float).SetInt(burned), new(big.Float).SetInt(p.LPSupply)).Float64()
		li.LockedPct = num.Round(f*100, 6)
	}
	li.Locked = li.LockedPct >= 95
	if li.Locked {
		a.flag("liquidity_locked", "info", "Liquidity is burned", fmt.Sprintf("%.2f%% of the LP tokens of %s are at the zero or dead address.", li.LockedPct, p.Addr.Hex()))
	} else {
		a.flag("liquidity_unlocked", "high", "Liquidity can be withdrawn", fmt.Sprintf("Only %.2f%% of the LP tokens of %s are burned; the holders of the rest can pull the liquidity (lockers are not recognised).", li.LockedPct, p.Addr.Hex()))
	}
	if li.DepthUSD < 10_000 {
		a.flag("thin_liquidity", "medium", "Thin liquidity", fmt.Sprintf("The deepest pool holds about %.0f USD.", li.DepthUSD))
	}
	return nil
}

// holders reads Transfer logs of the last window blocks (one eth_getLogs)
// and the balances of the receivers (one Multicall3 call, at most 300).
func (a *Audit) holders(ctx context.Context, head, window uint64) error {
	if a.supply == nil || a.supply.Sign() == 0 {
		return nil
	}
	from := uint64(0)
	if head > window {
		from = head - window
	}
	var logs []struct {
		Topics []common.Hash `json:"topics"`
	}
	topic := chain.ABI.Events["Transfer"].ID
	q := map[string]any{"address": a.token, "fromBlock": hexutil.EncodeUint64(from), "toBlock": hexutil.EncodeUint64(head), "topics": []any{topic}}
	if err := a.c.Call(ctx, &logs, "eth_getLogs", q); err != nil {
		a.flag("holders_unknown", "info", "Holder concentration not measured", "The node refused the log query: "+apierr.From(err).Message)
		return nil
	}
	seen := map[common.Address]bool{}
	var addrs []common.Address
	for i := len(logs) - 1; i >= 0 && len(addrs) < 300; i-- {
		if len(logs[i].Topics) < 3 {
			continue
		}
		to := common.BytesToAddress(logs[i].Topics[2][12:])
		if !seen[to] {
			seen[to] = true
			addrs = append(addrs, to)
		}
	}
	exclude := map[common.Address]bool{{}: true, deadAddr: true, a.token: true}
	if a.q != nil {
		for _, s := range a.q.Sources {
			exclude[common.HexToAddress(s.Pool)] = true
		}
	}
	var calls []chain.Call
	var who []common.Address
	for _, h := range addrs {
		if !exclude[h] {
			calls = append(calls, chain.Call{Target: a.token, Method: "balanceOf", Args: []any{h}})
			who = append(who, h)
		}
	}
	res, err := a.c.Multicall(ctx, calls, nil)
	if err != nil {
		return err
	}
	var shares []HolderShare
	for i, r := range res {
		if v := r.Big(0); v != nil && v.Sign() > 0 {
			f, _ := new(big.Float).Quo(new(big.Float).SetInt(v), new(big.Float).SetInt(a.supply)).Float64()
			shares = append(shares, HolderShare{Address: who[i].Hex(), Pct: num.Round(f*100, 6)})
		}
	}
	sort.Slice(shares, func(i, j int) bool { return shares[i].Pct > shares[j].Pct })
	hi := &HolderInfo{WindowBlocks: head - from, Seen: len(shares), Top: shares[:min(10, len(shares))]}
	for _, s := range hi.Top {
		hi.Top10Pct += s.Pct
	}
	hi.Top10Pct = num.Round(hi.Top10Pct, 6)
	a.Out.Holders = hi
	switch {
	case len(shares) > 0 && shares[0].Pct > 50:
		a.flag("holder_concentration", "high", "One holder owns most of the supply", fmt.Sprintf("%s holds %.2f%% of the supply.", shares[0].Address, shares[0].Pct))
	case hi.Top10Pct > 50:
		a.flag("holder_concentration", "medium", "Supply is concentrated", fmt.Sprintf("The ten largest recent holders own %.2f%%.", hi.Top10Pct))
	}
	return nil
}

// Sell simulates sales of each usd worth of the token to USDC (one batch,
// package sell) and flags what they show.
func (a *Audit) Sell(ctx context.Context, usd []float64) []sell.Test {
	var sales []sell.Sale
	for _, u := range usd {
		sales = append(sales, sell.Sale{Token: a.token, Decimals: a.meta.Decimals, Price: a.q, USD: u})
	}
	sts := sell.Simulate(ctx, a.c, a.wq, sales)
	for _, s := range sts {
		a.sellFlags(s)
	}
	return sts
}

// sellFlags turns a simulated sale into flags.
func (a *Audit) sellFlags(s sell.Test) {
	switch {
	case s.Reverted:
		if !slices.ContainsFunc(a.Out.Flags, func(f Flag) bool { return f.ID == "honeypot" }) {
			a.flag("honeypot", "critical", "Cannot be sold", fmt.Sprintf("A simulated sale of %.0f USD worth reverted: %s.", s.USD, s.RevertReason))
		}
	case s.EffectiveTaxPc != nil && *s.EffectiveTaxPc > 10:
		a.flag("sell_tax", "high", "High sell tax", fmt.Sprintf("A simulated sale of %.0f USD lost %.2f%% to transfer tax.", s.USD, *s.EffectiveTaxPc))
	case s.EffectiveTaxPc != nil && *s.EffectiveTaxPc > 0.5:
		if !slices.ContainsFunc(a.Out.Flags, func(f Flag) bool { return f.ID == "sell_tax" }) {
			a.flag("sell_tax", "medium", "Sell tax", fmt.Sprintf("A simulated sale of %.0f USD lost %.2f%% to transfer tax.", s.USD, *s.EffectiveTaxPc))
		}
	}
}

// Finish sorts flags by severity and sets the risk level.
func (a *Audit) Finish() {
	sort.SliceStable(a.Out.Flags, func(i, j int) bool {
		return severityRank[a.Out.Flags[i].Severity] > severityRank[a.Out.Flags[j].Severity]
	})
	a.Out.RiskLevel = "none"
	if len(a.Out.Flags) > 0 && a.Out.Flags[0].Severity != "info" {
		a.Out.RiskLevel = a.Out.Flags[0].Severity
	}
}

func (t *Tools) tokenAudit(ctx context.Context, in *Input) (*Output, error) {
	if in.Chain == "solana" {
		return t.Solana(ctx, in)
	}
	a, err := t.Run(ctx, in, 100)
	if err != nil {
		return nil, err
	}
	return a.Out, nil
}
