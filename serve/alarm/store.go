package alarm

import (
	"context"
	"path/filepath"
	"strings"
	"time"
)

// Store is the durable state of alarms. Implementations are safe for
// concurrent use, and Claim is safe across processes sharing the store:
// a due alarm is leased to exactly one caller.
type Store interface {
	// Insert stores a new alarm.
	Insert(ctx context.Context, r *Record) error
	// Get returns an alarm and its attempts in order, or ErrNotFound.
	Get(ctx context.Context, id string) (*Record, []Attempt, error)
	// Cancel moves a scheduled alarm to cancelled and returns it. An alarm
	// already cancelled is returned as is; one in any other state is
	// ErrNotCancellable (with the record); an unknown id is ErrNotFound.
	Cancel(ctx context.Context, id string, now time.Time) (*Record, error)
	// Claim leases up to req.Limit alarms due at req.Now to req.Owner:
	// pending alarms whose next attempt is due and that nobody holds, or
	// whose lease expired. Each claim gets the next attempt number; the
	// attempt of an expired lease is recorded as abandoned.
	Claim(ctx context.Context, req ClaimRequest) ([]*Claim, error)
	// Finish records the outcome of a claimed attempt, if c's lease is
	// still c.Owner's; otherwise ErrLeaseLost and nothing changes.
	Finish(ctx context.Context, c *Claim, o Outcome) error
	// Release gives a claim back without a result (the instance is
	// stopping before the attempt finished): the alarm is due again at
	// once, with the same attempt number. ErrLeaseLost if taken over.
	Release(ctx context.Context, c *Claim) error
	// NextDue returns the earliest time a Claim with keyID could return
	// something: the first due time of an unleased pending alarm or the
	// first lease expiry. ok is false when nothing is pending.
	NextDue(ctx context.Context, keyID string) (t time.Time, ok bool, err error)
	// Counts returns the number of alarms per status.
	Counts(ctx context.Context) (map[Status]int, error)
	// Close releases the store.
	Close() error
}

// DefaultPath is the SQLite store under a data directory.
func DefaultPath(dataDir string) string { return filepath.Join(dataDir, "state", "alarms.db") }

// IsPostgres reports whether dsn names a PostgreSQL database.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// OpenStore opens the store dsn names: a postgres:// or postgresql:// URL
// is PostgreSQL; anything else is the path of a SQLite file (an optional
// "sqlite:" prefix is dropped); "" is DefaultPath(dataDir).
func OpenStore(ctx context.Context, dsn, dataDir string) (Store, error) {
	switch {
	case IsPostgres(dsn):
		return OpenPostgres(ctx, dsn)
	case dsn == "":
		return OpenSQLite(ctx, DefaultPath(dataDir))
	default:
		return OpenSQLite(ctx, strings.TrimPrefix(dsn, "sqlite:"))
	}
}

// abandonedError is the history entry of an attempt whose instance stopped
// (or lost its lease) before recording a result.
const abandonedError = "abandoned: the instance delivering it stopped before recording a result; delivered again"

// schedule columns shared by both stores, in scan order.
const recordColumns = `id, status, callback_url, payload, secret, key_id, retry_count, attempt, failures,
	created_ms, deliver_at_ms, next_attempt_ms, updated_ms`

// scanner is *sql.Row, *sql.Rows or pgx.Row.
type scanner interface{ Scan(dest ...any) error }

func scanRecord(s scanner, extra ...any) (*Record, error) {
	var r Record
	var status string
	var next *int64
	var created, deliverAt, updated int64
	dest := append([]any{&r.ID, &status, &r.CallbackURL, &r.Payload, &r.Secret, &r.KeyID, &r.RetryCount,
		&r.Attempt, &r.Failures, &created, &deliverAt, &next, &updated}, extra...)
	if err := s.Scan(dest...); err != nil {
		return nil, err
	}
	r.Status = Status(status)
	r.CreatedAt, r.DeliverAt, r.UpdatedAt = fromMS(created), fromMS(deliverAt), fromMS(updated)
	if next != nil {
		r.NextAttemptAt = fromMS(*next)
	}
	return &r, nil
}

func nullMS(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	v := t.UnixMilli()
	return &v
}

func nullCode(c int) *int {
	if c == 0 {
		return nil
	}
	return &c
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
