package x402

import (
	"errors"

	"github.com/openshelf/openshelf/serve/apierr"
)

// Reasons of a *PaymentError. They are stable: clients and metrics may
// branch on them. Where the x402 spec (§9) or the reference SDKs name the
// condition, their name is used; the rest are ours.
const (
	// No payment was sent.
	ReasonPaymentRequired = "payment_required"
	// The PAYMENT-SIGNATURE header is not base64 / its content not JSON.
	ReasonInvalidPaymentHeader = "invalid_payment_header"
	ReasonInvalidPaymentJSON   = "invalid_payment_json"
	// x402Version is not 2 (spec).
	ReasonInvalidVersion = "invalid_x402_version"
	// accepted does not equal our requirement: scheme and network use the
	// spec's names, the rest are ours; requirements_mismatch covers
	// maxTimeoutSeconds and extra.
	ReasonInvalidScheme        = "invalid_scheme"
	ReasonInvalidNetwork       = "invalid_network"
	ReasonAssetMismatch        = "asset_mismatch"
	ReasonPayToMismatch        = "pay_to_mismatch"
	ReasonAmountMismatch       = "amount_mismatch"
	ReasonRequirementsMismatch = "requirements_mismatch"
	// payload.resource names another resource.
	ReasonResourceMismatch = "resource_mismatch"
	// The authorization is malformed (spec: invalid_payload).
	ReasonInvalidPayload = "invalid_payload"
	// authorization.to is not payTo (spec).
	ReasonRecipientMismatch = "invalid_exact_evm_payload_recipient_mismatch"
	// authorization.value is not the amount (spec).
	ReasonValueMismatch = "invalid_exact_evm_payload_authorization_value_mismatch"
	// validAfter is in the future (spec).
	ReasonNotYetValid = "invalid_exact_evm_payload_authorization_valid_after"
	// validBefore has passed, is too close, or is too far away (spec).
	ReasonExpired = "invalid_exact_evm_payload_authorization_valid_before"
	// The signature is malformed or does not recover to from (spec).
	ReasonInvalidSignature = "invalid_exact_evm_payload_signature"
	// The authorization was already used for another resource (SDK name).
	ReasonNonceAlreadyUsed = "invalid_exact_evm_nonce_already_used"
	// The facilitator's /verify said no; its reason is in Message.
	ReasonFacilitatorRejected = "facilitator_rejected"
	// The facilitator's /settle said no; its answer is in Settlement.
	ReasonSettlementFailed = "settlement_failed"
)

// PaymentError is a payment problem the client can fix by paying (again):
// the adapters answer it with 402 and Required (HTTP: PAYMENT-REQUIRED
// header; MCP: an isError tool result). errors.Is(err,
// apierr.ErrPaymentRequired) holds, and apierr.From gives status 402 with
// Reason as the code.
type PaymentError struct {
	Reason  string
	Message string
	// Required is the 402 to send back; its Error field is set.
	Required PaymentRequired
	// Settlement, after a failed settlement, is the success:false receipt
	// to send in PAYMENT-RESPONSE with the 402.
	Settlement *SettlementResponse
	// Err is the cause, when there is one (e.g. ErrHeaderNotBase64).
	Err error
}

func (e *PaymentError) Error() string {
	if e.Message == "" {
		return "x402: " + e.Reason
	}
	return "x402: " + e.Reason + ": " + e.Message
}

// Unwrap exposes the apierr form (402, code = Reason) and the cause.
func (e *PaymentError) Unwrap() []error {
	errs := []error{apierr.New(apierr.ErrPaymentRequired, e.Reason, e.Message)}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// newPaymentError returns a PaymentError whose Required is req with the
// error text filled in, so every 402 tells the client what went wrong.
func newPaymentError(req PaymentRequired, reason, msg string, cause error) *PaymentError {
	r := req
	r.Accepts = append([]PaymentRequirements(nil), req.Accepts...)
	switch {
	case reason == ReasonPaymentRequired:
		r.Error = "PAYMENT-SIGNATURE header is required"
	case msg != "":
		r.Error = reason + ": " + msg
	default:
		r.Error = reason
	}
	return &PaymentError{Reason: reason, Message: msg, Required: r, Err: cause}
}

// AsPaymentError returns the *PaymentError in err's chain, if any.
func AsPaymentError(err error) (*PaymentError, bool) {
	var pe *PaymentError
	ok := errors.As(err, &pe)
	return pe, ok
}
