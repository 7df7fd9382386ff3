package x402

import (
	"context"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPay measures paid requests end to end with the Local facilitator
// and a file ledger: local verification (the one signature recovery),
// claim, facilitator verify (the used-nonce lookup; the Local facilitator
// takes our verification), handler, facilitator settle and the ledger
// writes. Payments are signed before the timer starts; requests run in
// parallel as a server's would. It reports ops/s, the CPU per payment
// (cpu-µs/op: the machine is shared, CPU is steadier than rates) and how
// many ledger operations shared a transaction (ops/batch).
func BenchmarkPay(b *testing.B) {
	e := newEnv(b, func(c *Config) { c.Metrics = nil })
	payments := make([]*PaymentPayload, b.N)
	for i := range payments {
		payments[i] = e.payment()
	}
	body := []byte(`{"id":"pmc-1","title":"A paper"}`)
	var next atomic.Int64
	batches0, ops0 := e.ledger.Batches()
	b.ReportAllocs()
	// 16 requests in flight per CPU: on 2 CPUs the 32 of the HTTP benchmark.
	b.SetParallelism(16)
	b.ResetTimer()
	cpu := cpuTime()
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
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	batches, ops := e.ledger.Batches()
	b.ReportMetric(float64(ops-ops0)/float64(max(batches-batches0, 1)), "ops/batch")
}

// cpuTime is the CPU time (user + system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
