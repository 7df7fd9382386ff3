package x402

import (
	"context"
	"encoding/binary"
	"math"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
)

// Facilitator verifies and settles payments: the facilitator API of the
// x402 spec (§7). Requirements passed in are always the server's own,
// never the client's accepted copy. A false isValid / success is an answer,
// not an error; errors mean the facilitator could not answer (and, from
// Settle, that the outcome is unknown).
type Facilitator interface {
	Verify(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (VerifyResponse, error)
	Settle(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (SettlementResponse, error)
	Supported(ctx context.Context) (SupportedResponse, error)
}

// LocalNote is how receipts of the Local facilitator say that nothing was
// paid. It is under SettlementResponse.Extensions["local-facilitator"],
// where spec-conforming clients ignore what they do not know.
const LocalNote = "local facilitator: no funds moved"

// Local is a facilitator without chain access for development, tests and
// benchmarks: it verifies like a real one (same EIP-712 checks) and
// "settles" by recording the transfer in the ledger, refusing a second use
// of an authorization as the token contract would. It moves no funds; its
// receipts carry a deterministic pseudo transaction hash and LocalNote.
type Local struct {
	// Ledger records transfers durably: the server's own ledger, where a
	// transfer is committed with (or before) the record of its settlement
	// (see Ledger.recordTransfer). Nil keeps them in memory.
	Ledger *Ledger
	// Now defaults to time.Now.
	Now func() time.Time
	// Networks it accepts; default eip155:8453 and eip155:84532.
	Networks []string

	mu   sync.Mutex
	used map[claimKey]bool
}

// NewLocal returns a Local facilitator recording into l (nil: in memory).
func NewLocal(l *Ledger) *Local { return &Local{Ledger: l} }

func (f *Local) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

func (f *Local) networks() []string {
	if len(f.Networks) > 0 {
		return f.Networks
	}
	return []string{NetworkBase, NetworkBaseSepolia}
}

func (f *Local) supports(network string) bool {
	for _, n := range f.networks() {
		if n == network {
			return true
		}
	}
	return false
}

// check is verification without the used-nonce lookup. A payment the
// Core in this process has just verified (see verified) only has its
// validity window checked again: the signature, recipient and amount
// checks would repeat the Core's on the same payload.
func (f *Local) check(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (auth, *finding) {
	if p == nil {
		return auth{}, refuse(ReasonInvalidPayload, "no payment payload")
	}
	if p.X402Version != Version {
		return auth{}, refuse(ReasonInvalidVersion, "x402Version %d, want %d", p.X402Version, Version)
	}
	if !f.supports(req.Network) {
		return auth{}, refuse(ReasonInvalidNetwork, "network %q is not supported", req.Network)
	}
	o := checkOptions{now: f.now()}
	if a, ok := verifiedFor(ctx, p, req); ok {
		if bad := checkWindow(a, o); bad != nil {
			return auth{}, bad
		}
		return a, nil
	}
	return checkExact(req, p, o)
}

func (f *Local) isUsed(ctx context.Context, k claimKey) (bool, error) {
	if f.Ledger != nil {
		return f.Ledger.transferUsed(ctx, k)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.used[k], nil
}

// Verify implements Facilitator.
func (f *Local) Verify(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (VerifyResponse, error) {
	a, bad := f.check(ctx, p, req)
	if bad != nil {
		return VerifyResponse{InvalidReason: bad.reason, InvalidMessage: bad.msg, Payer: payerOf(p)}, nil
	}
	used, err := f.isUsed(ctx, keyOf(req, a))
	if err != nil {
		return VerifyResponse{}, err
	}
	if used {
		return VerifyResponse{InvalidReason: ReasonNonceAlreadyUsed, InvalidMessage: "authorization already used", Payer: a.From.Hex()}, nil
	}
	return VerifyResponse{IsValid: true, Payer: a.From.Hex()}, nil
}

// Settle implements Facilitator: it re-verifies, then records the
// transfer, atomically refusing an authorization already used.
func (f *Local) Settle(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (SettlementResponse, error) {
	fail := func(reason, msg, payer string) (SettlementResponse, error) {
		return SettlementResponse{ErrorReason: reason, ErrorMessage: msg, Payer: payer, Network: req.Network}, nil
	}
	a, bad := f.check(ctx, p, req)
	if bad != nil {
		return fail(bad.reason, bad.msg, payerOf(p))
	}
	k := keyOf(req, a)
	tx := localTxHash(k)
	var fresh bool
	if f.Ledger != nil {
		var err error
		fresh, err = f.Ledger.recordTransfer(ctx, k, strings.ToLower(req.PayTo), a.Value.String(), tx, clampInt64(a.Before), f.now())
		if err != nil {
			return SettlementResponse{}, err
		}
	} else {
		f.mu.Lock()
		if f.used == nil {
			f.used = make(map[claimKey]bool)
		}
		fresh = !f.used[k]
		f.used[k] = true
		f.mu.Unlock()
	}
	if !fresh {
		return fail(ReasonNonceAlreadyUsed, "authorization already used", a.From.Hex())
	}
	return SettlementResponse{
		Success:     true,
		Payer:       a.From.Hex(),
		Transaction: tx,
		Network:     req.Network,
		Amount:      a.Value.String(),
		Extensions:  map[string]any{"local-facilitator": map[string]any{"info": map[string]any{"note": LocalNote, "fundsMoved": false}}},
	}, nil
}

// Supported implements Facilitator.
func (f *Local) Supported(ctx context.Context) (SupportedResponse, error) {
	var r SupportedResponse
	for _, n := range f.networks() {
		r.Kinds = append(r.Kinds, SupportedKind{X402Version: Version, Scheme: SchemeExact, Network: n})
	}
	r.Extensions = []string{}
	return r, nil
}

// localTxHash is a pseudo transaction hash, deterministic per
// authorization so that every receipt of one payment is identical.
func localTxHash(k claimKey) string {
	var chain [8]byte
	id, _ := chainIDOf(k.Network)
	binary.BigEndian.PutUint64(chain[:], id)
	return crypto.Keccak256Hash([]byte("openshelf local facilitator"), chain[:],
		[]byte(k.Asset), []byte(k.Payer), []byte(k.Nonce)).Hex()
}

func payerOf(p *PaymentPayload) string {
	if p == nil {
		return ""
	}
	return p.Payload.Authorization.From
}

// clampInt64 returns n, or MaxInt64 if n does not fit (a validBefore far in
// the future).
func clampInt64(n *big.Int) int64 {
	if n.IsInt64() {
		return n.Int64()
	}
	return math.MaxInt64
}
