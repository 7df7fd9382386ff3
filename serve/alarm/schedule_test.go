package alarm

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

const hookURL = "https://hooks.example.com/alarm"

// TestRetrySchedule runs the whole retry schedule on the fake clock: every
// retry_count from 0 to 5 against a receiver that always fails, plus
// recoveries after failures and a timeout.
func TestRetrySchedule(t *testing.T) {
	type answer = func(attempt int) int
	always500 := func(int) int { return 500 }
	tests := []struct {
		name       string
		retries    int
		answer     answer
		wantStatus Status
		wantCodes  []int // per attempt; 0 means an error (timeout)
	}{
		{"retry_count=0", 0, always500, StatusFailed, []int{500}},
		{"retry_count=1", 1, always500, StatusFailed, []int{500, 500}},
		{"retry_count=2", 2, always500, StatusFailed, []int{500, 500, 500}},
		{"retry_count=3", 3, always500, StatusFailed, []int{500, 500, 500, 500}},
		{"retry_count=4", 4, always500, StatusFailed, []int{500, 500, 500, 500, 500}},
		{"retry_count=5", 5, always500, StatusFailed, []int{500, 500, 500, 500, 500, 500}},
		{"recovers on the third attempt", 5, func(a int) int {
			return map[bool]int{true: 503, false: 204}[a < 3]
		}, StatusDelivered, []int{503, 503, 204}},
		{"redirect is a failure", 1, func(a int) int {
			return map[bool]int{true: 302, false: 200}[a == 1]
		}, StatusDelivered, []int{302, 200}},
		{"timeout, then success", 2, func(a int) int {
			return map[bool]int{true: -1, false: 200}[a == 1]
		}, StatusDelivered, []int{0, 200}},
		{"first attempt succeeds", 3, func(int) int { return 200 }, StatusDelivered, []int{200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				dir := t.TempDir()
				rcv := newReceiver()
				rcv.respond = func(_ string, a int) int { return tt.answer(a) }
				st := openSQLite(t, filepath.Join(dir, "alarms.db"))
				defer st.Close()
				// A long poll interval: the scheduler must sleep until due
				// times on its own, not find them by polling.
				svc := newService(t, st, testKey(t, dir), Config{Sender: memSender{rcv}, PollInterval: 24 * time.Hour})
				svc.Start()
				defer svc.Close()

				acc, err := svc.Schedule(ctx, Request{CallbackURL: hookURL, DeliverAt: time.Now().Add(90 * time.Second),
					Payload: []byte(`{"job":42}`), RetryCount: tt.retries})
				if err != nil {
					t.Fatal(err)
				}
				rcv.secret(acc.ID, acc.SigningSecret)

				// The whole schedule is 111 minutes; give it three hours.
				time.Sleep(3 * time.Hour)
				synctest.Wait()

				got := rcv.deliveries(t)
				if len(got) != len(tt.wantCodes) {
					t.Fatalf("%d deliveries, want %d: %+v", len(got), len(tt.wantCodes), got)
				}
				// Attempt 1 at the due time; attempt n+1 the n-th wait of
				// the specified schedule after attempt n ended (the fake
				// clock makes sends take no time, except the timeout,
				// which takes SendTimeout).
				spec := []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute, 60 * time.Minute}
				want := acc.DeliverAt
				for i, d := range got {
					if d.ID != acc.ID || d.Attempt != i+1 || d.Body != `{"job":42}` {
						t.Errorf("delivery %d: %+v", i, d)
					}
					if !d.At.Equal(want) {
						t.Errorf("attempt %d at %v, want %v", i+1, d.At.Sub(acc.DeliverAt), want.Sub(acc.DeliverAt))
					}
					took := time.Duration(0)
					if tt.wantCodes[i] == 0 {
						took = svc.cfg.SendTimeout
					}
					if i < len(spec) {
						want = want.Add(took + spec[i])
					}
				}

				v, err := svc.Get(ctx, acc.ID)
				if err != nil {
					t.Fatal(err)
				}
				if v.Status != tt.wantStatus || v.NextAttemptAt != nil || v.Attempts != len(tt.wantCodes) || len(v.History) != len(tt.wantCodes) {
					t.Fatalf("view: %+v", v)
				}
				for i, h := range v.History {
					if h.Attempt != i+1 || h.StatusCode != tt.wantCodes[i] || !h.At.Equal(got[i].At) {
						t.Errorf("history %d: %+v", i, h)
					}
					if tt.wantCodes[i] == 0 && (!strings.Contains(h.Error, "timed out") || h.DurationMS != svc.cfg.SendTimeout.Milliseconds()) {
						t.Errorf("timeout entry: %+v", h)
					}
					if tt.wantCodes[i] != 0 && h.Error != "" {
						t.Errorf("answered attempt has an error: %+v", h)
					}
				}
			})
		})
	}
}

