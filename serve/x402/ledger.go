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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"
)

// States of a payment in the ledger. A record moves
//
//	claimed ─► settling ─► served
//	   │           ├─► settled ─► served   (recovered after a crash; served on the re-send)
//	   │           └─► failed              (the facilitator refused to settle: no funds moved)
//	   └─► released                        (verify or handler failed, or the claim expired
//	                                        before settlement was sent: no funds moved)
//
// released and failed records may be claimed again: the authorization is
// still unused on chain. Every transition stamps updated_ms; settling
// stamps settle_ms, settled/served stamp settled_ms, served stamps served_ms.
const (
	StateClaimed  = "claimed"  // a process holds the authorization until lease_ms; settlement not sent
	StateSettling = "settling" // settlement sent to the facilitator; outcome not yet recorded
	StateSettled  = "settled"  // settlement confirmed by recovery; the answer was not handed out yet
	StateServed   = "served"   // settled and the answer handed to the client
	StateReleased = "released" // given back without settlement (funds did not move)
	StateFailed   = "failed"   // the facilitator refused settlement (funds did not move)
)

// States lists every state, in lifecycle order.
var States = []string{StateClaimed, StateSettling, StateSettled, StateServed, StateReleased, StateFailed}

// Ledger is the durable record of payment authorizations: which signed
// authorization was claimed for which resource, how far its payment got,
// the receipt and the stored answer a re-send is served from, and a log of
// settlements. It is SQLite (WAL, the embedded default) or PostgreSQL (for
// several instances sharing one ledger). Claims are atomic across
// goroutines, processes and restarts: the primary key (network, asset,
// payer, nonce) admits one record per authorization, and every transition
// is a compare-and-set on (state, owner).
//
// Every access goes through group commit (see batch.go): concurrent
// requests' writes share transactions.
type Ledger struct {
	db       *sql.DB
	where    string // path or redacted URL, for messages
	postgres bool

	ops    chan *op
	stop   chan struct{}
	wg     sync.WaitGroup
	mu     sync.RWMutex // held to enqueue; Close takes it to set closed
	closed bool
	stmts  map[string]*sql.Stmt // PostgreSQL: prepared on the pool

	batches, batched atomic.Int64 // see Batches
}

// LedgerPath returns the conventional ledger location under a data root.
func LedgerPath(dataDir string) string { return filepath.Join(dataDir, "state", "x402.db") }

// IsPostgresURL reports whether s names a PostgreSQL ledger.
func IsPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

const ledgerSchemaVersion = 2

