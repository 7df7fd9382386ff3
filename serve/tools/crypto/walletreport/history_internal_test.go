package walletreport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/events"
)

// logNode is a fake JSON-RPC node serving eth_getLogs over a fixed set of
// logs with the limits real providers enforce, answering with their error
// texts: Infura's block-range limit (-32602 "range N exceeds limit of M")
// and result cap (-32005 "query returned more than N results. Try with this
// block range [0x…, 0x…]."), both quoted from the Infura issue tracker
// (INFURA/infura#237) and ethers.js#4703.
type logNode struct {
	logs      []fakeLog
	maxRange  uint64
	maxResult int
	failFrom  uint64 // blocks at or below fail with a plain node error (0: never)
	requests  atomic.Int64
}

type fakeLog struct {
	block   uint64
	address common.Address
	topics  []common.Hash
}

func (n *logNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.requests.Add(1)
	body, _ := io.ReadAll(r.Body)
	var reqs []struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &reqs); err != nil {
		http.Error(w, "want a batch", http.StatusBadRequest)
		return
	}
	out := make([]map[string]any, len(reqs))
	for i, q := range reqs {
		res, e := n.getLogs(q.Params[0])
		out[i] = map[string]any{"jsonrpc": "2.0", "id": q.ID}
		if e != nil {
			out[i]["error"] = e
		} else {
			out[i]["result"] = res
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

func (n *logNode) getLogs(raw json.RawMessage) ([]map[string]any, map[string]any) {
	var f struct {
		From   hexutil.Uint64    `json:"fromBlock"`
		To     hexutil.Uint64    `json:"toBlock"`
		Topics []json.RawMessage `json:"topics"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, map[string]any{"code": -32602, "message": err.Error()}
	}
	from, to := uint64(f.From), uint64(f.To)
	if to-from+1 > n.maxRange {
		return nil, map[string]any{"code": -32602, "message": fmt.Sprintf("range %d exceeds limit of %d", to-from+1, n.maxRange)}
	}
	if n.failFrom > 0 && from <= n.failFrom {
		return nil, map[string]any{"code": -32000, "message": "header not found"}
	}
	var match []fakeLog
	for _, l := range n.logs {
		if l.block >= from && l.block <= to && topicsMatch(f.Topics, l.topics) {
			match = append(match, l)
		}
	}
	sort.Slice(match, func(i, j int) bool { return match[i].block < match[j].block })
	if len(match) > n.maxResult {
		end := match[n.maxResult].block - 1
		return nil, map[string]any{"code": -32005, "message": fmt.Sprintf("query returned more than %d results. Try with this block range [%#x, %#x].", n.maxResult, from, end),
			"data": map[string]any{"from": hexutil.EncodeUint64(from), "to": hexutil.EncodeUint64(end), "limit": n.maxResult}}
	}
	res := []map[string]any{}
	for _, l := range match {
		res = append(res, map[string]any{"address": l.address, "topics": l.topics, "data": "0x" + strings.Repeat("00", 32),
			"blockNumber": hexutil.EncodeUint64(l.block)})
	}
	return res, nil
}

// topicsMatch applies eth_getLogs topic filters: a position is null (any),
// a topic, or a list of alternatives.
func topicsMatch(filter []json.RawMessage, topics []common.Hash) bool {
	for i, raw := range filter {
		if string(raw) == "null" {
			continue
		}
		if i >= len(topics) {
			return false
		}
		var alts []common.Hash
		var one common.Hash
		if json.Unmarshal(raw, &one) == nil {
			alts = []common.Hash{one}
		} else if json.Unmarshal(raw, &alts) != nil {
			return false
		}
		ok := false
		for _, a := range alts {
			ok = ok || a == topics[i]
		}
		if !ok {
			return false
		}
	}
	return true
}

func TestScanHistory(t *testing.T) {
	owner := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	ot := common.BytesToHash(owner.Bytes())
	other := common.BytesToHash(common.HexToAddress("0x0000000000000000000000000000000000000b0b").Bytes())
	tok := common.HexToAddress("0x00000000000000000000000000000000000070c0")
	const head = 2_000_100
	node := &logNode{maxRange: 100_000, maxResult: 10}
	add := func(block uint64, topics ...common.Hash) {
		node.logs = append(node.logs, fakeLog{block: block, address: tok, topics: topics})
	}
	add(10, events.Approval, ot, other)  // beyond the depth: not to be seen
	add(100, events.Approval, ot, other) // the oldest block of the window
	add(650_000, events.ApprovalForAll, ot, other)
	add(1_999_999, events.Approval, ot, other)
	add(1_000_000, events.Approval, other, ot) // someone else's approval: not the wallet's
	for b := uint64(1_500_000); b < 1_500_045; b++ {
		add(b, events.Transfer, other, ot) // a busy stretch past the result cap
	}
	add(1_600_000, events.Transfer, ot, other)
	srv := httptest.NewServer(node)
	t.Cleanup(srv.Close)
	c, err := chain.NewEVM(&chain.Chain{Name: "ethereum", RPC: []string{srv.URL}}, chain.Options{RatePerSecond: 1e6, Burst: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cfg := HistoryConfig{}
	cfg.fill()
	wl, hs, _ := scanHistory(context.Background(), c, cfg, owner, head, 0)
	if !hs.Complete || hs.FromBlock != 101 || hs.Wanted != 101 || hs.Reason != "" {
		t.Fatalf("scan %+v", hs)
	}
	if len(wl.approvals) != 2 || len(wl.received) != 45 || len(wl.sent) != 1 {
		t.Errorf("found %d approvals, %d received, %d sent", len(wl.approvals), len(wl.received), len(wl.sent))
	}
	if hs.Requests > 120 || int64(hs.Requests) != node.requests.Load() {
		t.Errorf("%d requests (node saw %d)", hs.Requests, node.requests.Load())
	}
	t.Logf("scan of %d blocks: %d requests", head-100, hs.Requests)

	// Under a span limit alone the chunks stop growing at the size that
	// worked: 2k … 64k, one refusal at 128k, then 64k chunks (about 37
	// requests), not a refusal every other request.
	node.maxResult = 1 << 30
	_, hs, last := scanHistory(context.Background(), c, cfg, owner, head, 0)
	if !hs.Complete || hs.Requests > 40 || last != 64_000 {
		t.Errorf("span-limited scan %+v, last range %d", hs, last)
	}
	// The next scan starts at the size the last one ended with.
	_, hs, _ = scanHistory(context.Background(), c, cfg, owner, head, last)
	if !hs.Complete || hs.Requests > 33 {
		t.Errorf("second scan %+v", hs)
	}
	node.maxResult = 10

	// The request bound stops the scan with a reason.
	cfg.MaxRequests = 5
	_, hs, _ = scanHistory(context.Background(), c, cfg, owner, head, 0)
	if hs.Complete || hs.Requests != 5 || !strings.Contains(hs.Reason, "stopped after 5 requests") {
		t.Errorf("bounded scan %+v", hs)
	}
	// A node failing for old blocks ends the scan where it failed (the
	// client forgets the logs the node gave before it began failing).
	cfg.MaxRequests = 300
	node.failFrom = 1_000_000
	c.Forget()
	wl, hs, _ = scanHistory(context.Background(), c, cfg, owner, head, 0)
	if hs.Complete || !strings.Contains(hs.Reason, "header not found") || hs.FromBlock <= 1_000_000 || len(wl.received) != 45 {
		t.Errorf("failing node %+v", hs)
	}
}

func TestShrinkRange(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		rng  uint64
		next uint64
		ok   bool
	}{
		// Texts as the providers send them (see tooLargeRE).
		{"query returned more than 10000 results. Try with this block range [0xBDE5F8, 0x102DBCC].", 10_000_000, 0x102DBCC - 0xBDE5F8 + 1, true},
		{"range 1000000 exceeds limit of 10000", 1_000_000, 500_000, true},
		{"Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters and the response size limit, this block range should work: [0x0, 0xd043b8]", 64_000_000, 0xd043b8 + 1, true},
		{"You can make eth_getLogs requests with up to a 500 block range. Based on your parameters, this block range should work: [0x123c9b2, 0x123cba5]", 2000, 0x123cba5 - 0x123c9b2 + 1, true},
		{"exceed maximum block range 10000", 20_000, 10_000, true},
		{"header not found", 1000, 0, false},
		{"execution timeout", 1000, 0, false},
	} {
		next, ok := shrinkRange(errors.New(tc.msg), tc.rng)
		if next != tc.next || ok != tc.ok {
			t.Errorf("%q: %d %v, want %d %v", tc.msg, next, ok, tc.next, tc.ok)
		}
	}
	// The client's own classification keeps the text.
	var re rpc.Error = &jsonErr{code: -32005, msg: "query returned more than 10000 results"}
	if _, ok := shrinkRange(re, 100); !ok {
		t.Error("rpc.Error not recognised")
	}
}

type jsonErr struct {
	code int
	msg  string
}

func (e *jsonErr) Error() string  { return e.msg }
func (e *jsonErr) ErrorCode() int { return e.code }
