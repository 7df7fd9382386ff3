package alarm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
)

// Price of scheduling an alarm, in USD; charged only when it is stored.
const Price = "0.001"

// ScheduleInput is the body of POST /v1/alarm.
type ScheduleInput struct {
	CallbackURL  string          `json:"callback_url" maxLength:"2048" doc:"Public https URL the payload is POSTed to. Private, loopback and link-local addresses and internal names are refused, also after DNS resolution at delivery time."`
	DelaySeconds *int64          `json:"delay_seconds,omitempty" min:"60" max:"2592000" doc:"Deliver this many seconds from now (60 to 2592000, i.e. 30 days). Give this or deliver_at, not both."`
	DeliverAt    json.RawMessage `json:"deliver_at,omitempty" doc:"When to deliver: an ISO-8601 date-time with a time zone (2026-12-01T09:30:00Z, 2026-12-01T10:30:00+01:00) or Unix seconds as a JSON number or numeric string; 60 s to 30 days ahead. Give this or delay_seconds, not both. At most 40 characters."`
	Payload      json.RawMessage `json:"payload,omitempty" doc:"JSON object sent as the request body, at most 8192 bytes serialized; default {}."`
	RetryCount   int             `json:"retry_count,omitempty" min:"0" max:"5" default:"3" doc:"Retries after a failed attempt (non-2xx, error or timeout), after 1, 5, 15, 30 and 60 minutes."`

	deliverAt time.Time // parsed by Validate
	req       *Request  // checked by Check, before payment
}

// Validate checks the rules that span fields or need parsing.
func (in *ScheduleInput) Validate() error {
	hasAt := len(in.DeliverAt) > 0 && string(in.DeliverAt) != "null"
	switch {
	case in.DelaySeconds != nil && hasAt:
		return apierr.Invalid("deliver_at", "give either delay_seconds or deliver_at, not both")
	case in.DelaySeconds == nil && !hasAt:
		return apierr.Invalid("delay_seconds", "give delay_seconds or deliver_at")
	case hasAt:
		t, err := ParseDeliverAt(in.DeliverAt)
		if err != nil {
			return apierr.Invalid("deliver_at", err.Error())
		}
		in.deliverAt = t
	}
	if len(in.Payload) > 0 {
		if err := checkPayload(in.Payload); err != nil {
			return err
		}
	}
	return nil
}

// IDInput names an alarm in the path.
type IDInput struct {
	ID string `json:"id" in:"path" pattern:"^alm_[a-z2-7]{26}$" doc:"Alarm id returned by POST /v1/alarm."`
}

// Endpoints declares the alarm routes to the registry. They are HTTP only
// (not MCP tools): scheduling hands out a secret that belongs in the
// caller's configuration, not in a model's context.
func (s *Service) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{
		registry.Spec[ScheduleInput]{
			Name: "alarm_create", Method: http.MethodPost, Path: "/v1/alarm", Group: registry.GroupAlarms, Price: Price,
			Summary: "Schedule a webhook: POST a JSON payload to your https URL at a set time (60 s to 30 days ahead), " +
				"signed with HMAC-SHA256, retried up to 5 times on failure.",
			Description: "Charged only when the alarm is stored. The answer (201) carries the alarm id and its signing secret, " +
				"shown once. Each attempt is signed in the Standard Webhooks form (webhook-id, webhook-timestamp, " +
				"webhook-signature: verify with any Standard Webhooks library and the signing secret) and with " +
				"X-Openshelf-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, \"<t>.<body>\")>, and carries " +
				"X-Openshelf-Alarm-Id (deduplicate on it: delivery is at least once) and X-Openshelf-Attempt (1-based); " +
				"the delivery callback says how to verify. A 2xx answer is success; anything else, an error or a 15 s " +
				"timeout is retried.",
			Output: Accepted{}, Check: s.checkInput, HandlePaid: s.handleSchedule,
			Status: http.StatusCreated, Callback: &deliveryCallback,
			Example: map[string]any{"callback_url": "https://example.org/hook", "delay_seconds": 3600,
				"payload": map[string]any{"task": "check-order", "order": 1042}},
			Responses: map[int]string{
				http.StatusOK:                 "A replayed payment: the alarm it already bought (its secret is not shown again).",
				http.StatusServiceUnavailable: "The alarm store is unavailable; nothing was charged.",
			},
		}.Endpoint(),
		registry.Spec[IDInput]{
			Name: "alarm_get", Method: http.MethodGet, Path: "/v1/alarm/:id", Group: registry.GroupAlarms,
			Summary: "Status of an alarm (scheduled, delivering, delivered, failed, cancelled) and its delivery attempts: " +
				"time, receiver status or error, duration. Never shows the signing secret. Free.",
			Output:    View{},
			Responses: map[int]string{http.StatusServiceUnavailable: "The alarm store is unavailable."},
			Handle: func(ctx context.Context, in *IDInput) (*registry.Result, error) {
				v, err := s.Get(ctx, in.ID)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: v}, nil
			},
		}.Endpoint(),
		registry.Spec[IDInput]{
			Name: "alarm_cancel", Method: http.MethodPost, Path: "/v1/alarm/:id/cancel", Group: registry.GroupAlarms,
			Summary: "Cancel an alarm before its delivery starts (409 not_cancellable afterwards). Free; not refunded.",
			Output:  View{},
			Responses: map[int]string{
				http.StatusConflict:           "not_cancellable: delivery has started or the alarm is finished.",
				http.StatusServiceUnavailable: "The alarm store is unavailable.",
			},
			Handle: func(ctx context.Context, in *IDInput) (*registry.Result, error) {
				v, err := s.Cancel(ctx, in.ID)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: v}, nil
			},
		}.Endpoint(),
	}
}

