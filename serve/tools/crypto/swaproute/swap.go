package swaproute

import (
	"context"
	"errors"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/num"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/token"
)

// Input is the input of swap_route.
type Input struct {
	Chain       string `json:"chain" doc:"EVM chain." enum:"ethereum|base|arbitrum|optimism|polygon|bsc"`
	TokenIn     string `json:"token_in" doc:"Token sold: address, a symbol of the chain's token list, or native (handled as the wrapped token)." minLength:"1" maxLength:"64"`
	TokenOut    string `json:"token_out" doc:"Token bought, in the same forms." minLength:"1" maxLength:"64"`
	Amount      string `json:"amount,omitempty" doc:"Amount sold in normal units (1.5). Give this or amount_raw." maxLength:"80"`
	AmountRaw   string `json:"amount_raw,omitempty" doc:"Amount sold in base units." maxLength:"80"`
	SlippageBps int    `json:"slippage_bps,omitempty" doc:"Tolerated slippage for the minimum output." min:"1" max:"5000" default:"50"`
	Sender      string `json:"sender,omitempty" doc:"Wallet that would swap: adds an unsigned transaction and the allowance check." maxLength:"42"`
}

var (
	decimalRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	integerRE = regexp.MustCompile(`^[0-9]+$`)
)

// Validate checks the amount forms and the sender.
func (in *Input) Validate() error {
	switch {
	case (in.Amount == "") == (in.AmountRaw == ""):
		return apierr.Invalid("amount", "give exactly one of amount and amount_raw")
	case in.Amount != "" && !decimalRE.MatchString(in.Amount):
		return apierr.Invalid("amount", "want a decimal number such as 1.5")
	case in.AmountRaw != "" && !integerRE.MatchString(in.AmountRaw):
		return apierr.Invalid("amount_raw", "want an integer number of base units")
	case in.Sender != "" && !call.IsAddress(in.Sender):
		return apierr.Invalid("sender", "want 0x followed by 40 hex digits")
	}
	return nil
}

// Output is the answer of swap_route.
type Output struct {
	Chain       string        `json:"chain"`
	TokenIn     token.Summary `json:"token_in"`
	TokenOut    token.Summary `json:"token_out"`
	AddressIn   string        `json:"token_in_address"`
	AddressOut  string        `json:"token_out_address"`
	NativeIn    bool          `json:"native_in,omitempty"`
	NativeOut   bool          `json:"native_out,omitempty"`
	AmountIn    string        `json:"amount_in_raw"`
	AmountInF   float64       `json:"amount_in"`
	AmountOut   string        `json:"amount_out_raw"`
	AmountOutF  float64       `json:"amount_out"`
	MinOut      string        `json:"min_amount_out_raw"`
	MinOutF     float64       `json:"min_amount_out"`
	SlippageBps int           `json:"slippage_bps"`
	// PriceImpactPct is the loss against the pools' mid prices, the DEX
	// fees excluded (LPFeePct).
	PriceImpactPct float64    `json:"price_impact_pct"`
	LPFeePct       float64    `json:"lp_fee_pct"`
	DEX            string     `json:"dex"`
	Router         string     `json:"router"`
	Hops           []Hop      `json:"hops"`
	Path           []string   `json:"path"`
	Alternatives   []AltRoute `json:"alternatives"`
	// GasEstimate comes from eth_estimateGas when the sender can swap,
	// else from a per-hop figure (GasEstimated false).
	GasEstimate uint64 `json:"gas_estimate"`
	GasFromNode bool   `json:"gas_from_node"`
	// SimulationError is why the node's estimate of the sender's swap
	// failed (a fee-on-transfer token missing the minimum, say).
	SimulationError string      `json:"simulation_error,omitempty"`
	GasCostNative   float64     `json:"gas_cost_native"`
	GasCostUSD      *float64    `json:"gas_cost_usd,omitempty"`
	ValueInUSD      *float64    `json:"value_in_usd,omitempty"`
	ValueOutUSD     *float64    `json:"value_out_usd,omitempty"`
	ValueChangeUSD  *float64    `json:"value_change_usd,omitempty"`
	ValueChangePct  *float64    `json:"value_change_pct,omitempty"`
	Allowance       *Allowance  `json:"allowance,omitempty"`
	Transaction     *UnsignedTx `json:"transaction,omitempty"`
	Block           uint64      `json:"block"`
	Note            string      `json:"note"`
	CheckedAt       time.Time   `json:"checked_at"`
}

