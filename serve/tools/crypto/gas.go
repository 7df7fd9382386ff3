package crypto

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
)

// GasInput is the input of gas_tracker.
type GasInput struct {
	Chains string `json:"chains,omitempty" doc:"Comma list of ethereum, base, arbitrum, optimism, polygon, bsc, solana; default all." maxLength:"100"`
	USD    bool   `json:"usd,omitempty" doc:"Add USD transfer costs (native price from the wrapped-native/USDC pool)." default:"true"`
}

// Validate checks the chain names.
func (in *GasInput) Validate() error {
	for _, c := range splitList(in.Chains) {
		if !slices.Contains(chain.AllChains, strings.ToLower(c)) {
			return apierr.Invalid("chains", "unknown chain "+quoteStr(c)+"; use "+strings.Join(chain.AllChains, ", "))
		}
	}
	return nil
}

// GasOutput is the answer of gas_tracker.
type GasOutput struct {
	Chains    []GasChain `json:"chains"`
	CheckedAt time.Time  `json:"checked_at"`
}

// GasChain is one chain's figures. A chain whose node failed has Error set
// (the call fails only when every chain failed).
type GasChain struct {
	Chain  string `json:"chain"`
	Native string `json:"native"`
	Block  uint64 `json:"block,omitempty"`
	// EVM: fees in gwei. BaseFee is the next block's.
	BaseFeeGwei *float64  `json:"base_fee_gwei,omitempty"`
	Slow        *GasLevel `json:"slow,omitempty"`
	Standard    *GasLevel `json:"standard,omitempty"`
	Fast        *GasLevel `json:"fast,omitempty"`
	// GasUsedRatio is the mean of the sampled blocks; Congestion is low
	// (< 0.3), normal (< 0.6), high (< 0.9) or very-high.
	GasUsedRatio *float64 `json:"gas_used_ratio,omitempty"`
	Congestion   string   `json:"congestion,omitempty"`
	// BaseFeeTrend is rising, falling or stable (±5%) over the sampled
	// blocks; BaseFeeChangePct the change from the oldest to the next.
	BaseFeeTrend     string   `json:"base_fee_trend,omitempty"`
	BaseFeeChangePct *float64 `json:"base_fee_change_pct,omitempty"`
	BlockTimeSeconds *float64 `json:"block_time_seconds,omitempty"`
	SampledBlocks    int      `json:"sampled_blocks,omitempty"`
	NativeUSD        *float64 `json:"native_usd,omitempty"`
	// Solana: priority fees in micro-lamports per compute unit.
	PriorityFeePercentiles map[string]float64 `json:"priority_fee_percentiles,omitempty"`
	TPS                    *float64           `json:"tps,omitempty"`
	NonVoteTPS             *float64           `json:"non_vote_tps,omitempty"`
	Error                  string             `json:"error,omitempty"`
}

// GasLevel is one speed: fees per gas and the cost of a plain transfer.
type GasLevel struct {
	PriorityFeeGwei float64 `json:"priority_fee_gwei,omitempty"`
	// MaxFeeGwei is a safe maxFeePerGas (2× the next base fee plus tip);
	// ExpectedFeeGwei what the transaction will likely pay.
	MaxFeeGwei      float64  `json:"max_fee_gwei,omitempty"`
	ExpectedFeeGwei float64  `json:"expected_fee_gwei,omitempty"`
	TransferNative  float64  `json:"transfer_cost_native"`
	TransferUSD     *float64 `json:"transfer_cost_usd,omitempty"`
	// Solana: micro-lamports per compute unit.
	PriorityFeeMicroLamports *float64 `json:"priority_fee_micro_lamports,omitempty"`
}

const feeBlocks = 20 // eth_feeHistory window

