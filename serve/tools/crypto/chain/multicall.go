package chain

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/apierr"
)

// Call is one call of a Multicall3 batch: method of ABI on Target.
type Call struct {
	Target common.Address
	Method string
	Args   []any
}

// Result is one answer of a batch: OK false when the call reverted or its
// answer did not decode.
type Result struct {
	OK  bool
	Out []any
	Raw []byte
}

type call3 struct {
	Target       common.Address
	AllowFailure bool
	CallData     []byte
}

// Multicall runs calls in one eth_call to Multicall3's aggregate3 at block
// (nil: latest), so a tool reading twenty balances makes one RPC call.
// Calls may fail one by one.
func (c *EVM) Multicall(ctx context.Context, calls []Call, block *big.Int) ([]Result, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	in := make([]call3, len(calls))
	for i, cl := range calls {
		in[i] = call3{Target: cl.Target, AllowFailure: true, CallData: Pack(cl.Method, cl.Args...)}
	}
	c.stats.Reads.Add(int64(len(calls) - 1)) // the eth_call itself counts one
	mc := c.Chain.Multicall3
	ret, err := c.EthCall(ctx, CallArgs{To: &mc, Data: Pack("aggregate3", in)}, block, nil)
	if err != nil {
		return nil, err
	}
	outs, err := ABI.Unpack("aggregate3", ret)
	if err != nil || len(outs) != 1 {
		return nil, apierr.New(apierr.ErrUpstream, "rpc_bad_answer", fmt.Sprintf("%s: Multicall3 answer does not decode", c.Chain.Name))
	}
	raw := *abi.ConvertType(outs[0], new([]struct {
		Success    bool
		ReturnData []byte
	})).(*[]struct {
		Success    bool
		ReturnData []byte
	})
	if len(raw) != len(calls) {
		return nil, apierr.New(apierr.ErrUpstream, "rpc_bad_answer", c.Chain.Name+": Multicall3 answer has the wrong shape")
	}
	res := make([]Result, len(calls))
	for i, r := range raw {
		res[i].Raw = r.ReturnData
		if !r.Success || len(r.ReturnData) == 0 {
			continue
		}
		out, err := ABI.Unpack(calls[i].Method, r.ReturnData)
		if err != nil {
			continue
		}
		res[i] = Result{OK: true, Out: out, Raw: r.ReturnData}
	}
	return res, nil
}

// Big returns the i-th output as *big.Int (nil when absent).
func (r Result) Big(i int) *big.Int {
	if !r.OK || len(r.Out) <= i {
		return nil
	}
	v, _ := r.Out[i].(*big.Int)
	return v
}

// Addr returns the i-th output as an address.
func (r Result) Addr(i int) (common.Address, bool) {
	if !r.OK || len(r.Out) <= i {
		return common.Address{}, false
	}
	v, ok := r.Out[i].(common.Address)
	return v, ok
}