// Hop is one pool of the route.
type Hop struct {
	Pool     string `json:"pool"`
	DEX      string `json:"dex"`
	TokenIn  string `json:"token_in"`
	TokenOut string `json:"token_out"`
	AmountIn string `json:"amount_in_raw"`
	Out      string `json:"amount_out_raw"`
}

// AltRoute is another route considered.
type AltRoute struct {
	DEX       string   `json:"dex"`
	Path      []string `json:"path"`
	AmountOut string   `json:"amount_out_raw"`
}

// Allowance is the sender's balance and allowance to the router.
type Allowance struct {
	Spender    string      `json:"spender"`
	Allowance  string      `json:"allowance_raw"`
	Sufficient bool        `json:"sufficient"`
	Balance    string      `json:"balance_raw"`
	Enough     bool        `json:"balance_sufficient"`
	Approve    *UnsignedTx `json:"approve_transaction,omitempty"`
}

// UnsignedTx is a transaction for the sender to sign; nothing is sent.
type UnsignedTx struct {
	ChainID uint64 `json:"chain_id"`
	From    string `json:"from"`
	To      string `json:"to"`
	Value   string `json:"value"`
	Data    string `json:"data"`
	Gas     uint64 `json:"gas,omitempty"`
}

func (t *Tools) swapTokens(in *Input) (*chain.EVM, token.Ref, token.Ref, error) {
	c, err := t.evm.Client("chain", in.Chain)
	if err != nil {
		return nil, token.Ref{}, token.Ref{}, err
	}
	a, err := t.tokens.Resolve("token_in", in.TokenIn, c.Chain.Name)
	if err != nil {
		return nil, token.Ref{}, token.Ref{}, err
	}
	b, err := t.tokens.Resolve("token_out", in.TokenOut, c.Chain.Name)
	if err != nil {
		return nil, token.Ref{}, token.Ref{}, err
	}
	if a.Chain != c.Chain.Name || b.Chain != c.Chain.Name {
		return nil, token.Ref{}, token.Ref{}, apierr.Invalid("token_in", "both tokens must be on "+c.Chain.Name)
	}
	if a.Addr == b.Addr {
		return nil, token.Ref{}, token.Ref{}, apierr.Invalid("token_out", "token_out is token_in")
	}
	return c, a, b, nil
}

// guessAmount is the amount of token a an input asks to swap when it can
// be known before reading the chain (in base units, or with decimals kept
// or configured), else nil: the handler reads the decimals and quotes
// that; a wrong guess only costs quotes asked in vain.
func guessAmount(c *chain.EVM, a common.Address, in *Input) *big.Int {
	if in.AmountRaw != "" {
		v, _ := new(big.Int).SetString(in.AmountRaw, 10)
		return v
	}
	if v, ok := c.Cache.Get("meta:" + a.Hex()); ok && v.(*market.TokenMeta).OK {
		return parseUnits(in.Amount, v.(*market.TokenMeta).Decimals)
	}
	if tk, ok := c.Chain.TokenByAddress(a); ok && tk.Decimals > 0 {
		return parseUnits(in.Amount, tk.Decimals)
	}
	return nil
}

// checkSwap resolves the tokens and refuses, before payment, a pair no
// configured pool connects.
func (t *Tools) checkSwap(ctx context.Context, in *Input) error {
	c, a, b, err := t.swapTokens(in)
	if err != nil {
		return err
	}
	g, err := routeGraph(ctx, c, a.Addr, b.Addr, guessAmount(c, a.Addr, in))
	if err != nil {
		return err
	}
	if len(g.paths) == 0 {
		return apierr.NotFound("no_route", "no pool route connects the two tokens on "+c.Chain.Name)
	}
	return nil
}

