package x402

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestGroupCommit: concurrent operations share transactions, each gets its
// own result, and an operation that fails fails alone: its batch is
// rolled back and the others run again one by one and commit.
func TestGroupCommit(t *testing.T) {
	l, err := OpenLedger(LedgerPath(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	errBad := errors.New("bad op")
	const n = 200
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = l.do(func(ctx context.Context, w *writer) error {
				if _, err := w.execSQL(ctx, `INSERT INTO ledger_meta (k, v) VALUES (?, 'x')`, fmt.Sprint("k", i)); err != nil {
					return err
				}
				if i%50 == 7 {
					return errBad // after its insert: that insert must not persist
				}
				return nil
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if want := i%50 == 7; want != errors.Is(err, errBad) || !want && err != nil {
			t.Errorf("op %d: %v", i, err)
		}
	}
	var rows int
	err = l.query(`SELECT COUNT(*) FROM ledger_meta WHERE k LIKE 'k%'`, nil, nil, func(r *sql.Rows) error { return r.Scan(&rows) })
	if err != nil || rows != n-4 {
		t.Errorf("%d rows committed (%v), want %d", rows, err, n-4)
	}
	batches, ops := l.Batches()
	t.Logf("%d ops in %d batches", ops, batches)
	if ops < n {
		t.Errorf("%d ops counted, want at least %d", ops, n)
	}

	// After Close, operations fail instead of hanging.
	l.Close()
	if err := l.do(func(context.Context, *writer) error { return nil }); !errors.Is(err, errLedgerClosed) {
		t.Errorf("op after Close: %v", err)
	}
}