// TestRetryWaiting checks the state between attempts: delivering, with the
// next attempt's time shown, and not cancellable.
func TestRetryWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		dir := t.TempDir()
		rcv := newReceiver()
		rcv.respond = func(string, int) int { return 500 }
		st := openSQLite(t, filepath.Join(dir, "alarms.db"))
		defer st.Close()
		svc := newService(t, st, testKey(t, dir), Config{Sender: memSender{rcv}})
		svc.Start()
		defer svc.Close()
		acc, err := svc.Schedule(ctx, Request{CallbackURL: hookURL, DeliverAt: time.Now().Add(time.Minute), RetryCount: 2})
		if err != nil {
			t.Fatal(err)
		}
		rcv.secret(acc.ID, acc.SigningSecret)
		time.Sleep(61 * time.Second)
		synctest.Wait()
		v, err := svc.Get(ctx, acc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v.Status != StatusDelivering || v.NextAttemptAt == nil || !v.NextAttemptAt.Equal(acc.DeliverAt.Add(time.Minute)) || len(v.History) != 1 {
			t.Fatalf("after one failure: %+v", v)
		}
		if _, err := svc.Cancel(ctx, acc.ID); !errors.Is(err, ErrNotCancellable) {
			t.Fatalf("cancel while delivering: %v", err)
		}
		if string(v.Payload) != "{}" {
			t.Errorf("default payload %s", v.Payload)
		}
	})
}

// TestCancel: a cancelled alarm is never delivered; cancelling twice is
// fine; unknown ids are not found.
func TestCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		dir := t.TempDir()
		rcv := newReceiver()
		st := openSQLite(t, filepath.Join(dir, "alarms.db"))
		defer st.Close()
		svc := newService(t, st, testKey(t, dir), Config{Sender: memSender{rcv}})
		svc.Start()
		defer svc.Close()
		acc, err := svc.Schedule(ctx, Request{CallbackURL: hookURL, DeliverAt: time.Now().Add(2 * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		rcv.secret(acc.ID, acc.SigningSecret)
		for range 2 {
			v, err := svc.Cancel(ctx, acc.ID)
			if err != nil || v.Status != StatusCancelled || v.NextAttemptAt != nil {
				t.Fatalf("cancel: %+v %v", v, err)
			}
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if n := rcv.count(); n != 0 {
			t.Fatalf("cancelled alarm delivered %d times", n)
		}
		if _, err := svc.Cancel(ctx, NewID()); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown id: %v", err)
		}
		if _, err := svc.Get(ctx, "alm_nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("malformed id: %v", err)
		}
	})
}