func (t *Tools) gas(ctx context.Context, in *GasInput) (*GasOutput, error) {
	names := splitList(strings.ToLower(in.Chains))
	if len(names) == 0 {
		names = chain.AllChains
	}
	out := &GasOutput{Chains: make([]GasChain, len(names)), CheckedAt: t.cfg.Now().UTC()}
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g, err := t.gasOne(ctx, n, in.USD)
			if err != nil {
				t.cfg.Logger.Warn("crypto: gas_tracker chain failed", "chain", n, "err", err)
				errs[i] = err
				g = GasChain{Chain: n, Error: apierr.From(err).Message}
			}
			out.Chains[i] = g
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e == nil {
			return out, nil
		}
	}
	return nil, errors.Join(errs...)
}

func (t *Tools) gasOne(ctx context.Context, name string, usd bool) (GasChain, error) {
	if name == "solana" {
		return t.gasSolana(ctx)
	}
	c, ok := t.evm[name]
	if !ok {
		return GasChain{}, apierr.New(apierr.ErrUnavailable, "chain_not_configured", name+" has no RPC endpoint configured")
	}
	key := fmt.Sprint("gas:", usd)
	if v, ok := c.Cache.Get(key); ok {
		return v.(GasChain), nil
	}
	var fh struct {
		OldestBlock  hexutil.Uint64   `json:"oldestBlock"`
		BaseFee      []*hexutil.Big   `json:"baseFeePerGas"`
		GasUsedRatio []float64        `json:"gasUsedRatio"`
		Reward       [][]*hexutil.Big `json:"reward"`
	}
	// The native price first: its Multicall3 read pins the call's block
	// without a separate read of the head.
	var nativeUSD *float64
	if usd {
		w := c.Chain.WrappedNative
		qs, err := usdPrices(ctx, c, []common.Address{w}, nil)
		if err == nil && qs[w] != nil {
			nativeUSD = &qs[w].PriceUSD
		}
	}
	latest, err := c.Pin(ctx)
	if err != nil {
		return GasChain{}, err
	}
	if err := c.Call(ctx, &fh, "eth_feeHistory", hexutil.Uint64(feeBlocks), "latest", []float64{10, 50, 90}); err != nil {
		return GasChain{}, err
	}
	if len(fh.BaseFee) == 0 {
		return GasChain{}, apierr.New(apierr.ErrUpstream, "rpc_bad_answer", name+": eth_feeHistory has no base fees (pre-London chain?)")
	}
	g := GasChain{Chain: name, Native: c.Chain.Native, Block: latest.Number, SampledBlocks: len(fh.GasUsedRatio)}
	next := gwei(fh.BaseFee[len(fh.BaseFee)-1])
	g.BaseFeeGwei = ptr(round(next, 6))
	levels := []*GasLevel{{}, {}, {}}
	for k := range levels {
		var tips []float64
		for _, r := range fh.Reward {
			if k < len(r) && r[k] != nil {
				tips = append(tips, gwei(r[k]))
			}
		}
		tip := median(tips)
		l := levels[k]
		l.PriorityFeeGwei = round(tip, 6)
		l.MaxFeeGwei = round(2*next+tip, 6)
		l.ExpectedFeeGwei = round(next+tip, 6)
		l.TransferNative = round((next+tip)*21000/1e9, 6)
	}
	g.Slow, g.Standard, g.Fast = levels[0], levels[1], levels[2]
	if n := len(fh.GasUsedRatio); n > 0 {
		var s float64
		for _, r := range fh.GasUsedRatio {
			s += r
		}
		m := s / float64(n)
		g.GasUsedRatio = ptr(round(m, 3))
		g.Congestion = congestion(m)
	}
	if first := gwei(fh.BaseFee[0]); first > 0 {
		ch := (next/first - 1) * 100
		g.BaseFeeChangePct = ptr(round(ch, 4))
		g.BaseFeeTrend = "stable"
		if ch > 5 {
			g.BaseFeeTrend = "rising"
		} else if ch < -5 {
			g.BaseFeeTrend = "falling"
		}
	}
	if old := uint64(fh.OldestBlock); old < latest.Number {
		h, err := getHeader(ctx, c, new(big.Int).SetUint64(old))
		if err == nil && latest.Time > h.Time {
			g.BlockTimeSeconds = ptr(round(float64(latest.Time-h.Time)/float64(latest.Number-old), 4))
		}
	}
	if p := nativeUSD; p != nil {
		g.NativeUSD = ptr(round(*p, 8))
		for _, l := range levels {
			l.TransferUSD = ptr(round(l.TransferNative**p, 6))
		}
	}
	c.Cache.Put(key, g, 3*time.Second)
	return g, nil
}

