package x402

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// Ledger is the durable record of payment authorizations: which signed
// authorization was claimed for which resource, whether it settled and with
// which receipt, and a log of settlements. It is a SQLite database (WAL) so
// that claims are atomic across goroutines, processes sharing the file, and
// restarts: the primary key (network, asset, payer, nonce) admits one claim
// per authorization.
type Ledger struct {
	db   *sql.DB
	path string

	// Prepared once: preparing is a large part of a statement's cost here.
	insertClaim, selectClaim, takeOver, deleteClaim, markSettled,
	insertSettlement, insertTransfer, selectTransfer *sql.Stmt
}

// LedgerPath returns the conventional ledger location under a data root.
func LedgerPath(dataDir string) string { return filepath.Join(dataDir, "state", "x402.db") }

const ledgerSchemaVersion = 1

const ledgerSchema = `
CREATE TABLE IF NOT EXISTS claims (
	network      TEXT NOT NULL,
	asset        TEXT NOT NULL,
	payer        TEXT NOT NULL,
	nonce        TEXT NOT NULL,
	resource     TEXT NOT NULL,
	status       TEXT NOT NULL CHECK (status IN ('claimed', 'settled')),
	owner        TEXT NOT NULL,
	receipt      TEXT,
	valid_before INTEGER NOT NULL,
	created_ms   INTEGER NOT NULL,
	updated_ms   INTEGER NOT NULL,
	PRIMARY KEY (network, asset, payer, nonce)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS settlements (
	id           INTEGER PRIMARY KEY,
	network      TEXT NOT NULL,
	asset        TEXT NOT NULL,
	payer        TEXT NOT NULL,
	nonce        TEXT NOT NULL,
	resource     TEXT NOT NULL,
	amount       TEXT NOT NULL,
	outcome      TEXT NOT NULL CHECK (outcome IN ('settled', 'unknown')),
	tx           TEXT NOT NULL,
	detail       TEXT NOT NULL,
	at_ms        INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS settlements_payer ON settlements (payer, nonce);
CREATE TABLE IF NOT EXISTS local_transfers (
	network      TEXT NOT NULL,
	asset        TEXT NOT NULL,
	payer        TEXT NOT NULL,
	nonce        TEXT NOT NULL,
	pay_to       TEXT NOT NULL,
	amount       TEXT NOT NULL,
	tx           TEXT NOT NULL,
	valid_before INTEGER NOT NULL,
	at_ms        INTEGER NOT NULL,
	PRIMARY KEY (network, asset, payer, nonce)
) WITHOUT ROWID;
`

// OpenLedger opens (creating if needed) the ledger at path, typically
// LedgerPath(DATA). ":memory:" gives a private in-memory ledger for tests.
func OpenLedger(path string) (*Ledger, error) {
	dsn := path
	if path != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			return nil, fmt.Errorf("x402: ledger directory: %w", err)
		}
		dsn = "file:" + (&url.URL{Path: path}).EscapedPath()
	}
	// synchronous=NORMAL in WAL mode loses at most the last commits on a
	// power cut, never consistency; busy_timeout makes concurrent writers
	// in other processes wait instead of failing; IMMEDIATE transactions
	// take the write lock up front so they cannot deadlock on upgrade.
	dsn += "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("x402: open ledger %s: %w", path, err)
	}
	// One connection: SQLite has one writer anyway, and in-process
	// contention between connections would go through the busy handler's
	// sleeps instead of Go's cheap mutex.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	l := &Ledger{db: db, path: path}
	if err := l.migrate(); err != nil {
		db.Close()
		return nil, err
	}
	if err := l.prepare(); err != nil {
		db.Close()
		return nil, err
	}
	return l, nil
}

