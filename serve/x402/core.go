package x402

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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

// Outcomes reported to Config.Metrics, one per Pay call (and one per
// recovered record).
const (
	OutcomeRequired         = "required"          // no payment sent (402)
	OutcomeRejected         = "rejected"          // payment refused (402)
	OutcomeSettled          = "settled"           // paid and served
	OutcomeReplayed         = "replayed"          // served again on an already settled payment
	OutcomeHandlerError     = "handler_error"     // handler failed: nothing charged
	OutcomeSettleFailed     = "settle_failed"     // facilitator refused to settle (402)
	OutcomeFacilitatorError = "facilitator_error" // facilitator unreachable or timed out (502/504)
	OutcomeInProgress       = "in_progress"       // another request holds the payment (409)
	OutcomeRecovered        = "recovered"         // a crashed settlement was confirmed by recovery
	OutcomeError            = "error"             // ledger or configuration failure (500)
)

// Config configures a Core. Zero fields take the defaults noted.
type Config struct {
	// PayTo receives the payments (required). A mixed-case address must
	// carry a valid EIP-55 checksum; it is sent checksummed.
	PayTo string
	// Network is CAIP-2 (or the alias "base" / "base-sepolia"); default
	// NetworkBase.
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
	// Ledger records claims, settlements and stored answers (required).
	Ledger *Ledger
	// ClaimLease is how long a claimed or settling record is held by the
	// request that took it; after that it is presumed abandoned (its
	// process died) and recovered, by the sweep or a re-send. It never
	// outlives the authorization's validBefore, and must exceed the
	// slowest handler plus settlement. Default 2 min.
	ClaimLease time.Duration
	// Wait bounds how long a request waits for another request holding
	// the same payment; then it gets 409 payment_in_progress with
	// Retry-After. Default 3 s.
	Wait time.Duration
	// PollInterval is how often a request waiting on another process's
	// claim looks again. Default 20 ms.
	PollInterval time.Duration
	// Instance names this server among those sharing the ledger (stable
	// across restarts, unique among them): what a previous run of the same
	// instance left behind is taken back without waiting for leases to
	// expire, by Recover at start-up and by a re-send of the payment,
	// whichever comes first. Default "x402".
	Instance string
	// MaxAnswerBytes bounds a stored answer; larger answers are not stored
	// and a re-send runs the handler again. Default 1 MiB.
	MaxAnswerBytes int
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
	owner string // this run's prefix for record owners: instance.boot.
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
	answer   []byte              // the stored answer, if any
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
	cfg.Network = CanonicalNetwork(cmpOr(cfg.Network, NetworkBase))
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
	if cfg.ClaimLease <= 0 {
		cfg.ClaimLease = 2 * time.Minute
	}
	if cfg.Wait <= 0 {
		cfg.Wait = 3 * time.Second
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 20 * time.Millisecond
	}
	cfg.Instance = ownerSafe(cmpOr(cfg.Instance, "x402"))
	if cfg.MaxAnswerBytes == 0 {
		cfg.MaxAnswerBytes = 1 << 20
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("x402: owner id: %w", err)
	}
	return &Core{cfg: cfg, owner: cfg.Instance + "." + hex.EncodeToString(b[:]) + ".", flights: make(map[claimKey]*flight)}, nil
}

// ownerSafe keeps an instance name out of LIKE's way: % and _ are
// wildcards there, and "." separates an owner's parts.
func ownerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '%', '_', '.', '\\':
			return '-'
		}
		return r
	}, s)
}

// CanonicalNetwork maps the network names clients and facilitators use
// for Base ("base", "base-sepolia", as the x402 spec's v1 names them) to
// CAIP-2; anything else is returned unchanged.
func CanonicalNetwork(n string) string {
	switch strings.ToLower(strings.TrimSpace(n)) {
	case "base", "base-mainnet", NetworkBase:
		return NetworkBase
	case "base-sepolia", NetworkBaseSepolia:
		return NetworkBaseSepolia
	}
	return n
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
