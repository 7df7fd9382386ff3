package alarm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openshelf/openshelf/internal/needs"
)

// TestStandardWebhooksInterop verifies the Standard Webhooks headers with
// the reference npm library (interop/node_modules/standardwebhooks,
// installed by scripts/setup.sh): a fresh secret and one issued before
// standard base64 verify; a changed body, id or timestamp does not.
func TestStandardWebhooksInterop(t *testing.T) {
	needs.Heavy(t, "Node and the npm clients")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed; run scripts/setup.sh")
	}
	dir, _ := filepath.Abs(filepath.Join("..", "..", "interop"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "standardwebhooks", "package.json")); err != nil {
		t.Fatal("standardwebhooks is not installed in interop/; run scripts/setup.sh (cd interop && npm ci)")
	}
	var raw [32]byte
	legacy := secretPrefix + base64.RawURLEncoding.EncodeToString(raw[:]) // the previous secret form
	body := []byte(`{"event":"wake","n":1}`)
	now := time.Now()
	type tc struct {
		name string
		ok   bool
		in   map[string]any
	}
	mk := func(name string, ok bool, secret string, mutate func(h http.Header, b *[]byte)) tc {
		h := http.Header{}
		setStandard(h, secret, NewID(), now, body)
		b := body
		if mutate != nil {
			mutate(h, &b)
		}
		hs := map[string]string{}
		for k, v := range h {
			hs[k] = v[0]
		}
		return tc{name, ok, map[string]any{"secret": secret, "headers": hs, "body": string(b)}}
	}
	fresh := NewSecret()
	cases := []tc{
		mk("fresh secret", true, fresh, nil),
		mk("legacy base64url secret", true, legacy, nil),
		mk("body changed", false, fresh, func(_ http.Header, b *[]byte) { *b = []byte(`{"event":"wake","n":2}`) }),
		mk("id changed (replay under another id)", false, fresh, func(h http.Header, _ *[]byte) { h.Set(HeaderWebhookID, NewID()) }),
		mk("timestamp changed", false, fresh, func(h http.Header, _ *[]byte) {
			h.Set(HeaderWebhookTimestamp, strconv.FormatInt(now.Unix()-1, 10))
		}),
		mk("other secret", false, fresh, func(h http.Header, _ *[]byte) {
			h.Set(HeaderWebhookSignature, SignStandard(NewSecret(), h.Get(HeaderWebhookID), now, body))
		}),
	}
	var ins []any
	for _, c := range cases {
		ins = append(ins, c.in)
	}
	b, _ := json.Marshal(ins)
	file := filepath.Join(t.TempDir(), "deliveries.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, "standardwebhooks-verify.mjs", file)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("standardwebhooks-verify.mjs: %v\n%s", err, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	i := 0
	for sc.Scan() {
		var r struct {
			OK    bool
			Error string
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || i >= len(cases) {
			t.Fatalf("output %q: %v", sc.Bytes(), err)
		}
		if r.OK != cases[i].ok {
			t.Errorf("%s: verified=%v (%s), want %v", cases[i].name, r.OK, r.Error, cases[i].ok)
		}
		i++
	}
	if i != len(cases) {
		t.Fatalf("%d results for %d cases", i, len(cases))
	}
}

// TestDeliveryStandardHeaders checks that a real delivery carries the
// Standard Webhooks headers beside X-Openshelf-Signature: the alarm id as
// webhook-id, the attempt's time, and the signature SignStandard makes
// (which TestStandardWebhooksInterop checks with the reference library).
func TestDeliveryStandardHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		dir := t.TempDir()
		rcv := newReceiver()
		st := openSQLite(t, filepath.Join(dir, "alarms.db"))
		defer st.Close()
		svc := newService(t, st, testKey(t, dir), Config{Sender: memSender{rcv}})
		svc.Start()
		defer svc.Close()
		payload := json.RawMessage(`{"hello":"world"}`)
		acc, err := svc.Schedule(ctx, Request{CallbackURL: hookURL, Payload: payload, DeliverAt: time.Now().Add(2 * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		rcv.secret(acc.ID, acc.SigningSecret)
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		got := rcv.deliveries(t)
		if len(got) != 1 {
			t.Fatalf("%d deliveries", len(got))
		}
		d := got[0]
		h := d.Header
		ts := h.Get(HeaderWebhookTimestamp)
		unix, _ := strconv.ParseInt(ts, 10, 64)
		sigT, _, _ := strings.Cut(strings.TrimPrefix(h.Get(HeaderSignature), "t="), ",")
		if h.Get(HeaderWebhookID) != acc.ID || ts != sigT {
			t.Errorf("webhook-id %q timestamp %q, X-Openshelf-Signature t=%s, alarm %s", h.Get(HeaderWebhookID), ts, sigT, acc.ID)
		}
		want := SignStandard(acc.SigningSecret, acc.ID, time.Unix(unix, 0), []byte(d.Body))
		if h.Get(HeaderWebhookSignature) != want {
			t.Errorf("webhook-signature %q, want %q", h.Get(HeaderWebhookSignature), want)
		}
		// The machine documents list the headers a delivery carries.
		for _, ch := range deliveryCallback.Headers {
			if h.Get(ch.Name) == "" {
				t.Errorf("the documented header %s was not sent", ch.Name)
			}
		}
	})
}
