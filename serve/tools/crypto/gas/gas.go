package gas

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/num"
)

// Input is the input of gas_tracker.
type Input struct {
	Chains string `json:"chains,omitempty" doc:"Comma list of ethereum, base, arbitrum, optimism, polygon, bsc, solana; default all." maxLength:"100"`
	USD    bool   `json:"usd,omitempty" doc:"Add USD transfer costs (native price from the wrapped-native/USDC pool)." default:"true"`
}

// Validate checks the chain names.
func (in *Input) Validate() error {
	for _, c := range call.List(in.Chains) {
		if !slices.Contains(chain.AllChains, strings.ToLower(c)) {
			return apierr.Invalid("chains", "unknown chain "+fmt.Sprintf("%q", c)+"; use "+strings.Join(chain.AllChains, ", "))
		}
	}
	return nil
}

// USD prices a token on an EVM chain in USD (the crypto family's pool
// pricing); false when no pool prices it.
type USD func(ctx context.Context, c *chain.EVM, token common.Address) (float64, bool)

// Tools serves gas_tracker over the family's chain clients.
type Tools struct {
	evm    chain.EVMs
	sol    *chain.Solana // nil: no Solana node configured
	usd    USD
	now    func() time.Time
	logger *slog.Logger
}

// New returns the tool; the clients are the crypto family's, shared with
// its other tools.
func New(evm chain.EVMs, sol *chain.Solana, usd USD, now func() time.Time, logger *slog.Logger) *Tools {
	return &Tools{evm: evm, sol: sol, usd: usd, now: now, logger: logger}
}

// Endpoints returns the registry entry of gas_tracker.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{registry.Spec[Input]{
		Name: "gas_tracker", Method: http.MethodGet, Path: "/v1/crypto/gas-tracker", Group: registry.GroupTools,
		Price:   "0.0001",
		Summary: "Gas fees per chain: slow, standard and fast fees, transfer costs in native and USD, congestion, base-fee trend, block time; Solana priority-fee percentiles and TPS.",
		Description: "EVM figures come from eth_feeHistory over the last 20 blocks (10th, 50th and 90th percentile tips) and " +
			"the head block; USD from the wrapped-native/USDC pool. A chain whose node fails is reported with an error; the " +
			"call fails only when every chain does.",
		Output: Output{}, Tool: call.Tool(),
		Handle: call.Handle("gas_tracker", t.tracker),
	}.Endpoint()}
}

// Output is the answer of gas_tracker.
type Output struct {
	Chains    []Chain   `json:"chains"`
	CheckedAt time.Time `json:"checked_at"`
}

