package simulate

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/call"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/events"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/num"
)

// Input is the input of simulate_tx.
type Input struct {
	Chain       string `json:"chain" doc:"Chain." enum:"ethereum|base|arbitrum|optimism|polygon|bsc|solana"`
	From        string `json:"from,omitempty" doc:"EVM: sender address (required for EVM)." maxLength:"42"`
	To          string `json:"to,omitempty" doc:"EVM: target address (required for EVM; contract creation is not simulated)." maxLength:"42"`
	Data        string `json:"data,omitempty" doc:"EVM: calldata, hex." maxLength:"262144" default:"0x"`
	Value       string `json:"value,omitempty" doc:"EVM: wei, decimal or 0x hex." maxLength:"80"`
	Gas         int64  `json:"gas,omitempty" doc:"EVM: gas limit (default: the node's cap)." min:"21000" max:"50000000"`
	Transaction string `json:"transaction,omitempty" doc:"Solana: the transaction, base64 (unsigned allowed)." maxLength:"20000"`
	// StateOverrides are applied for the simulation only, as eth_call's.
	StateOverrides map[string]Override `json:"state_overrides,omitempty" doc:"EVM: state overrides for the simulation only, address → {balance, nonce, code, state, stateDiff} as in eth_call (at most 16 accounts, 256 slots)."`
}

var hexDataRE = regexp.MustCompile(`^0x([0-9a-fA-F]{2})*$`)

// integer is a decimal amount in base units.
var integer = regexp.MustCompile(`^[0-9]+$`)

// Validate checks the fields of the chain's kind.
func (in *Input) Validate() error {
	if in.Chain == "solana" {
		if in.Transaction == "" {
			return apierr.Invalid("transaction", "required for solana")
		}
		if in.From != "" || in.To != "" || (in.Data != "" && in.Data != "0x") || in.Value != "" || len(in.StateOverrides) > 0 {
			return apierr.Invalid("from", "from, to, data and value are for EVM chains")
		}
		if _, err := parseSolanaTx(in.Transaction); err != nil {
			return apierr.Invalid("transaction", err.Error())
		}
		return nil
	}
	switch {
	case in.Transaction != "":
		return apierr.Invalid("transaction", "transaction is for solana; give from, to, data, value")
	case !call.IsAddress(in.From):
		return apierr.Invalid("from", "want 0x followed by 40 hex digits")
	case !call.IsAddress(in.To):
		return apierr.Invalid("to", "want 0x followed by 40 hex digits")
	case in.Data != "" && !hexDataRE.MatchString(in.Data):
		return apierr.Invalid("data", "want 0x-prefixed hex bytes")
	}
	if v, ok := parseWei(in.Value); !ok || v.BitLen() > 256 {
		return apierr.Invalid("value", "want wei as a decimal or 0x hex integer")
	}
	_, err := stateOverrides(in.StateOverrides)
	return err
}

func parseWei(s string) (*big.Int, bool) {
	if s == "" {
		return new(big.Int), true
	}
	if strings.HasPrefix(s, "0x") {
		v, err := hexutil.DecodeBig(s)
		return v, err == nil
	}
	if !integer.MatchString(s) {
		return nil, false
	}
	v, ok := new(big.Int).SetString(s, 10)
	return v, ok
}

// Output is the answer of simulate_tx.
type Output struct {
	Chain        string      `json:"chain"`
	Success      bool        `json:"success"`
	RevertReason string      `json:"revert_reason,omitempty"`
	ReturnData   string      `json:"return_data,omitempty"`
	GasUsed      uint64      `json:"gas_used"`
	FeeNative    float64     `json:"fee_native"`
	FeeUSD       *float64    `json:"fee_usd,omitempty"`
	Leaving      []AssetMove `json:"assets_leaving"`
	Entering     []AssetMove `json:"assets_entering"`
	Approvals    []Approval  `json:"approvals"`
	// RiskLevel: high (unlimited or collection-wide approval), medium (an
	// approval, or assets leave and nothing enters), low otherwise.
	RiskLevel string   `json:"risk_level"`
	Reasons   []string `json:"risk_reasons"`
	// Method is how the call was traced: debug_traceCall (the node's
	// callTracer), local_evm (go-ethereum's EVM and callTracer here, over
	// state read from the node), eth_simulateV1 (logs and transfers only,
	// when the local EVM needed more state than allowed) or eth_call (no
	// trace: success, gas and the return value).
	Method string `json:"method"`
	// Block is the block whose state the simulation ran on.
	Block uint64 `json:"block,omitempty"`
	// Trace summarises the call tree (debug_traceCall and local_evm).
	Trace *Trace `json:"trace,omitempty"`
	// Solana.
	Logs           []string        `json:"logs,omitempty"`
	UnitsConsumed  *uint64         `json:"units_consumed,omitempty"`
	BalanceChanges []BalanceChange `json:"balance_changes,omitempty"`
	SolanaError    json.RawMessage `json:"solana_error,omitempty"`
	Broadcast      bool            `json:"broadcast"` // always false
	CheckedAt      time.Time       `json:"checked_at"`
}

