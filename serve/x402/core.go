package x402

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
)

// Networks and assets this package knows defaults for.
const (
	NetworkBase        = "eip155:8453"
	NetworkBaseSepolia = "eip155:84532"
	// USDC contracts; their EIP-712 domain names differ ("USD Coin" on
	// mainnet, "USDC" on Sepolia), and a wrong name gives signatures that
	// never recover to the payer.
	USDCBase        = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
	USDCBaseSepolia = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
)

// Outcomes reported to Config.Metrics, one per Pay call.
const (
	OutcomeRequired         = "required"          // no payment sent (402)
	OutcomeRejected         = "rejected"          // payment refused (402)
	OutcomeSettled          = "settled"           // paid and served
	OutcomeReplayed         = "replayed"          // served again on an already settled payment
	OutcomeHandlerError     = "handler_error"     // handler failed: nothing charged
	OutcomeSettleFailed     = "settle_failed"     // facilitator refused to settle (402)
	OutcomeFacilitatorError = "facilitator_error" // facilitator unreachable or timed out (502/504)
	OutcomeError            = "error"             // ledger or configuration failure (500)
)

// Config configures a Core. Zero fields take the defaults noted.
type Config struct {
	// PayTo receives the payments (required). A mixed-case address must
	// carry a valid EIP-55 checksum; it is sent checksummed.
	PayTo string
	// Network is CAIP-2; default NetworkBase.
	Network string
	// Asset is the EIP-3009 token; default USDC of Network.
	Asset string
	// AssetName and AssetVersion are the token's EIP-712 domain; defaults
	// "USD Coin" (Base) or "USDC" (Base Sepolia), and "2".
	AssetName    string
	AssetVersion string
	// ChainID must agree with Network; default taken from it.
	ChainID uint64
	// MaxTimeoutSeconds is offered to clients, who sign authorizations
	// valid for that long; it must exceed the worst settlement latency.
	// Default 300.
	MaxTimeoutSeconds int
	// ValiditySlack is how far beyond now + MaxTimeoutSeconds a validBefore
	// may lie (clock skew). Default 60 s.
	ValiditySlack time.Duration
	// Facilitator verifies and settles (required).
	Facilitator Facilitator
	// Ledger records claims and settlements (required).
	Ledger *Ledger
	// ClaimLease is how long a claim held by another process may stay
	// unsettled before it is presumed abandoned and taken over. Default 10
	// min.
	ClaimLease time.Duration
	// PollInterval is how often a request waiting on another process's
	// claim looks again. Default 20 ms.
	PollInterval time.Duration
	// Now defaults to time.Now.
	Now func() time.Time
	// Logger defaults to discarding.
	Logger *slog.Logger
	// Metrics, if set, is called once per Pay with an Outcome* value.
	Metrics func(outcome string)
}

// Core is the payment core: it builds requirements and runs Pay. It is safe
// for concurrent use.
type Core struct {
	cfg   Config
	owner string // this Core's prefix for claim owners
	seq   atomic.Uint64

	mu      sync.Mutex
	flights map[claimKey]*flight
}

// flight is one in-process attempt to pay with an authorization. Requests
// carrying the same authorization wait on done instead of racing.
type flight struct {
	done     chan struct{}
	resource string
	receipt  *SettlementResponse // set before done closes if it settled
}