// ledgerSchema is written for both databases: %[1]s is the type of a
// binary column, %[2]s the key clause of the settlements log, %[3]s
// SQLite's WITHOUT ROWID (one b-tree per table instead of two).
//
// The answer a re-send gets lives in the answers table, written once when
// settlement is sent: later transitions rewrite the payments row only
// (SQLite rewrites a whole row on update).
//
// On SQLite, payments is a rowid table, unlike the others: its rows (the
// stored payment is about 1.1 kB of JSON, the receipt 0.3 kB) exceed what
// a WITHOUT ROWID b-tree keeps in a cell (about 1 kB of a 4 kB page), so
// there each row needs an overflow page of its own, freed and written
// anew by every transition. In a rowid table a row stays on its leaf (up to about
// 4 kB), and rows of concurrent requests share the leaves at the end of
// the table; the key is a separate small index, written once per claim.
// settlements has no index: it is appended to and read by operators.
const ledgerSchema = `
CREATE TABLE IF NOT EXISTS payments (
	network      TEXT NOT NULL,
	asset        TEXT NOT NULL,
	payer        TEXT NOT NULL,
	nonce        TEXT NOT NULL,
	resource     TEXT NOT NULL,
	state        TEXT NOT NULL,
	owner        TEXT NOT NULL,
	amount       TEXT NOT NULL,
	valid_before BIGINT NOT NULL,
	lease_ms     BIGINT NOT NULL,
	payment      TEXT NOT NULL,
	receipt      TEXT,
	created_ms   BIGINT NOT NULL,
	updated_ms   BIGINT NOT NULL,
	settle_ms    BIGINT,
	settled_ms   BIGINT,
	served_ms    BIGINT,
	PRIMARY KEY (network, asset, payer, nonce)
);
CREATE INDEX IF NOT EXISTS payments_inflight ON payments (lease_ms) WHERE state IN ('claimed', 'settling');
CREATE TABLE IF NOT EXISTS answers (
	network      TEXT NOT NULL,
	asset        TEXT NOT NULL,
	payer        TEXT NOT NULL,
	nonce        TEXT NOT NULL,
	valid_before BIGINT NOT NULL,
	answer       %[1]s NOT NULL,
	PRIMARY KEY (network, asset, payer, nonce)
)%[3]s;
CREATE TABLE IF NOT EXISTS settlements (
	id           %[2]s,
	network      TEXT NOT NULL,
	asset        TEXT NOT NULL,
	payer        TEXT NOT NULL,
	nonce        TEXT NOT NULL,
	resource     TEXT NOT NULL,
	amount       TEXT NOT NULL,
	outcome      TEXT NOT NULL,
	tx           TEXT NOT NULL,
	detail       TEXT NOT NULL,
	at_ms        BIGINT NOT NULL
);
DROP INDEX IF EXISTS settlements_payer;
CREATE TABLE IF NOT EXISTS local_transfers (
	network      TEXT NOT NULL,
	asset        TEXT NOT NULL,
	payer        TEXT NOT NULL,
	nonce        TEXT NOT NULL,
	pay_to       TEXT NOT NULL,
	amount       TEXT NOT NULL,
	tx           TEXT NOT NULL,
	valid_before BIGINT NOT NULL,
	at_ms        BIGINT NOT NULL,
	PRIMARY KEY (network, asset, payer, nonce)
)%[3]s;
CREATE TABLE IF NOT EXISTS ledger_meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
`

// OpenLedger opens (creating if needed) the SQLite ledger at path,
// typically LedgerPath(DATA). ":memory:" gives a private in-memory ledger
// for tests.
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
	dsn += "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_pragma=cache_size(-16384)&_pragma=wal_autocheckpoint(8000)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("x402: open ledger %s: %w", path, err)
	}
	// One connection, owned by the writer goroutine: SQLite has one
	// writer anyway, and group commit needs every access in one place.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	return newLedger(context.Background(), db, path, false)
}

// OpenLedgerURL opens the ledger named by where: a postgres:// URL for a
// PostgreSQL ledger shared by several instances, otherwise a SQLite path.
func OpenLedgerURL(ctx context.Context, where string) (*Ledger, error) {
	if !IsPostgresURL(where) {
		return OpenLedger(where)
	}
	db, err := sql.Open("pgx", where)
	if err != nil {
		return nil, fmt.Errorf("x402: open PostgreSQL ledger: %w", err)
	}
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return newLedger(ctx, db, redactURL(where), true)
}

func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "postgres://…"
	}
	return u.Redacted()
}

