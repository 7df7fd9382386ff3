package simulate

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/explorer"
)

// facts is the chain state the risk level looks at beyond the trace.
type facts struct {
	to common.Address // the contract called
	// noCode marks approval spenders without code at the block;
	// unverified those with code that no explorer has verified.
	noCode, unverified map[common.Address]bool
	// before is the sender's balance at the block of each asset leaving
	// ("" native, else the token's address); absent when not known.
	before map[string]*big.Int
}

// riskFacts reads, at the simulation's block, the code of every spender
// approved (one batch) and the sender's balance of every asset leaving
// (one Multicall3 call, asked for with the fee's price reads).
func (t *Tools) riskFacts(ctx context.Context, c *chain.EVM, sender, to common.Address, h *header, out *Output) (facts, error) {
	f := facts{to: to, noCode: map[common.Address]bool{}, unverified: map[common.Address]bool{}, before: map[string]*big.Int{}}
	var b []rpc.BatchElem
	var after []func()
	for _, a := range out.Approvals {
		sp := common.HexToAddress(a.Spender)
		if a.Approved != nil && !*a.Approved {
			continue // a revocation
		}
		var code hexutil.Bytes
		b = append(b, rpc.BatchElem{Method: "eth_getCode", Args: []any{sp, h.tag()}, Result: &code})
		after = append(after, func() { f.noCode[sp] = len(code) == 0 })
	}
	if len(b) > 0 {
		if err := c.Batch(ctx, b); err != nil {
			return f, err
		}
		for i, e := range b {
			if e.Error == nil {
				after[i]()
			}
		}
	}
	calls, keys := leavingBalances(c, sender, out)
	res, err := c.Multicall(ctx, calls, nil) // the pinned block, h
	if err != nil {
		return f, err
	}
	for i, r := range res {
		if v := r.Big(0); v != nil {
			f.before[keys[i]] = v
		}
	}
	t.verifiedSpenders(ctx, c, out.Approvals, &f)
	return f, nil
}

// leavingBalances are the reads of the sender's balance of each native or
// ERC-20 asset leaving, as Multicall3 calls, and the key of each in
// facts.before.
func leavingBalances(c *chain.EVM, sender common.Address, out *Output) (calls []chain.Call, keys []string) {
	seen := map[string]bool{}
	for _, m := range out.Leaving {
		if seen[m.Token] || (m.Standard != "native" && m.Standard != "erc20") {
			continue
		}
		seen[m.Token] = true
		keys = append(keys, m.Token)
		if m.Standard == "native" {
			calls = append(calls, chain.Call{Target: c.Chain.Multicall3, Method: "getEthBalance", Args: []any{sender}})
			continue
		}
		calls = append(calls, chain.Call{Target: common.HexToAddress(m.Token), Method: "balanceOf", Args: []any{sender}})
	}
	return calls, keys
}

// maxSpenderLookups bounds the explorer lookups of one simulation.
const maxSpenderLookups = 4

// verifiedSpenders asks the explorers (cached, as contract_abi) whether
// the approved contracts are verified. An explorer failure leaves the
// spender unjudged: the answer does not wait on a third party's outage.
func (t *Tools) verifiedSpenders(ctx context.Context, c *chain.EVM, approvals []Approval, f *facts) {
	asked := map[common.Address]bool{}
	for _, a := range approvals {
		sp := common.HexToAddress(a.Spender)
		if (a.Approved != nil && !*a.Approved) || f.noCode[sp] || asked[sp] || len(asked) == maxSpenderLookups {
			continue
		}
		if _, checked := f.noCode[sp]; !checked {
			continue // its code could not be read
		}
		asked[sp] = true
		if _, err := t.exp.Lookup(ctx, c.Chain.ChainID, sp); errors.Is(err, explorer.ErrNotVerified) {
			f.unverified[sp] = true
		}
	}
}

// risk sets the risk level: high for an unlimited or collection-wide
// approval, an approval to an account without code (the drainer pattern)
// or to a contract no explorer has verified, or the sender's whole balance of a token taken by an inner call; medium
// for any other approval, assets leaving with nothing entering, the whole
// balance sent, or assets pulled by a contract other than the one called;
// low otherwise.
func (o *Output) risk(f facts) {
	o.RiskLevel = "low"
	raise := func(level, reason string) {
		if level == "high" || o.RiskLevel == "low" {
			o.RiskLevel = level
		}
		o.Reasons = append(o.Reasons, reason)
	}
	for _, a := range o.Approvals {
		switch {
		case f.noCode[common.HexToAddress(a.Spender)]:
			raise("high", "grants "+a.Spender+", an account without code, an approval on "+a.Token+": the usual drainer pattern")
		case f.unverified[common.HexToAddress(a.Spender)]:
			raise("high", "grants "+a.Spender+", a contract no explorer has verified, an approval on "+a.Token)
		case a.Unlimited:
			raise("high", "grants "+a.Spender+" unlimited use of "+a.Token)
		default:
			raise("medium", "grants "+a.Spender+" an approval on "+a.Token)
		}
	}
	if len(o.Leaving) > 0 && len(o.Entering) == 0 {
		raise("medium", "assets leave the wallet and nothing comes back")
	}
	sums := map[string]*big.Int{}
	pulled := map[string]string{}
	for _, m := range o.Leaving {
		if m.Standard != "native" && m.Standard != "erc20" {
			continue
		}
		v, _ := new(big.Int).SetString(m.Raw, 10)
		if sums[m.Token] == nil {
			sums[m.Token] = new(big.Int)
		}
		sums[m.Token].Add(sums[m.Token], v)
		if m.PulledBy != "" {
			pulled[m.Token] = m.PulledBy
		}
	}
	for tok, sum := range sums {
		bal := f.before[tok]
		if bal == nil || bal.Sign() == 0 || sum.Cmp(bal) < 0 {
			continue
		}
		name := "native balance"
		if tok != "" {
			name = "balance of " + tok
		}
		if by := pulled[tok]; by != "" {
			raise("high", fmt.Sprintf("the sender's whole %s is taken by %s in an inner call", name, by))
		} else {
			raise("medium", "sends the sender's whole "+name)
		}
	}
	for _, m := range o.Leaving {
		if m.PulledBy != "" && f.to != (common.Address{}) && common.HexToAddress(m.PulledBy) != f.to {
			raise("medium", fmt.Sprintf("%s pulls the sender's %s, not the contract called", m.PulledBy, m.Standard))
		}
	}
	if !o.Success {
		o.Reasons = append(o.Reasons, "the transaction would revert: nothing would change but the fee")
	}
}
