package x402

import (
	"context"
	"sync/atomic"
	"testing"
)

// BenchmarkPay measures paid requests end to end with the Local facilitator
// and a file ledger: local verification, claim, facilitator verify (a second
// signature recovery), handler, facilitator settle (a third) and the ledger
// writes. Payments are signed before the timer starts; requests run in
// parallel as a server's would. It reports ops/s.
func BenchmarkPay(b *testing.B) {
	e := newEnv(b, func(c *Config) { c.Metrics = nil })
	payments := make([]*PaymentPayload, b.N)
	for i := range payments {
		payments[i] = e.payment()
	}
	body := []byte(`{"id":"pmc-1","title":"A paper"}`)
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p := payments[next.Add(1)-1]
			_, _, err := Pay(context.Background(), e.core, e.req, p, func(context.Context, Payment) ([]byte, error) { return body, nil }, nil)
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkRecover isolates one signature recovery (without the cache),
// the CPU-bound part of verification.
func BenchmarkRecover(b *testing.B) {
	e := newEnv(b)
	p := e.payment()
	a, err := parseAuthorization(p.Payload.Authorization)
	if err != nil {
		b.Fatal(err)
	}
	sep, err := e.core.Domain().Separator()
	if err != nil {
		b.Fatal(err)
	}
	dig := digest(sep, a)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := recoverSignerSlow(dig, p.Payload.Signature); err != nil {
			b.Fatal(err)
		}
	}
}