func newLedger(ctx context.Context, db *sql.DB, where string, postgres bool) (*Ledger, error) {
	l := &Ledger{db: db, where: where, postgres: postgres}
	if err := l.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	start := func(ctx context.Context) error { return l.startWriters(ctx, 1) }
	if postgres {
		start = l.preparePool
	}
	if err := start(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return l, nil
}

// Where names the ledger (a path or a URL without password).
func (l *Ledger) Where() string { return l.where }

// rebind turns ? placeholders into PostgreSQL's $n.
func (l *Ledger) rebind(q string) string {
	if !l.postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

const payCols = `network = ? AND asset = ? AND payer = ? AND nonce = ?`

var ledgerQueries = map[string]string{
	"insert": `INSERT INTO payments (network, asset, payer, nonce, resource, state, owner, amount, valid_before,
		lease_ms, payment, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, 'claimed', ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
	"select": `SELECT p.resource, p.state, p.owner, p.lease_ms, p.payment, p.receipt, a.answer FROM payments p
		LEFT JOIN answers a ON a.network = p.network AND a.asset = p.asset AND a.payer = p.payer AND a.nonce = p.nonce
		WHERE p.network = ? AND p.asset = ? AND p.payer = ? AND p.nonce = ?`,
	// Taking a record over: from released/failed (authorization unused),
	// or from an expired claim. CAS on the state and owner seen.
	"takeOver": `UPDATE payments SET state = 'claimed', owner = ?, resource = ?, amount = ?, valid_before = ?, lease_ms = ?,
		payment = ?, receipt = NULL, updated_ms = ?, settle_ms = NULL, settled_ms = NULL, served_ms = NULL
		WHERE ` + payCols + ` AND state = ? AND owner = ?`,
	"adoptSettling": `UPDATE payments SET owner = ?, lease_ms = ?, updated_ms = ? WHERE ` + payCols + ` AND state = 'settling' AND owner = ?`,
	"settling": `UPDATE payments SET state = 'settling', lease_ms = ?, updated_ms = ?, settle_ms = ?
		WHERE ` + payCols + ` AND state = 'claimed' AND owner = ?`,
	"putAnswer": `INSERT INTO answers (network, asset, payer, nonce, valid_before, answer) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (network, asset, payer, nonce) DO UPDATE SET valid_before = excluded.valid_before, answer = excluded.answer`,
	"dropAnswer": `DELETE FROM answers WHERE ` + payCols,
	"settled": `UPDATE payments SET state = ?, receipt = ?, updated_ms = ?, settled_ms = ?, served_ms = ?
		WHERE ` + payCols + ` AND state = 'settling' AND owner = ?`,
	"served": `UPDATE payments SET state = 'served', updated_ms = ?, served_ms = ? WHERE ` + payCols + ` AND state = 'settled'`,
	"giveBack": `UPDATE payments SET state = ?, lease_ms = 0, updated_ms = ?
		WHERE ` + payCols + ` AND owner = ? AND state IN ('claimed', 'settling')`,
	"expire": `UPDATE payments SET lease_ms = ?, updated_ms = ? WHERE ` + payCols + ` AND owner = ? AND state = 'settling'`,
	"logSettlement": `INSERT INTO settlements (network, asset, payer, nonce, resource, amount, outcome, tx, detail, at_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"insertTransfer": `INSERT INTO local_transfers (network, asset, payer, nonce, pay_to, amount, tx, valid_before, at_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
	"selectTransfer": `SELECT 1 FROM local_transfers WHERE ` + payCols,
}

func (l *Ledger) migrate(ctx context.Context) error {
	blob, serial, norowid := "BLOB", "INTEGER PRIMARY KEY", " WITHOUT ROWID"
	if l.postgres {
		blob, serial, norowid = "BYTEA", "BIGSERIAL PRIMARY KEY", ""
		// Several instances may start together: one creates the schema.
		conn, err := l.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("x402: open ledger %s: %w", l.where, err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(4020402)`); err != nil {
			return fmt.Errorf("x402: lock ledger schema: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(4020402)`)
		return l.migrateWith(ctx, conn, blob, serial, norowid)
	}
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("x402: open ledger %s: %w", l.where, err)
	}
	defer conn.Close()
	return l.migrateWith(ctx, conn, blob, serial, norowid)
}

func (l *Ledger) migrateWith(ctx context.Context, conn *sql.Conn, blob, serial, norowid string) error {
	stmts := strings.Split(fmt.Sprintf(ledgerSchema, blob, serial, norowid), ";")
	for _, q := range stmts {
		if strings.TrimSpace(q) == "" {
			continue
		}
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("x402: create ledger schema in %s: %w", l.where, err)
		}
	}
	if !l.postgres {
		if err := l.rowidPayments(ctx, conn, stmts); err != nil {
			return err
		}
	}
	var v string
	err := conn.QueryRowContext(ctx, l.rebind(`SELECT v FROM ledger_meta WHERE k = 'schema'`)).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = conn.ExecContext(ctx, l.rebind(`INSERT INTO ledger_meta (k, v) VALUES ('schema', ?)`), strconv.Itoa(ledgerSchemaVersion))
		if err != nil {
			return fmt.Errorf("x402: set ledger schema version: %w", err)
		}
	case err != nil:
		return fmt.Errorf("x402: read ledger schema version: %w", err)
	default:
		if n, _ := strconv.Atoi(v); n > ledgerSchemaVersion {
			return fmt.Errorf("x402: ledger %s has schema version %s, this build knows %d", l.where, v, ledgerSchemaVersion)
		}
	}
	return nil
}

