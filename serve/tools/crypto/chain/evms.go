package chain

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/openshelf/openshelf/serve/apierr"
)

// EVMs are the clients of the configured EVM chains, by name.
type EVMs map[string]*EVM

// Client returns the client of the chain a request names in field, or a
// 400 naming the field and the configured chains.
func (m EVMs) Client(field, name string) (*EVM, error) {
	c, ok := m[strings.ToLower(name)]
	if !ok {
		return nil, apierr.Invalid(field, fmt.Sprintf("chain %q is not one of the configured EVM chains (%s)", name, strings.Join(EVMChains, ", ")))
	}
	return c, nil
}

// HeaderAt reads block n's header (nil: the call's pinned block); headers
// are kept.
func (c *EVM) HeaderAt(ctx context.Context, n *big.Int) (Header, error) {
	if n == nil {
		return c.Pin(ctx)
	}
	key := "hdr:" + Block(n)
	if v, ok := c.Cache.Get(key); ok {
		return v.(Header), nil
	}
	var raw struct {
		Number    hexutil.Uint64 `json:"number"`
		Timestamp hexutil.Uint64 `json:"timestamp"`
	}
	if err := c.Call(ctx, &raw, "eth_getBlockByNumber", Block(n), false); err != nil {
		return Header{}, err
	}
	h := Header{Number: uint64(raw.Number), Time: int64(raw.Timestamp)}
	c.Cache.Put(key, h, Forever)
	return h, nil
}