// TestRestartBeforeDue: the server stops between scheduling and the due
// time and a new one starts on the same database: delivered exactly once.
func TestRestartBeforeDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		dir := t.TempDir()
		path := filepath.Join(dir, "alarms.db")
		rcv := newReceiver()

		st1 := openSQLite(t, path)
		svc1 := newService(t, st1, testKey(t, dir), Config{Sender: memSender{rcv}, Instance: "first"})
		svc1.Start()
		var ids []string
		for i := range 5 {
			acc, err := svc1.Schedule(ctx, Request{CallbackURL: hookURL, DeliverAt: time.Now().Add(time.Duration(10+i) * time.Minute),
				Payload: fmt.Appendf(nil, `{"n":%d}`, i)})
			if err != nil {
				t.Fatal(err)
			}
			rcv.secret(acc.ID, acc.SigningSecret)
			ids = append(ids, acc.ID)
		}
		time.Sleep(5 * time.Minute)
		if err := svc1.Close(); err != nil {
			t.Fatal(err)
		}
		st1.Close()

		time.Sleep(time.Minute) // down for a while
		st2 := openSQLite(t, path)
		defer st2.Close()
		svc2 := newService(t, st2, testKey(t, dir), Config{Sender: memSender{rcv}, Instance: "second"})
		svc2.Start()
		time.Sleep(2 * time.Hour)
		synctest.Wait()

		per := map[string]int{}
		for _, d := range rcv.deliveries(t) {
			per[d.ID]++
		}
		for _, id := range ids {
			if per[id] != 1 {
				t.Errorf("%s delivered %d times", id, per[id])
			}
			v, err := svc2.Get(ctx, id)
			if err != nil || v.Status != StatusDelivered || len(v.History) != 1 {
				t.Errorf("%s: %+v %v", id, v, err)
			}
		}
		if len(per) != len(ids) {
			t.Errorf("deliveries for %d ids, want %d", len(per), len(ids))
		}
	})
}

// TestAbandonedClaim: an instance dies during a delivery (its store is
// closed under it, so nothing it does afterwards is recorded). Another
// instance takes the alarm over when the lease expires and delivers it
// again with the same alarm id; the history shows the lost attempt.
func TestAbandonedClaim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		dir := t.TempDir()
		path := filepath.Join(dir, "alarms.db")
		rcv := newReceiver()
		entered := make(chan struct{})
		rcv.respond = func(_ string, attempt int) int {
			if attempt == 1 {
				close(entered)
				return -1 // hang: the instance dies meanwhile
			}
			return 200
		}
		stA := openSQLite(t, path)
		svcA := newService(t, stA, testKey(t, dir), Config{Sender: memSender{rcv}, Instance: "doomed"})
		svcA.Start()
		acc, err := svcA.Schedule(ctx, Request{CallbackURL: hookURL, DeliverAt: time.Now().Add(time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		rcv.secret(acc.ID, acc.SigningSecret)
		<-entered
		claimedAt := time.Now()
		stA.Close() // the instance is gone: its result will not be recorded
		// The other instance runs meanwhile, on its own connection.
		stB := openSQLite(t, path)
		defer stB.Close()
		svcB := newService(t, stB, testKey(t, dir), Config{Sender: memSender{rcv}, Instance: "survivor"})
		svcB.Start()
		svcA.Close() // its stuck send times out; recording fails

		time.Sleep(time.Hour)
		synctest.Wait()
		got := rcv.deliveries(t)
		if len(got) != 2 || got[0].ID != acc.ID || got[1].ID != acc.ID || got[0].Attempt != 1 || got[1].Attempt != 2 {
			t.Fatalf("deliveries: %+v", got)
		}
		if lease := got[1].At.Sub(claimedAt); lease != svcB.cfg.Lease {
			t.Errorf("taken over after %v, want the lease %v", lease, svcB.cfg.Lease)
		}
		r, atts, err := stB.Get(ctx, acc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != StatusDelivered || len(atts) != 2 || atts[0].Error != abandonedError || atts[0].Instance != "doomed" ||
			atts[1].StatusCode != 200 || atts[1].Instance != "survivor" || r.Failures != 0 {
			t.Fatalf("record %+v attempts %+v", r, atts)
		}
	})
}

// TestAbandonCap: an alarm whose attempts are abandoned again and again
// fails after maxAbandoned instead of looping forever.
func TestAbandonCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		dir := t.TempDir()
		st := openSQLite(t, filepath.Join(dir, "alarms.db"))
		defer st.Close()
		sl := testKey(t, dir)
		rcv := newReceiver()
		svc := newService(t, st, sl, Config{Sender: memSender{rcv}, MinDelay: -1})
		acc, err := svc.Schedule(ctx, Request{CallbackURL: hookURL, DeliverAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		rcv.secret(acc.ID, acc.SigningSecret)
		// Claims that are never finished: instances dying mid-delivery.
		for i := range maxAbandoned + 1 {
			cs, err := st.Claim(ctx, ClaimRequest{Owner: fmt.Sprint("dying-", i), Now: time.Now(), Lease: time.Minute, Limit: 1, KeyID: sl.KeyID()})
			if err != nil || len(cs) != 1 {
				t.Fatalf("claim %d: %v %v", i, cs, err)
			}
			time.Sleep(time.Minute)
		}
		svc.Start()
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := rcv.count(); n != 0 {
			t.Errorf("delivered %d times", n)
		}
		v, err := svc.Get(ctx, acc.ID)
		if err != nil || v.Status != StatusFailed || len(v.History) != maxAbandoned+2 ||
			!strings.HasPrefix(v.History[maxAbandoned+1].Error, "given up") {
			t.Fatalf("%+v %v", v, err)
		}
	})
}

