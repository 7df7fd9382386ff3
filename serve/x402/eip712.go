package x402

import (
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// Domain is an EIP-712 domain of an EIP-3009 token.
type Domain struct {
	Name              string
	Version           string
	ChainID           uint64
	VerifyingContract common.Address
}

// transferTypes are the EIP-712 types of TransferWithAuthorization.
var transferTypes = apitypes.Types{
	"EIP712Domain": {
		{Name: "name", Type: "string"},
		{Name: "version", Type: "string"},
		{Name: "chainId", Type: "uint256"},
		{Name: "verifyingContract", Type: "address"},
	},
	"TransferWithAuthorization": {
		{Name: "from", Type: "address"},
		{Name: "to", Type: "address"},
		{Name: "value", Type: "uint256"},
		{Name: "validAfter", Type: "uint256"},
		{Name: "validBefore", Type: "uint256"},
		{Name: "nonce", Type: "bytes32"},
	},
}

// transferTypeHash is keccak256 of the TransferWithAuthorization type string.
var transferTypeHash = func() common.Hash {
	td := apitypes.TypedData{Types: transferTypes}
	return common.BytesToHash(td.TypeHash("TransferWithAuthorization"))
}()

// TypedData returns the EIP-712 typed data a payer signs for a, exactly as
// wallets and viem build it. Verification uses a faster equivalent (see
// digest); this is the reference the tests compare it with.
func (d Domain) TypedData(a Authorization) apitypes.TypedData {
	return apitypes.TypedData{
		Types:       transferTypes,
		PrimaryType: "TransferWithAuthorization",
		Domain: apitypes.TypedDataDomain{
			Name:              d.Name,
			Version:           d.Version,
			ChainId:           math.NewHexOrDecimal256(int64(d.ChainID)),
			VerifyingContract: d.VerifyingContract.Hex(),
		},
		Message: apitypes.TypedDataMessage{
			"from": a.From, "to": a.To, "value": a.Value,
			"validAfter": a.ValidAfter, "validBefore": a.ValidBefore, "nonce": a.Nonce,
		},
	}
}

// separators caches domain separators: there is one domain per deployment,
// and apitypes' reflective encoder is the slow part of hashing.
var separators sync.Map // Domain → common.Hash

// Separator returns the EIP-712 domain separator.
func (d Domain) Separator() (common.Hash, error) {
	if h, ok := separators.Load(d); ok {
		return h.(common.Hash), nil
	}
	td := d.TypedData(Authorization{})
	b, err := td.HashStruct("EIP712Domain", td.Domain.Map())
	if err != nil {
		return common.Hash{}, fmt.Errorf("x402: domain separator: %w", err)
	}
	h := common.BytesToHash(b)
	separators.Store(d, h)
	return h, nil
}

// auth is a parsed, well-formed Authorization.
type auth struct {
	From, To                  common.Address
	Value, ValidAfter, Before *big.Int
	Nonce                     common.Hash
}

// errMalformed reports an authorization field that does not parse.
var errMalformed = errors.New("malformed authorization")

func parseAuthorization(a Authorization) (auth, error) {
	var p auth
	var ok bool
	if p.From, ok = parseAddress(a.From); !ok {
		return p, fmt.Errorf("%w: from %q is not an address", errMalformed, a.From)
	}
	if p.To, ok = parseAddress(a.To); !ok {
		return p, fmt.Errorf("%w: to %q is not an address", errMalformed, a.To)
	}
	if p.Value, ok = parseUint256(a.Value); !ok {
		return p, fmt.Errorf("%w: value %q is not a decimal uint256", errMalformed, a.Value)
	}
	if p.ValidAfter, ok = parseUint256(a.ValidAfter); !ok {
		return p, fmt.Errorf("%w: validAfter %q is not a decimal uint256", errMalformed, a.ValidAfter)
	}
	if p.Before, ok = parseUint256(a.ValidBefore); !ok {
		return p, fmt.Errorf("%w: validBefore %q is not a decimal uint256", errMalformed, a.ValidBefore)
	}
	n, err := decodeHex(a.Nonce)
	if err != nil || len(n) != 32 {
		return p, fmt.Errorf("%w: nonce %q is not 32 bytes of 0x-hex", errMalformed, a.Nonce)
	}
	p.Nonce = common.BytesToHash(n)
	return p, nil
}

// parseAddress accepts 0x + 40 hex digits. A mixed-case address must carry a
// valid EIP-55 checksum; all-lower and all-upper carry none.
func parseAddress(s string) (common.Address, bool) {
	if len(s) != 42 || !strings.HasPrefix(s, "0x") {
		return common.Address{}, false
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return common.Address{}, false
	}
	a := common.BytesToAddress(b)
	body := s[2:]
	if body != strings.ToLower(body) && body != strings.ToUpper(body) && a.Hex() != s {
		return common.Address{}, false
	}
	return a, true
}

func decodeHex(s string) ([]byte, error) {
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return nil, errors.New("missing 0x prefix")
	}
	return hex.DecodeString(s[2:])
}

