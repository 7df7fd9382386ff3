package serve_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"

	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/servetest"
	"github.com/openshelf/openshelf/serve/x402"
)

// pageHost is a public-looking name that the test's DNS server resolves
// to loopback: the tool's pre-payment URL check sees a public host, and
// the guarded client may dial loopback only because the test enables the
// documented test option (fetch.Config.AllowLoopback, the serve flag
// -unsafe-allow-loopback-targets).
const pageHost = "replay-page.example.com"

// loopbackDNS answers every A query for pageHost with 127.0.0.1.
func loopbackDNS(t *testing.T) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	srv := &dns.Server{PacketConn: pc, NotifyStartedFunc: func() { close(started) }, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(r)
		if len(r.Question) == 1 && strings.EqualFold(r.Question[0].Name, pageHost+".") && r.Question[0].Qtype == dns.TypeA {
			m.Answer = append(m.Answer, &dns.A{Hdr: dns.RR_Header{Name: r.Question[0].Name, Rrtype: dns.TypeA, Class: dns.ClassINET},
				A: net.IPv4(127, 0, 0, 1)})
		}
		w.WriteMsg(m)
	})}
	go srv.ActivateAndServe()
	<-started
	t.Cleanup(func() { srv.Shutdown() })
	addr := pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

// Re-sending one payment to a paid live tool returns the stored answer:
// 10 re-sends, 1 upstream fetch, 1 settlement, byte-identical bodies.
func TestPaidToolReplayFetchesOnce(t *testing.T) {
	var fetches atomic.Int32
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		n := fetches.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		// A page that differs on every fetch: a re-run would show.
		io.WriteString(w, `<!doctype html><html><head><title>Replay</title></head><body><article><h1>Replay</h1>`+
			`<p>This article is long enough to be the main content of the page, and it says which fetch served it: `+
			strings.Repeat("word ", 40)+`fetch number `+string(rune('0'+n))+`.</p></article></body></html>`)
	}))
	defer page.Close()
	resolver := loopbackDNS(t)
	env := servetest.New(t, func(c *serve.Config) { c.Fetch.Resolver = resolver })
	srv := httptest.NewServer(env.App.HTTP)
	defer srv.Close()

	_, port, _ := net.SplitHostPort(strings.TrimPrefix(page.URL, "http://"))
	in := map[string]any{"url": "http://" + pageHost + ":" + port + "/article"}
	payment := env.Pay(t, http.MethodPost, "/v1/extract", in)

	send := func() (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/extract", strings.NewReader(`{"url":"`+in["url"].(string)+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(x402.HeaderPaymentSignature, payment)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	first, body := send()
	if first.StatusCode != 200 || !bytes.Contains(body, []byte("fetch number 1")) {
		t.Fatalf("paid call: %d %s", first.StatusCode, body)
	}
	for i := range 10 {
		res, b := send()
		if res.StatusCode != 200 || !bytes.Equal(b, body) {
			t.Fatalf("re-send %d: %d, body differs:\n%s\nvs\n%s", i, res.StatusCode, b, body)
		}
		if res.Header.Get(x402.HeaderPaymentResponse) != first.Header.Get(x402.HeaderPaymentResponse) {
			t.Fatalf("re-send %d: another receipt", i)
		}
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d upstream fetches for one payment, want 1", n)
	}
	if settled, _, _ := env.App.Payments.Core.Config().Ledger.CountSettlements(context.Background()); settled != 1 {
		t.Errorf("%d settlements, want 1", settled)
	}
	// /metrics (on the operator listener) counts the ledger's states and
	// the replays.
	rec := httptest.NewRecorder()
	env.App.HTTP.Metrics().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	m := rec.Body.Bytes()
	for _, want := range []string{`openshelf_payment_records{state="served"} 1`, `openshelf_payment_records{state="settling"} 0`,
		`openshelf_payments_total{outcome="replayed"} 10`} {
		if !bytes.Contains(m, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