func (t *Tools) swapRoute(ctx context.Context, in *Input) (*Output, error) {
	c, a, b, err := t.swapTokens(in)
	if err != nil {
		return nil, err
	}
	meta, err := market.TokenInfo(ctx, c, []common.Address{a.Addr, b.Addr})
	if err != nil {
		return nil, err
	}
	ma, mb := meta[a.Addr], meta[b.Addr]
	if ma == nil || !ma.OK || mb == nil || !mb.OK {
		return nil, apierr.NotFound("not_a_token", "token_in or token_out does not answer decimals()")
	}
	amt := new(big.Int)
	if in.AmountRaw != "" {
		amt.SetString(in.AmountRaw, 10)
	} else {
		amt = parseUnits(in.Amount, ma.Decimals)
	}
	if amt.Sign() <= 0 {
		return nil, apierr.Invalid("amount", "the amount is zero")
	}
	head, err := c.HeaderAt(ctx, nil)
	if err != nil {
		return nil, err
	}
	g, err := routeGraph(ctx, c, a.Addr, b.Addr, amt)
	if err != nil {
		return nil, err
	}
	rs, err := quoteRoutes(ctx, c, g, amt)
	if err != nil {
		return nil, err
	}
	rs = slices.DeleteFunc(rs, func(r *route) bool { return r.out().Sign() == 0 })
	if len(rs) == 0 {
		return nil, apierr.NotFound("no_route", "no pool route gives any output for this amount")
	}
	best := rs[0]
	for _, r := range rs[1:] {
		if r.out().Cmp(best.out()) > 0 {
			best = r
		}
	}
	slip := in.SlippageBps
	if slip == 0 {
		slip = 50
	}
	minOut := new(big.Int).Div(new(big.Int).Mul(best.out(), big.NewInt(int64(10000-slip))), big.NewInt(10000))
	out := &Output{Chain: c.Chain.Name, AddressIn: a.Addr.Hex(), AddressOut: b.Addr.Hex(),
		NativeIn: isNative(in.TokenIn, c), NativeOut: isNative(in.TokenOut, c),
		TokenIn: token.Summary{Name: ma.Name, Symbol: ma.Symbol, Decimals: ma.Decimals}, TokenOut: token.Summary{Name: mb.Name, Symbol: mb.Symbol, Decimals: mb.Decimals},
		AmountIn: amt.String(), AmountInF: market.ToFloat(amt, ma.Decimals), AmountOut: best.out().String(), AmountOutF: market.ToFloat(best.out(), mb.Decimals),
		MinOut: minOut.String(), MinOutF: market.ToFloat(minOut, mb.Decimals), SlippageBps: slip, DEX: best.label(),
		Alternatives: []AltRoute{}, Block: head.Number, CheckedAt: t.now().UTC(),
		Note: "A quote from pool state at the given block (V2 reserves, V3 QuoterV2); nothing is sent. Fee-on-transfer tokens deliver less than quoted."}
	if pl := planSwap(best); pl.router != (common.Address{}) {
		out.Router = pl.router.Hex()
	}
	mid, feeKeep := 1.0, 1.0
	for i, h := range best.hops {
		mid *= h.mid(best.path[i])
		feeKeep *= h.feeKeep()
		out.Hops = append(out.Hops, Hop{Pool: h.addr().Hex(), DEX: h.label(), TokenIn: best.path[i].Hex(), TokenOut: best.path[i+1].Hex(),
			AmountIn: best.outs[i].String(), Out: best.outs[i+1].String()})
	}
	for _, p := range best.path {
		out.Path = append(out.Path, p.Hex())
	}
	ideal := market.ToFloat(amt, 0) * mid * feeKeep
	if ideal > 0 {
		out.PriceImpactPct = num.Round((1-market.ToFloat(best.out(), 0)/ideal)*100, 6)
	}
	out.LPFeePct = num.Round((1-feeKeep)*100, 6)
	for _, r := range rs {
		if r == best {
			continue
		}
		ap := AltRoute{DEX: r.label(), AmountOut: r.out().String()}
		for _, p := range r.path {
			ap.Path = append(ap.Path, p.Hex())
		}
		out.Alternatives = append(out.Alternatives, ap)
	}
	out.GasEstimate = best.gas()
	if err := t.swapValues(ctx, c, out, a.Addr, b.Addr, amt, best.out()); err != nil {
		return nil, err
	}
	if in.Sender != "" {
		if err := t.swapTx(ctx, c, out, best, amt, minOut, common.HexToAddress(in.Sender), head.Time); err != nil {
			return nil, err
		}
	}
	var gp hexutil.Big
	if err := c.Call(ctx, &gp, "eth_gasPrice"); err != nil {
		return nil, err
	}
	out.GasCostNative = num.Round(market.ToFloat(new(big.Int).Mul(gp.ToInt(), new(big.Int).SetUint64(out.GasEstimate)), 18), 8)
	if p, err := market.USDPrices(ctx, c, []common.Address{c.Chain.WrappedNative}, nil); err == nil && p[c.Chain.WrappedNative] != nil {
		out.GasCostUSD = num.Ptr(num.Round(out.GasCostNative*p[c.Chain.WrappedNative].PriceUSD, 6))
	}
	return out, nil
}

func isNative(s string, c *chain.EVM) bool {
	return strings.EqualFold(s, "native") || strings.EqualFold(s, c.Chain.Native)
}

