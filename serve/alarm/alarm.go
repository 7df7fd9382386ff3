package alarm

import (
	"crypto/rand"
	"encoding/base32"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
)

// Status is where an alarm is in its life.
type Status string

const (
	// StatusScheduled: waiting for its due time; it can be cancelled.
	StatusScheduled Status = "scheduled"
	// StatusDelivering: the first attempt has started; an attempt is in
	// flight or a retry is waiting.
	StatusDelivering Status = "delivering"
	// StatusDelivered: an attempt got a 2xx answer.
	StatusDelivered Status = "delivered"
	// StatusFailed: every allowed attempt failed.
	StatusFailed Status = "failed"
	// StatusCancelled: cancelled before delivery started.
	StatusCancelled Status = "cancelled"
)

// Final reports whether no further attempt will be made.
func (s Status) Final() bool {
	return s == StatusDelivered || s == StatusFailed || s == StatusCancelled
}

// Sentinels, checked with errors.Is. They are API errors, so a handler can
// return them as they are.
var (
	// ErrNotFound: no alarm with this id (404 alarm_not_found).
	ErrNotFound = &apierr.Error{Status: http.StatusNotFound, Code: "alarm_not_found",
		Message: "no alarm with this id", Kind: apierr.ErrNotFound}
	// ErrNotCancellable: delivery has started or the alarm is finished
	// (409 not_cancellable).
	ErrNotCancellable = &apierr.Error{Status: http.StatusConflict, Code: "not_cancellable",
		Message: "delivery has started; only a scheduled alarm can be cancelled"}
	// ErrLeaseLost: a result or release came after the claim was taken over
	// by another instance; it was discarded.
	ErrLeaseLost = errors.New("alarm: lease lost to another instance")
	// ErrClosed: the service is stopped.
	ErrClosed = errors.New("alarm: service closed")
)

// Record is an alarm as stored.
type Record struct {
	ID          string
	Status      Status
	CallbackURL string
	// Payload is the exact body sent (a serialized JSON object).
	Payload []byte
	// Secret is the signing secret, sealed (see Sealer); KeyID names the
	// key that sealed it.
	Secret     []byte
	KeyID      string
	RetryCount int
	CreatedAt  time.Time
	DeliverAt  time.Time
	// NextAttemptAt is when the next attempt is due; zero once final.
	NextAttemptAt time.Time
	// Attempt is the number of the latest attempt claimed (0 before the
	// first); Failures counts attempts that got an answer other than 2xx
	// or an error. Attempt - Failures - (1 if delivered) attempts were
	// abandoned by a stopped instance.
	Attempt   int
	Failures  int
	UpdatedAt time.Time
}

// Attempt is one delivery attempt in an alarm's history.
type Attempt struct {
	N        int
	At       time.Time
	Duration time.Duration
	// StatusCode is the receiver's HTTP status; 0 when no answer came.
	StatusCode int
	// Error says why the attempt failed without a status (timeout,
	// connection refused, abandoned); empty on an answer.
	Error string
	// Instance is the server instance that made the attempt.
	Instance string
}

// Claim is an alarm leased to one instance for one attempt.
type Claim struct {
	Record
	// Owner and LeaseUntil are the lease; Record.Attempt is the attempt
	// number this claim makes.
	Owner      string
	LeaseUntil time.Time
}

// Outcome is what a finished attempt changes.
type Outcome struct {
	Status        Status
	Failures      int
	NextAttemptAt time.Time // zero when Status is final
	Attempt       Attempt
}

// ClaimRequest asks for due alarms.
type ClaimRequest struct {
	Owner string
	Now   time.Time
	Lease time.Duration
	Limit int
	// KeyID restricts the claim to alarms this instance can sign.
	KeyID string
}

// idPrefix starts every alarm id.
const idPrefix = "alm_"

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// idPattern matches ids NewID makes: 128 random bits, lower-case base32.
const idPattern = `^alm_[a-z2-7]{26}$`

var idRE = regexp.MustCompile(idPattern)

// NewID returns an unguessable alarm id: "alm_" and 128 bits from
// crypto/rand in lower-case base32.
func NewID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return idPrefix + strings.ToLower(idEncoding.EncodeToString(b[:]))
}

// ValidID reports whether id has the shape of an alarm id.
func ValidID(id string) bool { return idRE.MatchString(id) }

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}
