package x402

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// validBeforeBuffer is the minimum time left before validBefore: the
// settlement transaction must still land in a block (spec: now + 6 s).
const validBeforeBuffer = 6 * time.Second

// finding is why a payment is refused: a stable reason and a message.
type finding struct {
	reason, msg string
}

func (f *finding) Error() string { return f.reason + ": " + f.msg }

func refuse(reason, format string, args ...any) *finding {
	return &finding{reason: reason, msg: fmt.Sprintf(format, args...)}
}

// errMisconfigured reports requirements the server built wrongly; it is the
// server's fault, not the client's.
var errMisconfigured = errors.New("x402: server payment requirements are invalid")

// mismatch compares the client's accepted requirement with one of ours,
// field by field. Addresses compare case-insensitively; everything else
// exactly. It returns nil when they are equal.
func mismatch(ours, got PaymentRequirements) *finding {
	switch {
	case got.Scheme != ours.Scheme:
		return refuse(ReasonInvalidScheme, "accepted.scheme %q, want %q", got.Scheme, ours.Scheme)
	case got.Network != ours.Network:
		return refuse(ReasonInvalidNetwork, "accepted.network %q, want %q", got.Network, ours.Network)
	case !strings.EqualFold(got.Asset, ours.Asset):
		return refuse(ReasonAssetMismatch, "accepted.asset %q, want %q", got.Asset, ours.Asset)
	case !strings.EqualFold(got.PayTo, ours.PayTo):
		return refuse(ReasonPayToMismatch, "accepted.payTo %q, want %q", got.PayTo, ours.PayTo)
	case got.Amount != ours.Amount:
		return refuse(ReasonAmountMismatch, "accepted.amount %q, want %q", got.Amount, ours.Amount)
	case got.MaxTimeoutSeconds != ours.MaxTimeoutSeconds:
		return refuse(ReasonRequirementsMismatch, "accepted.maxTimeoutSeconds %d, want %d", got.MaxTimeoutSeconds, ours.MaxTimeoutSeconds)
	case got.Extra != ours.Extra:
		return refuse(ReasonRequirementsMismatch, "accepted.extra %+v, want %+v", got.Extra, ours.Extra)
	}
	return nil
}

// match finds the requirement among ours that the client accepted. When
// none is equal, the finding is about the closest one (same scheme and
// network), so the reason names the field that differs.
func match(ours []PaymentRequirements, got PaymentRequirements) (PaymentRequirements, *finding) {
	var best *finding
	for _, r := range ours {
		f := mismatch(r, got)
		if f == nil {
			return r, nil
		}
		if best == nil || (r.Scheme == got.Scheme && r.Network == got.Network) {
			best = f
		}
	}
	return PaymentRequirements{}, best
}

// checkOptions tune checkExact for the server (stricter) or a facilitator.
type checkOptions struct {
	now time.Time
	// maxAhead, when positive, caps validBefore - now: an authorization
	// valid for much longer than we asked for is refused, so a leaked one
	// cannot be held back for later.
	maxAhead time.Duration
}