// AssetMove is one asset transfer from or to the sender.
type AssetMove struct {
	Standard     string  `json:"standard"` // native, erc20, erc721, erc1155
	Token        string  `json:"token,omitempty"`
	Symbol       string  `json:"symbol,omitempty"`
	Counterparty string  `json:"counterparty"`
	Raw          string  `json:"amount_raw"`
	Amount       float64 `json:"amount,omitempty"`
	TokenID      string  `json:"token_id,omitempty"`
	// PulledBy is the contract that moved the sender's asset in an inner
	// call (a router's transferFrom), empty when the sender's own call did.
	PulledBy string `json:"pulled_by,omitempty"`
}

// Approval is an approval the sender grants.
type Approval struct {
	Standard  string `json:"standard"` // erc20, erc721, erc721-all
	Token     string `json:"token"`
	Spender   string `json:"spender"`
	Raw       string `json:"amount_raw,omitempty"`
	Unlimited bool   `json:"unlimited"`
	TokenID   string `json:"token_id,omitempty"`
	Approved  *bool  `json:"approved,omitempty"`
}

// BalanceChange is one account's lamport change.
type BalanceChange struct {
	Account  string `json:"account"`
	Lamports int64  `json:"change_lamports"`
}

// nativeTransferAddr is the address eth_simulateV1 with traceTransfers
// gives the ERC-20 Transfer logs it reports native transfers as.
var nativeTransferAddr = common.HexToAddress("0x" + strings.Repeat("e", 40))

type logEntry struct {
	Address common.Address `json:"address"`
	Topics  []common.Hash  `json:"topics"`
	Data    hexutil.Bytes  `json:"data"`
	// caller called the contract that emitted the log (traces only).
	caller common.Address
}

