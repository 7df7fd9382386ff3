package walletreport

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/events"
)

// HistoryConfig bounds wallet_report's scan of a wallet's past logs. The
// zero value is the production default.
type HistoryConfig struct {
	// Blocks is how far back from the head the scan goes; default
	// 2,000,000. A number beyond the chain's height scans from genesis.
	Blocks uint64
	// MaxRequests bounds the JSON-RPC requests (batches of three
	// eth_getLogs) of one chain's scan; default 300.
	MaxRequests int
	// MaxTime bounds one chain's scan; default 20s.
	MaxTime time.Duration
	// InitialRange is the first chunk's size in blocks (default 2,000, what
	// most providers accept); MaxRange caps its growth (default 1,000,000).
	InitialRange, MaxRange uint64
	// MaxLogs bounds the logs kept (default 50,000): a wallet with more is
	// reported incomplete rather than held in memory.
	MaxLogs int
}

func (h *HistoryConfig) fill() {
	if h.Blocks == 0 {
		h.Blocks = 2_000_000
	}
	if h.MaxRequests <= 0 {
		h.MaxRequests = 300
	}
	if h.MaxTime <= 0 {
		h.MaxTime = 20 * time.Second
	}
	if h.InitialRange == 0 {
		h.InitialRange = 2_000
	}
	if h.MaxRange == 0 {
		h.MaxRange = 1_000_000
	}
	if h.InitialRange > h.MaxRange {
		h.InitialRange = h.MaxRange
	}
	if h.MaxLogs <= 0 {
		h.MaxLogs = 50_000
	}
}

// HistoryScan says how much of a wallet's history a report saw.
type HistoryScan struct {
	FromBlock uint64 `json:"from_block"` // oldest block scanned
	ToBlock   uint64 `json:"to_block"`   // the head
	// Wanted is the oldest block the scan was to reach.
	Wanted   uint64 `json:"wanted_from_block"`
	Requests int    `json:"requests"`
	Logs     int    `json:"logs"`
	Complete bool   `json:"complete"`
	// Reason says why the scan stopped short (a bound, a node error).
	Reason string `json:"reason,omitempty"`
}

// walletLogs are a wallet's logs: approvals it granted (Approval and
// ApprovalForAll with the wallet as owner) and Transfers from and to it.
type walletLogs struct {
	approvals, received, sent []events.Log
}

// scanHistory reads the wallet's logs from head back to the configured
// depth, newest first, in chunks of adaptive size: a chunk the node refuses
// as too large (a range limit or a result cap) is halved, or cut to the
// range the error suggests, and the scan no longer grows past the last
// size that worked; a chunk that succeeds lets the next one double. Each
// chunk is one JSON-RPC batch of three topic-filtered eth_getLogs. The scan
// stops at the request, time or log bound with the reason. start is the
// first chunk's size (what worked last time on this chain); the size the
// scan ends with is returned for the next one.
func scanHistory(ctx context.Context, c *chain.EVM, cfg HistoryConfig, owner common.Address, head, start uint64) (walletLogs, HistoryScan, uint64) {
	var out walletLogs
	hs := HistoryScan{ToBlock: head, FromBlock: head + 1}
	if head+1 > cfg.Blocks {
		hs.Wanted = head + 1 - cfg.Blocks
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.MaxTime)
	defer cancel()
	ot := common.BytesToHash(owner.Bytes())
	rng, to, ceiling := cfg.InitialRange, head, cfg.MaxRange
	if start > 0 {
		rng = min(start, cfg.MaxRange)
	}
	for {
		if hs.Requests >= cfg.MaxRequests {
			hs.Reason = fmt.Sprintf("stopped after %d requests; blocks %d to %d not scanned", hs.Requests, hs.Wanted, hs.FromBlock-1)
			return out, hs, rng
		}
		from := hs.Wanted
		if to-hs.Wanted+1 > rng {
			from = to + 1 - rng
		}
		var ap, rc, sn []events.Log
		filter := func(topics ...any) map[string]any {
			return map[string]any{"fromBlock": hexutil.EncodeUint64(from), "toBlock": hexutil.EncodeUint64(to), "topics": topics}
		}
		b := []rpc.BatchElem{
			{Method: "eth_getLogs", Args: []any{filter([]common.Hash{events.Approval, events.ApprovalForAll}, ot)}, Result: &ap},
			{Method: "eth_getLogs", Args: []any{filter(events.Transfer, nil, ot)}, Result: &rc},
			{Method: "eth_getLogs", Args: []any{filter(events.Transfer, ot)}, Result: &sn}}
		hs.Requests++
		err := c.Batch(ctx, b)
		for i := 0; err == nil && i < len(b); i++ {
			err = b[i].Error
		}
		if err != nil {
			if ctx.Err() != nil {
				hs.Reason = fmt.Sprintf("stopped after %s; blocks %d to %d not scanned", cfg.MaxTime, hs.Wanted, hs.FromBlock-1)
				return out, hs, rng
			}
			next, ok := shrinkRange(err, rng)
			if !ok {
				hs.Reason = fmt.Sprintf("the node failed at blocks %d to %d: %s", from, to, apierr.From(err).Message)
				return out, hs, rng
			}
			if next == 0 {
				hs.Reason = fmt.Sprintf("block %d alone holds more of the wallet's logs than the node returns at once", to)
				return out, hs, rng
			}
			if spanLimit(err) {
				// A limit on the span holds for every chunk; a cap on
				// results only where the wallet was busy.
				ceiling = min(ceiling, next)
			}
			rng = next
			continue
		}
		out.approvals, out.received, out.sent = append(out.approvals, ap...), append(out.received, rc...), append(out.sent, sn...)
		hs.Logs += len(ap) + len(rc) + len(sn)
		hs.FromBlock = from
		if hs.Logs > cfg.MaxLogs {
			hs.Reason = fmt.Sprintf("more than %d logs; blocks %d to %d not scanned", cfg.MaxLogs, hs.Wanted, from-1)
			return out, hs, rng
		}
		if from == hs.Wanted {
			hs.Complete = true
			return out, hs, rng
		}
		to = from - 1
		rng = min(rng*2, ceiling)
	}
}