// checkExact verifies an exact/EIP-3009 payment against req without chain
// access: scheme, network, recipient, value, validity window and the
// EIP-712 signature (last: it is the expensive part). It returns the parsed
// authorization.
func checkExact(req PaymentRequirements, p *PaymentPayload, o checkOptions) (auth, *finding) {
	if req.Scheme != SchemeExact || p.Accepted.Scheme != SchemeExact {
		return auth{}, refuse(ReasonInvalidScheme, "scheme %q is not supported, want %q", p.Accepted.Scheme, SchemeExact)
	}
	if p.Accepted.Network != req.Network {
		return auth{}, refuse(ReasonInvalidNetwork, "network %q, want %q", p.Accepted.Network, req.Network)
	}
	if m := req.Extra.AssetTransferMethod; m != "" && m != "eip3009" {
		return auth{}, refuse(ReasonInvalidScheme, "asset transfer method %q is not supported", m)
	}
	dom, err := domainFor(req)
	if err != nil {
		return auth{}, refuse("invalid_payment_requirements", "%v", err)
	}
	a, err := parseAuthorization(p.Payload.Authorization)
	if err != nil {
		return auth{}, refuse(ReasonInvalidPayload, "%v", err)
	}
	payTo, ok := parseAddress(req.PayTo)
	if !ok {
		return auth{}, refuse("invalid_payment_requirements", "payTo %q is not an address", req.PayTo)
	}
	if a.To != payTo {
		return auth{}, refuse(ReasonRecipientMismatch, "authorization.to %s, want %s", a.To.Hex(), payTo.Hex())
	}
	amount, ok := parseUint256(req.Amount)
	if !ok {
		return auth{}, refuse("invalid_payment_requirements", "amount %q is not a decimal uint256", req.Amount)
	}
	if a.Value.Cmp(amount) != 0 {
		return auth{}, refuse(ReasonValueMismatch, "authorization.value %s, want %s", a.Value, amount)
	}
	if f := checkWindow(a, o); f != nil {
		return auth{}, f
	}
	sep, err := dom.Separator()
	if err != nil {
		return auth{}, refuse("invalid_payment_requirements", "%v", err)
	}
	signer, err := recoverSigner(digest(sep, a), p.Payload.Signature)
	if err != nil {
		return auth{}, refuse(ReasonInvalidSignature, "%v", err)
	}
	if signer != a.From {
		return auth{}, refuse(ReasonInvalidSignature, "signature recovers to %s, not authorization.from %s", signer.Hex(), a.From.Hex())
	}
	return a, nil
}

// checkWindow checks the authorization's validity window at o.now.
func checkWindow(a auth, o checkOptions) *finding {
	now := big.NewInt(o.now.Unix())
	if a.ValidAfter.Cmp(now) > 0 {
		return refuse(ReasonNotYetValid, "validAfter %s is after now (%s)", a.ValidAfter, now)
	}
	minBefore := new(big.Int).Add(now, big.NewInt(int64(validBeforeBuffer/time.Second)))
	if a.Before.Cmp(minBefore) < 0 {
		return refuse(ReasonExpired, "validBefore %s has passed or is less than %s away (now %s)", a.Before, validBeforeBuffer, now)
	}
	if o.maxAhead > 0 {
		maxBefore := new(big.Int).Add(now, big.NewInt(int64(o.maxAhead/time.Second)))
		if a.Before.Cmp(maxBefore) > 0 {
			return refuse(ReasonExpired, "validBefore %s is more than %s after now (%s)", a.Before, o.maxAhead, now)
		}
	}
	return nil
}

// verifiedKey is the context key of a [verified] payment.
type verifiedKey struct{}

// verified is a payment the Core has checked with checkExact (stricter
// than a facilitator's options), handed through the context to a Local
// facilitator in the same process, which then checks the validity window
// against its own clock but not the rest again: the payload is the same
// object and the requirements are equal, so the outcome would be the
// same. A remote facilitator never sees it; it verifies everything
// itself.
type verified struct {
	payload *PaymentPayload
	req     PaymentRequirements
	auth    auth
}

func withVerified(ctx context.Context, p *PaymentPayload, req PaymentRequirements, a auth) context.Context {
	return context.WithValue(ctx, verifiedKey{}, &verified{payload: p, req: req, auth: a})
}

// verifiedFor returns the authorization the Core verified for exactly p
// and req, if ctx carries it.
func verifiedFor(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (auth, bool) {
	v, ok := ctx.Value(verifiedKey{}).(*verified)
	if !ok || v.payload != p || v.req != req {
		return auth{}, false
	}
	return v.auth, true
}

// keyOf is the ledger key of an authorization: EIP-3009 nonces are per
// token contract per chain per payer.
func keyOf(req PaymentRequirements, a auth) claimKey {
	asset, _ := parseAddress(req.Asset)
	return claimKey{
		Network: req.Network,
		Asset:   lowerHex(asset),
		Payer:   lowerHex(a.From),
		Nonce:   strings.ToLower(a.Nonce.Hex()),
	}
}

// lowerHex is a's lower-case 0x-hex (Address.Hex would compute the
// EIP-55 checksum, a Keccak hash, only to have it lower-cased).
func lowerHex(a common.Address) string { return "0x" + hex.EncodeToString(a[:]) }
