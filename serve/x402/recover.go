package x402

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
)

// errSettlementUnknown is the answer to a re-send whose settlement could
// not be confirmed either way (the facilitator cannot be asked, or the
// authorization expired before it could).
var errSettlementUnknown = apierr.New(apierr.ErrUpstream, "settlement_unknown",
	"the settlement of this payment could not be confirmed yet; send the same payment again later")

// recoverRecord settles again a record left settling by a request whose
// lease expired (its process died, or the facilitator could not be
// reached). The facilitator decides deterministically:
//
//   - success: it had not settled before and has now; the record becomes
//     settled and the customer's re-send is served from it;
//   - refused as already used: the first settlement went through; the
//     record becomes settled too;
//   - refused as expired: nobody can tell any more from the facilitator;
//     the record stays settling for the operator (openshelf payments);
//   - refused otherwise: no funds moved; the record becomes failed.
//
// A facilitator error leaves it settling with an expired lease, to be
// asked again.
func (c *Core) recoverRecord(ctx context.Context, k claimKey, rec claimResult) error {
	now := c.cfg.Now()
	var sp storedPayment
	if err := json.Unmarshal([]byte(rec.payment), &sp); err != nil || sp.Payload == nil {
		return c.internal("recover: stored payment unreadable", fmt.Errorf("%v", err), "payer", k.Payer, "nonce", k.Nonce)
	}
	owner := c.newOwner()
	vb, _ := strconv.ParseInt(sp.Payload.Payload.Authorization.ValidBefore, 10, 64)
	ok, err := c.cfg.Ledger.adopt(ctx, k, rec.owner, owner, c.lease(now, vb), now.UnixMilli())
	if err != nil {
		return c.internal("recover: adopt", err, "payer", k.Payer, "nonce", k.Nonce)
	}
	if !ok {
		return nil // someone else is recovering it, or it moved on
	}
	resp, err := c.cfg.Facilitator.Settle(ctx, sp.Payload, sp.Requirements)
	now = c.cfg.Now()
	if err != nil {
		c.settleUnknown(k, owner, rec.resource, sp.Requirements.Amount, sp.Payload, err)
		c.observe(OutcomeFacilitatorError)
		return facilitatorError("settle", err)
	}
	switch {
	case resp.Success:
	case resp.ErrorReason == ReasonNonceAlreadyUsed:
		// The chain already carries this authorization: the settlement
		// sent before the crash went through. Its transaction hash was
		// lost with the process; the chain has it.
		resp = SettlementResponse{Success: true, Extensions: map[string]any{"recovered": map[string]any{
			"info": map[string]any{"note": "settled before a restart; transaction hash not recorded"}}}}
	case resp.ErrorReason == ReasonExpired:
		c.cfg.Logger.Error("x402: recovery cannot confirm an expired authorization; check the chain (openshelf payments)",
			"resource", rec.resource, "payer", k.Payer, "nonce", k.Nonce)
		if err := c.cfg.Ledger.expireLease(ctx, k, owner, now); err != nil {
			c.cfg.Logger.Error("x402: recover", "err", err)
		}
		return errSettlementUnknown
	default:
		c.cfg.Logger.Warn("x402: recovery: settlement refused, no funds moved", "resource", rec.resource,
			"payer", k.Payer, "nonce", k.Nonce, "reason", resp.ErrorReason)
		if err := c.cfg.Ledger.giveBack(ctx, k, owner, StateFailed, now); err != nil {
			return c.internal("recover: record failure", err)
		}
		return nil
	}
	resp.Network = cmpOr(resp.Network, sp.Requirements.Network)
	resp.Payer = cmpOr(resp.Payer, sp.Payload.Payload.Authorization.From)
	resp.ErrorReason, resp.ErrorMessage = "", ""
	if err := c.cfg.Ledger.settled(ctx, k, owner, rec.resource, sp.Requirements.Amount, &resp, false, now); err != nil {
		return c.internal("recover: record settlement", err, "payer", k.Payer, "nonce", k.Nonce)
	}
	c.observe(OutcomeRecovered)
	c.cfg.Logger.Info("x402: recovered settlement", "resource", rec.resource, "payer", resp.Payer, "tx", resp.Transaction)
	return nil
}

// Recover takes back what crashed requests left behind: claims whose
// lease expired (or that a previous run of this instance held) are
// released, since no settlement was sent for them; settling records are
// settled again (see recoverRecord). It reports how many records it
// looked at. Servers call it at start-up and on a schedule ([Core.Maintain]).
func (c *Core) Recover(ctx context.Context) (int, error) {
	keys, err := c.cfg.Ledger.staleKeys(ctx, c.cfg.Now().UnixMilli(), c.cfg.Instance+".", c.owner, 1000)
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, k := range keys {
		if err := c.recoverKey(ctx, k); err != nil {
			errs = append(errs, err)
		}
	}
	return len(keys), errors.Join(errs...)
}

// recoverKey recovers k unless a request of this process is on it. That
// request recovers the record itself if its holder is gone (see
// claimArgs.held), so skipping it leaves nothing behind. While recovery
// holds k, it holds k's flight too: a re-send arriving meanwhile waits on
// it and looks again as soon as recovery ends, instead of finding the
// record held in the ledger and answering 409.
func (c *Core) recoverKey(ctx context.Context, k claimKey) error {
	c.mu.Lock()
	if c.flights[k] != nil {
		c.mu.Unlock()
		return nil
	}
	f := &flight{done: make(chan struct{})}
	c.flights[k] = f
	c.mu.Unlock()
	defer c.land(k, f, nil, nil)
	rec, found, err := c.cfg.Ledger.read(ctx, k)
	if err != nil || !found {
		return err
	}
	switch rec.status {
	case StateClaimed:
		// Settlement was never sent: no funds moved.
		return c.cfg.Ledger.giveBack(ctx, k, rec.owner, StateReleased, c.cfg.Now())
	case StateSettling:
		return c.recoverRecord(ctx, k, rec)
	}
	return nil
}

// Maintain runs Recover now and every recoverEvery, and prunes the ledger
// every pruneEvery, keeping finished records for retention after their
// authorization expired, until ctx ends.
func (c *Core) Maintain(ctx context.Context, recoverEvery, pruneEvery, retention time.Duration) {
	sweep := func() {
		if n, err := c.Recover(ctx); err != nil {
			c.cfg.Logger.Warn("x402: recovery incomplete; retrying on schedule", "records", n, "err", err)
		} else if n > 0 {
			c.cfg.Logger.Info("x402: recovered abandoned payments", "records", n)
		}
	}
	prune := func() {
		if n, err := c.cfg.Ledger.Prune(ctx, c.cfg.Now(), retention); err != nil {
			c.cfg.Logger.Error("x402: ledger prune", "err", err)
		} else if n > 0 {
			c.cfg.Logger.Info("x402: ledger pruned", "rows", n)
		}
	}
	sweep()
	prune()
	rt, pt := time.NewTicker(recoverEvery), time.NewTicker(pruneEvery)
	defer rt.Stop()
	defer pt.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-rt.C:
			sweep()
		case <-pt.C:
			prune()
		}
	}
}