// Errors of nodes refusing a log query as too large, as providers word
// them (error codes vary: -32005, -32602, -32600):
//
//   - Infura: "query returned more than 10000 results. Try with this block
//     range [0xBDE5F8, 0x102DBCC]." and "range 1000000 exceeds limit of
//     10000";
//   - Alchemy: "Log response size exceeded. You can make eth_getLogs
//     requests with up to a 2K block range and no limit on the response
//     size, or you can request any block range with a cap of 10K logs in
//     the response. Based on your parameters and the response size limit,
//     this block range should work: [0x0, 0xd043b8]" and "You can make
//     eth_getLogs requests with up to a 500 block range. Based on your
//     parameters, this block range should work: [0x123c9b2, 0x123cba5]";
//   - geth with --rpc.rangelimit: "exceed maximum block range 10000";
//   - others: "block range is too wide", "response is too big", "limit
//     exceeded".
var (
	tooLargeRE  = regexp.MustCompile(`(?i)query returned more than|exceeds? (the )?limit|response size exceeded|block range|exceed maximum|too wide|too big|too large|too many|limit exceeded`)
	suggestedRE = regexp.MustCompile(`\[(0x[0-9a-fA-F]+),\s*(0x[0-9a-fA-F]+)\]`)
	resultCapRE = regexp.MustCompile(`(?i)query returned more than|response size exceeded|too big|too many`)
)

// spanLimit tells a refusal for the block span (the same for any chunk)
// from one for the number of results (only where logs are dense).
func spanLimit(err error) bool {
	return !resultCapRE.MatchString(err.Error())
}

// shrinkRange returns the next range after a refused query: the range the
// error suggests when smaller, else half. ok is false when the error is
// not about the query's size.
func shrinkRange(err error, rng uint64) (next uint64, ok bool) {
	msg := err.Error() // an *apierr.Error's carries the node's text
	if !tooLargeRE.MatchString(msg) {
		return 0, false
	}
	next = rng / 2
	if m := suggestedRE.FindStringSubmatch(msg); m != nil {
		a, e1 := hexutil.DecodeUint64(m[1])
		b, e2 := hexutil.DecodeUint64(m[2])
		if e1 == nil && e2 == nil && b >= a && b-a+1 < rng {
			next = b - a + 1
		}
	}
	return next, true
}

// historyReason is the wallet report's reason for a scan cut short.
func historyReason(chainName string, hs *HistoryScan) string {
	return strings.TrimSpace(fmt.Sprintf("%s: history incomplete (%s)", chainName, hs.Reason))
}
