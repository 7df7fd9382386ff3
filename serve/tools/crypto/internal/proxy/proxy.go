// Package proxy reads a contract's code and finds out whether, and to
// which implementation, it delegates: EIP-1967 (and its beacon variant),
// EIP-1822, ZeppelinOS and EIP-1167 minimal proxies, all from chain state.
package proxy

import (
	"bytes"
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

// Storage slots that hold a proxy's implementation.
var (
	slotEIP1967Impl   = common.HexToHash("0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc")
	slotEIP1967Beacon = common.HexToHash("0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50")
	slotEIP1967Admin  = common.HexToHash("0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103")
	slotEIP1822       = common.HexToHash("0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7") // keccak256("PROXIABLE")
	slotZeppelinOS    = common.HexToHash("0x7050c9e0f4ca769c69bd3a8ef740bc37934f8e2c036e5a723fd8ee048ed3f8c3") // keccak256("org.zeppelinos.proxy.implementation")
)

// EIP-1167 minimal proxy runtime: prefix, 20-byte implementation, suffix.
var (
	minimalPrefix = common.FromHex("363d3d373d3d3d363d73")
	minimalSuffix = common.FromHex("5af43d82803e903d91602b57fd5bf3")
)

// Info describes how a contract delegates.
type Info struct {
	// Type: EIP-1967, EIP-1967-beacon, EIP-1822, EIP-1167 or zeppelinos.
	Type           string `json:"type"`
	Implementation string `json:"implementation"`
	Beacon         string `json:"beacon,omitempty"`
	Admin          string `json:"admin,omitempty"`
}

// Code is a contract's code and what its proxy slots say.
type Code struct {
	Code  []byte
	Proxy *Info
	// ImplCode is the implementation's code when Proxy is set.
	ImplCode []byte
}

// codeRecheck is how long a contract's code and proxy implementation are
// trusted before they are read again: code cannot change, but a proxy's
// implementation can be upgraded.
const codeRecheck = 10 * time.Minute

// Read reads code (through the lens) and proxy slots (one
// eth_getProof; chain.EVM.Code), then the beacon's
// implementation or the implementation's code when needed; a contract's
// state is kept for codeRecheck (an address without code is asked again).
func Read(ctx context.Context, c *chain.EVM, addr common.Address) (*Code, error) {
	key := "code:" + addr.Hex()
	if v, ok := c.Cache.Get(key); ok {
		return v.(*Code), nil
	}
	st, err := readNow(ctx, c, addr)
	if err == nil && len(st.Code) > 0 {
		c.Cache.Put(key, st, codeRecheck)
	}
	return st, err
}

func readNow(ctx context.Context, c *chain.EVM, addr common.Address) (*Code, error) {
	slots := []common.Hash{slotEIP1967Impl, slotEIP1967Beacon, slotEIP1967Admin, slotEIP1822, slotZeppelinOS}
	code, vals, err := c.Code(ctx, addr, slots)
	if err != nil {
		return nil, err
	}
	st := &Code{Code: code}
	if len(code) == 0 {
		return st, nil
	}
	asAddr := func(h common.Hash) common.Address { return common.BytesToAddress(h[12:]) }
	zero := common.Hash{}
	switch {
	case vals[0] != zero:
		st.Proxy = &Info{Type: "EIP-1967", Implementation: asAddr(vals[0]).Hex()}
	case vals[1] != zero:
		beacon := asAddr(vals[1])
		st.Proxy = &Info{Type: "EIP-1967-beacon", Beacon: beacon.Hex()}
		// implementation() of the beacon.
		out, err := c.EthCall(ctx, chain.CallArgs{To: &beacon, Data: common.FromHex("0x5c60da1b")}, nil, nil)
		if err == nil && len(out) >= 32 {
			st.Proxy.Implementation = common.BytesToAddress(out[12:32]).Hex()
		}
	case vals[3] != zero:
		st.Proxy = &Info{Type: "EIP-1822", Implementation: asAddr(vals[3]).Hex()}
	case vals[4] != zero:
		st.Proxy = &Info{Type: "zeppelinos", Implementation: asAddr(vals[4]).Hex()}
	case len(code) == len(minimalPrefix)+20+len(minimalSuffix) && bytes.HasPrefix(code, minimalPrefix) && bytes.HasSuffix(code, minimalSuffix):
		st.Proxy = &Info{Type: "EIP-1167", Implementation: common.BytesToAddress(code[len(minimalPrefix) : len(minimalPrefix)+20]).Hex()}
	}
	if st.Proxy != nil {
		if vals[2] != zero {
			st.Proxy.Admin = asAddr(vals[2]).Hex()
		}
		if st.Proxy.Implementation != "" {
			ic, err := c.CodeOf(ctx, common.HexToAddress(st.Proxy.Implementation))
			if err != nil {
				return nil, err
			}
			st.ImplCode = ic
		}
	}
	return st, nil
}
