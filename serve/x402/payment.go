package x402

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Payment is what a paid handler may know about the payment it runs under.
type Payment struct {
	// ID identifies the authorization (network, asset, payer, nonce): the
	// same on every replay of one payment, different for any other.
	// Handlers that create something (an alarm) use it as an idempotency
	// key, so a replayed payment returns what it bought instead of buying
	// it again.
	ID string
	// Payer is the paying address.
	Payer string
	// Replay is true when the payment was already settled for this
	// resource and is being served again without a charge.
	Replay bool
}

func (k claimKey) id() string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.Join([]string{k.Network, k.Asset, k.Payer, k.Nonce}, "\x00"))))
	return hex.EncodeToString(sum[:16])
}
