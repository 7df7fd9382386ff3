// Package sell simulates sales of a token for USDC, for token_audit,
// token_report and wallet_report: eth_call with state overrides places
// SellTester's code (sellcode_gen.go, compiled from
// evmtest/contracts/Infra.sol) at an address nobody controls and gives it a
// balance of the token in the token's own storage, then sells through the
// deepest pool. Nothing is signed or sent.
package sell

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/num"
)

// The simulated seller: an address nobody controls, given SellTester's code
// and a token balance by state override for the duration of one eth_call.
var (
	sellerAddr = common.HexToAddress("0x00000000000000000000000000000000005e11e7")
	callerAddr = common.HexToAddress("0x00000000000000000000000000000000000ca11e")
)

// mappingSlot is the storage key of m[key] for a Solidity mapping at slot
// (keccak256(key . slot)) or, vyper-style, keccak256(slot . key).
func mappingSlot(key common.Address, slot int64, vyper bool) common.Hash {
	k := common.LeftPadBytes(key.Bytes(), 32)
	s := common.LeftPadBytes(big.NewInt(slot).Bytes(), 32)
	if vyper {
		return crypto.Keccak256Hash(s, k)
	}
	return crypto.Keccak256Hash(k, s)
}

type balanceSlot struct {
	Slot  int64
	Vyper bool
}

// findBalanceSlot finds where the token keeps balances: one eth_call that
// overrides every candidate slot for the seller with its own probe value
// and asks balanceOf, whose answer names the slot read. Kept per token.
func findBalanceSlot(ctx context.Context, c *chain.EVM, token common.Address) (*balanceSlot, error) {
	key := "slot:" + token.Hex()
	if v, ok := c.Cache.Get(key); ok {
		return v.(*balanceSlot), nil
	}
	var cands []balanceSlot
	diff := map[common.Hash]common.Hash{}
	probe := func(i int) common.Hash { return common.BigToHash(big.NewInt(0x5e11e7_0000_0000 + int64(i) + 1)) }
	for s := int64(0); s < 10; s++ {
		for _, vyper := range []bool{false, true} {
			diff[mappingSlot(sellerAddr, s, vyper)] = probe(len(cands))
			cands = append(cands, balanceSlot{s, vyper})
		}
	}
	over := map[common.Address]chain.Override{token: {StateDiff: diff}}
	out, err := c.EthCall(ctx, chain.CallArgs{To: &token, Data: chain.Pack("balanceOf", sellerAddr)}, nil, over)
	var re *chain.RevertError
	if err != nil && !errors.As(err, &re) {
		return nil, err
	}
	var found *balanceSlot
	for i := range cands {
		if err == nil && len(out) >= 32 && common.BytesToHash(out[:32]) == probe(i) {
			found = &cands[i]
			break
		}
	}
	c.Cache.Put(key, found, chain.Forever)
	return found, nil
}

// Test is one simulated sale of the token for USDC.
type Test struct {
	USD      float64 `json:"usd"`
	AmountIn string  `json:"amount_in"` // token base units
	// ExpectedUSDC is what the path would pay without any transfer tax;
	// ReceivedUSDC what the simulation actually received.
	ExpectedUSDC   *float64 `json:"expected_usdc,omitempty"`
	ReceivedUSDC   *float64 `json:"received_usdc,omitempty"`
	EffectiveTaxPc *float64 `json:"effective_tax_pct,omitempty"`
	Reverted       bool     `json:"reverted"`
	RevertReason   string   `json:"revert_reason,omitempty"`
	Path           []string `json:"path"`
	Skipped        string   `json:"skipped,omitempty"`
	// QuoteOnly marks a sale computed from pool state (Solana) rather
	// than simulated: a transfer tax or hook would not show.
	QuoteOnly bool `json:"quote_only,omitempty"`
}

// Sale is one sale to simulate: USD worth of Token, priced by Price.
type Sale struct {
	Token    common.Address
	Decimals uint8
	Price    *market.Price
	USD      float64
}

