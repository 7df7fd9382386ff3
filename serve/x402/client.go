package x402

import (
	"crypto/ecdsa"
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// NewPayment builds the payment a client would send for req, as @x402/fetch
// does: the first exact requirement, validAfter 0, validBefore now +
// maxTimeoutSeconds, a random nonce, signed with key. The server never
// calls it; it is for tests, benchmarks and command-line probes.
func NewPayment(key *ecdsa.PrivateKey, req PaymentRequired, now time.Time) (*PaymentPayload, error) {
	var r *PaymentRequirements
	for i := range req.Accepts {
		if req.Accepts[i].Scheme == SchemeExact {
			r = &req.Accepts[i]
			break
		}
	}
	if r == nil {
		return nil, errors.New("x402: no exact requirement to pay")
	}
	var nonce [32]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("x402: nonce: %w", err)
	}
	a := Authorization{
		From:        crypto.PubkeyToAddress(key.PublicKey).Hex(),
		To:          r.PayTo,
		Value:       r.Amount,
		ValidAfter:  "0",
		ValidBefore: strconv.FormatInt(now.Unix()+int64(r.MaxTimeoutSeconds), 10),
		Nonce:       hexutil.Encode(nonce[:]),
	}
	p := &PaymentPayload{X402Version: Version, Accepted: *r, Payload: ExactPayload{Authorization: a}}
	res := req.Resource
	p.Resource = &res
	if err := p.Sign(key); err != nil {
		return nil, err
	}
	return p, nil
}

// Sign (re)signs p's authorization under the domain of p.Accepted, for
// tests that alter a field and need a valid signature over the result.
func (p *PaymentPayload) Sign(key *ecdsa.PrivateKey) error {
	d, err := domainFor(p.Accepted)
	if err != nil {
		return fmt.Errorf("x402: sign: %w", err)
	}
	sig, err := SignAuthorization(key, d, p.Payload.Authorization)
	if err != nil {
		return err
	}
	p.Payload.Signature = sig
	return nil
}
