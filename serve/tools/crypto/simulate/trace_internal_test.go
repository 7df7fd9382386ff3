package simulate

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/openshelf/openshelf/serve/tools/crypto/internal/events"
)

// A token behind a proxy emits its Transfer in a DELEGATECALL frame: the
// account that moved the tokens is the proxy's caller, not the proxy.
func TestEffectsThroughDelegateCall(t *testing.T) {
	sender, router := common.HexToAddress("0x01"), common.HexToAddress("0x02")
	proxy, impl, dst := common.HexToAddress("0x03"), common.HexToAddress("0x04"), common.HexToAddress("0x05")
	transfer := traceLog{logEntry: logEntry{Address: proxy, Topics: []common.Hash{events.Transfer, common.BytesToHash(sender.Bytes()), common.BytesToHash(dst.Bytes())},
		Data: common.BigToHash(common.Big1).Bytes()}}
	tokenCall := func(from common.Address) callFrame {
		return callFrame{Type: "CALL", From: from, To: &proxy, Calls: []callFrame{{Type: "DELEGATECALL", From: proxy, To: &impl, Logs: []traceLog{transfer}}}}
	}
	for _, tc := range []struct {
		name   string
		top    callFrame
		caller common.Address
	}{
		{"sender calls the token", tokenCall(sender), sender},
		{"router calls the token", callFrame{Type: "CALL", From: sender, To: &router, Calls: []callFrame{tokenCall(router)}}, router},
	} {
		logs := tc.top.effects()
		if len(logs) != 1 || logs[0].caller != tc.caller {
			t.Errorf("%s: %+v", tc.name, logs)
		}
	}
	// A failed frame's value and logs did not happen.
	v := hexutil.Big(*common.Big1)
	failed := callFrame{Type: "CALL", From: sender, To: &router, Value: &v, Calls: []callFrame{{Type: "CALL", From: router, To: &dst, Value: &v, Error: "execution reverted"}}}
	if logs := failed.effects(); len(logs) != 1 || logs[0].Address != nativeTransferAddr {
		t.Errorf("failed inner call: %+v", logs)
	}
}

func TestSummarizeBounds(t *testing.T) {
	a := common.HexToAddress("0x0a")
	top := callFrame{Type: "CALL", From: a, To: &a}
	f := &top
	for range 12 { // a chain of 13 frames, deeper than maxTraceDepth
		f.Calls = []callFrame{{Type: "CALL", From: a, To: &a}}
		f = &f.Calls[0]
	}
	ct := top.summarize()
	if ct.TotalFrames != 13 || len(ct.Frames) != maxTraceDepth+1 || !ct.Truncated {
		t.Errorf("total %d, listed %d, truncated %v", ct.TotalFrames, len(ct.Frames), ct.Truncated)
	}
	wide := callFrame{Type: "CALL", From: a, To: &a, Calls: make([]callFrame, 2*maxTraceFrames)}
	if ct := wide.summarize(); len(ct.Frames) != maxTraceFrames || !ct.Truncated || ct.TotalFrames != 2*maxTraceFrames+1 {
		t.Errorf("wide: listed %d of %d", len(ct.Frames), ct.TotalFrames)
	}
}