// digest is keccak256(0x1901 ‖ separator ‖ hashStruct(message)), written
// out for the one fixed struct: it is equal to apitypes.TypedDataAndHash
// (pinned by the tests) at a fraction of the cost, which matters on the
// paid hot path.
func digest(sep common.Hash, a auth) common.Hash {
	var buf [7 * 32]byte
	copy(buf[0:32], transferTypeHash[:])
	copy(buf[32+12:64], a.From[:])
	copy(buf[64+12:96], a.To[:])
	a.Value.FillBytes(buf[96:128])
	a.ValidAfter.FillBytes(buf[128:160])
	a.Before.FillBytes(buf[160:192])
	copy(buf[192:224], a.Nonce[:])
	structHash := crypto.Keccak256(buf[:])
	return crypto.Keccak256Hash([]byte{0x19, 0x01}, sep[:], structHash)
}

// errBadSignature reports a signature that is malformed or does not
// recover to the payer.
var errBadSignature = errors.New("invalid signature")

// recoverSigner returns the address that signed digest. It accepts 65-byte
// r‖s‖v with v in {27, 28} or {0, 1}, and rejects high-s signatures as
// FiatToken's ECRecover does. Longer signatures (ERC-1271 / ERC-6492 smart
// wallets) need chain access and are rejected.
func recoverSigner(dig common.Hash, sigHex string) (common.Address, error) {
	key := string(dig[:]) + sigHex
	if a, ok := recovered.get(key); ok {
		return a, nil
	}
	a, err := recoverSignerSlow(dig, sigHex)
	if err == nil {
		recovered.put(key, a)
	}
	return a, err
}

// recovered caches successful recoveries: every re-send of a payment is
// checked again, a facilitator in the same process that is not handed our
// verification (facilitatortest's, a Local one given a copy of the
// payload) recovers the signature once more, and recovery is most of the
// CPU cost of a check.
// An entry only says "this signature over this digest recovers to this
// address", which is true forever.
var recovered = sigCache{max: 8192}

// sigCache is a two-generation cache: when the current map is full it
// becomes the previous one, so memory stays within 2×max entries.
type sigCache struct {
	mu        sync.Mutex
	max       int
	cur, prev map[string]common.Address
}

func (c *sigCache) get(k string) (common.Address, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.cur[k]; ok {
		return a, true
	}
	a, ok := c.prev[k]
	return a, ok
}

func (c *sigCache) put(k string, a common.Address) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil || len(c.cur) >= c.max {
		c.prev, c.cur = c.cur, make(map[string]common.Address, c.max)
	}
	c.cur[k] = a
}

func recoverSignerSlow(dig common.Hash, sigHex string) (common.Address, error) {
	sig, err := decodeHex(sigHex)
	if err != nil {
		return common.Address{}, fmt.Errorf("%w: not 0x-hex", errBadSignature)
	}
	if len(sig) != 65 {
		return common.Address{}, fmt.Errorf("%w: %d bytes, want 65 (smart-wallet signatures are not supported)", errBadSignature, len(sig))
	}
	v := sig[64]
	if v >= 27 {
		v -= 27
	}
	r := new(big.Int).SetBytes(sig[:32])
	s := new(big.Int).SetBytes(sig[32:64])
	if !crypto.ValidateSignatureValues(v, r, s, true) {
		return common.Address{}, fmt.Errorf("%w: v, r or s out of range (high-s?)", errBadSignature)
	}
	norm := make([]byte, 65)
	copy(norm, sig)
	norm[64] = v
	pub, err := crypto.SigToPub(dig[:], norm)
	if err != nil {
		return common.Address{}, fmt.Errorf("%w: %v", errBadSignature, err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// chainIDOf returns N of a CAIP-2 "eip155:N" network.
func chainIDOf(network string) (uint64, bool) {
	rest, ok := strings.CutPrefix(network, "eip155:")
	if !ok || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	return n, err == nil && n > 0
}

// domainFor returns the EIP-712 domain a requirement implies: name and
// version from extra, chain from the network, the asset as verifying
// contract.
func domainFor(r PaymentRequirements) (Domain, error) {
	id, ok := chainIDOf(r.Network)
	if !ok {
		return Domain{}, fmt.Errorf("network %q is not eip155:<chain id>", r.Network)
	}
	asset, ok := parseAddress(r.Asset)
	if !ok {
		return Domain{}, fmt.Errorf("asset %q is not an address", r.Asset)
	}
	if r.Extra.Name == "" || r.Extra.Version == "" {
		return Domain{}, errors.New("extra.name and extra.version (the EIP-712 domain) are required")
	}
	return Domain{Name: r.Extra.Name, Version: r.Extra.Version, ChainID: id, VerifyingContract: asset}, nil
}

// SignAuthorization signs a as the payer key would (v = 27/28), for
// clients, tests and tools; the server never signs.
func SignAuthorization(key *ecdsa.PrivateKey, d Domain, a Authorization) (string, error) {
	p, err := parseAuthorization(a)
	if err != nil {
		return "", err
	}
	sep, err := d.Separator()
	if err != nil {
		return "", err
	}
	dig := digest(sep, p)
	sig, err := crypto.Sign(dig[:], key)
	if err != nil {
		return "", fmt.Errorf("x402: sign: %w", err)
	}
	sig[64] += 27
	return "0x" + hex.EncodeToString(sig), nil
}
