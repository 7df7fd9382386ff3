package x402

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/pgtest"
	"github.com/openshelf/openshelf/serve/apierr"
)

// gatedFacilitator holds the settlement of chosen payments until their
// gate opens, and says on held which one it holds: the test decides at
// which point of its work start-up recovery is when a re-send arrives.
type gatedFacilitator struct {
	Facilitator
	held chan string // the nonce of each settlement stopped at its gate

	mu    sync.Mutex
	gates map[string]chan struct{} // nonce → closed to let it through
}

func gate(f Facilitator) *gatedFacilitator {
	return &gatedFacilitator{Facilitator: f, held: make(chan string, 8), gates: map[string]chan struct{}{}}
}

// close returns the gate of p's settlement, closed when the test closes it.
func (g *gatedFacilitator) close(p *PaymentPayload) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := make(chan struct{})
	g.gates[strings.ToLower(p.Payload.Authorization.Nonce)] = c
	return c
}

func (g *gatedFacilitator) Settle(ctx context.Context, p *PaymentPayload, r PaymentRequirements) (SettlementResponse, error) {
	n := strings.ToLower(p.Payload.Authorization.Nonce)
	g.mu.Lock()
	c := g.gates[n]
	g.mu.Unlock()
	if c != nil {
		g.held <- n
		<-c
	}
	return g.Facilitator.Settle(ctx, p, r)
}

// restarted is a server of instance web1 that has just started after a
// crash of its previous run, which had sent the settlement of each of
// pays (and the facilitator had settled them) but recorded no answer:
// the records are settling, held by a run that is gone, with leases that
// still run for a minute or more. The i-th lease ends earliest, so that
// recovery takes the records in order.
func restarted(t *testing.T, ledger string, pays int) (*env, *gatedFacilitator, []*PaymentPayload) {
	t.Helper()
	if ledger == "postgres" {
		ledger = pgtest.NewDatabase(t)
	} else {
		ledger = ledgerFile(t)
	}
	e := newEnvAt(t, ledger, func(c *Config) { c.Instance = "web1"; c.Wait = 50 * time.Millisecond })
	g := gate(e.fac.Facilitator)
	e.fac.Facilitator = g
	out := make([]*PaymentPayload, pays)
	for i := range out {
		p := e.payment()
		owner := "web1.aaaa." + string(rune('1'+i))
		lease := testNow.Add(time.Minute + time.Duration(i)*time.Second)
		k := claimAs(t, e, p, owner, lease)
		if ok, err := e.ledger.settling(context.Background(), k, owner, []byte("stored answer"), testNow.Add(time.Hour).Unix(),
			lease.UnixMilli(), testNow.UnixMilli()); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if r, err := g.Facilitator.Settle(context.Background(), p, e.req.Accepts[0]); err != nil || !r.Success {
			t.Fatal(r, err)
		}
		out[i] = p
	}
	return e, g, out
}

func ledgerFile(t *testing.T) string { return filepath.Join(t.TempDir(), "state", "x402.db") }

// resend is the customer sending p again; it must get the stored answer
// with a successful receipt.
func resend(t *testing.T, e *env, p *PaymentPayload) {
	t.Helper()
	run := func(context.Context, Payment) (string, error) { return "fresh", nil }
	v, r, err := Pay(context.Background(), e.core, e.req, p, run, memCodec{})
	if err != nil || v != "stored answer" || r == nil || !r.Success {
		t.Fatalf("re-send after the restart: %q %+v %v", v, r, err)
	}
}

// recoverHeldAt runs start-up recovery in the background until it waits
// for the facilitator to settle p; it returns p's gate and recovery's end.
func recoverHeldAt(e *env, g *gatedFacilitator, p *PaymentPayload) (chan struct{}, <-chan error) {
	open := g.close(p)
	done := make(chan error, 1)
	go func() {
		_, err := e.core.Recover(context.Background())
		done <- err
	}()
	<-g.held
	return open, done
}

// release lets recovery's held settlement through and waits for recovery
// to end.
func release(t *testing.T, open chan struct{}, recovered <-chan error) {
	t.Helper()
	close(open)
	if err := <-recovered; err != nil {
		t.Fatal(err)
	}
}

// checkServedOnce asserts that every record ended served with one
// settlement recorded each.
func checkServedOnce(t *testing.T, e *env, n int) {
	t.Helper()
	counts, err := e.ledger.CountStates(context.Background())
	if err != nil || counts[StateServed] != n || counts[StateSettling] != 0 {
		t.Errorf("states %v %v, want %d served", counts, err, n)
	}
	if got := e.settledCount(); got != n {
		t.Errorf("%d settlements recorded, want %d", got, n)
	}
}

// After a crash, a re-send of a payment whose settlement had been sent is
// recovered on the spot and served, whatever start-up recovery is doing:
// it never waits for the dead run's lease nor for the next sweep, and a
// 409 never promises more than recovery needs. The record's lease still
// runs in every case, so only the re-send (or recovery) can take it back.
func TestResendAfterRestart(t *testing.T) {
	for _, ledger := range []string{"sqlite", "postgres"} {
		t.Run(ledger, func(t *testing.T) {
			t.Run("before start-up recovery", func(t *testing.T) {
				e, _, pays := restarted(t, ledger, 1)
				resend(t, e, pays[0])
				checkServedOnce(t, e, 1)
			})

			t.Run("while recovery settles another payment", func(t *testing.T) {
				e, g, pays := restarted(t, ledger, 2)
				open, done := recoverHeldAt(e, g, pays[0])
				resend(t, e, pays[1])
				release(t, open, done)
				resend(t, e, pays[0])
				checkServedOnce(t, e, 2)
			})

			t.Run("while recovery settles the same payment", func(t *testing.T) {
				e, g, pays := restarted(t, ledger, 1)
				open, done := recoverHeldAt(e, g, pays[0])
				// The re-send waits for recovery (Config.Wait), then is told
				// to come back in a second: recovery only waits for the
				// facilitator's answer.
				_, _, err := Pay(context.Background(), e.core, e.req, pays[0], ok, memCodec{})
				if ae := apierr.From(err); !errors.Is(err, ErrPaymentInProgress) || ae.RetryAfter > time.Second {
					t.Fatalf("re-send during recovery: %v (Retry-After %s), want 409 with Retry-After 1 s", err, ae.RetryAfter)
				}
				release(t, open, done)
				resend(t, e, pays[0])
				checkServedOnce(t, e, 1)
			})

			t.Run("recovery reaches a payment the re-send is recovering", func(t *testing.T) {
				// Recovery listed both records, then waited for the
				// facilitator on the first; meanwhile the second's re-send
				// came and settles it again itself. Recovery skips it.
				e, g, pays := restarted(t, ledger, 2)
				open1 := g.close(pays[1])
				open0, done := recoverHeldAt(e, g, pays[0])
				sent := make(chan error, 1)
				go func() {
					_, _, err := Pay(context.Background(), e.core, e.req, pays[1], ok, memCodec{})
					sent <- err
				}()
				select {
				case <-g.held:
				case err := <-sent:
					t.Fatalf("the re-send did not settle the payment again: %v", err)
				}
				release(t, open0, done)
				close(open1)
				if err := <-sent; err != nil {
					t.Fatalf("re-send: %v", err)
				}
				resend(t, e, pays[0])
				checkServedOnce(t, e, 2)
			})
		})
	}
}
