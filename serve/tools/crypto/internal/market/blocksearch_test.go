package market

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

// chainOf is a chain whose block n has time times[n].
type chainOf []int64

// plain is the last block at or before target by a plain binary search
// over every block time (0 when every block is later).
func (ts chainOf) plain(target int64) uint64 {
	i := sort.Search(len(ts), func(i int) bool { return ts[i] > target })
	return uint64(max(i-1, 0))
}

func (ts chainOf) head() chain.Header {
	return chain.Header{Number: uint64(len(ts) - 1), Time: ts[len(ts)-1]}
}

// search runs a blockSearch over ts, first its first round, and returns
// the block found and the blocks it read.
func (ts chainOf) search(t *testing.T, target int64, bt float64, first []uint64) (uint64, int) {
	t.Helper()
	s := newBlockSearch(ts.head(), target, bt)
	reads := 0
	got, err := s.run(first, func(ns []uint64) ([]chain.Header, error) {
		if len(ns) == 0 || len(ns) > 2 {
			t.Fatalf("a round of %d blocks", len(ns))
		}
		out := make([]chain.Header, len(ns))
		for i, n := range ns {
			if n >= uint64(len(ts)) {
				t.Fatalf("read block %d past the head %d", n, len(ts)-1)
			}
			out[i] = chain.Header{Number: n, Time: ts[n]}
		}
		reads += len(ns)
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, reads
}

// build makes a chain of n blocks from genesis time t0 with the gaps gap
// gives block by block.
func build(n int, t0 int64, gap func(i int) int64) chainOf {
	ts := make(chainOf, n)
	ts[0] = t0
	for i := 1; i < n; i++ {
		ts[i] = ts[i-1] + gap(i)
	}
	return ts
}

// TestBlockSearchMatchesBinarySearch: on chains of regular and irregular
// block times the search finds the block a plain binary search finds, for
// targets at, between and around every block time, whatever its first
// round (a right, wrong or absent guess of the beacon-roots count).
func TestBlockSearchMatchesBinarySearch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		bt   float64
		ts   chainOf
	}{
		{"12s slots, 1% missed", 12, build(9000, 1_600_000_000, func(int) int64 {
			if r.IntN(100) == 0 {
				return 24
			}
			return 12
		})},
		{"2s exactly", 2, build(50_000, 1_700_000_000, func(int) int64 { return 2 })},
		{"random gaps 1-40s", 12, build(8000, 1_600_000_000, func(int) int64 { return 1 + r.Int64N(40) })},
		{"equal times (several blocks a second)", 0.25, build(400_000, 1_700_000_000, func(int) int64 { return r.Int64N(2) * r.Int64N(2) })},
		{"halted 30 hours", 12, build(12_000, 1_600_000_000, func(i int) int64 {
			if i == 9000 {
				return 30 * 3600
			}
			return 12
		})},
		{"jumped 25 hours (the test chain)", 1, build(62, 0, func(i int) int64 {
			switch i {
			case 1:
				return 1_796_622_820
			case 43:
				return 90_000
			}
			return 1
		})},
		{"younger than a day", 12, build(3000, 1_700_000_000, func(int) int64 { return 12 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := tc.ts
			head := ts.head()
			targets := []int64{head.Time - 24*3600, head.Time - 1, ts[0] - 1, ts[0], ts[1]}
			for range 200 {
				i := r.IntN(len(ts))
				targets = append(targets, ts[i]-1, ts[i], ts[i]+1)
			}
			for _, target := range targets {
				if target >= head.Time {
					continue
				}
				want := ts.plain(target)
				wrong := uint64(r.IntN(len(ts)))
				for _, first := range [][]uint64{nil, {want, want + 1}, {wrong, wrong + 1}, {wrong}} {
					first = clip(first, head.Number)
					if got, _ := ts.search(t, target, tc.bt, first); got != want {
						t.Fatalf("target %d, first round %v: block %d, binary search %d", target, first, got, want)
					}
				}
			}
		})
	}
}

func clip(ns []uint64, head uint64) []uint64 {
	var out []uint64
	for _, n := range ns {
		if n < head {
			out = append(out, n)
		}
	}
	return out
}

// TestBlockSearchReads: on a chain of regular block times the search of a
// day back reads a handful of blocks, and the blocks a confirmed count
// names are the only reads.
func TestBlockSearchReads(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	slots := build(9000, 1_600_000_000, func(int) int64 {
		if r.IntN(100) == 0 {
			return 24
		}
		return 12
	})
	exact := build(50_000, 1_700_000_000, func(int) int64 { return 2 })
	for _, tc := range []struct {
		name string
		ts   chainOf
		bt   float64
		most int
	}{{"12s slots, 1% missed", slots, 12, 5}, {"2s exactly", exact, 2, 2}} {
		target := tc.ts.head().Time - 24*3600
		if _, reads := tc.ts.search(t, target, tc.bt, nil); reads > tc.most {
			t.Errorf("%s: %d blocks read, want at most %d", tc.name, reads, tc.most)
		}
		want := tc.ts.plain(target)
		if got, reads := tc.ts.search(t, target, tc.bt, []uint64{want, want + 1}); got != want || reads != 2 {
			t.Errorf("%s, the count confirmed: block %d in %d reads, want %d in 2", tc.name, got, reads, want)
		}
	}
}