func (t *Tools) simulate(ctx context.Context, in *Input) (*Output, error) {
	if in.Chain == "solana" {
		return t.simulateSolana(ctx, in)
	}
	c, err := t.evm.Client("chain", in.Chain)
	if err != nil {
		return nil, err
	}
	over, err := stateOverrides(in.StateOverrides)
	if err != nil {
		return nil, err
	}
	from, to := common.HexToAddress(in.From), common.HexToAddress(in.To)
	val, _ := parseWei(in.Value)
	data := hexutil.MustDecode(orHex(in.Data))
	msg := chain.CallArgs{From: &from, To: &to, Value: (*hexutil.Big)(val), Data: data}
	if in.Gas > 0 {
		g := hexutil.Uint64(in.Gas)
		msg.Gas = &g
	}
	out := &Output{Chain: c.Chain.Name, Leaving: []AssetMove{}, Entering: []AssetMove{}, Approvals: []Approval{}, Reasons: []string{}, CheckedAt: t.cfg.Now().UTC()}
	var h header
	if err := c.Call(ctx, &h, "eth_getBlockByNumber", "latest", false); err != nil {
		return nil, err
	}
	out.Block = uint64(h.Number)
	// The native token's pools and the metadata of it and USDC ride along
	// with the first Multicall3 read (the moves' tokens), so pricing the
	// fee reads the pools' state only.
	pairs, all := market.DirectPairs(c, []common.Address{c.Chain.WrappedNative})
	market.WantPools(ctx, c, pairs)
	market.WantMeta(ctx, c, all)
	frame, method, reads, err := t.traceCall(ctx, c, msg, over, &h)
	var logs []logEntry
	switch {
	case err == nil:
		out.Method, out.Trace = method, frame.summarize()
		out.Trace.StateRPCCalls = reads
		out.fromFrame(frame)
		if out.Success {
			logs = frame.effects()
		}
	case errors.Is(err, errStateBudget):
		t.cfg.Logger.Info("crypto: simulate_tx local EVM over budget; eth_simulateV1 instead", "chain", c.Chain.Name, "reads", reads)
		if logs, err = t.simulateV1(ctx, c, msg, over, &h, out); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	if err := t.decodeMoves(ctx, c, from, logs, out); err != nil {
		return nil, err
	}
	// The sender's balances of what leaves ride along with the fee's price
	// reads.
	calls, _ := leavingBalances(c, from, out)
	c.Want(ctx, calls...)
	var gp hexutil.Big
	if err := c.Call(ctx, &gp, "eth_gasPrice"); err != nil {
		return nil, err
	}
	out.FeeNative = num.Round(market.ToFloat(new(big.Int).Mul(gp.ToInt(), new(big.Int).SetUint64(out.GasUsed)), 18), 8)
	if p, err := market.USDPrices(ctx, c, []common.Address{c.Chain.WrappedNative}, nil); err == nil && p[c.Chain.WrappedNative] != nil {
		out.FeeUSD = num.Ptr(num.Round(out.FeeNative*p[c.Chain.WrappedNative].PriceUSD, 6))
	}
	facts, err := t.riskFacts(ctx, c, from, to, &h, out)
	if err != nil {
		return nil, err
	}
	out.risk(facts)
	if frame != nil && out.Success {
		if n := frame.failedInner(); n > 0 {
			out.Reasons = append(out.Reasons, fmt.Sprintf("%d inner calls failed and were caught by their callers", n))
		}
	}
	return out, nil
}

// fromFrame fills success, gas, return data and revert reason from the
// top frame.
func (o *Output) fromFrame(f *callFrame) {
	o.Success, o.GasUsed = f.Error == "", uint64(f.GasUsed)
	if len(f.Output) > 0 {
		o.ReturnData = hexutil.Encode(f.Output)
	}
	if !o.Success {
		o.RevertReason = f.reason()
	}
}

func orHex(s string) string {
	if s == "" {
		return "0x"
	}
	return s
}

// simulateV1 runs the call with eth_simulateV1 (transfers traced); a node
// without it gets eth_call and eth_estimateGas in one batch instead.
func (t *Tools) simulateV1(ctx context.Context, c *chain.EVM, msg chain.CallArgs, over map[common.Address]accountOverride, h *header, out *Output) ([]logEntry, error) {
	var blocks []struct {
		Calls []struct {
			Status     hexutil.Uint64 `json:"status"`
			ReturnData hexutil.Bytes  `json:"returnData"`
			GasUsed    hexutil.Uint64 `json:"gasUsed"`
			Logs       []logEntry     `json:"logs"`
			Error      *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
				Data    string `json:"data"`
			} `json:"error"`
		} `json:"calls"`
	}
	bsc := map[string]any{"calls": []any{msg}}
	if len(over) > 0 {
		bsc["stateOverrides"] = over
	}
	opts := map[string]any{"blockStateCalls": []any{bsc}, "traceTransfers": true, "validation": false}
	err := c.Call(ctx, &blocks, "eth_simulateV1", opts, h.tag())
	if errors.Is(err, chain.ErrMethodNotFound) {
		return nil, t.callFallback(ctx, c, msg, over, h, out)
	}
	if err != nil {
		return nil, err
	}
	if len(blocks) != 1 || len(blocks[0].Calls) != 1 {
		return nil, apierr.New(apierr.ErrUpstream, "rpc_bad_answer", c.Chain.Name+": eth_simulateV1 answer has the wrong shape")
	}
	call := blocks[0].Calls[0]
	out.Method, out.GasUsed = "eth_simulateV1", uint64(call.GasUsed)
	out.Success = call.Status == 1
	if len(call.ReturnData) > 0 {
		out.ReturnData = hexutil.Encode(call.ReturnData)
	}
	if !out.Success {
		if call.Error != nil {
			if b, err := hexutil.Decode(call.Error.Data); err == nil && len(b) > 0 {
				out.RevertReason = chain.RevertReason(b)
			}
			if out.RevertReason == "" {
				out.RevertReason = call.Error.Message
			}
		}
		if out.RevertReason == "" && len(call.ReturnData) > 0 {
			out.RevertReason = chain.RevertReason(call.ReturnData)
		}
		return nil, nil
	}
	return call.Logs, nil
}

func (t *Tools) callFallback(ctx context.Context, c *chain.EVM, msg chain.CallArgs, over map[common.Address]accountOverride, h *header, out *Output) error {
	out.Method = "eth_call"
	var ret hexutil.Bytes
	var gas hexutil.Uint64
	args := []any{msg, h.tag()}
	if len(over) > 0 {
		args = append(args, over)
	}
	b := []rpc.BatchElem{
		{Method: "eth_call", Args: args, Result: &ret},
		{Method: "eth_estimateGas", Args: args, Result: &gas},
	}
	if err := c.Batch(ctx, b); err != nil {
		return err
	}
	var re *chain.RevertError
	switch {
	case b[0].Error == nil:
		out.Success, out.GasUsed = true, uint64(gas)
		out.ReturnData = hexutil.Encode(ret)
	case errors.As(b[0].Error, &re):
		out.RevertReason = re.Error()
	default:
		return b[0].Error
	}
	return nil
}

