package alarm

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve/fetch"
)

// crashChildEnv makes the test binary a delivering server instance over
// the store in the directory it names (see TestMain), to be SIGKILLed.
const crashChildEnv = "OPENSHELF_ALARM_CRASH_CHILD"

// Lease and send timeout of the processes in TestKilledDuringDelivery:
// short, so the takeover happens within a second or so.
const (
	crashLease   = 2 * time.Second
	crashTimeout = 1500 * time.Millisecond
)

func loopbackClient(certPEM []byte) *fetch.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	return fetch.New(fetch.Config{AllowLoopback: true, RootCAs: pool, Timeout: 10 * time.Second})
}

// crashChild runs in the child process: it delivers what is due until it
// is killed.
func crashChild(dir string) int {
	ctx := context.Background()
	certPEM, err := os.ReadFile(filepath.Join(dir, "cert.pem"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	sl, err := LoadKey(filepath.Join(dir, "alarms.key"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	st, err := OpenSQLite(ctx, filepath.Join(dir, "alarms.db"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	svc, err := Open(ctx, Config{Store: st, Sealer: sl, Fetch: loopbackClient(certPEM), Instance: "child",
		Lease: crashLease, SendTimeout: crashTimeout, PollInterval: 20 * time.Millisecond})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	svc.Start()
	time.Sleep(time.Minute) // killed long before
	fmt.Fprintln(os.Stderr, "crash child: never killed")
	return 3
}

// TestKilledDuringDelivery: a server process is SIGKILLed while its
// delivery is in flight. Another instance takes the alarm over when the
// lease expires and delivers it again, with the same alarm id header and
// a valid signature; nothing is lost and the history shows the lost attempt.
func TestKilledDuringDelivery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	ctx := context.Background()
	dir := t.TempDir()
	rcv := newReceiver()
	inFlight := make(chan struct{}, 1)
	rcv.respond = func(_ string, attempt int) int {
		if attempt == 1 {
			inFlight <- struct{}{}
			return -1 // hold the request until the child dies
		}
		return 200
	}
	srv := httptest.NewTLSServer(rcv)
	defer srv.Close()
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(filepath.Join(dir, "cert.pem"), certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	st := openSQLite(t, filepath.Join(dir, "alarms.db"))
	defer st.Close()
	svc := newService(t, st, testKey(t, dir), Config{Fetch: loopbackClient(certPEM), MinDelay: -1, Instance: "parent",
		Lease: crashLease, SendTimeout: crashTimeout, PollInterval: 20 * time.Millisecond})
	acc, err := svc.Schedule(ctx, Request{CallbackURL: srv.URL + "/hook", DeliverAt: time.Now(), Payload: []byte(`{"k":"v"}`)})
	if err != nil {
		t.Fatal(err)
	}
	rcv.secret(acc.ID, acc.SigningSecret)

	var out bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-inFlight:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the child never delivered:\n%s", out.String())
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()

	r, _, err := st.Get(ctx, acc.ID)
	if err != nil || r.Status != StatusDelivering || r.Attempt != 1 {
		t.Fatalf("after the kill: %+v %v", r, err)
	}
	svc.Start()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, _, err = st.Get(ctx, acc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status.Final() || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	got := rcv.deliveries(t)
	if len(got) != 2 || got[0].ID != acc.ID || got[1].ID != acc.ID || got[0].Attempt != 1 || got[1].Attempt != 2 ||
		got[1].Body != `{"k":"v"}` {
		t.Fatalf("deliveries: %+v", got)
	}
	_, atts, err := st.Get(ctx, acc.ID)
	if err != nil || r.Status != StatusDelivered || len(atts) != 2 || atts[0].Instance != "child" || atts[0].Error != abandonedError ||
		atts[1].Instance != "parent" || atts[1].StatusCode != 200 {
		t.Fatalf("record %+v, attempts %+v, %v", r, atts, err)
	}
}
