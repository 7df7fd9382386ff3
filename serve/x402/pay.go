package x402

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/price"
)

// ErrPaymentInProgress is the 409 a request gets when another request
// holds the same payment for longer than Config.Wait: the client should
// send the same payment again after Retry-After.
var ErrPaymentInProgress = &apierr.Error{Status: http.StatusConflict, Code: "payment_in_progress"}

// NewRequirements builds the 402 answer of a paid resource priced in USD
// (e.g. "0.001"). It fails on an invalid or zero price: free resources do
// not go through the core.
func (c *Core) NewRequirements(resourceURL, description, mimeType, priceUSD string) (PaymentRequired, error) {
	amount, err := price.Parse(priceUSD)
	if err != nil {
		return PaymentRequired{}, err
	}
	return c.RequirementsFor(resourceURL, description, mimeType, amount)
}

// RequirementsFor builds the 402 answer of a paid resource priced amount,
// a price parsed once at registration.
func (c *Core) RequirementsFor(resourceURL, description, mimeType string, amount price.Atomic) (PaymentRequired, error) {
	if resourceURL == "" {
		return PaymentRequired{}, errors.New("x402: requirements: empty resource URL")
	}
	if amount == 0 {
		return PaymentRequired{}, fmt.Errorf("%w: zero (free resources need no payment)", ErrInvalidPrice)
	}
	return PaymentRequired{
		X402Version: Version,
		Resource:    Resource{URL: resourceURL, Description: description, MimeType: mimeType},
		Accepts: []PaymentRequirements{{
			Scheme:            SchemeExact,
			Network:           c.cfg.Network,
			Amount:            amount.String(),
			Asset:             c.cfg.Asset,
			PayTo:             c.cfg.PayTo,
			MaxTimeoutSeconds: c.cfg.MaxTimeoutSeconds,
			Extra:             Extra{Name: c.cfg.AssetName, Version: c.cfg.AssetVersion},
		}},
	}, nil
}

// Requirements is NewRequirements that never fails: for an invalid price
// it logs an error and returns requirements with no accepts, which Pay
// answers with a 500 instead of accepting any payment. Servers parse
// prices at registration and call RequirementsFor.
func (c *Core) Requirements(resourceURL, description, mimeType, priceUSD string) PaymentRequired {
	pr, err := c.NewRequirements(resourceURL, description, mimeType, priceUSD)
	if err != nil {
		c.cfg.Logger.Error("x402: invalid requirements", "resource", resourceURL, "price", priceUSD, "err", err)
		return PaymentRequired{X402Version: Version, Error: "server misconfigured",
			Resource: Resource{URL: resourceURL, Description: description, MimeType: mimeType}, Accepts: []PaymentRequirements{}}
	}
	return pr
}

// NewDecodeError turns an error of DecodePaymentHeader or DecodePaymentJSON
// into the 402 to send (reason invalid_payment_header or
// invalid_payment_json).
func NewDecodeError(req PaymentRequired, err error) *PaymentError {
	reason := ReasonInvalidPaymentJSON
	if errors.Is(err, ErrHeaderNotBase64) {
		reason = ReasonInvalidPaymentHeader
	}
	return newPaymentError(req, reason, err.Error(), err)
}

// Codec stores a paid answer so that a re-send of the same payment gets
// exactly that answer without running the handler again.
type Codec[T any] interface {
	// Encode returns the stored form of v and the value to hand out in its
	// place (Encode may consume a stream in v). ok is false when v is not
	// to be stored (too large, marked no-store).
	Encode(v T, max int) (stored []byte, out T, ok bool)
	// Decode rebuilds a stored answer.
	Decode(stored []byte) (T, error)
}

// Handler is the paid work: it receives the payment explicitly.
type Handler[T any] func(context.Context, Payment) (T, error)

// PayHeader is Pay for the HTTP transport: header is the raw
// PAYMENT-SIGNATURE value ("" when absent).
func PayHeader[T any](ctx context.Context, c *Core, req PaymentRequired, header string, run Handler[T], codec Codec[T]) (T, *SettlementResponse, error) {
	if strings.TrimSpace(header) == "" {
		return Pay(ctx, c, req, nil, run, codec)
	}
	p, err := DecodePaymentHeader(header)
	if err != nil {
		var zero T
		c.observe(OutcomeRejected)
		return zero, nil, NewDecodeError(req, err)
	}
	return Pay(ctx, c, req, p, run, codec)
}