// decodeMoves turns the logs into asset moves and approvals of the sender.
func (t *Tools) decodeMoves(ctx context.Context, c *chain.EVM, from common.Address, logs []logEntry, out *Output) error {
	var erc20 []common.Address
	addr := func(h common.Hash) common.Address { return common.BytesToAddress(h[12:]) }
	word := func(b []byte, i int) *big.Int {
		if len(b) < 32*(i+1) {
			return new(big.Int)
		}
		return new(big.Int).SetBytes(b[32*i : 32*(i+1)])
	}
	for _, l := range logs {
		if len(l.Topics) == 0 {
			continue
		}
		switch {
		case l.Topics[0] == events.Transfer && len(l.Topics) == 3:
			src, dst, v := addr(l.Topics[1]), addr(l.Topics[2]), word(l.Data, 0)
			std, tok := "erc20", l.Address.Hex()
			if l.Address == nativeTransferAddr {
				std, tok = "native", ""
			} else {
				erc20 = append(erc20, l.Address)
			}
			out.move(from, src, dst, l.caller, AssetMove{Standard: std, Token: tok, Raw: v.String()})
		case l.Topics[0] == events.Transfer && len(l.Topics) == 4:
			out.move(from, addr(l.Topics[1]), addr(l.Topics[2]), l.caller, AssetMove{Standard: "erc721", Token: l.Address.Hex(), Raw: "1", TokenID: l.Topics[3].Big().String()})
		case l.Topics[0] == events.TransferSingle && len(l.Topics) == 4:
			out.move(from, addr(l.Topics[2]), addr(l.Topics[3]), l.caller, AssetMove{Standard: "erc1155", Token: l.Address.Hex(), TokenID: word(l.Data, 0).String(), Raw: word(l.Data, 1).String()})
		case l.Topics[0] == events.TransferBatch && len(l.Topics) == 4:
			ids, vals := decodeUintArrays(l.Data)
			for i := range ids {
				if i < len(vals) {
					out.move(from, addr(l.Topics[2]), addr(l.Topics[3]), l.caller, AssetMove{Standard: "erc1155", Token: l.Address.Hex(), TokenID: ids[i].String(), Raw: vals[i].String()})
				}
			}
		case l.Topics[0] == events.Approval && len(l.Topics) == 3 && addr(l.Topics[1]) == from:
			v := word(l.Data, 0)
			erc20 = append(erc20, l.Address)
			out.Approvals = append(out.Approvals, Approval{Standard: "erc20", Token: l.Address.Hex(), Spender: addr(l.Topics[2]).Hex(),
				Raw: v.String(), Unlimited: v.Cmp(events.Unlimited()) >= 0})
		case l.Topics[0] == events.Approval && len(l.Topics) == 4 && addr(l.Topics[1]) == from:
			out.Approvals = append(out.Approvals, Approval{Standard: "erc721", Token: l.Address.Hex(), Spender: addr(l.Topics[2]).Hex(), TokenID: l.Topics[3].Big().String()})
		case l.Topics[0] == events.ApprovalForAll && len(l.Topics) == 3 && addr(l.Topics[1]) == from:
			on := word(l.Data, 0).Sign() != 0
			out.Approvals = append(out.Approvals, Approval{Standard: "erc721-all", Token: l.Address.Hex(), Spender: addr(l.Topics[2]).Hex(), Approved: &on, Unlimited: on})
		}
	}
	meta := map[common.Address]*market.TokenMeta{}
	if len(erc20) > 0 {
		var err error
		if meta, err = market.TokenInfo(ctx, c, erc20); err != nil {
			return err
		}
	}
	fill := func(ms []AssetMove) {
		for i := range ms {
			switch ms[i].Standard {
			case "native":
				ms[i].Symbol = c.Chain.Native
				v, _ := new(big.Int).SetString(ms[i].Raw, 10)
				ms[i].Amount = market.ToFloat(v, 18)
			case "erc20":
				if m := meta[common.HexToAddress(ms[i].Token)]; m != nil && m.OK {
					v, _ := new(big.Int).SetString(ms[i].Raw, 10)
					ms[i].Symbol, ms[i].Amount = m.Symbol, market.ToFloat(v, m.Decimals)
				}
			}
		}
	}
	fill(out.Leaving)
	fill(out.Entering)
	return nil
}