func (l *Ledger) prepare() error {
	for _, s := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&l.insertClaim, `INSERT INTO claims
			(network, asset, payer, nonce, resource, status, owner, valid_before, created_ms, updated_ms)
			VALUES (?, ?, ?, ?, ?, 'claimed', ?, ?, ?, ?) ON CONFLICT DO NOTHING`},
		{&l.selectClaim, `SELECT resource, status, owner, receipt, updated_ms FROM claims
			WHERE network = ? AND asset = ? AND payer = ? AND nonce = ?`},
		{&l.takeOver, `UPDATE claims SET owner = ?, resource = ?, valid_before = ?, updated_ms = ?
			WHERE network = ? AND asset = ? AND payer = ? AND nonce = ? AND status = 'claimed' AND owner = ?`},
		{&l.deleteClaim, `DELETE FROM claims
			WHERE network = ? AND asset = ? AND payer = ? AND nonce = ? AND owner = ? AND status = 'claimed'`},
		{&l.markSettled, `UPDATE claims SET status = 'settled', receipt = ?, updated_ms = ?
			WHERE network = ? AND asset = ? AND payer = ? AND nonce = ? AND owner = ?`},
		{&l.insertSettlement, `INSERT INTO settlements
			(network, asset, payer, nonce, resource, amount, outcome, tx, detail, at_ms)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&l.insertTransfer, `INSERT INTO local_transfers
			(network, asset, payer, nonce, pay_to, amount, tx, valid_before, at_ms)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`},
		{&l.selectTransfer, `SELECT 1 FROM local_transfers
			WHERE network = ? AND asset = ? AND payer = ? AND nonce = ?`},
	} {
		st, err := l.db.Prepare(s.sql)
		if err != nil {
			return fmt.Errorf("x402: prepare ledger statement: %w", err)
		}
		*s.dst = st
	}
	return nil
}

func (l *Ledger) migrate() error {
	var v int
	if err := l.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("x402: open ledger %s: %w", l.path, err)
	}
	if v > ledgerSchemaVersion {
		return fmt.Errorf("x402: ledger %s has schema version %d, this build knows %d", l.path, v, ledgerSchemaVersion)
	}
	if _, err := l.db.Exec(ledgerSchema); err != nil {
		return fmt.Errorf("x402: create ledger schema: %w", err)
	}
	if _, err := l.db.Exec(fmt.Sprintf("PRAGMA user_version = %d", ledgerSchemaVersion)); err != nil {
		return fmt.Errorf("x402: set ledger schema version: %w", err)
	}
	return nil
}

// Close closes the database.
func (l *Ledger) Close() error { return l.db.Close() }

// claimKey identifies one EIP-3009 authorization. Addresses and the nonce
// are lower-case hex.
type claimKey struct {
	Network, Asset, Payer, Nonce string
}

// claimState is what a claim attempt found.
type claimState int

const (
	claimOwned   claimState = iota // we hold the claim now
	claimPending                   // someone else holds it, not settled yet
	claimSettled                   // settled; receipt is set
)

type claimResult struct {
	state    claimState
	resource string
	receipt  *SettlementResponse
}

// claim atomically takes the authorization for resource under owner. If it
// is already claimed, it reports by whom and how far it got. A pending
// claim older than lease is presumed abandoned (its process died) and is
// taken over: that cannot double-charge, because the chain refuses a
// second transfer with the same nonce.
func (l *Ledger) claim(ctx context.Context, k claimKey, resource, owner string, validBefore int64, now time.Time, lease time.Duration) (claimResult, error) {
	ms := now.UnixMilli()
	res, err := l.insertClaim.ExecContext(ctx, k.Network, k.Asset, k.Payer, k.Nonce, resource, owner, validBefore, ms, ms)
	if err != nil {
		return claimResult{}, fmt.Errorf("x402: ledger claim: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return claimResult{state: claimOwned, resource: resource}, nil
	}
	var (
		got               claimResult
		status, prevOwner string
		receipt           sql.NullString
		updated           int64
	)
	err = l.selectClaim.QueryRowContext(ctx, k.Network, k.Asset, k.Payer, k.Nonce).Scan(&got.resource, &status, &prevOwner, &receipt, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		// Released between our insert and select: try again.
		return l.claim(ctx, k, resource, owner, validBefore, now, lease)
	}
	if err != nil {
		return claimResult{}, fmt.Errorf("x402: ledger read claim: %w", err)
	}
	if status == "settled" {
		got.state = claimSettled
		got.receipt = new(SettlementResponse)
		if err := json.Unmarshal([]byte(receipt.String), got.receipt); err != nil {
			return claimResult{}, fmt.Errorf("x402: ledger receipt of %s/%s: %w", k.Payer, k.Nonce, err)
		}
		return got, nil
	}
	if lease > 0 && ms-updated > lease.Milliseconds() {
		res, err := l.takeOver.ExecContext(ctx, owner, resource, validBefore, ms, k.Network, k.Asset, k.Payer, k.Nonce, prevOwner)
		if err != nil {
			return claimResult{}, fmt.Errorf("x402: ledger take over claim: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return claimResult{state: claimOwned, resource: resource}, nil
		}
		return l.claim(ctx, k, resource, owner, validBefore, now, lease)
	}
	got.state = claimPending
	return got, nil
}

// release deletes owner's pending claim, so the authorization can be used
// again.
func (l *Ledger) release(ctx context.Context, k claimKey, owner string) error {
	_, err := l.deleteClaim.ExecContext(ctx, k.Network, k.Asset, k.Payer, k.Nonce, owner)
	if err != nil {
		return fmt.Errorf("x402: ledger release: %w", err)
	}
	return nil
}

// settled marks owner's claim settled with receipt and appends to the
// settlements log, in one transaction. It reports an error if the claim
// was no longer owner's (taken over after its lease); the log row is
// written regardless, since money moved.
func (l *Ledger) settled(ctx context.Context, k claimKey, owner, resource, amount string, r *SettlementResponse, now time.Time) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("x402: ledger encode receipt: %w", err)
	}
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("x402: ledger settle: %w", err)
	}
	defer tx.Rollback()
	ms := now.UnixMilli()
	res, err := tx.StmtContext(ctx, l.markSettled).ExecContext(ctx, string(b), ms, k.Network, k.Asset, k.Payer, k.Nonce, owner)
	if err != nil {
		return fmt.Errorf("x402: ledger settle: %w", err)
	}
	n, _ := res.RowsAffected()
	if _, err := tx.StmtContext(ctx, l.insertSettlement).ExecContext(ctx,
		k.Network, k.Asset, k.Payer, k.Nonce, resource, amount, "settled", r.Transaction, string(b), ms); err != nil {
		return fmt.Errorf("x402: ledger log settlement: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("x402: ledger settle commit: %w", err)
	}
	if n != 1 {
		return fmt.Errorf("x402: ledger: claim %s/%s was no longer ours when it settled", k.Payer, k.Nonce)
	}
	return nil
}

// unknown logs a settlement whose outcome is unknown (the facilitator timed
// out or was unreachable), for reconciliation against the chain.
func (l *Ledger) unknown(ctx context.Context, k claimKey, resource, amount, detail string, now time.Time) error {
	_, err := l.insertSettlement.ExecContext(ctx,
		k.Network, k.Asset, k.Payer, k.Nonce, resource, amount, "unknown", "", detail, now.UnixMilli())
	if err != nil {
		return fmt.Errorf("x402: ledger log unknown settlement: %w", err)
	}
	return nil
}

// recordTransfer is the Local facilitator's stand-in for the token's
// authorizationState: it records the transfer and reports false if the
// authorization was already used.
func (l *Ledger) recordTransfer(ctx context.Context, k claimKey, payTo, amount, tx string, validBefore int64, now time.Time) (bool, error) {
	res, err := l.insertTransfer.ExecContext(ctx, k.Network, k.Asset, k.Payer, k.Nonce, payTo, amount, tx, validBefore, now.UnixMilli())
	if err != nil {
		return false, fmt.Errorf("x402: ledger record transfer: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// transferUsed reports whether the Local facilitator already used k.
func (l *Ledger) transferUsed(ctx context.Context, k claimKey) (bool, error) {
	var one int
	err := l.selectTransfer.QueryRowContext(ctx, k.Network, k.Asset, k.Payer, k.Nonce).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("x402: ledger read transfer: %w", err)
	}
	return true, nil
}

// CountSettlements returns how many settlements succeeded and how many had
// an unknown outcome, for monitoring and tests.
func (l *Ledger) CountSettlements(ctx context.Context) (settled, unknown int, err error) {
	err = l.db.QueryRowContext(ctx, `SELECT
		COALESCE(SUM(outcome = 'settled'), 0), COALESCE(SUM(outcome = 'unknown'), 0) FROM settlements`).Scan(&settled, &unknown)
	if err != nil {
		return 0, 0, fmt.Errorf("x402: ledger count settlements: %w", err)
	}
	return settled, unknown, nil
}

// Prune deletes settled claims and local transfers whose authorization
// expired before cutoff. They can no longer be replayed: an expired
// authorization is refused before the ledger is consulted. Pending claims
// and the settlements log are kept.
func (l *Ledger) Prune(ctx context.Context, cutoff time.Time) (int64, error) {
	var total int64
	for _, q := range []string{
		`DELETE FROM claims WHERE status = 'settled' AND valid_before < ?`,
		`DELETE FROM local_transfers WHERE valid_before < ?`,
	} {
		res, err := l.db.ExecContext(ctx, q, cutoff.Unix())
		if err != nil {
			return total, fmt.Errorf("x402: ledger prune: %w", err)
		}
		n, _ := res.RowsAffected()
		total += n
	}
	return total, nil
}