// paymentColumns are the columns of payments, in their order.
const paymentColumns = `network, asset, payer, nonce, resource, state, owner, amount, valid_before, lease_ms, payment, receipt,
	created_ms, updated_ms, settle_ms, settled_ms, served_ms`

// rowidPayments rebuilds the payments table of a SQLite ledger created
// before it was a rowid table (see ledgerSchema), in one transaction that
// other processes opening the ledger wait for. The columns and their
// order are unchanged: a build that knows the old layout uses the new one.
func (l *Ledger) rowidPayments(ctx context.Context, conn *sql.Conn, schema []string) error {
	var create, index string
	for _, q := range schema {
		q = strings.TrimSpace(q)
		switch {
		case strings.HasPrefix(q, "CREATE TABLE IF NOT EXISTS payments "):
			create = strings.Replace(q, "payments", "payments_rowid", 1)
		case strings.HasPrefix(q, "CREATE INDEX IF NOT EXISTS payments_inflight "):
			index = q
		}
	}
	if create == "" || index == "" {
		return errors.New("x402: ledger schema has no payments table") // a bug here, not in the file
	}
	old := func() (bool, error) {
		var ddl string
		err := conn.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'payments'`).Scan(&ddl)
		return strings.Contains(strings.ToUpper(ddl), "WITHOUT ROWID"), err
	}
	if o, err := old(); err != nil || !o {
		return err
	}
	fail := func(err error) error {
		conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return fmt.Errorf("x402: ledger %s: rebuild payments as a rowid table: %w", l.where, err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return fail(err)
	}
	if o, err := old(); err != nil || !o { // another process did it meanwhile
		if err != nil {
			return fail(err)
		}
		_, err = conn.ExecContext(ctx, "COMMIT")
		return err
	}
	for _, q := range []string{
		`DROP TABLE IF EXISTS payments_rowid`,
		create,
		`INSERT INTO payments_rowid (` + paymentColumns + `) SELECT ` + paymentColumns + ` FROM payments`,
		`DROP TABLE payments`, // and its index
		`ALTER TABLE payments_rowid RENAME TO payments`,
		index,
		`COMMIT`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fail(err)
		}
	}
	return nil
}

// Close finishes the operations queued and closes the database.
func (l *Ledger) Close() error {
	l.stopWriters()
	return l.db.Close()
}

// claimKey identifies one EIP-3009 authorization. Addresses and the nonce
// are lower-case hex.
type claimKey struct {
	Network, Asset, Payer, Nonce string
}

func (k claimKey) args() []any { return []any{k.Network, k.Asset, k.Payer, k.Nonce} }

// claimState is what a claim attempt found.
type claimState int

const (
	claimOwned    claimState = iota // we hold the claim now
	claimPending                    // someone else holds it (live lease)
	claimSettled                    // settled or served; receipt is set
	claimStale                      // settlement was sent by an owner whose lease expired: recover it
	claimConflict                   // the record changed under us: look again
)

type claimResult struct {
	state    claimState
	status   string // the record's state
	resource string
	owner    string
	leaseMs  int64
	payment  string
	receipt  *SettlementResponse
	answer   []byte
}

// claimArgs is what a claim writes.
type claimArgs struct {
	resource, owner, amount, payment string
	validBefore                      int64 // unix seconds
	leaseMs                          int64 // unix ms
	nowMs                            int64
	// instance and run are the owner prefixes of this instance and of
	// this run of it: a record held by another run of this instance was
	// left by a process that is gone ("" when unknown).
	instance, run string
}

// held reports whether got is held by a live owner: its lease runs and
// it is not an earlier run of this instance (a process that is gone).
// Such a run's records are recovered by whoever finds them first, start-up
// recovery or a re-send. A re-send that waited for the dead run's lease
// instead could come before recovery reached its record, or be looking at
// the record just when recovery passed it by (recoverKey skips records a
// request of this process is on): it then got 409 with Retry-After 30 s
// until the next sweep, although the payment had been settled.
func (a claimArgs) held(got claimResult) bool {
	if a.instance != "" && strings.HasPrefix(got.owner, a.instance) && !strings.HasPrefix(got.owner, a.run) {
		return false
	}
	return got.leaseMs > a.nowMs
}

// claim atomically takes the authorization for a.resource under a.owner,
// or reports who holds it and how far it got. A released or failed record
// and a claim whose holder is gone (lease expired, or an earlier run of
// this instance) before settlement was sent are taken over: no funds moved
// for them. A settling record whose holder is gone is reported stale, for
// the caller to recover.
func (l *Ledger) claim(ctx context.Context, k claimKey, a claimArgs) (claimResult, error) {
	var out claimResult
	err := l.do(func(ctx context.Context, w *writer) (err error) {
		out, err = w.claim(ctx, k, a)
		return err
	})
	return out, err
}

func (w *writer) claim(ctx context.Context, k claimKey, a claimArgs) (claimResult, error) {
	for range 8 {
		n, err := w.exec(ctx, "insert", k.Network, k.Asset, k.Payer, k.Nonce, a.resource, a.owner, a.amount, a.validBefore,
			a.leaseMs, a.payment, a.nowMs, a.nowMs)
		if err != nil {
			return claimResult{}, err
		}
		if n == 1 {
			return claimResult{state: claimOwned, resource: a.resource}, nil
		}
		got, found, err := w.read(ctx, k)
		if err != nil {
			return claimResult{}, err
		}
		if !found {
			continue // pruned between insert and select
		}
		switch got.status {
		case StateSettled, StateServed:
			got.state = claimSettled
			return got, nil
		case StateReleased, StateFailed:
		case StateClaimed:
			if a.held(got) {
				got.state = claimPending
				return got, nil
			}
		case StateSettling:
			if a.held(got) {
				got.state = claimPending
			} else {
				got.state = claimStale
			}
			return got, nil
		default:
			return claimResult{}, fmt.Errorf("x402: ledger: unknown state %q", got.status)
		}
		n, err = w.exec(ctx, "takeOver", a.owner, a.resource, a.amount, a.validBefore, a.leaseMs, a.payment, a.nowMs,
			k.Network, k.Asset, k.Payer, k.Nonce, got.status, got.owner)
		if err != nil {
			return claimResult{}, err
		}
		if n == 1 {
			// An answer of the earlier attempt is never served for this one.
			if _, err := w.exec(ctx, "dropAnswer", k.args()...); err != nil {
				return claimResult{}, err
			}
			return claimResult{state: claimOwned, resource: a.resource}, nil
		}
	}
	return claimResult{state: claimConflict}, nil
}

// read returns the record of k.
func (l *Ledger) read(ctx context.Context, k claimKey) (claimResult, bool, error) {
	var (
		out   claimResult
		found bool
	)
	err := l.do(func(ctx context.Context, w *writer) (err error) {
		out, found, err = w.read(ctx, k)
		return err
	})
	return out, found, err
}

func (w *writer) read(ctx context.Context, k claimKey) (claimResult, bool, error) {
	var (
		got     claimResult
		receipt sql.NullString
		payment sql.NullString
	)
	err := w.stmt(ctx, "select").QueryRowContext(ctx, k.args()...).Scan(&got.resource, &got.status, &got.owner, &got.leaseMs,
		&payment, &receipt, &got.answer)
	if errors.Is(err, sql.ErrNoRows) {
		return claimResult{}, false, nil
	}
	if err != nil {
		return claimResult{}, false, fmt.Errorf("x402: ledger read: %w", err)
	}
	got.payment = payment.String
	if receipt.Valid {
		got.receipt = new(SettlementResponse)
		if err := json.Unmarshal([]byte(receipt.String), got.receipt); err != nil {
			return claimResult{}, false, fmt.Errorf("x402: ledger receipt of %s/%s: %w", k.Payer, k.Nonce, err)
		}
	}
	return got, true, nil
}

// exec runs one statement in a batch and returns the rows it affected.
func (l *Ledger) exec(name string, args ...any) (int64, error) {
	var n int64
	err := l.do(func(ctx context.Context, w *writer) (err error) {
		n, err = w.exec(ctx, name, args...)
		return err
	})
	return n, err
}

// adopt takes over a stale settling record from prevOwner, to recover it.
func (l *Ledger) adopt(ctx context.Context, k claimKey, prevOwner, owner string, leaseMs, nowMs int64) (bool, error) {
	n, err := l.exec("adoptSettling", owner, leaseMs, nowMs, k.Network, k.Asset, k.Payer, k.Nonce, prevOwner)
	return n == 1, err
}

// settling records, before the facilitator is asked to settle, that
// settlement is about to be sent, with the answer a re-send will get. It
// fails (false) if owner no longer holds the claim: then nothing may be
// settled.
func (l *Ledger) settling(ctx context.Context, k claimKey, owner string, answer []byte, validBefore, leaseMs, nowMs int64) (bool, error) {
	var ok bool
	err := l.doAtomic(func(ctx context.Context, w *writer) error {
		n, err := w.exec(ctx, "settling", leaseMs, nowMs, nowMs, k.Network, k.Asset, k.Payer, k.Nonce, owner)
		ok = n == 1
		if err != nil || !ok || answer == nil {
			return err
		}
		_, err = w.exec(ctx, "putAnswer", k.Network, k.Asset, k.Payer, k.Nonce, validBefore, answer)
		return err
	})
	return ok, err
}

// settled records a confirmed settlement of owner's settling record:
// state served (the answer is being handed out now) or settled (recovered;
// served on the customer's re-send). The settlements log row is written in
// the same transaction, and regardless of the CAS, since money moved.
func (l *Ledger) settled(ctx context.Context, k claimKey, owner, resource, amount string, r *SettlementResponse, served bool, now time.Time) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("x402: ledger encode receipt: %w", err)
	}
	ms := now.UnixMilli()
	state, servedMs := StateSettled, sql.NullInt64{}
	if served {
		state, servedMs = StateServed, sql.NullInt64{Int64: ms, Valid: true}
	}
	var n int64
	err = l.doAtomic(func(ctx context.Context, w *writer) (err error) {
		n, err = w.exec(ctx, "settled", state, string(b), ms, ms, servedMs, k.Network, k.Asset, k.Payer, k.Nonce, owner)
		if err != nil {
			return err
		}
		_, err = w.exec(ctx, "logSettlement", k.Network, k.Asset, k.Payer, k.Nonce, resource, amount, "settled", r.Transaction, string(b), ms)
		return err
	})
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("x402: ledger: record %s/%s was no longer ours when it settled", k.Payer, k.Nonce)
	}
	return nil
}

// served marks a recovered (settled) record served, on its re-send.
func (l *Ledger) served(ctx context.Context, k claimKey, now time.Time) error {
	ms := now.UnixMilli()
	_, err := l.exec("served", ms, ms, k.Network, k.Asset, k.Payer, k.Nonce)
	return err
}

// giveBack ends owner's claim without settlement: state released (nothing
// was sent) or failed (the facilitator refused). The authorization can be
// used again.
func (l *Ledger) giveBack(ctx context.Context, k claimKey, owner, state string, now time.Time) error {
	_, err := l.exec("giveBack", state, now.UnixMilli(), k.Network, k.Asset, k.Payer, k.Nonce, owner)
	return err
}

// expireLease leaves owner's settling record for recovery: the outcome of
// settlement is unknown, so the next re-send or sweep asks again.
func (l *Ledger) expireLease(ctx context.Context, k claimKey, owner string, now time.Time) error {
	_, err := l.exec("expire", 0, now.UnixMilli(), k.Network, k.Asset, k.Payer, k.Nonce, owner)
	return err
}

// unknown logs a settlement whose outcome is unknown (the facilitator timed
// out or was unreachable), for reconciliation against the chain.
func (l *Ledger) unknown(ctx context.Context, k claimKey, resource, amount, detail string, now time.Time) error {
	_, err := l.exec("logSettlement", k.Network, k.Asset, k.Payer, k.Nonce, resource, amount, "unknown", "", detail, now.UnixMilli())
	return err
}

// recordTransfer is the Local facilitator's stand-in for the token's
// authorizationState: it records the transfer and reports false if the
// authorization was already used.
//
// It returns before the record is committed (an early op): the Core
// records the settlement next, in the same or a later batch, so the
// transfer is durable whenever the settlement is. Should the process die
// before, the payment is still settling and recovery settles it again
// here, finding the transfer unused. The Local facilitator moves no funds,
// so nothing else depends on it.
func (l *Ledger) recordTransfer(ctx context.Context, k claimKey, payTo, amount, tx string, validBefore int64, now time.Time) (bool, error) {
	var n int64
	err := l.doEarly(func(ctx context.Context, w *writer) (err error) {
		n, err = w.exec(ctx, "insertTransfer", k.Network, k.Asset, k.Payer, k.Nonce, payTo, amount, tx, validBefore, now.UnixMilli())
		return err
	})
	return n == 1, err
}

// transferUsed reports whether the Local facilitator already used k. A
// read: it need not wait for its batch to commit.
func (l *Ledger) transferUsed(ctx context.Context, k claimKey) (bool, error) {
	var used bool
	err := l.doEarly(func(ctx context.Context, w *writer) error {
		var one int
		err := w.stmt(ctx, "selectTransfer").QueryRowContext(ctx, k.args()...).Scan(&one)
		used = err == nil
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("x402: ledger read transfer: %w", err)
		}
		return nil
	})
	return used, err
}

// query runs an ad-hoc query in a batch and calls scan for each row,
// after reset (an op may run twice: see op).
func (l *Ledger) query(q string, args []any, reset func(), scan func(*sql.Rows) error) error {
	q = l.rebind(q)
	return l.do(func(ctx context.Context, w *writer) error {
		if reset != nil {
			reset()
		}
		rows, err := w.querySQL(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// CountSettlements returns how many settlements succeeded and how many had
// an unknown outcome, for monitoring and tests.
func (l *Ledger) CountSettlements(ctx context.Context) (settled, unknown int, err error) {
	err = l.query(`SELECT
		COALESCE(SUM(CASE WHEN outcome = 'settled' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN outcome = 'unknown' THEN 1 ELSE 0 END), 0) FROM settlements`, nil, nil,
		func(r *sql.Rows) error { return r.Scan(&settled, &unknown) })
	if err != nil {
		return 0, 0, fmt.Errorf("x402: ledger count settlements: %w", err)
	}
	return settled, unknown, nil
}

// CountStates returns how many records are in each state (every state
// present, zero included).
func (l *Ledger) CountStates(ctx context.Context) (map[string]int, error) {
	var out map[string]int
	err := l.query(`SELECT state, COUNT(*) FROM payments GROUP BY state`, nil, func() { out = make(map[string]int, len(States)) }, func(r *sql.Rows) error {
		var s string
		var n int
		if err := r.Scan(&s, &n); err != nil {
			return err
		}
		out[s] = n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("x402: ledger count states: %w", err)
	}
	for _, s := range States {
		out[s] += 0 // present, zero included
	}
	return out, nil
}

// Record is one payment as `openshelf payments` lists it.
type Record struct {
	Network, Asset, Payer, Nonce string
	Resource, State, Owner       string
	Amount                       string // USDC base units
	ValidBefore                  time.Time
	Lease                        time.Time // a claimed or settling record is held until then
	Created, Updated             time.Time
	SettleSent, Settled, Served  time.Time // zero when not reached
	Transaction                  string
	AnswerBytes                  int
}

// Records lists the records in the given states (all when none), oldest
// first, at most limit (0: no limit).
func (l *Ledger) Records(ctx context.Context, limit int, states ...string) ([]Record, error) {
	q := `SELECT p.network, p.asset, p.payer, p.nonce, p.resource, p.state, p.owner, p.amount, p.valid_before, p.lease_ms,
		p.created_ms, p.updated_ms, p.settle_ms, p.settled_ms, p.served_ms, p.receipt, COALESCE(LENGTH(a.answer), 0)
		FROM payments p LEFT JOIN answers a ON a.network = p.network AND a.asset = p.asset AND a.payer = p.payer AND a.nonce = p.nonce`
	var args []any
	if len(states) > 0 {
		q += ` WHERE p.state IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(states)), ", ") + `)`
		for _, s := range states {
			args = append(args, s)
		}
	}
	q += ` ORDER BY p.created_ms`
	if limit > 0 {
		q += ` LIMIT ` + strconv.Itoa(limit)
	}
	var out []Record
	err := l.query(q, args, func() { out = nil }, func(rows *sql.Rows) error {
		var (
			r                           Record
			vb, lease, created, updated int64
			settle, settled, served     sql.NullInt64
			receipt                     sql.NullString
			answerLen                   int64
		)
		if err := rows.Scan(&r.Network, &r.Asset, &r.Payer, &r.Nonce, &r.Resource, &r.State, &r.Owner, &r.Amount, &vb, &lease,
			&created, &updated, &settle, &settled, &served, &receipt, &answerLen); err != nil {
			return err
		}
		r.ValidBefore, r.Lease = time.Unix(vb, 0).UTC(), time.UnixMilli(lease).UTC()
		r.Created, r.Updated = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
		for _, p := range []struct {
			dst *time.Time
			v   sql.NullInt64
		}{{&r.SettleSent, settle}, {&r.Settled, settled}, {&r.Served, served}} {
			if p.v.Valid {
				*p.dst = time.UnixMilli(p.v.Int64).UTC()
			}
		}
		if receipt.Valid {
			var sr SettlementResponse
			if json.Unmarshal([]byte(receipt.String), &sr) == nil {
				r.Transaction = sr.Transaction
			}
		}
		r.AnswerBytes = int(answerLen)
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("x402: ledger list: %w", err)
	}
	return out, nil
}

