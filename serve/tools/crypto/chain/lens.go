package chain

import (
	"bytes"
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// The lens: a contract of the client's own (evmtest/contracts/Lens.sol,
// its runtime code in lenscode_gen.go) that is never deployed. An
// aggregate3 with an entry calling it carries a state override placing its
// code at LensAddress, so one Multicall3 entry can do what would otherwise
// take two dependent calls: look a pool up in its factory and read the
// pool, or read an account's code. Placed at BeaconRootsAddress instead,
// it reads that contract's storage (NewerCall).

// LensAddress is where the lens's code is placed.
var LensAddress = common.HexToAddress("0x000000000000000000000000000000000001e45e")

// BeaconRootsAddress is the EIP-4788 beacon-roots contract (Ethereum since
// Cancun, and chains that took it up). NewerCall places the lens's code
// there, so the lens reads that contract's storage: the timestamps of the
// last 8191 blocks.
var BeaconRootsAddress = common.HexToAddress("0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02")

// usesLens reports whether an aggregate entry runs the lens's code: at
// LensAddress, or at BeaconRootsAddress for NewerCall.
func usesLens(c call3) bool {
	return c.Target == LensAddress || c.Target == BeaconRootsAddress && bytes.HasPrefix(c.CallData, ABI.Methods["newer"].ID)
}

// lensOverride is the state override of an eth_call whose aggregate has
// an entry running the lens, nil otherwise (a node without state overrides
// is then never asked for one).
func lensOverride(in []call3) map[common.Address]Override {
	var over map[common.Address]Override
	for _, c := range in {
		if usesLens(c) {
			if over == nil {
				over = map[common.Address]Override{}
			}
			over[c.Target] = Override{Code: hexutil.MustDecode(lensCode)}
		}
	}
	return over
}

// Lookup is a factory call answering an address (getPair, getPool), and
// the reads to make on that address (their Target is ignored).
type Lookup struct {
	Call  Call
	Reads []Call
}

// Lens is the Multicall3 entry running l through the lens (what Resolve
// sends; Want it to have a later Resolve ask nothing).
func (l Lookup) Lens() Call {
	reads := make([][]byte, len(l.Reads))
	for j, r := range l.Reads {
		reads[j] = Pack(r.Method, r.Args...)
	}
	return Call{Target: LensAddress, Method: "resolve", Args: []any{l.Call.Target, Pack(l.Call.Method, l.Call.Args...), reads}}
}

// Resolve runs each lookup and its reads as one Multicall3 entry at the
// call's pinned block (the lens does both) and returns the address each
// lookup answered (zero when none, or when the lookup failed). Within a
// tool call the reads' answers are kept for that block as if Multicall
// had read them, so the Multicall of them that follows asks nothing and is
// recorded for the prefetch of the next block as usual. On a node that
// refuses state overrides the lookups are sent alone.
func (c *EVM) Resolve(ctx context.Context, lookups []Lookup) ([]common.Address, error) {
	calls := make([]Call, len(lookups))
	for i, l := range lookups {
		calls[i] = l.Lens()
	}
	res, err := c.Multicall(ctx, calls, nil)
	if err != nil {
		return nil, err
	}
	// Within a tool call the pin is the block Multicall read; outside one
	// the head may have moved since, so the reads are not kept.
	h, pinned := c.pinOf(ctx)
	out := make([]common.Address, len(lookups))
	var plain []Call
	var at []int
	for i, r := range res {
		if !r.OK || len(r.Out) != 3 {
			plain, at = append(plain, lookups[i].Call), append(at, i)
			continue
		}
		at, _ := r.Out[0].(common.Address)
		ok, _ := r.Out[1].([]bool)
		rets, _ := r.Out[2].([][]byte)
		out[i] = at
		if !pinned || at == (common.Address{}) || len(ok) != len(lookups[i].Reads) || len(rets) != len(ok) {
			continue
		}
		for j, rd := range lookups[i].Reads {
			in := call3{Target: at, AllowFailure: true, CallData: Pack(rd.Method, rd.Args...)}
			c.keepAnswer(mcKey(h.Tag(), in), &mcAnswer{Success: ok[j], ReturnData: rets[j]})
		}
	}
	if len(plain) > 0 {
		// The lens did not run (a node without state overrides): the
		// lookups alone, their reads left to the caller.
		res, err := c.Multicall(ctx, plain, nil)
		if err != nil {
			return nil, err
		}
		for j, r := range res {
			out[at[j]], _ = r.Addr(0)
		}
	}
	return out, nil
}

// CodeCall is the Multicall3 entry reading a's code through the lens
// (Result.Bytes(0) is the code).
func CodeCall(a common.Address) Call {
	return Call{Target: LensAddress, Method: "code", Args: []any{a}}
}

// Bytes returns the i-th output as bytes (nil when absent).
func (r Result) Bytes(i int) []byte {
	if !r.OK || len(r.Out) <= i {
		return nil
	}
	v, _ := r.Out[i].([]byte)
	return v
}

// RouteHop is one pool a route may take at a depth, for the lens's route:
// a V2-style pair with its reserves (in, out) and fee in basis points, or
// a V3-style pool quoted by Quoter at its Fee tier.
type RouteHop struct {
	V3                bool
	Quoter            common.Address
	TokenIn, TokenOut common.Address
	Fee               *big.Int
	RIn, ROut, FeeBps *big.Int
}

// RouteCall is the Multicall3 entry following a path from amt through the
// hops of each depth, the best of each depth taken (the first of equals):
// Result.Out[0] is each depth's output, Out[1] the index of the hop taken.
func RouteCall(amt *big.Int, depths [][]RouteHop) Call {
	return Call{Target: LensAddress, Method: "route", Args: []any{amt, depths}}
}

// NewerCall is the Multicall3 entry counting the timestamps of the
// beacon-roots ring later than target (Lens.newer run at
// BeaconRootsAddress): Result.Out[0] is the count, Out[1] the oldest
// timestamp held, Out[2] whether the block read holds its own timestamp
// there. With step 0 it reads every slot of the ring (about 18M gas);
// with step, only the slots of the times step seconds apart back from the
// block's, for a chain whose blocks keep to slots of step seconds, Out[1]
// then being what the slot of the first such time at or before target
// holds. It fails where the node refuses state overrides; on a chain
// without the ring it answers a count of 0 and false.
func NewerCall(target, step int64) Call {
	return Call{Target: BeaconRootsAddress, Method: "newer", Args: []any{big.NewInt(target), big.NewInt(step)}}
}