// swapValues adds the USD values of both sides.
func (t *Tools) swapValues(ctx context.Context, c *chain.EVM, out *Output, a, b common.Address, amtIn, amtOut *big.Int) error {
	qs, err := market.USDPrices(ctx, c, []common.Address{a, b}, nil)
	if err != nil {
		return err
	}
	if qa, qb := qs[a], qs[b]; qa != nil && qb != nil {
		vin := out.AmountInF * qa.PriceUSD
		vout := out.AmountOutF * qb.PriceUSD
		out.ValueInUSD, out.ValueOutUSD = num.Ptr(num.Round(vin, 8)), num.Ptr(num.Round(vout, 8))
		out.ValueChangeUSD = num.Ptr(num.Round(vout-vin, 8))
		if vin > 0 {
			out.ValueChangePct = num.Ptr(num.Round((vout/vin-1)*100, 6))
		}
	}
	return nil
}

// swapTx builds the unsigned router call and checks the sender's balance
// and allowance (one Multicall3 call); when both suffice the node
// estimates the gas.
func (t *Tools) swapTx(ctx context.Context, c *chain.EVM, out *Output, r *route, amt, minOut *big.Int, sender common.Address, headTime int64) error {
	// The deadline counts from the chain's clock, 20 minutes on.
	deadline := big.NewInt(headTime + 20*60)
	pl := planSwap(r)
	if pl.router == (common.Address{}) {
		out.Note += " No configured router executes this route in one transaction (its hops are on exchanges no single router serves): no transaction is given."
		return nil
	}
	data := pl.calldata(r, amt, minOut, sender, deadline, out.NativeIn, out.NativeOut)
	tx := &UnsignedTx{ChainID: c.Chain.ChainID, From: sender.Hex(), To: pl.router.Hex(), Value: "0", Data: hexutil.Encode(data)}
	if out.NativeIn {
		// The V2 router's ETH functions take msg.value; SwapRouter02 wraps
		// it when it pays with the wrapped token.
		tx.Value = amt.String()
	}
	if out.NativeOut && pl.kind != "v2" {
		out.Note += " The route delivers the wrapped native token; unwrap it with WETH9 withdraw."
	}
	allow := &Allowance{Spender: pl.router.Hex()}
	in := r.path[0]
	calls := []chain.Call{{Target: c.Chain.Multicall3, Method: "getEthBalance", Args: []any{sender}}}
	if !out.NativeIn {
		calls = append(calls, chain.Call{Target: in, Method: "allowance", Args: []any{sender, pl.router}},
			chain.Call{Target: in, Method: "balanceOf", Args: []any{sender}})
	}
	res, err := c.Multicall(ctx, calls, nil)
	if err != nil {
		return err
	}
	if out.NativeIn {
		bal := res[0].Big(0)
		if bal == nil {
			bal = new(big.Int)
		}
		allow.Allowance, allow.Sufficient = "native", true
		allow.Balance, allow.Enough = bal.String(), bal.Cmp(amt) >= 0
	} else {
		al, bal := res[1].Big(0), res[2].Big(0)
		if al == nil || bal == nil {
			return apierr.New(apierr.ErrUpstream, "token_call_failed", "allowance or balanceOf of token_in failed")
		}
		allow.Allowance, allow.Sufficient = al.String(), al.Cmp(amt) >= 0
		allow.Balance, allow.Enough = bal.String(), bal.Cmp(amt) >= 0
		if !allow.Sufficient {
			allow.Approve = &UnsignedTx{ChainID: c.Chain.ChainID, From: sender.Hex(), To: in.Hex(), Value: "0",
				Data: hexutil.Encode(chain.Pack("approve", pl.router, amt)), Gas: 60_000}
		}
	}
	if allow.Sufficient && allow.Enough {
		var g hexutil.Uint64
		v, _ := new(big.Int).SetString(tx.Value, 10)
		to := pl.router
		msg := chain.CallArgs{From: &sender, To: &to, Value: (*hexutil.Big)(v), Data: hexutil.MustDecode(tx.Data)}
		err := c.Call(ctx, &g, "eth_estimateGas", msg)
		var re *chain.RevertError
		switch {
		case err == nil:
			out.GasEstimate, out.GasFromNode = uint64(g), true
		case errors.As(err, &re):
			out.SimulationError = re.Error()
		default:
			return err
		}
	}
	tx.Gas = out.GasEstimate * 12 / 10 // 20% headroom
	out.Allowance, out.Transaction = allow, tx
	return nil
}

// parseUnits turns "1.5" into base units, truncating extra decimals.
func parseUnits(s string, dec uint8) *big.Int {
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > int(dec) {
		frac = frac[:dec]
	}
	frac += strings.Repeat("0", int(dec)-len(frac))
	v, ok := new(big.Int).SetString(whole+frac, 10)
	if !ok {
		return new(big.Int)
	}
	return v
}
