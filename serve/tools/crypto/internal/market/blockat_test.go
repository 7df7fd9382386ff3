package market_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/evmtest"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
)

// TestBlockAtOnIrregularChain: on the test chain, continued with blocks of
// irregular times (seconds to days apart), BlockAt finds for targets at,
// between and around the times of every fifth block the block a plain binary search over
// the chain's headers finds: with the beacon-roots count, from the last
// search's bracket, and on a node that refuses state overrides (no count).
func TestBlockAtOnIrregularChain(t *testing.T) {
	c := evmtest.New(t)
	for _, gap := range []time.Duration{3 * time.Second, time.Hour, 0, 20 * time.Hour, 0, 0, 7 * time.Second, 30 * time.Hour, 0, 90 * time.Minute} {
		if gap == 0 {
			c.Backend.Commit()
			continue
		}
		for i := 0; c.Backend.AdjustTime(gap) != nil; i++ {
			if i == 5 {
				t.Fatal("the simulated chain refused to move its time")
			}
			c.Backend.Commit()
		}
	}
	ctx := context.Background()
	var times []int64
	for n := uint64(0); n <= c.BlockNumber(); n++ {
		h, err := c.Client.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, int64(h.Time))
	}
	head := chain.Header{Number: uint64(len(times) - 1), Time: times[len(times)-1]}
	plain := func(target int64) uint64 {
		lo, hi := 0, len(times) // the first block later than target is in [lo, hi]
		for lo < hi {
			if m := (lo + hi) / 2; times[m] > target {
				hi = m
			} else {
				lo = m + 1
			}
		}
		return uint64(max(lo-1, 0))
	}
	var targets []int64
	for i := 1; i < len(times)-1; i += 5 {
		targets = append(targets, times[i]-1, times[i], times[i]+1)
	}
	targets = append(targets, head.Time-24*3600, head.Time-48*3600)
	for _, refuse := range []bool{false, true} {
		c.RefuseOverrides(refuse)
		cc := c.Config().Chains["ethereum"]
		client, err := chain.NewEVM(cc, chain.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// The state of a pool rides with each block time read, as
		// crypto_prices carries it.
		carry := []chain.Call{{Target: c.Pairs["GOOD/USDC"], Method: "getReserves"}}
		for _, target := range targets {
			want := plain(target)
			for _, cold := range []bool{true, false} {
				if cold {
					client.Forget()
				}
				got, err := market.BlockAt(ctx, client, head, target, carry)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("overrides refused %v, cold %v, target %d: block %d, binary search %d", refuse, cold, target, got, want)
				}
			}
		}
		client.Close()
	}
}

// TestBlockAtRingReads: on the test chain, whose blocks all keep the
// beacon-roots ring, a cold BlockAt makes three JSON-RPC calls, the count
// and the two blocks it names, whether it reads every slot of the ring (a
// day back, more seconds than slots) or only those of the seconds since
// the target (ten seconds back).
func TestBlockAtRingReads(t *testing.T) {
	c := evmtest.New(t)
	ctx := context.Background()
	h, err := c.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	head := chain.Header{Number: h.Number.Uint64(), Time: int64(h.Time)}
	client, err := chain.NewEVM(c.Config().Chains["ethereum"], chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	carry := []chain.Call{{Target: c.Pairs["GOOD/USDC"], Method: "getReserves"}}
	for _, tc := range []struct {
		name   string
		target int64
		want   uint64
	}{{"a day back", head.Time - 24*3600, c.Before24h}, {"ten seconds back", head.Time - 10, head.Number - 10}} {
		client.Forget()
		before := c.Calls()
		got, err := market.BlockAt(ctx, client, head, tc.target, carry)
		if err != nil {
			t.Fatal(err)
		}
		if n := c.Calls() - before; got != tc.want || n != 3 {
			t.Errorf("%s: block %d in %d calls, want %d in 3", tc.name, got, n, tc.want)
		}
	}
}