// deliveryCallback describes an alarm's delivery for the machine documents
// (docs/alarms.md says the same at length).
var deliveryCallback = registry.Callback{
	Name: "delivery", Method: http.MethodPost, URL: "{$request.body#/callback_url}",
	Summary: "At the due time the service POSTs the alarm's payload to callback_url, signed in the Standard Webhooks " +
		"form (https://www.standardwebhooks.com) and with X-Openshelf-Signature.",
	Body: "The payload as stored (application/json, keys sorted): exactly the bytes signed.",
	Headers: []registry.CallbackHeader{
		{Name: HeaderWebhookID, Description: "The alarm id (alm_...): the same on every attempt; deduplicate on it (delivery is at least once)."},
		{Name: HeaderWebhookTimestamp, Description: "Unix seconds when this attempt was signed."},
		{Name: HeaderWebhookSignature, Description: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>, the key being ` +
			`signing_secret without "whsec_", base64-decoded.`},
		{Name: HeaderSignature, Description: `t=<unix seconds>,v1=<hex HMAC-SHA256(signing_secret as UTF-8 bytes, "<t>.<body>")>.`},
		{Name: HeaderAlarmID, Description: "The alarm id, as webhook-id."},
		{Name: HeaderAttempt, Description: "The attempt number, from 1."},
	},
	Verify: "Verify with any Standard Webhooks library given the signing_secret POST /v1/alarm returned, e.g. " +
		"new Webhook(signing_secret).verify(rawBody, headers) with the npm package standardwebhooks. By hand: base64-decode " +
		`signing_secret after its "whsec_" prefix to get the key, compute the HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>", ` +
		"base64-encode it and compare it in constant time with the signature of each space-separated v1,<signature> entry of " +
		"webhook-signature; refuse a webhook-timestamp more than 5 minutes from your clock; deduplicate on webhook-id. Use the " +
		"raw body bytes, before any JSON parsing. X-Openshelf-Signature is checked the same way (hex, over \"<t>.<raw body>\", " +
		"keyed with the whole secret); use it for secrets issued before standard base64 (unpadded base64url after whsec_), " +
		"which some libraries refuse.",
	Answer: "Any 2xx answer within 15 s is a delivery; anything else (redirects are not followed), an error or a timeout " +
		"is a failed attempt, retried after 1, 5, 15, 30 and 60 minutes, up to retry_count times.",
}

// checkInput runs every rule before payment: the URL (guarded client's
// policy, https only), the due-time window, payload and retries.
func (s *Service) checkInput(_ context.Context, in *ScheduleInput) error {
	now := s.cfg.Now()
	r := Request{CallbackURL: in.CallbackURL, Payload: in.Payload, RetryCount: in.RetryCount, DeliverAt: in.deliverAt}
	if in.DelaySeconds != nil {
		r.DeliverAt = now.Add(time.Duration(*in.DelaySeconds) * time.Second)
	}
	if err := s.check(&r, now); err != nil {
		return err
	}
	in.req = &r
	return nil
}

func (s *Service) handleSchedule(ctx context.Context, in *ScheduleInput, pay registry.Charge) (*registry.Result, error) {
	if in.req == nil {
		if err := s.checkInput(ctx, in); err != nil {
			return nil, err
		}
	}
	r := *in.req
	if in.DelaySeconds != nil {
		// Counted from acceptance, not from the check before payment.
		r.DeliverAt = s.cfg.Now().Add(time.Duration(*in.DelaySeconds) * time.Second)
	}
	// A payment buys one alarm: its id derives from the payment, so a
	// replayed payment (served again, not charged again) finds the alarm it
	// bought instead of scheduling a second one. The secret was shown once
	// (the answer is no-store, so the ledger does not keep it either).
	id := ""
	if pay.ID != "" {
		id = s.sealer.DeriveID(pay.ID)
		if v, err := s.Get(ctx, id); err == nil {
			return &registry.Result{Value: v}, nil
		} else if !errors.Is(err, apierr.ErrNotFound) {
			s.log.Error("alarm: cannot look up a replayed payment", "err", err)
			return nil, errStoreUnavailable
		}
	}
	acc, err := s.insert(ctx, r, id)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	// The secret is in this answer only: no cache may keep it.
	h.Set("Cache-Control", "no-store")
	return &registry.Result{Value: acc, Status: http.StatusCreated, Header: h}, nil
}