// Simulate sells each usd worth of token to USDC through the deepest
// pool (and the wrapped-native/USDC pool when the deepest quotes in it),
// by eth_call with state overrides, all in one JSON-RPC batch: nothing is
// sent. A sale already simulated at the call's block (token_audit's and
// token_report's 100 USD sale) is answered from the read cache.
func Simulate(ctx context.Context, c *chain.EVM, wq *market.Price, sales []Sale) []Test {
	sts := make([]Test, len(sales))
	var elems []rpc.BatchElem
	var at []int
	for i, sl := range sales {
		st, args := sellCall(ctx, c, sl.Token, sl.Decimals, sl.Price, wq, sl.USD)
		sts[i] = st
		if args != nil {
			elems = append(elems, rpc.BatchElem{Method: "eth_call", Args: args, Result: new(hexutil.Bytes)})
			at = append(at, i)
		}
	}
	if err := c.Batch(ctx, elems); err != nil {
		for _, i := range at {
			sts[i].Skipped = "simulation failed: " + err.Error()
		}
		return sts
	}
	for j, e := range elems {
		sellResult(c, &sts[at[j]], *e.Result.(*hexutil.Bytes), e.Error)
	}
	return sts
}

// sellCall is the eth_call parameters of one sale, nil with the reason in
// Skipped when it cannot be simulated.
func sellCall(ctx context.Context, c *chain.EVM, token common.Address, dec uint8, q *market.Price, wq *market.Price, usd float64) (Test, []any) {
	st := Test{USD: usd, Path: []string{}}
	if q == nil || q.Pool == nil || q.PriceUSD <= 0 {
		st.Skipped = "no pool to sell into"
		return st, nil
	}
	tokens := []common.Address{token}
	pairs := []common.Address{q.Pool.Addr}
	if q.Pool.Other(token) != c.Chain.USDC {
		if wq == nil || wq.Pool == nil {
			st.Skipped = "no wrapped-native/USDC pool for the second hop"
			return st, nil
		}
		tokens = append(tokens, c.Chain.WrappedNative)
		pairs = append(pairs, wq.Pool.Addr)
	}
	tokens = append(tokens, c.Chain.USDC)
	for _, p := range pairs {
		st.Path = append(st.Path, p.Hex())
	}
	slot, err := findBalanceSlot(ctx, c, token)
	if err != nil {
		st.Skipped = "balance slot lookup failed: " + err.Error()
		return st, nil
	}
	if slot == nil {
		st.Skipped = "the token's balance storage could not be located (non-standard layout)"
		return st, nil
	}
	amt := market.FromFloat(usd/q.PriceUSD, dec)
	st.AmountIn = amt.String()
	over := map[common.Address]chain.Override{
		sellerAddr: {Code: common.FromHex(sellTesterCode)},
		token:      {StateDiff: map[common.Hash]common.Hash{mappingSlot(sellerAddr, slot.Slot, slot.Vyper): common.BigToHash(amt)}},
	}
	gas := hexutil.Uint64(5_000_000)
	msg := chain.CallArgs{From: &callerAddr, To: &sellerAddr, Gas: &gas, Data: chain.Pack("sell", tokens, pairs, amt)}
	return st, []any{msg, "latest", over}
}

// sellResult reads a sale's answer into st.
func sellResult(c *chain.EVM, st *Test, ret []byte, err error) {
	if err != nil {
		var re *chain.RevertError
		if errors.As(err, &re) {
			st.Reverted, st.RevertReason = true, re.Reason
			if st.RevertReason == "" {
				st.RevertReason = "reverted without a reason"
			}
			return
		}
		st.Skipped = "simulation failed: " + err.Error()
		return
	}
	out, err := chain.ABI.Unpack("sell", ret)
	if err != nil || len(out) != 2 {
		st.Skipped = "the simulation's answer does not decode"
		return
	}
	d := usdcDecimals(c)
	exp, rec := out[0].(*big.Int), out[1].(*big.Int)
	st.ExpectedUSDC, st.ReceivedUSDC = num.Ptr(num.Round(market.ToFloat(exp, d), 10)), num.Ptr(num.Round(market.ToFloat(rec, d), 10))
	if exp.Sign() > 0 {
		tax, _ := new(big.Float).Quo(new(big.Float).SetInt(rec), new(big.Float).SetInt(exp)).Float64()
		st.EffectiveTaxPc = num.Ptr(num.Round((1-tax)*100, 6))
		if *st.EffectiveTaxPc < 0.0001 && *st.EffectiveTaxPc > -0.0001 {
			st.EffectiveTaxPc = num.Ptr(0.0)
		}
	}
}

// usdcDecimals of the chain's USDC, from the token list (6 when unlisted).
func usdcDecimals(c *chain.EVM) uint8 {
	if t, ok := c.Chain.TokenByAddress(c.Chain.USDC); ok {
		return t.Decimals
	}
	return 6
}