// Pay charges for one call of run. req is the route's requirements,
// payload the client's decoded payment (nil if none), codec (optional)
// stores the answer for re-sends.
//
// It returns run's result and the receipt to send (PAYMENT-RESPONSE), or
// an error: a *PaymentError for anything the client can fix by paying
// (402), run's own error unchanged when the handler fails (nothing is
// charged and the authorization stays usable), ErrPaymentInProgress (409)
// when another request holds the payment longer than Config.Wait, an
// apierr 502/504 when the facilitator cannot be reached, or an internal
// error. The caller must buffer run's output and send nothing of it unless
// Pay succeeds.
//
// A payment already settled for the same resource is answered with its
// stored answer and receipt, without running run and without a charge; if
// no answer was stored, run runs again with Payment.Replay set.
func Pay[T any](ctx context.Context, c *Core, req PaymentRequired, payload *PaymentPayload, run Handler[T], codec Codec[T]) (T, *SettlementResponse, error) {
	var zero T
	s, err := c.begin(ctx, req, payload)
	if err != nil {
		return zero, nil, err
	}
	defer s.abandon() // releases the claim if run panics
	if s.replay != nil {
		return replay(ctx, s, run, codec)
	}
	v, err := run(ctx, s.payment(false))
	if err != nil {
		s.fail(OutcomeHandlerError)
		return zero, nil, err
	}
	var stored []byte
	if codec != nil {
		b, out, ok := codec.Encode(v, c.cfg.MaxAnswerBytes)
		v = out
		if ok && len(b) <= c.cfg.MaxAnswerBytes {
			stored = b
		}
	}
	receipt, err := s.settle(ctx, stored)
	if err != nil {
		return zero, nil, err
	}
	return v, receipt, nil
}

func replay[T any](ctx context.Context, s *session, run Handler[T], codec Codec[T]) (T, *SettlementResponse, error) {
	var zero T
	if s.answer != nil && codec != nil {
		v, err := codec.Decode(s.answer)
		if err == nil {
			return v, s.finishReplay(), nil
		}
		s.c.cfg.Logger.Error("x402: stored answer unreadable; running the handler again", "resource", s.resource, "err", err)
	}
	v, err := run(ctx, s.payment(true))
	if err != nil {
		s.fail(OutcomeHandlerError)
		return zero, nil, err
	}
	return v, s.finishReplay(), nil
}

func (c *Core) observe(outcome string) {
	if c.cfg.Metrics != nil {
		c.cfg.Metrics(outcome)
	}
}

func (c *Core) newOwner() string { return c.owner + strconv.FormatUint(c.seq.Add(1), 36) }

// lease is the end of a lease taken now for an authorization valid until
// validBefore (unix seconds): never beyond validBefore.
func (c *Core) lease(now time.Time, validBefore int64) int64 {
	end := now.Add(c.cfg.ClaimLease).UnixMilli()
	if vb := validBefore * 1000; vb < end {
		return vb
	}
	return end
}

// session is one Pay call past verification.
type session struct {
	c         *Core
	pr        PaymentRequired
	req       PaymentRequirements
	payload   *PaymentPayload
	resource  string
	auth      auth
	key       claimKey
	owner     string
	flight    *flight             // nil on replay
	replay    *SettlementResponse // set on replay
	answer    []byte              // stored answer of a replay
	recovered bool                // the replayed record is settled, not yet served
	finished  bool
}

func (s *session) payment(replay bool) Payment {
	return Payment{ID: s.key.id(), Payer: s.key.Payer, Replay: replay}
}

func (c *Core) reject(req PaymentRequired, f *finding) error {
	c.observe(OutcomeRejected)
	c.cfg.Logger.Debug("x402: payment refused", "resource", req.Resource.URL, "reason", f.reason, "detail", f.msg)
	return newPaymentError(req, f.reason, f.msg, nil)
}

func (c *Core) internal(msg string, err error, args ...any) error {
	c.observe(OutcomeError)
	c.cfg.Logger.Error("x402: "+msg, append(args, "err", err)...)
	// Not an *apierr.Error: the API answers 500 without internal details.
	return fmt.Errorf("x402: %s: %w", msg, err)
}

// storedPayment is what a record keeps to settle again during recovery.
type storedPayment struct {
	Payload      *PaymentPayload     `json:"payload"`
	Requirements PaymentRequirements `json:"requirements"`
}

