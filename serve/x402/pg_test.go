package x402

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// The PostgreSQL ledger keeps the promises of the SQLite one, between two
// "processes" (two cores, each its own instance with its own connection
// pool).
func TestPostgresLedger(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	a := newEnvAt(t, dsn, func(c *Config) { c.Instance = "a" })
	b := newEnvAt(t, dsn, func(c *Config) { c.Instance = "b" })
	chain := NewLocal(a.ledger) // one chain for both
	chain.Now = func() time.Time { return testNow }
	a.fac.Facilitator, b.fac.Facilitator = chain, chain

	t.Run("one payment, many requests, two processes", func(t *testing.T) {
		p := a.payment()
		var runs atomic.Int32
		run := func(context.Context, Payment) (string, error) { runs.Add(1); return "answer", nil }
		const n = 20
		var wg sync.WaitGroup
		errs := make([]error, n)
		vals := make([]string, n)
		for i := range n {
			c := a.core
			if i%2 == 1 {
				c = b.core
			}
			wg.Go(func() { vals[i], _, errs[i] = Pay(context.Background(), c, a.req, p, run, memCodec{}) })
		}
		wg.Wait()
		for i := range n {
			// Waiting is bounded: a request may get 409 if the holder
			// is slow, never a second settlement.
			if errs[i] != nil && !isInProgress(errs[i]) {
				t.Fatalf("request %d: %v", i, errs[i])
			}
			if errs[i] == nil && vals[i] != "answer" {
				t.Fatalf("request %d: %q", i, vals[i])
			}
		}
		if runs.Load() != 1 {
			t.Errorf("handler ran %d times", runs.Load())
		}
		if s := a.fac.settles.Load() + b.fac.settles.Load(); s != 1 {
			t.Errorf("%d settlements", s)
		}
	})

	t.Run("distinct payments in parallel", func(t *testing.T) {
		before := a.settledCount()
		const n = 40
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			c := a.core
			if i%2 == 1 {
				c = b.core
			}
			p := a.payment()
			wg.Go(func() { _, _, errs[i] = Pay(context.Background(), c, a.req, p, ok, nil) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
		}
		if got := a.settledCount() - before; got != n {
			t.Errorf("%d settlements, want %d", got, n)
		}
	})

	t.Run("a crash in settlement is recovered by the other process", func(t *testing.T) {
		p := a.payment()
		k := claimAs(t, a, p, "dead.x.1", testNow.Add(time.Minute))
		if ok, err := a.ledger.settling(context.Background(), k, "dead.x.1", []byte("stored"), testNow.Add(time.Hour).Unix(), testNow.Add(-time.Second).UnixMilli(), testNow.UnixMilli()); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if n, err := b.core.Recover(context.Background()); err != nil || n < 1 {
			t.Fatalf("recovered %d, %v", n, err)
		}
		v, r, err := Pay(context.Background(), a.core, a.req, p, ok, memCodec{})
		if err != nil || v != "stored" || !r.Success {
			t.Fatalf("re-send: %q %+v %v", v, r, err)
		}
		recs, err := a.ledger.Records(context.Background(), 0, StateServed)
		if err != nil || len(recs) == 0 {
			t.Fatal(recs, err)
		}
	})

	t.Run("states, prune", func(t *testing.T) {
		counts, err := a.ledger.CountStates(context.Background())
		if err != nil || counts[StateServed] < 42 {
			t.Fatalf("%v %v", counts, err)
		}
		n, err := a.ledger.Prune(context.Background(), testNow.Add(time.Hour), 0)
		if err != nil || n == 0 {
			t.Fatalf("pruned %d, %v", n, err)
		}
		counts, _ = a.ledger.CountStates(context.Background())
		if counts[StateServed] != 0 {
			t.Fatalf("after prune %v", counts)
		}
	})
}

func isInProgress(err error) bool {
	return err != nil && fmt.Sprint(err) != "" && errors.Is(err, ErrPaymentInProgress)
}
