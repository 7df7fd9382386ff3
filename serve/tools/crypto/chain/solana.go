package chain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sync/atomic"

	"golang.org/x/time/rate"

	"github.com/openshelf/openshelf/serve/apierr"
)

// Solana is a minimal Solana JSON-RPC client (stdlib only: the calls the
// tools need do not justify solana-go's ~90 modules).
type Solana struct {
	Chain *Chain
	Cache *Cache
	url   string
	hc    *http.Client
	lim   *rate.Limiter
	opts  Options
	id    atomic.Int64
}

// NewSolana returns a client of ch's first RPC endpoint.
func NewSolana(ch *Chain, opts Options) (*Solana, error) {
	opts.fill()
	if len(ch.RPC) == 0 {
		return nil, fmt.Errorf("%w: %s has no RPC endpoint", ErrConfig, ch.Name)
	}
	return &Solana{Chain: ch, Cache: NewCache(1024), url: ch.RPC[0], hc: opts.HTTPClient,
		lim: rate.NewLimiter(rate.Limit(opts.RatePerSecond), opts.Burst), opts: opts}, nil
}

// SolanaError is an error object of a Solana JSON-RPC answer.
type SolanaError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *SolanaError) Error() string { return fmt.Sprintf("solana rpc %d: %s", e.Code, e.Message) }

// Call makes one call and decodes its result into out.
func (s *Solana) Call(ctx context.Context, out any, method string, params ...any) error {
	if err := s.lim.Wait(ctx); err != nil {
		return apierr.New(apierr.ErrUnavailable, "rpc_busy", "solana: too many RPC requests in flight")
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id.Add(1), "method": method, "params": params})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.hc.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return apierr.New(apierr.ErrUpstreamTimeout, "rpc_timeout", "solana: the RPC node did not answer in time")
		}
		return apierr.New(apierr.ErrUpstream, "rpc_error", "solana: the RPC node failed")
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return apierr.New(apierr.ErrUpstream, "rpc_error", fmt.Sprintf("solana: the RPC node answered HTTP %d", resp.StatusCode))
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *SolanaError    `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&env); err != nil {
		return apierr.New(apierr.ErrUpstream, "rpc_bad_answer", "solana: the RPC answer is not JSON-RPC")
	}
	if env.Error != nil {
		return env.Error
	}
	d := json.NewDecoder(bytes.NewReader(env.Result))
	d.UseNumber()
	if err := d.Decode(out); err != nil {
		return apierr.New(apierr.ErrUpstream, "rpc_bad_answer", "solana: unexpected "+method+" answer")
	}
	return nil
}

// Lamports is 1 SOL in lamports.
var Lamports = big.NewInt(1_000_000_000)

// PerfSample is one getRecentPerformanceSamples entry.
type PerfSample struct {
	Slot                   uint64  `json:"slot"`
	NumTransactions        uint64  `json:"numTransactions"`
	NumNonVoteTransactions *uint64 `json:"numNonVoteTransactions"`
	NumSlots               uint64  `json:"numSlots"`
	SamplePeriodSecs       uint64  `json:"samplePeriodSecs"`
}

// PrioFee is one getRecentPrioritizationFees entry.
type PrioFee struct {
	Slot              uint64 `json:"slot"`
	PrioritizationFee uint64 `json:"prioritizationFee"`
}

// SolanaErr turns a Solana JSON-RPC error object into a 502 rpc_error
// carrying its message; other errors are returned as they are.
func SolanaErr(err error) error {
	var se *SolanaError
	if errors.As(err, &se) {
		return apierr.New(apierr.ErrUpstream, "rpc_error", "solana: "+se.Message)
	}
	return err
}