// TestWakeEarly: a sleeping scheduler (next alarm far away, long poll)
// delivers a newly scheduled sooner alarm on time.
func TestWakeEarly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		dir := t.TempDir()
		st := openSQLite(t, filepath.Join(dir, "alarms.db"))
		defer st.Close()
		rcv := newReceiver()
		svc := newService(t, st, testKey(t, dir), Config{Sender: memSender{rcv}, PollInterval: 24 * time.Hour})
		svc.Start()
		defer svc.Close()
		far, err := svc.Schedule(ctx, Request{CallbackURL: hookURL, DeliverAt: time.Now().Add(10 * 24 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		rcv.secret(far.ID, far.SigningSecret)
		time.Sleep(time.Hour)
		synctest.Wait() // the scheduler sleeps until the far alarm
		soon, err := svc.Schedule(ctx, Request{CallbackURL: hookURL, DeliverAt: time.Now().Add(2 * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		rcv.secret(soon.ID, soon.SigningSecret)
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		got := rcv.deliveries(t)
		if len(got) != 1 || got[0].ID != soon.ID || !got[0].At.Equal(soon.DeliverAt) {
			t.Fatalf("deliveries %+v, want %s at %v", got, soon.ID, soon.DeliverAt)
		}
	})
}

// TestBoundedWorkers: with 100 alarms due at once and hanging receivers,
// at most Workers deliveries are in flight.
func TestBoundedWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		dir := t.TempDir()
		st := openSQLite(t, filepath.Join(dir, "alarms.db"))
		defer st.Close()
		rcv := newReceiver()
		var inFlight, peak int
		release := make(chan struct{})
		rcv.respond = func(string, int) int {
			rcv.mu.Lock()
			inFlight++
			peak = max(peak, inFlight)
			rcv.mu.Unlock()
			<-release
			rcv.mu.Lock()
			inFlight--
			rcv.mu.Unlock()
			return 200
		}
		svc := newService(t, st, testKey(t, dir), Config{Sender: memSender{rcv}, Workers: 4, BatchSize: 3, MinDelay: -1})
		for range 100 {
			acc, err := svc.Schedule(ctx, Request{CallbackURL: hookURL, DeliverAt: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			rcv.secret(acc.ID, acc.SigningSecret)
		}
		svc.Start()
		defer svc.Close()
		synctest.Wait()
		rcv.mu.Lock()
		if inFlight != 4 {
			t.Errorf("%d deliveries in flight, want 4", inFlight)
		}
		rcv.mu.Unlock()
		close(release)
		synctest.Wait()
		if got := len(rcv.deliveries(t)); got != 100 || peak != 4 {
			t.Fatalf("%d delivered, peak concurrency %d", got, peak)
		}
		c, _ := st.Counts(ctx)
		if c[StatusDelivered] != 100 {
			t.Errorf("counts %v", c)
		}
	})
}
