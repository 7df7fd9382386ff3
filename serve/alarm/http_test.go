package alarm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/alarm"
	"github.com/openshelf/openshelf/serve/x402"
)

const payTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// newApp builds the whole server on the fixture snapshot, with the alarm
// store in a private file.
func newApp(t *testing.T) (*serve.App, string) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "alarms.db")
	a, err := serve.NewApp(context.Background(), serve.Config{DataDir: testsnap.Fixtures(t), BaseURL: "https://api.openshelf.test",
		PayTo: payTo, AlarmDB: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, db
}

func call(t *testing.T, h http.Handler, method, target, body string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

type apiError struct {
	Error struct{ Code, Message, Field string } `json:"error"`
}

func TestHTTPInvalidInput(t *testing.T) {
	a, _ := newApp(t)
	now := time.Now()
	iso := func(d time.Duration) string { return strconv.Quote(now.Add(d).UTC().Format(time.RFC3339)) }
	unix := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	ok := `"callback_url":"https://hooks.example.com/x"`
	tests := []struct {
		name, body, field string
	}{
		{"no url", `{"delay_seconds":120}`, "callback_url"},
		{"empty url", `{"callback_url":"","delay_seconds":120}`, "callback_url"},
		{"http url", `{"callback_url":"http://hooks.example.com/x","delay_seconds":120}`, "callback_url"},
		{"ftp url", `{"callback_url":"ftp://hooks.example.com/x","delay_seconds":120}`, "callback_url"},
		{"loopback", `{"callback_url":"https://127.0.0.1/x","delay_seconds":120}`, "callback_url"},
		{"decimal loopback", `{"callback_url":"https://2130706433/x","delay_seconds":120}`, "callback_url"},
		{"private", `{"callback_url":"https://10.1.2.3/x","delay_seconds":120}`, "callback_url"},
		{"metadata", `{"callback_url":"https://169.254.169.254/latest","delay_seconds":120}`, "callback_url"},
		{"localhost", `{"callback_url":"https://localhost/x","delay_seconds":120}`, "callback_url"},
		{"internal name", `{"callback_url":"https://metadata.google.internal/x","delay_seconds":120}`, "callback_url"},
		{"userinfo", `{"callback_url":"https://u:p@hooks.example.com/x","delay_seconds":120}`, "callback_url"},
		{"not a url", `{"callback_url":"hooks example","delay_seconds":120}`, "callback_url"},
		{"url too long", `{"callback_url":"https://hooks.example.com/` + strings.Repeat("a", 2030) + `","delay_seconds":120}`, "callback_url"},
		{"url not a string", `{"callback_url":42,"delay_seconds":120}`, "callback_url"},
		{"neither time", `{` + ok + `}`, "delay_seconds"},
		{"both times", `{` + ok + `,"delay_seconds":120,"deliver_at":` + iso(time.Hour) + `}`, "deliver_at"},
		{"delay too short", `{` + ok + `,"delay_seconds":59}`, "delay_seconds"},
		{"delay too long", `{` + ok + `,"delay_seconds":2592001}`, "delay_seconds"},
		{"delay fractional", `{` + ok + `,"delay_seconds":90.5}`, "delay_seconds"},
		{"delay string", `{` + ok + `,"delay_seconds":"120"}`, "delay_seconds"},
		{"at without zone", `{` + ok + `,"deliver_at":"` + now.Add(time.Hour).UTC().Format("2006-01-02T15:04:05") + `"}`, "deliver_at"},
		{"at not a date", `{` + ok + `,"deliver_at":"tomorrow"}`, "deliver_at"},
		{"at too soon", `{` + ok + `,"deliver_at":` + iso(30*time.Second) + `}`, "deliver_at"},
		{"at in the past", `{` + ok + `,"deliver_at":` + iso(-time.Hour) + `}`, "deliver_at"},
		{"at too far", `{` + ok + `,"deliver_at":` + iso(31*24*time.Hour) + `}`, "deliver_at"},
		{"unix too soon", `{` + ok + `,"deliver_at":` + unix(10*time.Second) + `}`, "deliver_at"},
		{"unix string too far", `{` + ok + `,"deliver_at":"` + unix(40*24*time.Hour) + `"}`, "deliver_at"},
		{"unix negative", `{` + ok + `,"deliver_at":-5}`, "deliver_at"},
		{"unix exponent", `{` + ok + `,"deliver_at":1.8e9}`, "deliver_at"},
		{"at boolean", `{` + ok + `,"deliver_at":true}`, "deliver_at"},
		{"at object", `{` + ok + `,"deliver_at":{"t":1}}`, "deliver_at"},
		{"payload array", `{` + ok + `,"delay_seconds":120,"payload":[1,2]}`, "payload"},
		{"payload string", `{` + ok + `,"delay_seconds":120,"payload":"hi"}`, "payload"},
		{"payload too big", `{` + ok + `,"delay_seconds":120,"payload":{"x":"` + strings.Repeat("y", 8190) + `"}}`, "payload"},
		{"retries too many", `{` + ok + `,"delay_seconds":120,"retry_count":6}`, "retry_count"},
		{"retries negative", `{` + ok + `,"delay_seconds":120,"retry_count":-1}`, "retry_count"},
		{"retries string", `{` + ok + `,"delay_seconds":120,"retry_count":"3"}`, "retry_count"},
		{"unknown field", `{` + ok + `,"delay_seconds":120,"secret":"x"}`, "secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := call(t, a.HTTP, http.MethodPost, "/v1/alarm", tt.body, nil)
			var e apiError
			json.Unmarshal(body, &e)
			want := "invalid_input"
			if tt.name == "unknown field" {
				want = "unknown_parameter"
			}
			if res.StatusCode != 400 || e.Error.Code != want || e.Error.Field != tt.field {
				t.Fatalf("%d %s, want 400 %s on %s", res.StatusCode, body, want, tt.field)
			}
			if res.Header.Get(x402.HeaderPaymentRequired) != "" {
				t.Error("a 400 asks for payment")
			}
		})
	}
	// The payload limit is on the serialized object: 8192 bytes pass.
	pad := strings.Repeat("y", 8192-len(`{"x":""}`))
	res, body := call(t, a.HTTP, http.MethodPost, "/v1/alarm", `{`+ok+`,"delay_seconds":120,"payload":{"x":"`+pad+`"}}`, nil)
	if res.StatusCode != 402 {
		t.Fatalf("8192-byte payload: %d %s", res.StatusCode, body)
	}
	for _, target := range []string{"/v1/alarm/nope", "/v1/alarm/alm_UPPERCASEUPPERCASEUPPERCA"} {
		if res, body := call(t, a.HTTP, http.MethodGet, target, "", nil); res.StatusCode != 400 {
			t.Errorf("GET %s: %d %s", target, res.StatusCode, body)
		}
	}
}

// pay answers a 402 the way an x402 client does.
func pay(t *testing.T, res *http.Response) string {
	t.Helper()
	req, err := x402.DecodeRequiredHeader(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil {
		t.Fatalf("402 without requirements: %v", err)
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	p, err := x402.NewPayment(key, *req, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return x402.EncodeHeader(p)
}

// headerSender delivers to a handler in memory (the callback URL is a
// public name this test cannot reach).
type headerSender struct{ h http.Handler }

func (s headerSender) Send(ctx context.Context, url string, body []byte, header http.Header) (int, error) {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(string(body)))
	req.Header = header.Clone()
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec.Code, nil
}

func TestHTTPLifecycle(t *testing.T) {
	a, db := newApp(t)
	h := a.HTTP
	deliverAt := time.Now().Add(10 * time.Minute).UTC().Truncate(time.Second)
	body := `{"callback_url":"https://Hooks.Example.com/alarm?x=1","deliver_at":"` + deliverAt.Format(time.RFC3339) +
		`","payload":{"order":12345678901234567890,"note":"<ok>"},"retry_count":2}`

	// No payment: 402 with requirements, nothing stored.
	res, raw := call(t, h, http.MethodPost, "/v1/alarm", body, nil)
	if res.StatusCode != 402 || res.Header.Get(x402.HeaderPaymentRequired) == "" {
		t.Fatalf("unpaid: %d %s", res.StatusCode, raw)
	}
	if c, _ := a.Alarms.Store().Counts(context.Background()); len(c) != 0 {
		t.Fatalf("an unpaid request stored an alarm: %v", c)
	}
	sig := pay(t, res)
	res, raw = call(t, h, http.MethodPost, "/v1/alarm", body, map[string]string{x402.HeaderPaymentSignature: sig})
	if res.StatusCode != 201 || res.Header.Get(x402.HeaderPaymentResponse) == "" || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("paid: %d %v %s", res.StatusCode, res.Header, raw)
	}
	var acc alarm.Accepted
	if err := json.Unmarshal(raw, &acc); err != nil {
		t.Fatal(err)
	}
	if !alarm.ValidID(acc.ID) || acc.Status != "scheduled" || !acc.DeliverAt.Equal(deliverAt) || acc.RetryCount != 2 ||
		!strings.HasPrefix(acc.SigningSecret, "whsec_") || acc.CallbackURL != "https://hooks.example.com/alarm?x=1" ||
		fmt.Sprint(acc.RetryDelays) != "[60 300]" || acc.Signature.Header != alarm.HeaderSignature {
		t.Fatalf("accepted: %s", raw)
	}

	// The same payment again is a replay: the alarm it bought, without the
	// secret, and no second alarm.
	res, raw = call(t, h, http.MethodPost, "/v1/alarm", body, map[string]string{x402.HeaderPaymentSignature: sig})
	if res.StatusCode != 200 || !strings.Contains(string(raw), acc.ID) || strings.Contains(string(raw), acc.SigningSecret) {
		t.Fatalf("replay: %d %s", res.StatusCode, raw)
	}
	if c, _ := a.Alarms.Store().Counts(context.Background()); c["scheduled"] != 1 {
		t.Fatalf("replay stored another alarm: %v", c)
	}

	// GET: scheduled, no secret, the payload as it will be sent.
	res, raw = call(t, h, http.MethodGet, "/v1/alarm/"+acc.ID, "", nil)
	if res.StatusCode != 200 || strings.Contains(string(raw), acc.SigningSecret) || strings.Contains(string(raw), "secret") {
		t.Fatalf("get: %d %s", res.StatusCode, raw)
	}
	var v alarm.View
	json.Unmarshal(raw, &v)
	if v.Status != "scheduled" || len(v.History) != 0 || v.NextAttemptAt == nil || !v.NextAttemptAt.Equal(deliverAt) ||
		!strings.Contains(string(v.Payload), "12345678901234567890") {
		t.Fatalf("view: %s", raw)
	}

	// Another instance on the same database, whose clock is past the due
	// time, delivers it to a receiver that checks the signature.
	sl, err := alarm.LoadKey(alarm.KeyPath(testsnap.Fixtures(t)))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	var shift atomic.Int64
	shift.Store(int64(11 * time.Minute))
	clock := func() time.Time { return time.Now().Add(time.Duration(shift.Load())) }
	rcv := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		err := alarm.Verify(acc.SigningSecret, r.Header.Get(alarm.HeaderSignature), b, clock(), 0)
		mu.Lock()
		got = append(got, fmt.Sprintf("%s %s %s %v", r.Header.Get(alarm.HeaderAlarmID), r.Header.Get(alarm.HeaderAttempt), b, err))
		mu.Unlock()
		w.WriteHeader(map[bool]int{true: 500, false: 200}[r.Header.Get(alarm.HeaderAttempt) == "1"])
	})
	st, err := alarm.OpenSQLite(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other, err := alarm.Open(context.Background(), alarm.Config{Store: st, Sealer: sl, Sender: headerSender{rcv},
		Now: clock, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	other.Start()
	defer other.Close()
	waitStatus := func(want string, attempts int) alarm.View {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			_, raw := call(t, h, http.MethodGet, "/v1/alarm/"+acc.ID, "", nil)
			var v alarm.View
			json.Unmarshal(raw, &v)
			if string(v.Status) == want && len(v.History) == attempts {
				return v
			}
			if time.Now().After(deadline) {
				t.Fatalf("status %s, want %s after %d attempts: %s", v.Status, want, attempts, raw)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	v = waitStatus("delivering", 1) // attempt 1 answered 500
	if len(v.History) != 1 || v.History[0].StatusCode != 500 || v.NextAttemptAt == nil {
		t.Fatalf("after attempt 1: %+v", v)
	}
	shift.Add(int64(2 * time.Minute)) // past the first retry's wait
	v = waitStatus("delivered", 2)
	if len(v.History) != 2 || v.History[1].StatusCode != 200 || v.NextAttemptAt != nil {
		t.Fatalf("after attempt 2: %+v", v)
	}
	mu.Lock()
	wantBody := `{"note":"\u003cok\u003e","order":12345678901234567890}`
	if len(got) != 2 || got[0] != acc.ID+" 1 "+wantBody+" <nil>" || got[1] != acc.ID+" 2 "+wantBody+" <nil>" {
		t.Errorf("receiver saw %q", got)
	}
	mu.Unlock()

	// Cancel: delivered → 409; a new scheduled one → cancelled; unknown → 404.
	res, raw = call(t, h, http.MethodPost, "/v1/alarm/"+acc.ID+"/cancel", "", nil)
	var e apiError
	json.Unmarshal(raw, &e)
	if res.StatusCode != 409 || e.Error.Code != "not_cancellable" || !strings.Contains(e.Error.Message, "delivered") {
		t.Fatalf("cancel delivered: %d %s", res.StatusCode, raw)
	}
	body2 := `{"callback_url":"https://hooks.example.com/b","delay_seconds":3600,"payload":{}}`
	res, _ = call(t, h, http.MethodPost, "/v1/alarm", body2, nil)
	res, raw = call(t, h, http.MethodPost, "/v1/alarm", body2, map[string]string{x402.HeaderPaymentSignature: pay(t, res)})
	var acc2 alarm.Accepted
	json.Unmarshal(raw, &acc2)
	if res.StatusCode != 201 || acc2.RetryCount != 3 || time.Until(acc2.DeliverAt) < 59*time.Minute {
		t.Fatalf("second alarm: %d %s", res.StatusCode, raw)
	}
	res, raw = call(t, h, http.MethodPost, "/v1/alarm/"+acc2.ID+"/cancel", "", nil)
	json.Unmarshal(raw, &v)
	if res.StatusCode != 200 || v.Status != "cancelled" || strings.Contains(string(raw), acc2.SigningSecret) {
		t.Fatalf("cancel: %d %s", res.StatusCode, raw)
	}
	res, raw = call(t, h, http.MethodPost, "/v1/alarm/"+alarm.NewID()+"/cancel", "", nil)
	json.Unmarshal(raw, &e)
	if res.StatusCode != 404 || e.Error.Code != "alarm_not_found" {
		t.Fatalf("cancel unknown: %d %s", res.StatusCode, raw)
	}
	res, raw = call(t, h, http.MethodGet, "/v1/alarm/"+alarm.NewID(), "", nil)
	if res.StatusCode != 404 {
		t.Fatalf("get unknown: %d %s", res.StatusCode, raw)
	}
}

// TestHTTPStoreFailureNotCharged: when the alarm cannot be stored the
// handler fails and the payment is not settled.
func TestHTTPStoreFailureNotCharged(t *testing.T) {
	a, _ := newApp(t)
	body := `{"callback_url":"https://hooks.example.com/x","delay_seconds":600}`
	res, _ := call(t, a.HTTP, http.MethodPost, "/v1/alarm", body, nil)
	sig := pay(t, res)
	a.Alarms.Store().Close() // the database is gone
	res, raw := call(t, a.HTTP, http.MethodPost, "/v1/alarm", body, map[string]string{x402.HeaderPaymentSignature: sig})
	var e apiError
	json.Unmarshal(raw, &e)
	if res.StatusCode != 503 || e.Error.Code != "alarm_store_unavailable" || res.Header.Get(x402.HeaderPaymentResponse) != "" {
		t.Fatalf("%d %v %s", res.StatusCode, res.Header, raw)
	}
}

// TestEndpointsDeclared: the three routes are in the registry with their
// prices, and none is an MCP tool.
func TestEndpointsDeclared(t *testing.T) {
	a, _ := newApp(t)
	want := map[string]string{"alarm_create": "POST /v1/alarm 0.001", "alarm_get": "GET /v1/alarm/:id ", "alarm_cancel": "POST /v1/alarm/:id/cancel "}
	for name, w := range want {
		e := a.Registry.Lookup(name)
		if e == nil {
			t.Fatalf("%s not registered", name)
		}
		if got := e.Method + " " + e.Path + " " + e.Price; got != w || e.Tool != nil || e.Group != "alarms" || e.Summary == "" {
			t.Errorf("%s: %q tool=%v group=%s", name, got, e.Tool, e.Group)
		}
	}
	res, raw := call(t, a.HTTP, http.MethodGet, "/openapi.json", "", nil)
	if res.StatusCode != 200 || !strings.Contains(string(raw), `"/v1/alarm/{id}/cancel"`) {
		t.Errorf("openapi lacks the alarm routes")
	}
}