// New validates cfg, fills defaults and returns a Core.
func New(cfg Config) (*Core, error) {
	bad := func(format string, args ...any) (*Core, error) {
		return nil, fmt.Errorf("x402: config: "+format, args...)
	}
	payTo, ok := parseAddress(cfg.PayTo)
	if !ok || payTo == ([20]byte{}) {
		return bad("PayTo %q is not a (checksummed) address", cfg.PayTo)
	}
	cfg.PayTo = payTo.Hex()
	if cfg.Network == "" {
		cfg.Network = NetworkBase
	}
	id, ok := chainIDOf(cfg.Network)
	if !ok {
		return bad("Network %q is not eip155:<chain id>", cfg.Network)
	}
	if cfg.ChainID == 0 {
		cfg.ChainID = id
	} else if cfg.ChainID != id {
		return bad("ChainID %d does not match Network %s", cfg.ChainID, cfg.Network)
	}
	switch cfg.Network {
	case NetworkBase:
		cfg.Asset = cmpOr(cfg.Asset, USDCBase)
		cfg.AssetName = cmpOr(cfg.AssetName, "USD Coin")
	case NetworkBaseSepolia:
		cfg.Asset = cmpOr(cfg.Asset, USDCBaseSepolia)
		cfg.AssetName = cmpOr(cfg.AssetName, "USDC")
	}
	cfg.AssetVersion = cmpOr(cfg.AssetVersion, "2")
	asset, ok := parseAddress(cfg.Asset)
	if !ok {
		return bad("Asset %q is not an address", cfg.Asset)
	}
	cfg.Asset = asset.Hex()
	if cfg.AssetName == "" {
		return bad("AssetName (the token's EIP-712 domain name) is required for %s", cfg.Network)
	}
	if cfg.MaxTimeoutSeconds == 0 {
		cfg.MaxTimeoutSeconds = 300
	}
	if cfg.MaxTimeoutSeconds <= int(validBeforeBuffer/time.Second) || cfg.MaxTimeoutSeconds > 86400 {
		return bad("MaxTimeoutSeconds %d is out of range (7..86400)", cfg.MaxTimeoutSeconds)
	}
	if cfg.ValiditySlack == 0 {
		cfg.ValiditySlack = time.Minute
	}
	if cfg.ValiditySlack < 0 {
		return bad("ValiditySlack is negative")
	}
	if cfg.Facilitator == nil {
		return bad("Facilitator is required")
	}
	if cfg.Ledger == nil {
		return bad("Ledger is required")
	}
	if cfg.ClaimLease == 0 {
		cfg.ClaimLease = 10 * time.Minute
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 20 * time.Millisecond
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("x402: owner id: %w", err)
	}
	return &Core{cfg: cfg, owner: hex.EncodeToString(b[:]), flights: make(map[claimKey]*flight)}, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Config returns the effective configuration (defaults filled in).
func (c *Core) Config() Config { return c.cfg }

// Domain returns the EIP-712 domain payers sign under.
func (c *Core) Domain() Domain {
	a, _ := parseAddress(c.cfg.Asset)
	return Domain{Name: c.cfg.AssetName, Version: c.cfg.AssetVersion, ChainID: c.cfg.ChainID, VerifyingContract: a}
}

// NewRequirements builds the 402 answer of a paid resource priced in USD
// (e.g. "0.001"). It fails on an invalid or zero price: free resources do
// not go through the core.
func (c *Core) NewRequirements(resourceURL, description, mimeType, priceUSD string) (PaymentRequired, error) {
	if resourceURL == "" {
		return PaymentRequired{}, errors.New("x402: requirements: empty resource URL")
	}
	amount, err := PriceToAtomic(priceUSD)
	if err != nil {
		return PaymentRequired{}, err
	}
	if amount == "0" {
		return PaymentRequired{}, fmt.Errorf("%w %q: zero (free resources need no payment)", ErrInvalidPrice, priceUSD)
	}
	return PaymentRequired{
		X402Version: Version,
		Resource:    Resource{URL: resourceURL, Description: description, MimeType: mimeType},
		Accepts: []PaymentRequirements{{
			Scheme:            SchemeExact,
			Network:           c.cfg.Network,
			Amount:            amount,
			Asset:             c.cfg.Asset,
			PayTo:             c.cfg.PayTo,
			MaxTimeoutSeconds: c.cfg.MaxTimeoutSeconds,
			Extra:             Extra{Name: c.cfg.AssetName, Version: c.cfg.AssetVersion},
		}},
	}, nil
}

// Requirements is NewRequirements for prices known to be valid (checked at
// start-up, e.g. by the registry with PriceToAtomic). For an invalid price
// it logs an error and returns requirements with no accepts, which Pay
// answers with a 500 instead of accepting any payment.
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

// PayHeader is Pay for the HTTP transport: header is the raw
// PAYMENT-SIGNATURE value ("" when absent).
func PayHeader[T any](ctx context.Context, c *Core, req PaymentRequired, header string, run func(context.Context) (T, error)) (T, *SettlementResponse, error) {
	if strings.TrimSpace(header) == "" {
		return Pay(ctx, c, req, nil, run)
	}
	p, err := DecodePaymentHeader(header)
	if err != nil {
		var zero T
		c.observe(OutcomeRejected)
		return zero, nil, NewDecodeError(req, err)
	}
	return Pay(ctx, c, req, p, run)
}

// Pay charges for one call of run. req is the route's requirements (from
// Requirements), payload the client's decoded payment (nil if none).
//
// It returns run's result and the receipt to send (PAYMENT-RESPONSE), or
// an error: a *PaymentError for anything the client can fix by paying
// (402), run's own error unchanged when the handler fails (nothing is
// charged and the authorization stays usable), an apierr 502/504 when the
// facilitator cannot be reached, or an internal error. The caller must
// buffer run's output and send nothing of it unless Pay succeeds.
//
// An authorization already settled for the same resource is served again
// with the stored receipt and not charged again; requests carrying an
// authorization that is being paid right now wait for that payment and
// then replay its receipt.
func Pay[T any](ctx context.Context, c *Core, req PaymentRequired, payload *PaymentPayload, run func(context.Context) (T, error)) (T, *SettlementResponse, error) {
	var zero T
	s, err := c.begin(ctx, req, payload)
	if err != nil {
		return zero, nil, err
	}
	defer s.abandon() // releases the claim if run panics
	v, err := run(context.WithValue(ctx, paymentKey{}, Payment{
		ID:     s.key.id(),
		Payer:  s.key.Payer,
		Replay: s.replay != nil,
	}))
	if err != nil {
		s.fail(OutcomeHandlerError)
		return zero, nil, err
	}
	receipt, err := s.settle(ctx)
	if err != nil {
		return zero, nil, err
	}
	return v, receipt, nil
}

func (c *Core) observe(outcome string) {
	if c.cfg.Metrics != nil {
		c.cfg.Metrics(outcome)
	}
}

// session is one Pay call past verification.
type session struct {
	c        *Core
	pr       PaymentRequired
	req      PaymentRequirements
	payload  *PaymentPayload
	resource string
	auth     auth
	key      claimKey
	owner    string
	flight   *flight             // nil on replay
	replay   *SettlementResponse // set on replay
	finished bool
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

// begin verifies the payment and claims its authorization.
func (c *Core) begin(ctx context.Context, pr PaymentRequired, p *PaymentPayload) (*session, error) {
	if len(pr.Accepts) == 0 {
		return nil, c.internal("route has no payment requirements", errMisconfigured, "resource", pr.Resource.URL)
	}
	if p == nil {
		c.observe(OutcomeRequired)
		return nil, newPaymentError(pr, ReasonPaymentRequired, "", nil)
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
	s := &session{c: c, pr: pr, req: req, payload: p, resource: pr.Resource.URL, auth: a, key: keyOf(req, a),
		owner: c.owner + "-" + strconv.FormatUint(c.seq.Add(1), 36)}
	if err := c.claim(ctx, s, pr); err != nil {
		return nil, err
	}
	if s.replay != nil {
		return s, nil
	}
	// Chain-dependent checks (balance, nonce unused on chain, simulation)
	// are the facilitator's.
	vr, err := c.cfg.Facilitator.Verify(ctx, p, req)
	if err != nil {
		s.release()
		s.land(nil)
		c.observe(OutcomeFacilitatorError)
		c.cfg.Logger.Warn("x402: facilitator verify failed", "resource", s.resource, "payer", s.key.Payer, "err", err)
		return nil, facilitatorError("verify", err)
	}
	if !vr.IsValid {
		s.release()
		s.land(nil)
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
// processes they are polled through the ledger.
func (c *Core) claim(ctx context.Context, s *session, pr PaymentRequired) error {
	for {
		c.mu.Lock()
		if f := c.flights[s.key]; f != nil {
			c.mu.Unlock()
			select {
			case <-f.done:
			case <-ctx.Done():
				c.observe(OutcomeError)
				return fmt.Errorf("x402: waiting for a concurrent payment with the same authorization: %w", ctx.Err())
			}
			if f.receipt != nil && f.resource == s.resource {
				s.replay = f.receipt
				return nil
			}
			continue // released or settled for another resource: ask the ledger
		}
		f := &flight{done: make(chan struct{}), resource: s.resource}
		c.flights[s.key] = f
		c.mu.Unlock()

		res, err := c.cfg.Ledger.claim(context.WithoutCancel(ctx), s.key, s.resource, s.owner, clampInt64(s.auth.Before), c.cfg.Now(), c.cfg.ClaimLease)
		if err != nil {
			c.land(s.key, f, nil)
			return c.internal("ledger claim failed", err, "payer", s.key.Payer, "nonce", s.key.Nonce)
		}
		if res.state == claimOwned {
			s.flight = f
			return nil
		}
		switch {
		case res.resource != s.resource:
			c.land(s.key, f, nil)
			return c.reject(pr, refuse(ReasonNonceAlreadyUsed, "this authorization was used for another resource"))
		case res.state == claimSettled:
			c.land(s.key, f, res.receipt) // waiters for the same resource replay it too
			s.replay = res.receipt
			return nil
		}
		c.land(s.key, f, nil)
		// Pending in another process: wait for it to settle or release.
		t := time.NewTimer(c.cfg.PollInterval)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			c.observe(OutcomeError)
			return fmt.Errorf("x402: waiting for a concurrent payment with the same authorization: %w", ctx.Err())
		}
	}
}

// land ends a flight: waiters wake up and read receipt (nil: not settled).
func (c *Core) land(k claimKey, f *flight, receipt *SettlementResponse) {
	f.receipt = receipt
	c.mu.Lock()
	if c.flights[k] == f {
		delete(c.flights, k)
	}
	c.mu.Unlock()
	close(f.done)
}

func (s *session) land(receipt *SettlementResponse) {
	if s.flight != nil {
		s.c.land(s.key, s.flight, receipt)
		s.flight = nil
	}
	s.finished = true
}

// release gives the authorization back so it can be used again.
func (s *session) release() {
	if s.replay != nil {
		return
	}
	if err := s.c.cfg.Ledger.release(context.Background(), s.key, s.owner); err != nil {
		s.c.cfg.Logger.Error("x402: release claim", "payer", s.key.Payer, "nonce", s.key.Nonce, "err", err)
	}
}

// fail ends a session whose handler failed: nothing is charged.
func (s *session) fail(outcome string) {
	s.release()
	s.land(nil)
	s.c.observe(outcome)
}

// abandon runs deferred: if run panicked, the claim must not stay pending.
func (s *session) abandon() {
	if !s.finished {
		s.fail(OutcomeHandlerError)
	}
}

// settle settles after a successful handler, or returns the stored receipt
// of a replay.
func (s *session) settle(ctx context.Context) (*SettlementResponse, error) {
	c := s.c
	if s.replay != nil {
		s.finished = true
		c.observe(OutcomeReplayed)
		r := *s.replay
		return &r, nil
	}
	if err := ctx.Err(); err != nil {
		// The client is gone: charging for a response nobody receives
		// would be wrong.
		s.fail(OutcomeHandlerError)
		return nil, fmt.Errorf("x402: request ended before settlement: %w", err)
	}
	// Once sent, a settlement must not be abandoned half-way because the
	// client disconnected; the facilitator bounds its own calls.
	resp, err := c.cfg.Facilitator.Settle(context.WithoutCancel(ctx), s.payload, s.req)
	now := c.cfg.Now()
	if err != nil {
		detail, _ := json.Marshal(map[string]any{"error": err.Error(), "payload": s.payload})
		c.cfg.Logger.Error("x402: settlement outcome unknown; reconcile against the chain",
			"resource", s.resource, "payer", s.key.Payer, "nonce", s.key.Nonce, "err", err, "payload", string(detail))
		if lerr := c.cfg.Ledger.unknown(context.Background(), s.key, s.resource, s.req.Amount, string(detail), now); lerr != nil {
			c.cfg.Logger.Error("x402: log unknown settlement", "err", lerr)
		}
		s.fail(OutcomeFacilitatorError)
		return nil, facilitatorError("settle", err)
	}
	if !resp.Success {
		s.fail(OutcomeSettleFailed)
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
	if err := c.cfg.Ledger.settled(context.Background(), s.key, s.owner, s.resource, s.req.Amount, &resp, now); err != nil {
		// Money moved: serve regardless. A replay of this payment will be
		// refused by the facilitator (nonce used on chain), never charged.
		c.cfg.Logger.Error("x402: record settlement", "payer", s.key.Payer, "nonce", s.key.Nonce, "tx", resp.Transaction, "err", err)
	}
	stored := resp
	s.land(&stored)
	c.observe(OutcomeSettled)
	c.cfg.Logger.Info("x402: settled", "resource", s.resource, "payer", resp.Payer, "amount", s.req.Amount, "tx", resp.Transaction)
	return &resp, nil
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