// staleKeys lists records in need of recovery: claimed or settling with a
// lease that expired before nowMs, or held by a previous run of this
// instance (ownerPrefix, but not currentOwner: that process died).
func (l *Ledger) staleKeys(ctx context.Context, nowMs int64, ownerPrefix, currentOwner string, limit int) ([]claimKey, error) {
	var out []claimKey
	err := l.query(`SELECT network, asset, payer, nonce FROM payments
		WHERE state IN ('claimed', 'settling') AND (lease_ms < ? OR (owner LIKE ? AND owner NOT LIKE ?))
		ORDER BY lease_ms LIMIT `+strconv.Itoa(limit), []any{nowMs, likePrefix(ownerPrefix), likePrefix(currentOwner)}, func() { out = nil },
		func(rows *sql.Rows) error {
			var k claimKey
			if err := rows.Scan(&k.Network, &k.Asset, &k.Payer, &k.Nonce); err != nil {
				return err
			}
			out = append(out, k)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("x402: ledger list stale: %w", err)
	}
	return out, nil
}

// likePrefix is a LIKE pattern matching strings that start with p (owner
// ids contain no LIKE metacharacters but '-', which is literal).
func likePrefix(p string) string { return p + "%" }

// Prune keeps the ledger small: stored answers of authorizations that
// expired before cutoff are dropped (a re-send of an expired authorization
// is refused before the ledger is consulted), and finished records
// (served, released, failed) and local transfers whose authorization
// expired before cutoff-retention are deleted. Records still needing an
// operator (claimed, settling, settled) and the settlements log are kept.
func (l *Ledger) Prune(ctx context.Context, cutoff time.Time, retention time.Duration) (int64, error) {
	var total int64
	old := cutoff.Add(-retention).Unix()
	for _, q := range []struct {
		sql string
		arg int64
	}{
		{`DELETE FROM answers WHERE valid_before < ?`, cutoff.Unix()},
		{`DELETE FROM payments WHERE state IN ('served', 'released', 'failed') AND valid_before < ?`, old},
		{`DELETE FROM local_transfers WHERE valid_before < ?`, old},
	} {
		q.sql = l.rebind(q.sql)
		var n int64
		err := l.do(func(ctx context.Context, w *writer) error {
			res, err := w.execSQL(ctx, q.sql, q.arg)
			if err != nil {
				return err
			}
			n, _ = res.RowsAffected()
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("x402: ledger prune: %w", err)
		}
		total += n
	}
	return total, nil
}