// Chain is one chain's figures. A chain whose node failed has Error set
// (the call fails only when every chain failed).
type Chain struct {
	Chain  string `json:"chain"`
	Native string `json:"native"`
	Block  uint64 `json:"block,omitempty"`
	// EVM: fees in gwei. BaseFee is the next block's.
	BaseFeeGwei *float64 `json:"base_fee_gwei,omitempty"`
	Slow        *Level   `json:"slow,omitempty"`
	Standard    *Level   `json:"standard,omitempty"`
	Fast        *Level   `json:"fast,omitempty"`
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

// Level is one speed: fees per gas and the cost of a plain transfer.
type Level struct {
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

func (t *Tools) tracker(ctx context.Context, in *Input) (*Output, error) {
	names := call.List(strings.ToLower(in.Chains))
	if len(names) == 0 {
		names = chain.AllChains
	}
	out := &Output{Chains: make([]Chain, len(names)), CheckedAt: t.now().UTC()}
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g, err := t.evmChain(ctx, n, in.USD)
			if err != nil {
				t.logger.Warn("crypto: gas_tracker chain failed", "chain", n, "err", err)
				errs[i] = err
				g = Chain{Chain: n, Error: apierr.From(err).Message}
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

func (t *Tools) evmChain(ctx context.Context, name string, usd bool) (Chain, error) {
	if name == "solana" {
		return t.solana(ctx)
	}
	c, ok := t.evm[name]
	if !ok {
		return Chain{}, apierr.New(apierr.ErrUnavailable, "chain_not_configured", name+" has no RPC endpoint configured")
	}
	key := fmt.Sprint("gas:", usd)
	if v, ok := c.Cache.Get(key); ok {
		return v.(Chain), nil
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
		if p, ok := t.usd(ctx, c, w); ok {
			nativeUSD = &p
		}
	}
	latest, err := c.Pin(ctx)
	if err != nil {
		return Chain{}, err
	}
	if err := c.Call(ctx, &fh, "eth_feeHistory", hexutil.Uint64(feeBlocks), "latest", []float64{10, 50, 90}); err != nil {
		return Chain{}, err
	}
	if len(fh.BaseFee) == 0 {
		return Chain{}, apierr.New(apierr.ErrUpstream, "rpc_bad_answer", name+": eth_feeHistory has no base fees (pre-London chain?)")
	}
	g := Chain{Chain: name, Native: c.Chain.Native, Block: latest.Number, SampledBlocks: len(fh.GasUsedRatio)}
	next := gwei(fh.BaseFee[len(fh.BaseFee)-1])
	g.BaseFeeGwei = num.Ptr(num.Round(next, 6))
	levels := []*Level{{}, {}, {}}
	for k := range levels {
		var tips []float64
		for _, r := range fh.Reward {
			if k < len(r) && r[k] != nil {
				tips = append(tips, gwei(r[k]))
			}
		}
		tip := median(tips)
		l := levels[k]
		l.PriorityFeeGwei = num.Round(tip, 6)
		l.MaxFeeGwei = num.Round(2*next+tip, 6)
		l.ExpectedFeeGwei = num.Round(next+tip, 6)
		l.TransferNative = num.Round((next+tip)*21000/1e9, 6)
	}
	g.Slow, g.Standard, g.Fast = levels[0], levels[1], levels[2]
	if n := len(fh.GasUsedRatio); n > 0 {
		var s float64
		for _, r := range fh.GasUsedRatio {
			s += r
		}
		m := s / float64(n)
		g.GasUsedRatio = num.Ptr(num.Round(m, 3))
		g.Congestion = congestion(m)
	}
	if first := gwei(fh.BaseFee[0]); first > 0 {
		ch := (next/first - 1) * 100
		g.BaseFeeChangePct = num.Ptr(num.Round(ch, 4))
		g.BaseFeeTrend = "stable"
		if ch > 5 {
			g.BaseFeeTrend = "rising"
		} else if ch < -5 {
			g.BaseFeeTrend = "falling"
		}
	}
	if old := uint64(fh.OldestBlock); old < latest.Number {
		h, err := c.HeaderAt(ctx, new(big.Int).SetUint64(old))
		if err == nil && latest.Time > h.Time {
			g.BlockTimeSeconds = num.Ptr(num.Round(float64(latest.Time-h.Time)/float64(latest.Number-old), 4))
		}
	}
	if p := nativeUSD; p != nil {
		g.NativeUSD = num.Ptr(num.Round(*p, 8))
		for _, l := range levels {
			l.TransferUSD = num.Ptr(num.Round(l.TransferNative**p, 6))
		}
	}
	c.Cache.Put(key, g, 3*time.Second)
	return g, nil
}

// gasSolana: priority-fee percentiles of the recent slots and TPS from the
// performance samples (two calls).
func (t *Tools) solana(ctx context.Context) (Chain, error) {
	if t.sol == nil {
		return Chain{}, apierr.New(apierr.ErrUnavailable, "chain_not_configured", "solana has no RPC endpoint configured")
	}
	if v, ok := t.sol.Cache.Get("gas"); ok {
		return v.(Chain), nil
	}
	var fees []chain.PrioFee
	if err := t.sol.Call(ctx, &fees, "getRecentPrioritizationFees"); err != nil {
		return Chain{}, chain.SolanaErr(err)
	}
	var perf []chain.PerfSample
	if err := t.sol.Call(ctx, &perf, "getRecentPerformanceSamples", 5); err != nil {
		return Chain{}, chain.SolanaErr(err)
	}
	g := Chain{Chain: "solana", Native: "SOL", PriorityFeePercentiles: map[string]float64{}}
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
		l := &Level{PriorityFeeMicroLamports: num.Ptr(fee),
			TransferNative: num.Round((5000+fee*solTransferCU/1e6)/1e9, 6)}
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
		g.TPS = num.Ptr(num.Round(txs/secs, 6))
		if hasNonVote {
			g.NonVoteTPS = num.Ptr(num.Round(nonVote/secs, 6))
		}
		if slots > 0 {
			g.BlockTimeSeconds = num.Ptr(num.Round(secs/slots, 4))
		}
	}
	t.sol.Cache.Put("gas", g, 3*time.Second)
	return g, nil
}

// solTransferCU is the compute-unit limit assumed for a plain transfer
// (the system transfer uses 150; wallets set a few hundred).
const solTransferCU = 300

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
