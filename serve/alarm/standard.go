package alarm

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Standard Webhooks headers (https://www.standardwebhooks.com), sent beside
// X-Openshelf-Signature so receivers can verify deliveries with an
// off-the-shelf library. The signature covers the delivery id and time as
// well as the body, so a replayed delivery is detectable.
const (
	HeaderWebhookID        = "webhook-id"
	HeaderWebhookTimestamp = "webhook-timestamp"
	HeaderWebhookSignature = "webhook-signature"
)

// StandardKey is the HMAC key of the Standard Webhooks signature: the
// secret without its "whsec_" prefix, base64-decoded, as the libraries
// derive it. Secrets issued before standard base64 (base64url, unpadded)
// decode too; anything else is used as its bytes.
func StandardKey(secret string) []byte {
	s := strings.TrimPrefix(secret, secretPrefix)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.RawURLEncoding, base64.URLEncoding} {
		if k, err := enc.DecodeString(s); err == nil && len(k) > 0 {
			return k
		}
	}
	return []byte(secret)
}

// SignStandard returns the webhook-signature value of a delivery:
// "v1,<base64 HMAC-SHA256(key, "<id>.<unix>.<body>")>".
func SignStandard(secret, id string, t time.Time, body []byte) string {
	m := hmac.New(sha256.New, StandardKey(secret))
	m.Write([]byte(id + "." + strconv.FormatInt(t.Unix(), 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// setStandard sets the Standard Webhooks headers of a delivery. The id is
// the alarm id: the same on every attempt, as the standard asks, so
// receivers deduplicate on it.
func setStandard(h http.Header, secret, id string, t time.Time, body []byte) {
	h.Set(HeaderWebhookID, id)
	h.Set(HeaderWebhookTimestamp, strconv.FormatInt(t.Unix(), 10))
	h.Set(HeaderWebhookSignature, SignStandard(secret, id, t, body))
}
