package walletreport

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/crypto/chain"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/events"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/market"
	"github.com/openshelf/openshelf/serve/tools/crypto/internal/sell"
	"github.com/openshelf/openshelf/serve/tools/crypto/portfolio"
)

// Input is the input of wallet_report.
type Input struct {
	Address string `json:"address" doc:"Wallet: 0x address, or a base58 Solana address (portfolio only)." minLength:"1" maxLength:"64"`
	Chains  string `json:"chains,omitempty" doc:"EVM only: comma list of ethereum, base, arbitrum, optimism, polygon, bsc; default all." maxLength:"100"`
}

// Validate reuses the portfolio rules.
func (in *Input) Validate() error {
	p := portfolio.Input{Address: in.Address, Chains: in.Chains}
	return p.Validate()
}

// Output is the answer of wallet_report.
type Output struct {
	Address   string            `json:"address"`
	Verdict   string            `json:"verdict"` // clean, caution, high-risk, flagged, incomplete
	Reasons   []string          `json:"reasons"`
	Portfolio *portfolio.Output `json:"portfolio"`
	Chains    []ChainReputation `json:"chains"`
	CheckedAt time.Time         `json:"checked_at"`
	// LogWindow is the configured depth of the history scan in blocks.
	LogWindow  uint64 `json:"log_window_blocks"`
	Limitation string `json:"limitation"`
}

// ChainReputation is what one chain says about the wallet.
type ChainReputation struct {
	Chain          string         `json:"chain"`
	Nonce          uint64         `json:"transactions_sent"`
	IsContract     bool           `json:"is_contract"`
	OpenApprovals  []OpenApproval `json:"open_approvals"`
	ScamTokens     []ScamToken    `json:"scam_tokens"`
	FlaggedContact []string       `json:"flagged_interactions"`
	// History is how far back the approvals and interactions were read.
	History *HistoryScan `json:"history,omitempty"`
	Error   string       `json:"error,omitempty"`
}

// OpenApproval is an allowance still in force.
type OpenApproval struct {
	Token        string `json:"token"`
	Symbol       string `json:"symbol,omitempty"`
	Spender      string `json:"spender"`
	Raw          string `json:"allowance_raw"`
	Unlimited    bool   `json:"unlimited"`
	SpenderIsEOA bool   `json:"spender_is_eoa"`
	Flagged      string `json:"spender_flagged,omitempty"`
}

// ScamToken is a held token that fails a simulated sale.
type ScamToken struct {
	Token  string `json:"token"`
	Symbol string `json:"symbol,omitempty"`
	Reason string `json:"reason"`
}

const maxReportTokens = 8 // unknown held tokens given a sell test

func (t *Tools) walletReport(ctx context.Context, in *Input) (*Output, error) {
	pf, err := t.pf.Portfolio(ctx, &portfolio.Input{Address: in.Address, Chains: in.Chains})
	if err != nil {
		return nil, err
	}
	out := &Output{Address: pf.Address, Portfolio: pf, Reasons: []string{}, Chains: []ChainReputation{},
		CheckedAt: t.cfg.Now().UTC(), LogWindow: t.cfg.History.Blocks,
		Limitation: "Approvals, received tokens and interactions come from the wallet's logs of the last log_window_blocks blocks (each chain's history says how far the scan got); older history is not seen."}
	if pf.Kind == "solana" {
		out.Verdict = "incomplete"
		out.Reasons = append(out.Reasons, "Solana wallets get a portfolio only: approvals and scam checks are EVM-only")
		out.Limitation = "Solana: portfolio only."
		return out, nil
	}
	owner := common.HexToAddress(in.Address)
	incomplete := !pf.Complete
	// The chains are read concurrently (each has its own node and rate
	// limit), so a long history scan on one does not add to the others.
	reps := make([]ChainReputation, len(pf.Chains))
	errs := make([]error, len(pf.Chains))
	var wg sync.WaitGroup
	for i, cp := range pf.Chains {
		if cp.Error == "" {
			wg.Go(func() { reps[i], errs[i] = t.chainReputation(ctx, t.evm[cp.Chain], owner) })
		}
	}
	wg.Wait()
	for i, cp := range pf.Chains {
		if cp.Error != "" {
			continue
		}
		rep, err := reps[i], errs[i]
		if err != nil {
			t.cfg.Logger.Warn("crypto: wallet_report chain failed", "chain", cp.Chain, "err", err)
			incomplete = true
			rep = ChainReputation{Chain: cp.Chain, Error: apierr.From(err).Message, OpenApprovals: []OpenApproval{}, ScamTokens: []ScamToken{}, FlaggedContact: []string{}}
		}
		out.Chains = append(out.Chains, rep)
	}
	out.Verdict = walletVerdict(out, incomplete)
	return out, nil
}

