package alarm

import (
	"context"
	"encoding/pem"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestPostgresTwoInstances: two server instances with their own pools on
// one PostgreSQL database deliver 1,000 alarms due within the same second
// exactly once each, every signature verified, and both take part.
func TestPostgresTwoInstances(t *testing.T) {
	ctx := context.Background()
	dsn := postgresDSN(t)
	dir := t.TempDir()
	sl := testKey(t, dir) // the instances share the key file

	rcv := newReceiver()
	srv := httptest.NewTLSServer(rcv)
	defer srv.Close()
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})

	var svcs []*Service
	for _, name := range []string{"instance-a", "instance-b"} {
		st, err := OpenPostgres(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		svc := newService(t, st, sl, Config{Fetch: loopbackClient(certPEM), Instance: name, MinDelay: -1,
			Workers: 8, BatchSize: 16, PollInterval: 100 * time.Millisecond})
		svc.Start()
		svcs = append(svcs, svc)
	}

	const n = 1000
	due := time.Now().Add(3 * time.Second).Truncate(time.Second)
	ids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				// Alternate instances, spread over one second.
				acc, err := svcs[i%2].Schedule(ctx, Request{CallbackURL: fmt.Sprintf("%s/hook/%d", srv.URL, i),
					DeliverAt: due.Add(time.Duration(i) * time.Millisecond), Payload: fmt.Appendf(nil, `{"i":%d}`, i)})
				if err != nil {
					errs <- err
					return
				}
				rcv.secret(acc.ID, acc.SigningSecret)
				ids[i] = acc.ID
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("scheduled %d alarms; due in %v", n, time.Until(due))
	if time.Now().After(due) {
		t.Logf("scheduling took past the due time (slow machine); the test still holds")
	}

	st := svcs[0].Store()
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := st.Counts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c[StatusDelivered] == n || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("drained %v after the due time", time.Since(due))
	// Let anything that would deliver twice do so before counting.
	time.Sleep(300 * time.Millisecond)
	for _, s := range svcs {
		s.Close()
	}

	per := map[string]int{}
	for _, d := range rcv.deliveries(t) {
		per[d.ID]++
	}
	byInstance := map[string]int{}
	for i, id := range ids {
		if per[id] != 1 {
			t.Errorf("alarm %d (%s) delivered %d times", i, id, per[id])
		}
		_, atts, err := st.Get(ctx, id)
		if err != nil || len(atts) != 1 || atts[0].StatusCode != 200 {
			t.Fatalf("%s: %+v %v", id, atts, err)
		}
		byInstance[atts[0].Instance]++
	}
	if len(per) != n {
		t.Errorf("%d distinct alarms delivered, want %d", len(per), n)
	}
	t.Logf("deliveries per instance: %v", byInstance)
	if len(byInstance) != 2 {
		t.Errorf("one instance did all the work: %v", byInstance)
	}
}
