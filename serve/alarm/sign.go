package alarm

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Delivery headers. Receivers deduplicate on HeaderAlarmID: an alarm can be
// delivered more than once (see the package comment), never with another id.
const (
	HeaderSignature = "X-Openshelf-Signature"
	HeaderAlarmID   = "X-Openshelf-Alarm-Id"
	HeaderAttempt   = "X-Openshelf-Attempt"
)

// secretPrefix marks signing secrets, so one pasted into the wrong place is
// recognisable.
const secretPrefix = "whsec_"

// NewSecret returns a fresh signing secret: "whsec_" and 256 random bits in
// standard base64, the form Standard Webhooks libraries decode.
func NewSecret() string {
	var b [32]byte
	rand.Read(b[:])
	return secretPrefix + base64.StdEncoding.EncodeToString(b[:])
}

// Sign returns the X-Openshelf-Signature value for body sent at t:
// "t=<unix>,v1=<hex HMAC-SHA256(secret, "<unix>.<body>")>".
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

func mac(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Errors of Verify.
var (
	ErrBadSignatureHeader = errors.New("alarm: malformed signature header")
	ErrSignatureMismatch  = errors.New("alarm: signature does not match")
	ErrSignatureExpired   = errors.New("alarm: signature timestamp outside the tolerance")
)

// DefaultTolerance is how far a signature's timestamp may be from the
// receiver's clock; older ones are refused as replays.
const DefaultTolerance = 5 * time.Minute

// Verify checks a signature header as a receiver should: it parses t and
// every v1 (a header may carry several, for key rotation), compares each in
// constant time with the HMAC of "<t>.<body>", and refuses a timestamp more
// than tolerance away from now (tolerance <= 0 means DefaultTolerance).
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	var ts string
	var sigs [][]byte
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return ErrBadSignatureHeader
		}
		switch k {
		case "t":
			if ts != "" {
				return ErrBadSignatureHeader
			}
			ts = v
		case "v1":
			b, err := hex.DecodeString(v)
			if err != nil || len(b) != sha256.Size {
				return ErrBadSignatureHeader
			}
			sigs = append(sigs, b)
		}
		// Other schemes are ignored, so new ones can be added.
	}
	if ts == "" || len(sigs) == 0 {
		return ErrBadSignatureHeader
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || unix < 0 || unix > 1<<40 {
		return ErrBadSignatureHeader
	}
	want := mac(secret, ts, body)
	match := false
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			match = true
		}
	}
	if !match {
		return ErrSignatureMismatch
	}
	if d := now.Sub(time.Unix(unix, 0)); d > tolerance || d < -tolerance {
		return ErrSignatureExpired
	}
	return nil
}
