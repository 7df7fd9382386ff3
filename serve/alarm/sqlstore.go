package alarm

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"
)

// dialect is what differs between SQLite and PostgreSQL; the queries are
// otherwise shared, so both stores behave the same by construction.
type dialect struct {
	name string
	// dollar rewrites ? placeholders to $1, $2, ...
	dollar bool
	// lock is appended to claim selections: row locks that concurrent
	// claimers skip instead of waiting for. SQLite needs none: its write
	// transactions (BEGIN IMMEDIATE) are serialised.
	lock string
	blob string
}

var (
	sqliteDialect   = dialect{name: "sqlite", blob: "BLOB"}
	postgresDialect = dialect{name: "postgres", dollar: true, lock: " FOR UPDATE SKIP LOCKED", blob: "BYTEA"}
)

func (d dialect) q(query string) string {
	if !d.dollar {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// sqlStore implements Store over database/sql for both dialects.
type sqlStore struct {
	db *sql.DB
	d  dialect
	// Prepared once: parsing is a large part of a statement's cost in
	// SQLite, and these run for every claim and result.
	insert, selExpired, selDue, claimUpd, finishUpd, attemptIns, nextDue *sql.Stmt
}

func (s *sqlStore) prepare(ctx context.Context) error {
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		{&s.insert, `INSERT INTO alarms
			(id, status, callback_url, payload, secret, key_id, retry_count, attempt, failures,
			 created_ms, deliver_at_ms, next_attempt_ms, updated_ms)
			VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?)`},
		{&s.selExpired, selectExpired + s.d.lock},
		{&s.selDue, selectDue + s.d.lock},
		{&s.claimUpd, `UPDATE alarms SET status = 'delivering', attempt = ?, lease_owner = ?,
			lease_until_ms = ?, claimed_ms = ?, updated_ms = ? WHERE id = ?`},
		{&s.finishUpd, `UPDATE alarms SET status = ?, failures = ?, next_attempt_ms = ?,
			lease_owner = NULL, lease_until_ms = NULL, updated_ms = ?
			WHERE id = ? AND lease_owner = ? AND attempt = ?`},
		// DO NOTHING: an attempt already recorded keeps its first entry.
		{&s.attemptIns, `INSERT INTO alarm_attempts
			(alarm_id, attempt, started_ms, duration_ms, status_code, error, instance)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (alarm_id, attempt) DO NOTHING`},
		{&s.nextDue, `SELECT
			(SELECT MIN(next_attempt_ms) FROM alarms WHERE next_attempt_ms IS NOT NULL AND lease_owner IS NULL AND key_id = ?),
			(SELECT MIN(lease_until_ms) FROM alarms WHERE lease_owner IS NOT NULL AND key_id = ?)`},
	} {
		st, err := s.db.PrepareContext(ctx, s.d.q(p.q))
		if err != nil {
			return err
		}
		*p.dst = st
	}
	return nil
}

func (d dialect) schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS alarms (
			id              TEXT PRIMARY KEY,
			status          TEXT NOT NULL CHECK (status IN ('scheduled', 'delivering', 'delivered', 'failed', 'cancelled')),
			callback_url    TEXT NOT NULL,
			payload         ` + d.blob + ` NOT NULL,
			secret          ` + d.blob + ` NOT NULL,
			key_id          TEXT NOT NULL,
			retry_count     INTEGER NOT NULL,
			attempt         INTEGER NOT NULL DEFAULT 0,
			failures        INTEGER NOT NULL DEFAULT 0,
			created_ms      BIGINT NOT NULL,
			deliver_at_ms   BIGINT NOT NULL,
			-- NULL once final: the scheduler's indexes cover pending rows only.
			next_attempt_ms BIGINT,
			lease_owner     TEXT,
			lease_until_ms  BIGINT,
			claimed_ms      BIGINT,
			updated_ms      BIGINT NOT NULL
		)`,
		`CREATE INDEX IF NOT EXISTS alarms_free ON alarms (next_attempt_ms)
			WHERE next_attempt_ms IS NOT NULL AND lease_owner IS NULL`,
		`CREATE INDEX IF NOT EXISTS alarms_leased ON alarms (lease_until_ms) WHERE lease_owner IS NOT NULL`,
		`CREATE TABLE IF NOT EXISTS alarm_attempts (
			alarm_id    TEXT NOT NULL REFERENCES alarms (id) ON DELETE CASCADE,
			attempt     INTEGER NOT NULL,
			started_ms  BIGINT NOT NULL,
			duration_ms BIGINT NOT NULL,
			status_code INTEGER,
			error       TEXT,
			instance    TEXT NOT NULL,
			PRIMARY KEY (alarm_id, attempt)
		)`,
	}
}

// OpenSQLite opens (creating if needed) the SQLite store at path.
func OpenSQLite(ctx context.Context, path string) (Store, error) {
	if path == "" {
		return nil, errors.New("alarm: empty SQLite path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("alarm: store directory: %w", err)
	}
	// WAL lets readers (GET) run beside the writer; synchronous=NORMAL in
	// WAL loses at most the last commits on a power cut, never
	// consistency; busy_timeout makes writers of other processes wait;
	// IMMEDIATE transactions take the write lock up front, which makes a
	// claim's select-then-update atomic across processes.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("alarm: open %s: %w", path, err)
	}
	// One connection: SQLite has one writer anyway; in-process contention
	// then waits on Go's pool instead of the busy handler's sleeps.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	s := &sqlStore{db: db, d: sqliteDialect}
	if err := s.setup(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("alarm: %s: %w", path, err)
	}
	return s, nil
}

// OpenPostgres opens the PostgreSQL store at dsn (a postgres:// URL) and
// creates its tables if needed.
func OpenPostgres(ctx context.Context, dsn string) (Store, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("alarm: open PostgreSQL: %w", err)
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	db.SetConnMaxIdleTime(5 * time.Minute)
	s := &sqlStore{db: db, d: postgresDialect}
	if err := s.setup(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("alarm: PostgreSQL: %w", err)
	}
	return s, nil
}

func (s *sqlStore) setup(ctx context.Context) error {
	if err := s.migrate(ctx); err != nil {
		return err
	}
	return s.prepare(ctx)
}

func (s *sqlStore) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.d.dollar {
		// Instances starting together would race on CREATE ... IF NOT
		// EXISTS (it is not atomic in PostgreSQL); serialise them.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7450726112)`); err != nil {
			return err
		}
	}
	for _, q := range s.d.schema() {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Close closes the database; the prepared statements go with it.
func (s *sqlStore) Close() error { return s.db.Close() }

func (s *sqlStore) Insert(ctx context.Context, r *Record) error {
	_, err := s.insert.ExecContext(ctx,
		r.ID, string(r.Status), r.CallbackURL, r.Payload, r.Secret, r.KeyID, r.RetryCount,
		ms(r.CreatedAt), ms(r.DeliverAt), nullMS(r.NextAttemptAt), ms(r.UpdatedAt))
	if err != nil {
		return fmt.Errorf("alarm: insert: %w", err)
	}
	return nil
}

func (s *sqlStore) Get(ctx context.Context, id string) (*Record, []Attempt, error) {
	r, err := scanRecord(s.db.QueryRowContext(ctx, s.d.q(`SELECT `+recordColumns+` FROM alarms WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, ErrNotFound
	}
	if err != nil {
		return nil, nil, fmt.Errorf("alarm: get: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, s.d.q(`SELECT attempt, started_ms, duration_ms, status_code, error, instance
		FROM alarm_attempts WHERE alarm_id = ? ORDER BY attempt`), id)
	if err != nil {
		return nil, nil, fmt.Errorf("alarm: get attempts: %w", err)
	}
	defer rows.Close()
	var out []Attempt
	for rows.Next() {
		var a Attempt
		var started, dur int64
		var code *int64
		var msg *string
		if err := rows.Scan(&a.N, &started, &dur, &code, &msg, &a.Instance); err != nil {
			return nil, nil, fmt.Errorf("alarm: get attempts: %w", err)
		}
		a.At, a.Duration = fromMS(started), time.Duration(dur)*time.Millisecond
		if code != nil {
			a.StatusCode = int(*code)
		}
		if msg != nil {
			a.Error = *msg
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("alarm: get attempts: %w", err)
	}
	return r, out, nil
}

func (s *sqlStore) Cancel(ctx context.Context, id string, now time.Time) (*Record, error) {
	res, err := s.db.ExecContext(ctx, s.d.q(`UPDATE alarms SET status = 'cancelled', next_attempt_ms = NULL, updated_ms = ?
		WHERE id = ? AND status = 'scheduled' AND lease_owner IS NULL`), ms(now), id)
	if err != nil {
		return nil, fmt.Errorf("alarm: cancel: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return nil, fmt.Errorf("alarm: cancel: %w", err)
	}
	r, _, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if n == 0 && r.Status != StatusCancelled {
		return r, ErrNotCancellable
	}
	return r, nil
}

// claimSelects are the two halves of a claim: expired leases first (they
// have waited longest), then unleased due alarms, each in due order and
// each served by its own partial index.
const (
	selectExpired = `SELECT ` + recordColumns + `, lease_owner FROM alarms
		WHERE lease_owner IS NOT NULL AND lease_until_ms <= ? AND key_id = ?
		ORDER BY lease_until_ms LIMIT ?`
	selectDue = `SELECT ` + recordColumns + `, lease_owner FROM alarms
		WHERE next_attempt_ms IS NOT NULL AND lease_owner IS NULL AND next_attempt_ms <= ? AND key_id = ?
		ORDER BY next_attempt_ms LIMIT ?`
)

func (s *sqlStore) Claim(ctx context.Context, req ClaimRequest) ([]*Claim, error) {
	if req.Limit <= 0 {
		return nil, nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("alarm: claim: %w", err)
	}
	defer tx.Rollback()
	now := ms(req.Now)
	var claims []*Claim
	var prevOwners []*string
	for _, q := range []*sql.Stmt{s.selExpired, s.selDue} {
		left := req.Limit - len(claims)
		if left == 0 {
			break
		}
		rows, err := tx.StmtContext(ctx, q).QueryContext(ctx, now, req.KeyID, left)
		if err != nil {
			return nil, fmt.Errorf("alarm: claim: %w", err)
		}
		for rows.Next() {
			var prev *string
			r, err := scanRecord(rows, &prev)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("alarm: claim: %w", err)
			}
			claims = append(claims, &Claim{Record: *r})
			prevOwners = append(prevOwners, prev)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("alarm: claim: %w", err)
		}
	}
	if len(claims) == 0 {
		return nil, nil
	}
	until := req.Now.Add(req.Lease)
	upd := tx.StmtContext(ctx, s.claimUpd)
	for i, c := range claims {
		if prev := prevOwners[i]; prev != nil {
			// The previous holder's lease ran out without a result: it
			// stopped mid-delivery. Its attempt goes into the history;
			// the alarm is delivered again with the same id.
			if err := s.insertAttempt(ctx, tx, c.ID, Attempt{N: c.Attempt, At: req.Now, Error: abandonedError, Instance: *prev}); err != nil {
				return nil, fmt.Errorf("alarm: claim: %w", err)
			}
		}
		c.Attempt++
		c.Status = StatusDelivering
		c.Owner, c.LeaseUntil = req.Owner, until
		if _, err := upd.ExecContext(ctx, c.Attempt, req.Owner, ms(until), now, now, c.ID); err != nil {
			return nil, fmt.Errorf("alarm: claim: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("alarm: claim: %w", err)
	}
	return claims, nil
}

func (s *sqlStore) insertAttempt(ctx context.Context, tx *sql.Tx, id string, a Attempt) error {
	_, err := tx.StmtContext(ctx, s.attemptIns).ExecContext(ctx,
		id, a.N, ms(a.At), a.Duration.Milliseconds(), nullCode(a.StatusCode), nullString(a.Error), a.Instance)
	return err
}

func (s *sqlStore) Finish(ctx context.Context, c *Claim, o Outcome) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("alarm: finish: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.StmtContext(ctx, s.finishUpd).ExecContext(ctx,
		string(o.Status), o.Failures, nullMS(o.NextAttemptAt), ms(o.Attempt.At.Add(o.Attempt.Duration)),
		c.ID, c.Owner, c.Attempt)
	if err != nil {
		return fmt.Errorf("alarm: finish: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("alarm: finish: %w", err)
	} else if n == 0 {
		return ErrLeaseLost
	}
	if err := s.insertAttempt(ctx, tx, c.ID, o.Attempt); err != nil {
		return fmt.Errorf("alarm: finish: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("alarm: finish: %w", err)
	}
	return nil
}

func (s *sqlStore) Release(ctx context.Context, c *Claim) error {
	res, err := s.db.ExecContext(ctx, s.d.q(`UPDATE alarms SET attempt = attempt - 1, lease_owner = NULL, lease_until_ms = NULL
		WHERE id = ? AND lease_owner = ? AND attempt = ?`), c.ID, c.Owner, c.Attempt)
	if err != nil {
		return fmt.Errorf("alarm: release: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("alarm: release: %w", err)
	} else if n == 0 {
		return ErrLeaseLost
	}
	return nil
}

func (s *sqlStore) NextDue(ctx context.Context, keyID string) (time.Time, bool, error) {
	var free, lease *int64
	err := s.nextDue.QueryRowContext(ctx, keyID, keyID).Scan(&free, &lease)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("alarm: next due: %w", err)
	}
	switch {
	case free == nil && lease == nil:
		return time.Time{}, false, nil
	case free == nil:
		return fromMS(*lease), true, nil
	case lease == nil || *free <= *lease:
		return fromMS(*free), true, nil
	}
	return fromMS(*lease), true, nil
}

func (s *sqlStore) Counts(ctx context.Context) (map[Status]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT status, COUNT(*) FROM alarms GROUP BY status`)
	if err != nil {
		return nil, fmt.Errorf("alarm: counts: %w", err)
	}
	defer rows.Close()
	out := map[Status]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, fmt.Errorf("alarm: counts: %w", err)
		}
		out[Status(st)] = n
	}
	return out, rows.Err()
}