// gasSolana: priority-fee percentiles of the recent slots and TPS from the
// performance samples (two calls).
func (t *Tools) gasSolana(ctx context.Context) (GasChain, error) {
	if t.sol == nil {
		return GasChain{}, apierr.New(apierr.ErrUnavailable, "chain_not_configured", "solana has no RPC endpoint configured")
	}
	if v, ok := t.sol.Cache.Get("gas"); ok {
		return v.(GasChain), nil
	}
	var fees []chain.PrioFee
	if err := t.sol.Call(ctx, &fees, "getRecentPrioritizationFees"); err != nil {
		return GasChain{}, solanaErr(err)
	}
	var perf []chain.PerfSample
	if err := t.sol.Call(ctx, &perf, "getRecentPerformanceSamples", 5); err != nil {
		return GasChain{}, solanaErr(err)
	}
	g := GasChain{Chain: "solana", Native: "SOL", PriorityFeePercentiles: map[string]float64{}}
	var v []float64
	for _, f := range fees {
		v = append(v, float64(f.PrioritizationFee))
		g.Block = max(g.Block, f.Slot)
	}
	sort.Float64s(v)
	for _, p := range []int{25, 50, 75, 90} {
		g.PriorityFeePercentiles[fmt.Sprintf("p%d", p)] = percentile(v, p)
	}
	// A plain SOL transfer: 5,000 lamports per signature plus the
	// priority fee on solTransferCU compute units.
	for i, p := range []int{25, 50, 75} {
		fee := percentile(v, p)
		l := &GasLevel{PriorityFeeMicroLamports: ptr(fee),
			TransferNative: round((5000+fee*solTransferCU/1e6)/1e9, 6)}
		switch i {
		case 0:
			g.Slow = l
		case 1:
			g.Standard = l
		default:
			g.Fast = l
		}
	}
	var txs, nonVote, secs, slots float64
	hasNonVote := true
	for _, s := range perf {
		txs += float64(s.NumTransactions)
		secs += float64(s.SamplePeriodSecs)
		slots += float64(s.NumSlots)
		if s.NumNonVoteTransactions == nil {
			hasNonVote = false
		} else {
			nonVote += float64(*s.NumNonVoteTransactions)
		}
	}
	if secs > 0 {
		g.TPS = ptr(round(txs/secs, 6))
		if hasNonVote {
			g.NonVoteTPS = ptr(round(nonVote/secs, 6))
		}
		if slots > 0 {
			g.BlockTimeSeconds = ptr(round(secs/slots, 4))
		}
	}
	t.sol.Cache.Put("gas", g, 3*time.Second)
	return g, nil
}

// solTransferCU is the compute-unit limit assumed for a plain transfer
// (the system transfer uses 150; wallets set a few hundred).
const solTransferCU = 300

func solanaErr(err error) error {
	var se *chain.SolanaError
	if errors.As(err, &se) {
		return apierr.New(apierr.ErrUpstream, "rpc_error", "solana: "+se.Message)
	}
	return err
}

func gwei(v *hexutil.Big) float64 {
	if v == nil {
		return 0
	}
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(v.ToInt()), big.NewFloat(1e9)).Float64()
	return f
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// percentile of sorted v, nearest rank.
func percentile(v []float64, p int) float64 {
	if len(v) == 0 {
		return 0
	}
	i := int(math.Ceil(float64(p)/100*float64(len(v)))) - 1
	return v[max(0, min(i, len(v)-1))]
}

func congestion(r float64) string {
	switch {
	case r < 0.3:
		return "low"
	case r < 0.6:
		return "normal"
	case r < 0.9:
		return "high"
	}
	return "very-high"
}

func ptr[T any](v T) *T { return &v }

func quoteStr(s string) string { return fmt.Sprintf("%q", s) }