// begin verifies the payment and claims its authorization.
func (c *Core) begin(ctx context.Context, pr PaymentRequired, p *PaymentPayload) (*session, error) {
	if len(pr.Accepts) == 0 {
		return nil, c.internal("route has no payment requirements", errMisconfigured, "resource", pr.Resource.URL)
	}
	if p == nil {
		c.observe(OutcomeRequired)
		return nil, newPaymentError(pr, ReasonPaymentRequired, "", nil)
	}
	if n := CanonicalNetwork(p.Accepted.Network); n != p.Accepted.Network {
		// "base" is how v1 clients and some SDKs name eip155:8453.
		q := *p
		q.Accepted.Network = n
		p = &q
	}
	if p.X402Version != Version {
		return nil, c.reject(pr, refuse(ReasonInvalidVersion, "x402Version %d, want %d", p.X402Version, Version))
	}
	if p.Resource != nil && p.Resource.URL != pr.Resource.URL {
		return nil, c.reject(pr, refuse(ReasonResourceMismatch, "payment is for %q, not %q", p.Resource.URL, pr.Resource.URL))
	}
	req, f := match(pr.Accepts, p.Accepted)
	if f != nil {
		return nil, c.reject(pr, f)
	}
	now := c.cfg.Now()
	maxAhead := time.Duration(req.MaxTimeoutSeconds)*time.Second + c.cfg.ValiditySlack
	a, f := checkExact(req, p, checkOptions{now: now, maxAhead: maxAhead})
	if f != nil {
		return nil, c.reject(pr, f)
	}
	s := &session{c: c, pr: pr, req: req, payload: p, resource: pr.Resource.URL, auth: a, key: keyOf(req, a), owner: c.newOwner()}
	if err := c.claim(ctx, s, pr); err != nil {
		return nil, err
	}
	if s.replay != nil {
		return s, nil
	}
	// Chain-dependent checks (balance, nonce unused on chain, simulation)
	// are the facilitator's. A Local one takes our checks as done.
	vr, err := c.cfg.Facilitator.Verify(withVerified(ctx, p, req, a), p, req)
	if err != nil {
		s.release()
		s.land(nil, nil)
		c.observe(OutcomeFacilitatorError)
		c.cfg.Logger.Warn("x402: facilitator verify failed", "resource", s.resource, "payer", s.key.Payer, "err", err)
		return nil, facilitatorError("verify", err)
	}
	if !vr.IsValid {
		s.release()
		s.land(nil, nil)
		msg := vr.InvalidReason
		if vr.InvalidMessage != "" {
			msg += ": " + vr.InvalidMessage
		}
		return nil, c.reject(pr, refuse(ReasonFacilitatorRejected, "%s", msg))
	}
	return s, nil
}

// claim takes the authorization for s.resource, or finds it settled for
// the same resource (s.replay is set), or refuses it. Concurrent requests
// with the same authorization in this process wait on its flight; in other
// processes they are polled through the ledger. No request waits longer
// than Config.Wait: then it gets ErrPaymentInProgress.
func (c *Core) claim(ctx context.Context, s *session, pr PaymentRequired) error {
	wctx, cancel := context.WithTimeout(ctx, c.cfg.Wait)
	defer cancel()
	// Recovery settles again from what is kept here, should this process
	// die before the facilitator's answer is recorded.
	stored, err := json.Marshal(storedPayment{Payload: s.payload, Requirements: s.req})
	if err != nil {
		return c.internal("encode payment", err)
	}
	retryAt := int64(0)
	for {
		c.mu.Lock()
		if f := c.flights[s.key]; f != nil {
			c.mu.Unlock()
			select {
			case <-f.done:
			case <-wctx.Done():
				// The holder (a request or recovery) is in this
				// process and will not leave the payment behind.
				return c.waitEnded(ctx, 0)
			}
			if f.receipt != nil && f.resource == s.resource {
				s.replay, s.answer = f.receipt, f.answer
				return nil
			}
			continue // released or settled for another resource: ask the ledger
		}
		f := &flight{done: make(chan struct{}), resource: s.resource}
		c.flights[s.key] = f
		c.mu.Unlock()

		now := c.cfg.Now()
		vb := clampInt64(s.auth.Before)
		res, err := c.cfg.Ledger.claim(context.WithoutCancel(ctx), s.key, claimArgs{resource: s.resource, owner: s.owner,
			amount: s.req.Amount, payment: string(stored), validBefore: vb, leaseMs: c.lease(now, vb), nowMs: now.UnixMilli(),
			instance: c.cfg.Instance + ".", run: c.owner})
		if err != nil {
			c.land(s.key, f, nil, nil)
			return c.internal("ledger claim failed", err, "payer", s.key.Payer, "nonce", s.key.Nonce)
		}
		switch {
		case res.state == claimOwned:
			s.flight = f
			return nil
		case res.state == claimStale:
			// Settlement was sent by a request whose process is gone
			// (its lease ended, or it was an earlier run of this
			// instance): settle again now (the facilitator tells whether
			// it went through), then look at the record again.
			err := c.recoverRecord(context.WithoutCancel(ctx), s.key, res)
			c.land(s.key, f, nil, nil)
			if err != nil {
				return err
			}
			continue
		case res.state == claimConflict:
			c.land(s.key, f, nil, nil)
		case res.resource != s.resource:
			c.land(s.key, f, nil, nil)
			return c.reject(pr, refuse(ReasonNonceAlreadyUsed, "this authorization was used for another resource"))
		case res.state == claimSettled:
			c.land(s.key, f, res.receipt, res.answer) // waiters for the same resource replay it too
			s.replay, s.answer, s.recovered = res.receipt, res.answer, res.status == StateSettled
			return nil
		default: // pending in another process
			c.land(s.key, f, nil, nil)
			retryAt = res.leaseMs
		}
		t := time.NewTimer(c.cfg.PollInterval)
		select {
		case <-t.C:
		case <-wctx.Done():
			t.Stop()
			return c.waitEnded(ctx, retryAt)
		}
	}
}

