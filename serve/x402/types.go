package x402

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Header names of the HTTP transport (transports-v2/http.md). Lookup is
// case-insensitive; these are the canonical spellings.
const (
	HeaderPaymentRequired  = "PAYMENT-REQUIRED"
	HeaderPaymentSignature = "PAYMENT-SIGNATURE"
	HeaderPaymentResponse  = "PAYMENT-RESPONSE"
)

// Version is the only protocol version this package speaks.
const Version = 2

// SchemeExact is the only payment scheme this package speaks.
const SchemeExact = "exact"

// PaymentRequired is sent with a 402: in the PAYMENT-REQUIRED header over
// HTTP, as the structuredContent of an isError tool result over MCP.
type PaymentRequired struct {
	X402Version int                   `json:"x402Version"`
	Error       string                `json:"error,omitempty"`
	Resource    Resource              `json:"resource"`
	Accepts     []PaymentRequirements `json:"accepts"`
	Extensions  map[string]any        `json:"extensions,omitempty"`
}

// Resource describes what is being paid for.
type Resource struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// PaymentRequirements is one way of paying that the server accepts.
type PaymentRequirements struct {
	Scheme  string `json:"scheme"`
	Network string `json:"network"`
	// Amount is in the asset's atomic units, as a decimal string.
	Amount            string `json:"amount"`
	Asset             string `json:"asset"`
	PayTo             string `json:"payTo"`
	MaxTimeoutSeconds int    `json:"maxTimeoutSeconds"`
	Extra             Extra  `json:"extra"`
}

// Extra is the scheme-specific part of the requirements: for exact on EVM,
// the token's EIP-712 domain name and version.
type Extra struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// AssetTransferMethod is "eip3009" (the default when empty) or
	// "permit2"; this package only verifies eip3009.
	AssetTransferMethod string `json:"assetTransferMethod,omitempty"`
}

// PaymentPayload is what the client sends back: in the PAYMENT-SIGNATURE
// header over HTTP, in _meta["x402/payment"] over MCP.
type PaymentPayload struct {
	X402Version int                 `json:"x402Version"`
	Resource    *Resource           `json:"resource,omitempty"`
	Accepted    PaymentRequirements `json:"accepted"`
	Payload     ExactPayload        `json:"payload"`
	Extensions  map[string]any      `json:"extensions,omitempty"`
}

// ExactPayload is the scheme payload of exact on EVM with EIP-3009.
type ExactPayload struct {
	// Signature is the 65-byte r‖s‖v signature, 0x-hex.
	Signature     string        `json:"signature"`
	Authorization Authorization `json:"authorization"`
}

// Authorization is the signed TransferWithAuthorization message. Numbers are
// decimal strings, the nonce is 0x-hex of 32 bytes.
type Authorization struct {
	From        string `json:"from"`
	To          string `json:"to"`
	Value       string `json:"value"`
	ValidAfter  string `json:"validAfter"`
	ValidBefore string `json:"validBefore"`
	Nonce       string `json:"nonce"`
}

// SettlementResponse is the receipt: in the PAYMENT-RESPONSE header over
// HTTP, in _meta["x402/payment-response"] over MCP. It is also what a
// facilitator's POST /settle returns.
type SettlementResponse struct {
	Success      bool   `json:"success"`
	ErrorReason  string `json:"errorReason,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	Payer        string `json:"payer,omitempty"`
	// Transaction is the transaction hash; "" when settlement failed.
	Transaction string `json:"transaction"`
	Network     string `json:"network"`
	// Amount is the amount actually settled, in atomic units.
	Amount     string         `json:"amount,omitempty"`
	Extensions map[string]any `json:"extensions,omitempty"`
}

// VerifyResponse is what a facilitator's POST /verify returns.
type VerifyResponse struct {
	IsValid        bool   `json:"isValid"`
	InvalidReason  string `json:"invalidReason,omitempty"`
	InvalidMessage string `json:"invalidMessage,omitempty"`
	Payer          string `json:"payer,omitempty"`
}

// SupportedResponse is what a facilitator's GET /supported returns.
type SupportedResponse struct {
	Kinds      []SupportedKind     `json:"kinds"`
	Extensions []string            `json:"extensions"`
	Signers    map[string][]string `json:"signers,omitempty"`
}

// SupportedKind is one (version, scheme, network) a facilitator handles.
type SupportedKind struct {
	X402Version int            `json:"x402Version"`
	Scheme      string         `json:"scheme"`
	Network     string         `json:"network"`
	Extra       map[string]any `json:"extra,omitempty"`
}

// Errors of the header codecs, checked with errors.Is. The *PaymentError
// that PayHeader returns for them wraps them too.
var (
	ErrHeaderNotBase64 = errors.New("x402: payment header is not base64")
	ErrHeaderNotJSON   = errors.New("x402: payment header is not a JSON payment payload")
)

// maxHeaderLen bounds what we decode; a real payload is well under 2 KiB.
const maxHeaderLen = 16 << 10

// EncodeHeader returns base64 (standard alphabet, padded) of v's JSON, the
// form of all three headers. The types of this package always encode; for a
// value that cannot be marshalled (say, a channel inside Extensions) it
// returns "", which clients treat as a missing header.
func EncodeHeader(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(b)
}

// DecodePaymentHeader decodes a PAYMENT-SIGNATURE header. The error wraps
// ErrHeaderNotBase64 or ErrHeaderNotJSON. It checks shape only; Pay checks
// meaning.
func DecodePaymentHeader(s string) (*PaymentPayload, error) {
	s = strings.TrimSpace(s)
	if len(s) > maxHeaderLen {
		return nil, fmt.Errorf("%w: %d bytes is more than %d", ErrHeaderNotBase64, len(s), maxHeaderLen)
	}
	b, err := decodeBase64(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHeaderNotBase64, err)
	}
	return DecodePaymentJSON(b)
}

// DecodePaymentJSON decodes a payment payload given as JSON, as it arrives
// in MCP's _meta["x402/payment"]. The error wraps ErrHeaderNotJSON.
func DecodePaymentJSON(b []byte) (*PaymentPayload, error) {
	var p PaymentPayload
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHeaderNotJSON, err)
	}
	return &p, nil
}

// DecodeSettlementHeader decodes a PAYMENT-RESPONSE header (for clients and
// tests).
func DecodeSettlementHeader(s string) (*SettlementResponse, error) {
	b, err := decodeBase64(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHeaderNotBase64, err)
	}
	var r SettlementResponse
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHeaderNotJSON, err)
	}
	return &r, nil
}

// DecodeRequiredHeader decodes a PAYMENT-REQUIRED header (for clients and
// tests).
func DecodeRequiredHeader(s string) (*PaymentRequired, error) {
	b, err := decodeBase64(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHeaderNotBase64, err)
	}
	var r PaymentRequired
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHeaderNotJSON, err)
	}
	return &r, nil
}

// decodeBase64 accepts the standard alphabet, padded or not, because
// clients differ; the URL-safe alphabet is accepted for the same reason.
func decodeBase64(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("empty")
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	if b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "=")); err == nil {
		return b, nil
	}
	if b, err := base64.URLEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}