func walletVerdict(out *Output, incomplete bool) string {
	flagged, high, caution := false, false, false
	for _, r := range out.Chains {
		if r.History != nil && !r.History.Complete {
			incomplete = true
			out.Reasons = append(out.Reasons, historyReason(r.Chain, r.History))
		}
		for _, f := range r.FlaggedContact {
			flagged = true
			out.Reasons = append(out.Reasons, r.Chain+": interacted with flagged "+f)
		}
		for _, s := range r.ScamTokens {
			high = true
			out.Reasons = append(out.Reasons, fmt.Sprintf("%s: holds %s (%s), which cannot be sold: %s", r.Chain, s.Symbol, s.Token, s.Reason))
		}
		for _, a := range r.OpenApprovals {
			switch {
			case a.SpenderIsEOA:
				high = true
				out.Reasons = append(out.Reasons, fmt.Sprintf("%s: %s may spend %s for an account without code (%s), the usual drainer pattern", r.Chain, a.Spender, a.Symbol, a.Raw))
			case a.Unlimited:
				caution = true
				out.Reasons = append(out.Reasons, fmt.Sprintf("%s: unlimited %s approval open to %s", r.Chain, a.Symbol, a.Spender))
			}
		}
	}
	switch {
	case flagged:
		return "flagged"
	case high:
		return "high-risk"
	case incomplete:
		out.Reasons = append(out.Reasons, "some chains could not be checked")
		return "incomplete"
	case caution:
		return "caution"
	}
	return "clean"
}

// chainReputation: nonce and code (one batch), Approval and Transfer logs
// of the window (one batch), current allowances and balances (one
// Multicall3 call), spender code (one batch), sell tests of unknown held
// tokens.
func (t *Tools) chainReputation(ctx context.Context, c *chain.EVM, owner common.Address) (ChainReputation, error) {
	rep := ChainReputation{Chain: c.Chain.Name, OpenApprovals: []OpenApproval{}, ScamTokens: []ScamToken{}, FlaggedContact: []string{}}
	head, err := c.HeaderAt(ctx, nil)
	if err != nil {
		return rep, err
	}
	var nonce hexutil.Uint64
	var code hexutil.Bytes
	b := []rpc.BatchElem{
		{Method: "eth_getTransactionCount", Args: []any{owner, hexutil.EncodeUint64(head.Number)}, Result: &nonce},
		{Method: "eth_getCode", Args: []any{owner, hexutil.EncodeUint64(head.Number)}, Result: &code},
	}
	if err := c.Batch(ctx, b); err != nil {
		return rep, err
	}
	for _, e := range b {
		if e.Error != nil {
			return rep, e.Error
		}
	}
	rep.Nonce, rep.IsContract = uint64(nonce), len(code) > 0
	start, _ := t.logRange.Load(c.Chain.Name)
	st, _ := start.(uint64)
	wl, hs, last := scanHistory(ctx, c, t.cfg.History, owner, head.Number, st)
	t.logRange.Store(c.Chain.Name, last)
	rep.History = &hs
	if hs.FromBlock > head.Number && !hs.Complete {
		// Not one chunk could be read: the chain failed.
		return rep, apierr.New(apierr.ErrUpstream, "rpc_error", c.Chain.Name+": "+hs.Reason)
	}
	approvals, received, sent := wl.approvals, wl.received, wl.sent
	flagged := map[common.Address]string{}
	for _, f := range c.Chain.Flagged {
		flagged[f.Address] = f.Label
	}
	contact := map[string]bool{}
	note := func(a common.Address) {
		if l, ok := flagged[a]; ok && !contact[a.Hex()] {
			contact[a.Hex()] = true
			rep.FlaggedContact = append(rep.FlaggedContact, a.Hex()+" ("+l+")")
		}
	}
	type pair struct{ token, spender common.Address }
	var pairs []pair
	seen := map[pair]bool{}
	for _, l := range approvals {
		if len(l.Topics) != 3 {
			continue // ERC-721 single-token approvals carry the id as a fourth topic
		}
		p := pair{l.Address, common.BytesToAddress(l.Topics[2][12:])}
		note(p.spender)
		if l.Topics[0] == events.Approval && !seen[p] { // ApprovalForAll has no allowance to read
			seen[p] = true
			pairs = append(pairs, p)
		}
	}
	var tokens []common.Address
	for _, l := range append(received, sent...) {
		if len(l.Topics) != 3 {
			continue
		}
		note(l.Address)
		note(common.BytesToAddress(l.Topics[1][12:]))
		note(common.BytesToAddress(l.Topics[2][12:]))
		if !slices.Contains(tokens, l.Address) {
			tokens = append(tokens, l.Address)
		}
	}
	calls := make([]chain.Call, 0, len(pairs)+len(tokens))
	for _, p := range pairs {
		calls = append(calls, chain.Call{Target: p.token, Method: "allowance", Args: []any{owner, p.spender}})
	}
	for _, tk := range tokens {
		calls = append(calls, chain.Call{Target: tk, Method: "balanceOf", Args: []any{owner}})
	}
	res, err := c.Multicall(ctx, calls, nil)
	if err != nil {
		return rep, err
	}
	for i, p := range pairs {
		if v := res[i].Big(0); v != nil && v.Sign() > 0 {
			rep.OpenApprovals = append(rep.OpenApprovals, OpenApproval{Token: p.token.Hex(), Spender: p.spender.Hex(), Raw: v.String(),
				Unlimited: v.Cmp(events.Unlimited()) >= 0, Flagged: flagged[p.spender]})
		}
	}
	if err := t.spenderCode(ctx, c, rep.OpenApprovals); err != nil {
		return rep, err
	}
	var held []common.Address
	for i, tk := range tokens {
		if v := res[len(pairs)+i].Big(0); v != nil && v.Sign() > 0 {
			if _, known := c.Chain.TokenByAddress(tk); !known && tk != c.Chain.WrappedNative {
				held = append(held, tk)
			}
		}
	}
	metaList := append(slices.Clone(held), func() []common.Address {
		var a []common.Address
		for _, o := range rep.OpenApprovals {
			a = append(a, common.HexToAddress(o.Token))
		}
		return a
	}()...)
	meta, err := market.TokenInfo(ctx, c, metaList)
	if err != nil {
		return rep, err
	}
	for i := range rep.OpenApprovals {
		if m := meta[common.HexToAddress(rep.OpenApprovals[i].Token)]; m != nil {
			rep.OpenApprovals[i].Symbol = m.Symbol
		}
	}
	if err := t.scamTokens(ctx, c, held, meta, &rep); err != nil {
		return rep, err
	}
	sort.SliceStable(rep.OpenApprovals, func(i, j int) bool { return rep.OpenApprovals[i].Unlimited && !rep.OpenApprovals[j].Unlimited })
	return rep, nil
}