// waitEnded is the answer of a request that waited Config.Wait for a
// payment held elsewhere: 409 with Retry-After, or the request's own end.
// Retry-After is a second when this process holds the payment (leaseMs
// 0), otherwise the time until the holder's lease ends (at most 30 s),
// when a re-send recovers the payment itself should the holder be gone.
func (c *Core) waitEnded(ctx context.Context, leaseMs int64) error {
	if err := ctx.Err(); err != nil {
		c.observe(OutcomeError)
		return fmt.Errorf("x402: waiting for a concurrent payment with the same authorization: %w", err)
	}
	c.observe(OutcomeInProgress)
	e := apierr.New(ErrPaymentInProgress, "", "another request is paying with this authorization; send the same payment again after Retry-After")
	e.RetryAfter = time.Second
	if leaseMs > 0 {
		// The holder finishes or its lease ends, whichever comes first;
		// most requests finish in well under the lease.
		e.RetryAfter = min(max(time.Until(time.UnixMilli(leaseMs)), time.Second), 30*time.Second)
	}
	return e
}

// land ends a flight: waiters wake up and read receipt (nil: not settled).
func (c *Core) land(k claimKey, f *flight, receipt *SettlementResponse, answer []byte) {
	f.receipt, f.answer = receipt, answer
	c.mu.Lock()
	if c.flights[k] == f {
		delete(c.flights, k)
	}
	c.mu.Unlock()
	close(f.done)
}

func (s *session) land(receipt *SettlementResponse, answer []byte) {
	if s.flight != nil {
		s.c.land(s.key, s.flight, receipt, answer)
		s.flight = nil
	}
	s.finished = true
}

// release gives the authorization back so it can be used again.
func (s *session) release() {
	if s.replay != nil {
		return
	}
	if err := s.c.cfg.Ledger.giveBack(context.Background(), s.key, s.owner, StateReleased, s.c.cfg.Now()); err != nil {
		s.c.cfg.Logger.Error("x402: release claim", "payer", s.key.Payer, "nonce", s.key.Nonce, "err", err)
	}
}

// fail ends a session whose handler failed: nothing is charged.
func (s *session) fail(outcome string) {
	s.release()
	s.land(nil, nil)
	s.c.observe(outcome)
}

// abandon runs deferred: if run panicked, the claim must not stay pending.
func (s *session) abandon() {
	if !s.finished {
		s.fail(OutcomeHandlerError)
	}
}

// finishReplay ends a replay: a recovered record becomes served.
func (s *session) finishReplay() *SettlementResponse {
	s.finished = true
	if s.recovered {
		if err := s.c.cfg.Ledger.served(context.Background(), s.key, s.c.cfg.Now()); err != nil {
			s.c.cfg.Logger.Error("x402: mark served", "payer", s.key.Payer, "nonce", s.key.Nonce, "err", err)
		}
	}
	s.c.observe(OutcomeReplayed)
	r := *s.replay
	return &r
}

