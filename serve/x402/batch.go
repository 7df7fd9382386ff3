package x402

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// Group commit. Every ledger access is an op run by a writer goroutine
// that owns one database connection. A writer takes every op queued while
// it was busy and runs them in one transaction, and each caller returns
// only once that transaction committed: durability is what it was with
// one transaction per op (a caller never goes on before its writes are
// committed), but concurrent requests share the commit, the WAL frames
// of the pages they all touch and the locks.
//
// That is SQLite. PostgreSQL runs each op in its own transaction on a
// pooled connection, as concurrent requests: the server shares WAL
// flushes between concurrent commits itself, and measured on the test
// cluster a batching writer only added round trips (git history of BENCHMARKS.md).

// errLedgerClosed is what an op queued after Close gets.
var errLedgerClosed = errors.New("x402: ledger closed")

// maxBatch bounds the ops of one transaction: a failed batch is run
// again op by op, and a huge transaction holds locks long.
const maxBatch = 256

// op is one unit of ledger work. run may be called more than once (a
// batch that failed is run again op by op): it must set its results
// afresh each time.
//
// An early op's caller gets its result as soon as it ran, before its
// batch commits; the writer does not look at it again, and if the batch
// fails it is not run again: its writes are lost as in a crash before the
// commit. That is only for a read, or a write whose durability no caller
// relies on before a later write of the same request commits (the Local
// facilitator's transfer record, which the record of the settlement
// follows into the same or a later batch: batches commit in order).
type op struct {
	run   func(context.Context, *writer) error
	done  chan error
	early bool
}

var opPool = sync.Pool{New: func() any { return &op{done: make(chan error, 1)} }}

// writer is where an op runs: the SQLite writer, which owns one
// connection and the statements prepared on it, or (PostgreSQL) the op's
// own transaction with the statements prepared on the pool.
type writer struct {
	gone  []bool // per op of the batch: an early op whose caller has its result
	conn  *sql.Conn
	tx    *sql.Tx // PostgreSQL: the op's transaction, if it needs one
	db    *sql.DB // PostgreSQL: the pool, for an op without a transaction
	stmts map[string]*sql.Stmt
	begin string // BEGIN IMMEDIATE on SQLite: take the write lock up front
}

// stmt returns the prepared statement name, bound to the transaction.
func (w *writer) stmt(ctx context.Context, name string) *sql.Stmt {
	if w.tx != nil {
		return w.tx.StmtContext(ctx, w.stmts[name])
	}
	return w.stmts[name]
}

// execSQL and querySQL run an ad-hoc statement in the op's transaction.
func (w *writer) execSQL(ctx context.Context, q string, args ...any) (sql.Result, error) {
	switch {
	case w.tx != nil:
		return w.tx.ExecContext(ctx, q, args...)
	case w.db != nil:
		return w.db.ExecContext(ctx, q, args...)
	}
	return w.conn.ExecContext(ctx, q, args...)
}

func (w *writer) querySQL(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	switch {
	case w.tx != nil:
		return w.tx.QueryContext(ctx, q, args...)
	case w.db != nil:
		return w.db.QueryContext(ctx, q, args...)
	}
	return w.conn.QueryContext(ctx, q, args...)
}

// preparePool prepares the statements on the pool (PostgreSQL).
func (l *Ledger) preparePool(ctx context.Context) error {
	l.stmts = map[string]*sql.Stmt{}
	for name, q := range ledgerQueries {
		st, err := l.db.PrepareContext(ctx, l.rebind(q))
		if err != nil {
			return fmt.Errorf("x402: prepare ledger statement %s: %w", name, err)
		}
		l.stmts[name] = st
	}
	return nil
}

// direct runs fn on the pool (PostgreSQL): its statements autocommit,
// unless atomic asks for one transaction (an op of several writes; single
// writes and the claim's compare-and-set loop need none).
func (l *Ledger) direct(fn func(context.Context, *writer) error, atomic bool) error {
	ctx := context.Background()
	l.batches.Add(1)
	l.batched.Add(1)
	if !atomic {
		return fn(ctx, &writer{db: l.db, stmts: l.stmts})
	}
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("x402: ledger begin: %w", err)
	}
	defer tx.Rollback()
	if err := fn(ctx, &writer{tx: tx, stmts: l.stmts}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("x402: ledger commit: %w", err)
	}
	return nil
}

// startWriters opens n writer connections and starts their goroutines.
func (l *Ledger) startWriters(ctx context.Context, n int) error {
	l.ops = make(chan *op, 4*maxBatch)
	l.stop = make(chan struct{})
	begin := "BEGIN IMMEDIATE"
	var ws []*writer
	for range n {
		conn, err := l.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("x402: ledger %s connection: %w", l.where, err)
		}
		w := &writer{conn: conn, stmts: map[string]*sql.Stmt{}, begin: begin}
		ws = append(ws, w)
		for name, q := range ledgerQueries {
			st, err := conn.PrepareContext(ctx, l.rebind(q))
			if err != nil {
				for _, w := range ws {
					w.conn.Close()
				}
				return fmt.Errorf("x402: prepare ledger statement %s: %w", name, err)
			}
			w.stmts[name] = st
		}
	}
	for _, w := range ws {
		l.wg.Add(1)
		go l.loop(w)
	}
	return nil
}