// spenderCode marks spenders without code (one batch of eth_getCode).
func (t *Tools) spenderCode(ctx context.Context, c *chain.EVM, open []OpenApproval) error {
	if len(open) == 0 {
		return nil
	}
	codes := make([]hexutil.Bytes, len(open))
	b := make([]rpc.BatchElem, len(open))
	for i, o := range open {
		b[i] = rpc.BatchElem{Method: "eth_getCode", Args: []any{common.HexToAddress(o.Spender), "latest"}, Result: &codes[i]}
	}
	if err := c.Batch(ctx, b); err != nil {
		return err
	}
	for i := range open {
		if b[i].Error != nil {
			return b[i].Error
		}
		open[i].SpenderIsEOA = len(codes[i]) == 0
	}
	return nil
}

// scamTokens sells 10 USD of each unknown held token in simulation; a
// revert marks it as a scam token. Tokens without a pool are not judged.
func (t *Tools) scamTokens(ctx context.Context, c *chain.EVM, held []common.Address, meta map[common.Address]*market.TokenMeta, rep *ChainReputation) error {
	if len(held) > maxReportTokens {
		held = held[:maxReportTokens]
	}
	if len(held) == 0 {
		return nil
	}
	qs, err := market.USDPrices(ctx, c, append(slices.Clone(held), c.Chain.WrappedNative), nil)
	if err != nil {
		return err
	}
	var sales []sell.Sale
	for _, tk := range held {
		if m := meta[tk]; m != nil && m.OK && qs[tk] != nil {
			sales = append(sales, sell.Sale{Token: tk, Decimals: m.Decimals, Price: qs[tk], USD: 10})
		}
	}
	for i, s := range sell.Simulate(ctx, c, qs[c.Chain.WrappedNative], sales) {
		if s.Reverted {
			tk := sales[i].Token
			rep.ScamTokens = append(rep.ScamTokens, ScamToken{Token: tk.Hex(), Symbol: meta[tk].Symbol, Reason: "a simulated sale reverts: " + s.RevertReason})
		}
	}
	return nil
}
