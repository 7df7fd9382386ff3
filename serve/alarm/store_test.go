package alarm

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// storeKinds opens each Store implementation; PostgreSQL fails without its
// binaries (setup installs them).
var storeKinds = []struct {
	name string
	open func(t *testing.T) Store
}{
	{"sqlite", func(t *testing.T) Store {
		st := openSQLite(t, filepath.Join(t.TempDir(), "alarms.db"))
		t.Cleanup(func() { st.Close() })
		return st
	}},
	{"postgres", func(t *testing.T) Store {
		st, _ := openPostgres(t)
		return st
	}},
}

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func rec(id string, due time.Time, retries int) *Record {
	return &Record{ID: id, Status: StatusScheduled, CallbackURL: hookURL, Payload: []byte(`{"a":1}`),
		Secret: []byte("sealed-" + id), KeyID: "k1", RetryCount: retries, CreatedAt: t0, DeliverAt: due,
		NextAttemptAt: due, UpdatedAt: t0}
}

// TestStore is the behaviour every Store must have.
func TestStore(t *testing.T) {
	for _, k := range storeKinds {
		t.Run(k.name, func(t *testing.T) {
			ctx := context.Background()
			st := k.open(t)
			a, b, c := rec("alm_a", t0.Add(time.Minute), 2), rec("alm_b", t0.Add(2*time.Minute), 0), rec("alm_c", t0.Add(time.Hour), 0)
			other := rec("alm_other_key", t0.Add(time.Second), 0)
			other.KeyID = "k2"
			for _, r := range []*Record{a, b, c, other} {
				if err := st.Insert(ctx, r); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.Insert(ctx, rec("alm_a", t0, 0)); err == nil {
				t.Error("duplicate id inserted")
			}
			got, atts, err := st.Get(ctx, "alm_a")
			if err != nil || got.ID != a.ID || string(got.Payload) != `{"a":1}` || string(got.Secret) != "sealed-alm_a" ||
				!got.DeliverAt.Equal(a.DeliverAt) || !got.NextAttemptAt.Equal(a.DeliverAt) || got.Status != StatusScheduled ||
				got.RetryCount != 2 || len(atts) != 0 {
				t.Fatalf("get: %+v %v %v", got, atts, err)
			}
			if _, _, err := st.Get(ctx, "alm_missing"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("missing: %v", err)
			}

			next, ok, err := st.NextDue(ctx, "k1")
			if err != nil || !ok || !next.Equal(a.DeliverAt) {
				t.Fatalf("next due: %v %v %v", next, ok, err)
			}
			// Nothing is due before its time.
			if cs, err := st.Claim(ctx, ClaimRequest{Owner: "i1", Now: t0, Lease: time.Minute, Limit: 10, KeyID: "k1"}); err != nil || len(cs) != 0 {
				t.Fatalf("early claim: %v %v", cs, err)
			}
			// At +2 min, a and b are due, in due order; the other key's alarm is not ours.
			now := t0.Add(2 * time.Minute)
			cs, err := st.Claim(ctx, ClaimRequest{Owner: "i1", Now: now, Lease: time.Minute, Limit: 10, KeyID: "k1"})
			if err != nil || len(cs) != 2 || cs[0].ID != "alm_a" || cs[1].ID != "alm_b" || cs[0].Attempt != 1 ||
				cs[0].Owner != "i1" || !cs[0].LeaseUntil.Equal(now.Add(time.Minute)) {
				t.Fatalf("claim: %+v %v", cs, err)
			}
			// Claimed alarms are neither claimable nor cancellable.
			if more, _ := st.Claim(ctx, ClaimRequest{Owner: "i2", Now: now, Lease: time.Minute, Limit: 10, KeyID: "k1"}); len(more) != 0 {
				t.Fatalf("claimed twice: %+v", more)
			}
			if r, err := st.Cancel(ctx, "alm_a", now); !errors.Is(err, ErrNotCancellable) || r.Status != StatusDelivering {
				t.Fatalf("cancel claimed: %+v %v", r, err)
			}
			// The next thing due is the lease expiry.
			if next, ok, _ := st.NextDue(ctx, "k1"); !ok || !next.Equal(now.Add(time.Minute)) {
				t.Fatalf("next due with leases: %v", next)
			}

			// a fails and waits for a retry; b succeeds.
			fa := Outcome{Status: StatusDelivering, Failures: 1, NextAttemptAt: now.Add(5 * time.Minute),
				Attempt: Attempt{N: 1, At: now, Duration: 1500 * time.Millisecond, StatusCode: 500, Instance: "i1"}}
			if err := st.Finish(ctx, cs[0], fa); err != nil {
				t.Fatal(err)
			}
			if err := st.Finish(ctx, cs[1], Outcome{Status: StatusDelivered, Attempt: Attempt{N: 1, At: now, StatusCode: 204, Instance: "i1"}}); err != nil {
				t.Fatal(err)
			}
			// A second result for the same claim is fenced off.
			if err := st.Finish(ctx, cs[1], Outcome{Status: StatusFailed}); !errors.Is(err, ErrLeaseLost) {
				t.Fatalf("finish twice: %v", err)
			}
			got, atts, _ = st.Get(ctx, "alm_a")
			if got.Status != StatusDelivering || got.Failures != 1 || !got.NextAttemptAt.Equal(now.Add(5*time.Minute)) ||
				len(atts) != 1 || atts[0].StatusCode != 500 || atts[0].Duration != 1500*time.Millisecond || !atts[0].At.Equal(now) {
				t.Fatalf("after failure: %+v %+v", got, atts)
			}
			got, atts, _ = st.Get(ctx, "alm_b")
			if got.Status != StatusDelivered || !got.NextAttemptAt.IsZero() || len(atts) != 1 || atts[0].StatusCode != 204 {
				t.Fatalf("after success: %+v %+v", got, atts)
			}

			// The retry is claimed as attempt 2 and abandoned by i1 (no
			// result); after the lease expires i2 takes it over as attempt 3.
			now = now.Add(5 * time.Minute)
			cs, _ = st.Claim(ctx, ClaimRequest{Owner: "i1", Now: now, Lease: time.Minute, Limit: 10, KeyID: "k1"})
			if len(cs) != 1 || cs[0].Attempt != 2 || cs[0].Failures != 1 {
				t.Fatalf("retry claim: %+v", cs)
			}
			stale := cs[0]
			if cs, _ := st.Claim(ctx, ClaimRequest{Owner: "i2", Now: now.Add(59 * time.Second), Lease: time.Minute, Limit: 10, KeyID: "k1"}); len(cs) != 0 {
				t.Fatalf("lease ignored: %+v", cs)
			}
			now = now.Add(time.Minute)
			cs, _ = st.Claim(ctx, ClaimRequest{Owner: "i2", Now: now, Lease: time.Minute, Limit: 10, KeyID: "k1"})
			if len(cs) != 1 || cs[0].ID != "alm_a" || cs[0].Attempt != 3 || cs[0].Owner != "i2" {
				t.Fatalf("takeover: %+v", cs)
			}
			// The stale holder's late result and release are refused.
			if err := st.Finish(ctx, stale, Outcome{Status: StatusDelivered}); !errors.Is(err, ErrLeaseLost) {
				t.Fatalf("stale finish: %v", err)
			}
			if err := st.Release(ctx, stale); !errors.Is(err, ErrLeaseLost) {
				t.Fatalf("stale release: %v", err)
			}
			// i2 stops before finishing: releasing makes it due at once
			// with the same attempt number.
			if err := st.Release(ctx, cs[0]); err != nil {
				t.Fatal(err)
			}
			cs, _ = st.Claim(ctx, ClaimRequest{Owner: "i3", Now: now, Lease: time.Minute, Limit: 10, KeyID: "k1"})
			if len(cs) != 1 || cs[0].Attempt != 3 {
				t.Fatalf("after release: %+v", cs)
			}
			if err := st.Finish(ctx, cs[0], Outcome{Status: StatusFailed, Failures: 2, Attempt: Attempt{N: 3, At: now, Error: "upstream_timeout: x", Instance: "i3"}}); err != nil {
				t.Fatal(err)
			}
			got, atts, _ = st.Get(ctx, "alm_a")
			if got.Status != StatusFailed || !got.NextAttemptAt.IsZero() || len(atts) != 3 ||
				atts[1].N != 2 || atts[1].Error != abandonedError || atts[1].Instance != "i1" || atts[1].StatusCode != 0 ||
				atts[2].Error != "upstream_timeout: x" {
				t.Fatalf("final: %+v %+v", got, atts)
			}

			// c is cancellable, and cancelling again is not an error.
			for range 2 {
				if r, err := st.Cancel(ctx, "alm_c", now); err != nil || r.Status != StatusCancelled || !r.NextAttemptAt.IsZero() {
					t.Fatalf("cancel: %+v %v", r, err)
				}
			}
			if _, err := st.Cancel(ctx, "alm_missing", now); !errors.Is(err, ErrNotFound) {
				t.Fatalf("cancel missing: %v", err)
			}
			if _, err := st.Cancel(ctx, "alm_b", now); !errors.Is(err, ErrNotCancellable) {
				t.Fatalf("cancel delivered: %v", err)
			}
			if _, ok, _ := st.NextDue(ctx, "k1"); ok {
				t.Fatal("nothing pending, yet a next due time")
			}
			counts, err := st.Counts(ctx)
			want := map[Status]int{StatusFailed: 1, StatusDelivered: 1, StatusCancelled: 1, StatusScheduled: 1}
			if err != nil || fmt.Sprint(counts) != fmt.Sprint(want) {
				t.Fatalf("counts %v %v", counts, err)
			}
		})
	}
}

// TestStoreConcurrentClaims: claimers racing over the same due alarms
// (several connections or processes) each get distinct alarms, and all of
// them are claimed.
func TestStoreConcurrentClaims(t *testing.T) {
	for _, k := range storeKinds {
		t.Run(k.name, func(t *testing.T) {
			ctx := context.Background()
			var st Store
			var stores []Store
			if k.name == "sqlite" {
				// Separate handles on one file behave like processes.
				path := filepath.Join(t.TempDir(), "shared.db")
				st = openSQLite(t, path)
				t.Cleanup(func() { st.Close() })
				stores = []Store{st}
				for range 3 {
					o := openSQLite(t, path)
					t.Cleanup(func() { o.Close() })
					stores = append(stores, o)
				}
			} else {
				st = k.open(t)
				stores = []Store{st, st, st, st}
			}
			const n = 300
			for i := range n {
				if err := st.Insert(ctx, rec(fmt.Sprintf("alm_%04d", i), t0, 0)); err != nil {
					t.Fatal(err)
				}
			}
			var mu sync.Mutex
			seen := map[string]string{}
			var wg sync.WaitGroup
			for w, s := range stores {
				wg.Add(1)
				go func() {
					defer wg.Done()
					owner := fmt.Sprint("w", w)
					for {
						cs, err := s.Claim(ctx, ClaimRequest{Owner: owner, Now: t0, Lease: time.Hour, Limit: 7, KeyID: "k1"})
						if err != nil {
							t.Error(err)
							return
						}
						if len(cs) == 0 {
							return
						}
						mu.Lock()
						for _, c := range cs {
							if prev, dup := seen[c.ID]; dup {
								t.Errorf("%s claimed by %s and %s", c.ID, prev, owner)
							}
							seen[c.ID] = owner
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			if len(seen) != n {
				t.Fatalf("%d of %d claimed", len(seen), n)
			}
		})
	}
}