func (o *Output) move(sender, src, dst, caller common.Address, m AssetMove) {
	switch {
	case src == sender && dst != sender:
		m.Counterparty = dst.Hex()
		if caller != (common.Address{}) && caller != sender {
			m.PulledBy = caller.Hex()
		}
		o.Leaving = append(o.Leaving, m)
	case dst == sender && src != sender:
		m.Counterparty = src.Hex()
		o.Entering = append(o.Entering, m)
	}
}

// decodeUintArrays decodes (uint256[], uint256[]) ABI data.
func decodeUintArrays(b []byte) ([]*big.Int, []*big.Int) {
	// Offsets and lengths come from the node: bound them before use.
	word := func(w []byte) int {
		v := new(big.Int).SetBytes(w)
		if !v.IsInt64() || v.Int64() > int64(len(b)) {
			return -1
		}
		return int(v.Int64())
	}
	arr := func(off int) []*big.Int {
		if off < 0 || off+32 > len(b) {
			return nil
		}
		n := word(b[off : off+32])
		var out []*big.Int
		for i := 0; i < n && off+64+32*i <= len(b); i++ {
			out = append(out, new(big.Int).SetBytes(b[off+32+32*i:off+64+32*i]))
		}
		return out
	}
	if len(b) < 64 {
		return nil, nil
	}
	return arr(word(b[:32])), arr(word(b[32:64]))
}

// parseSolanaTx checks a base64 transaction and returns its account keys
// (static keys of the message; legacy and v0 formats).
func parseSolanaTx(s string) ([]string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, errors.New("not base64")
	}
	nsig, n := compactU16(b)
	if n == 0 || len(b) < n+64*nsig+4 {
		return nil, errors.New("too short for a Solana transaction")
	}
	m := b[n+64*nsig:]
	if m[0]&0x80 != 0 { // versioned message: a prefix byte
		m = m[1:]
	}
	if len(m) < 4 {
		return nil, errors.New("message header missing")
	}
	m = m[3:]
	nkeys, n := compactU16(m)
	if n == 0 || len(m) < n+32*nkeys {
		return nil, errors.New("account keys cut short")
	}
	keys := make([]string, nkeys)
	for i := range keys {
		keys[i] = market.Base58Encode(m[n+32*i : n+32*(i+1)])
	}
	return keys, nil
}

// compactU16 decodes Solana's 1–3 byte length; n is 0 on bad input.
func compactU16(b []byte) (v, n int) {
	for i := 0; i < 3 && i < len(b); i++ {
		v |= int(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

func (t *Tools) simulateSolana(ctx context.Context, in *Input) (*Output, error) {
	if t.sol == nil {
		return nil, apierr.New(apierr.ErrUnavailable, "chain_not_configured", "solana has no RPC endpoint configured")
	}
	keys, err := parseSolanaTx(in.Transaction)
	if err != nil {
		return nil, apierr.Invalid("transaction", err.Error())
	}
	var r struct {
		Value struct {
			Err           json.RawMessage `json:"err"`
			Logs          []string        `json:"logs"`
			UnitsConsumed *uint64         `json:"unitsConsumed"`
			Fee           *uint64         `json:"fee"`
			PreBalances   []int64         `json:"preBalances"`
			PostBalances  []int64         `json:"postBalances"`
		} `json:"value"`
	}
	opts := map[string]any{"encoding": "base64", "sigVerify": false, "replaceRecentBlockhash": true}
	if err := t.sol.Call(ctx, &r, "simulateTransaction", in.Transaction, opts); err != nil {
		return nil, chain.SolanaErr(err)
	}
	v := r.Value
	out := &Output{Chain: "solana", Method: "simulateTransaction", Logs: v.Logs, UnitsConsumed: v.UnitsConsumed,
		Leaving: []AssetMove{}, Entering: []AssetMove{}, Approvals: []Approval{}, Reasons: []string{}, CheckedAt: t.cfg.Now().UTC()}
	out.Success = len(v.Err) == 0 || string(v.Err) == "null"
	if !out.Success {
		out.SolanaError = v.Err
		out.RevertReason = string(v.Err)
	}
	if v.UnitsConsumed != nil {
		out.GasUsed = *v.UnitsConsumed
	}
	if v.Fee != nil {
		out.FeeNative = num.Round(float64(*v.Fee)/1e9, 9)
	}
	for i := range v.PreBalances {
		if i < len(v.PostBalances) && i < len(keys) && v.PostBalances[i] != v.PreBalances[i] {
			out.BalanceChanges = append(out.BalanceChanges, BalanceChange{Account: keys[i], Lamports: v.PostBalances[i] - v.PreBalances[i]})
		}
	}
	out.risk(facts{})
	return out, nil
}