// settle records that settlement is being sent (with the answer a re-send
// gets), settles, and records the receipt.
func (s *session) settle(ctx context.Context, answer []byte) (*SettlementResponse, error) {
	c := s.c
	if err := ctx.Err(); err != nil {
		// The client is gone: charging for a response nobody receives
		// would be wrong.
		s.fail(OutcomeHandlerError)
		return nil, fmt.Errorf("x402: request ended before settlement: %w", err)
	}
	now := c.cfg.Now()
	vb := clampInt64(s.auth.Before)
	ok, err := c.cfg.Ledger.settling(context.WithoutCancel(ctx), s.key, s.owner, answer, vb, c.lease(now, vb), now.UnixMilli())
	if err != nil {
		s.fail(OutcomeError)
		return nil, c.internal("ledger settling failed", err, "payer", s.key.Payer, "nonce", s.key.Nonce)
	}
	if !ok {
		// Our lease ran out while the handler ran and the record was
		// taken over: whoever holds it now settles, never us.
		s.land(nil, nil)
		return nil, c.waitEnded(ctx, 0)
	}
	// Once sent, a settlement must not be abandoned half-way because the
	// client disconnected; the facilitator bounds its own calls.
	resp, err := c.cfg.Facilitator.Settle(withVerified(context.WithoutCancel(ctx), s.payload, s.req, s.auth), s.payload, s.req)
	now = c.cfg.Now()
	if err != nil {
		c.settleUnknown(s.key, s.owner, s.resource, s.req.Amount, s.payload, err)
		s.land(nil, nil)
		c.observe(OutcomeFacilitatorError)
		return nil, facilitatorError("settle", err)
	}
	if !resp.Success {
		if err := c.cfg.Ledger.giveBack(context.Background(), s.key, s.owner, StateFailed, now); err != nil {
			c.cfg.Logger.Error("x402: record failed settlement", "payer", s.key.Payer, "nonce", s.key.Nonce, "err", err)
		}
		s.land(nil, nil)
		c.observe(OutcomeSettleFailed)
		resp.Transaction = ""
		resp.Network = cmpOr(resp.Network, s.req.Network)
		resp.Payer = cmpOr(resp.Payer, s.auth.From.Hex())
		resp.ErrorReason = cmpOr(resp.ErrorReason, "unexpected_settle_error")
		pe := newPaymentError(s.pr, ReasonSettlementFailed, resp.ErrorReason, nil)
		pe.Settlement = &resp
		c.cfg.Logger.Warn("x402: settlement failed", "resource", s.resource, "payer", s.key.Payer, "reason", resp.ErrorReason, "detail", resp.ErrorMessage)
		return nil, pe
	}
	resp.Network = cmpOr(resp.Network, s.req.Network)
	resp.Payer = cmpOr(resp.Payer, s.auth.From.Hex())
	resp.ErrorReason, resp.ErrorMessage = "", ""
	if err := c.cfg.Ledger.settled(context.Background(), s.key, s.owner, s.resource, s.req.Amount, &resp, true, now); err != nil {
		// Money moved: serve regardless. A re-send finds the record
		// settling and recovers it (the facilitator says the nonce is
		// used), never charging twice.
		c.cfg.Logger.Error("x402: record settlement", "payer", s.key.Payer, "nonce", s.key.Nonce, "tx", resp.Transaction, "err", err)
	}
	kept := resp
	s.land(&kept, answer)
	c.observe(OutcomeSettled)
	c.cfg.Logger.Info("x402: settled", "resource", s.resource, "payer", resp.Payer, "amount", s.req.Amount, "tx", resp.Transaction)
	return &resp, nil
}

// settleUnknown logs a settlement whose outcome is unknown and leaves the
// record settling with an expired lease, so that the next re-send or sweep
// asks the facilitator again.
func (c *Core) settleUnknown(k claimKey, owner, resource, amount string, p *PaymentPayload, err error) {
	now := c.cfg.Now()
	detail, _ := json.Marshal(map[string]any{"error": err.Error(), "payload": p})
	c.cfg.Logger.Error("x402: settlement outcome unknown; it will be asked again on re-send or recovery",
		"resource", resource, "payer", k.Payer, "nonce", k.Nonce, "err", err)
	if lerr := c.cfg.Ledger.unknown(context.Background(), k, resource, amount, string(detail), now); lerr != nil {
		c.cfg.Logger.Error("x402: log unknown settlement", "err", lerr)
	}
	if lerr := c.cfg.Ledger.expireLease(context.Background(), k, owner, now); lerr != nil {
		c.cfg.Logger.Error("x402: leave settlement for recovery", "err", lerr)
	}
}

// facilitatorError maps a facilitator failure to the API error: an
// *apierr.Error already chosen by the client passes through; timeouts are
// 504 facilitator_timeout, anything else 502 facilitator_error.
func facilitatorError(op string, err error) error {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %w", apierr.New(apierr.ErrUpstreamTimeout, "facilitator_timeout", "payment facilitator did not answer "+op+" in time"), err)
	}
	return fmt.Errorf("%w: %w", apierr.New(apierr.ErrUpstream, "facilitator_error", "payment facilitator "+op+" failed"), err)
}