// do runs fn in a batch transaction and returns once it committed.
func (l *Ledger) do(fn func(context.Context, *writer) error) error {
	return l.enqueue(fn, false, false)
}

// doAtomic is do for an op whose writes must commit together (on SQLite
// every op is in a batch transaction anyway).
func (l *Ledger) doAtomic(fn func(context.Context, *writer) error) error {
	return l.enqueue(fn, false, true)
}

// doEarly runs fn in a batch and returns once it ran, before the batch
// commits: see op.
func (l *Ledger) doEarly(fn func(context.Context, *writer) error) error {
	return l.enqueue(fn, true, false)
}

func (l *Ledger) enqueue(fn func(context.Context, *writer) error, early, atomic bool) error {
	if l.postgres {
		l.mu.RLock()
		closed := l.closed
		l.mu.RUnlock()
		if closed {
			return errLedgerClosed
		}
		return l.direct(fn, atomic)
	}
	o := opPool.Get().(*op)
	o.run, o.early = fn, early
	l.mu.RLock()
	if l.closed {
		l.mu.RUnlock()
		return errLedgerClosed
	}
	l.ops <- o
	l.mu.RUnlock()
	err := <-o.done
	o.run = nil
	opPool.Put(o)
	return err
}

func (l *Ledger) loop(w *writer) {
	defer l.wg.Done()
	defer w.conn.Close()
	batch := make([]*op, 0, maxBatch)
	w.gone = make([]bool, 0, maxBatch)
	for {
		var first *op
		select {
		case first = <-l.ops:
		case <-l.stop:
			// Ops queued before Close still run: their callers wait.
			select {
			case first = <-l.ops:
			default:
				return
			}
		}
		batch = append(batch[:0], first)
		// Let the requests that are about to queue an op do so: on a busy
		// machine a batch then carries several requests' writes instead of
		// one (runtime.Gosched costs far less than a commit).
		runtime.Gosched()
	fill:
		for len(batch) < maxBatch {
			select {
			case o := <-l.ops:
				batch = append(batch, o)
			default:
				break fill
			}
		}
		w.runBatch(batch)
		l.batches.Add(1)
		l.batched.Add(int64(len(batch)))
		clear(batch)
	}
}

// stopWriters lets the writers finish the ops queued and stops them.
func (l *Ledger) stopWriters() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	l.mu.Unlock()
	if l.stop != nil {
		close(l.stop)
	}
	l.wg.Wait()
}

// Batches returns how many transactions the writers committed or tried,
// and how many operations they carried: ops/batches is how well group
// commit groups.
func (l *Ledger) Batches() (batches, ops int64) { return l.batches.Load(), l.batched.Load() }

// runBatch commits the ops together; if any fails, or the commit does, it
// rolls back and runs each op alone, so that one op's failure is not
// another's.
func (w *writer) runBatch(batch []*op) {
	ctx := context.Background()
	w.gone = w.gone[:len(batch)]
	clear(w.gone)
	if err := w.runTx(ctx, batch, true); err == nil {
		for i, o := range batch {
			if !w.gone[i] {
				o.done <- nil
			}
		}
		return
	} else if len(batch) == 1 {
		if !w.gone[0] {
			batch[0].done <- err
		}
		return
	}
	for i, o := range batch {
		if !w.gone[i] {
			o.done <- w.runTx(ctx, batch[i:i+1], false)
		}
	}
}

// runTx runs ops in one transaction. With release, early ops get their
// result as soon as they ran.
func (w *writer) runTx(ctx context.Context, ops []*op, release bool) error {
	if _, err := w.conn.ExecContext(ctx, w.begin); err != nil {
		return fmt.Errorf("x402: ledger begin: %w", err)
	}
	for i, o := range ops {
		err := o.run(ctx, w)
		if release && o.early {
			w.gone[i] = true
			o.done <- err // o belongs to its caller again
			err = nil
		}
		if err != nil {
			w.rollback(ctx)
			return err
		}
	}
	if _, err := w.conn.ExecContext(ctx, "COMMIT"); err != nil {
		w.rollback(ctx)
		return fmt.Errorf("x402: ledger commit: %w", err)
	}
	return nil
}

func (w *writer) rollback(ctx context.Context) {
	// Fails harmlessly when the failed statement already ended the
	// transaction.
	w.conn.ExecContext(ctx, "ROLLBACK")
}

// exec runs a prepared statement and returns the rows it affected.
func (w *writer) exec(ctx context.Context, name string, args ...any) (int64, error) {
	res, err := w.stmt(ctx, name).ExecContext(ctx, args...)
	if err != nil {
		return 0, fmt.Errorf("x402: ledger %s: %w", name, err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}
