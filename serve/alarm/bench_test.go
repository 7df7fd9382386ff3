package alarm

import (
	"bufio"
	"context"
	"encoding/pem"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkDrain10k: 10,000 alarms due at once in the SQLite store,
// delivered through the guarded client over TLS to a loopback receiver
// that verifies every signature. Reports the drain rate and the peak heap
// during the drain (runtime/metrics, sampled every 5 ms) and the process's
// peak RSS (VmHWM, setup included).
//
//	go test -run '^$' -bench BenchmarkDrain10k -benchtime 1x ./serve/alarm
func BenchmarkDrain10k(b *testing.B) {
	n := benchN()
	ctx := context.Background()
	rcv := newReceiver()
	var delivered atomic.Int64
	done := make(chan struct{}, 1)
	rcv.hook = func(string, int) {
		if delivered.Add(1) == int64(n) {
			done <- struct{}{}
		}
	}
	// HTTP/2, as a receiver behind any modern proxy speaks: deliveries
	// share connections instead of measuring TLS handshakes.
	srv := httptest.NewUnstartedServer(rcv)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	var peakHeap uint64
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		st := openSQLite(b, filepath.Join(dir, "alarms.db"))
		svc := newService(b, st, testKey(b, dir), Config{Fetch: loopbackClient(certPEM), MinDelay: -1})
		due := time.Now()
		for j := range n {
			acc, err := svc.Schedule(ctx, Request{CallbackURL: srv.URL + "/hook", DeliverAt: due, Payload: fmt.Appendf(nil, `{"n":%d}`, j)})
			if err != nil {
				b.Fatal(err)
			}
			rcv.secret(acc.ID, acc.SigningSecret)
		}
		delivered.Store(0)
		stop := make(chan struct{})
		sampled := make(chan uint64)
		go sampleHeap(stop, sampled)
		start := time.Now()
		b.StartTimer()
		svc.Start()
		<-done
		// Drained when the last result is recorded, not only sent.
		for {
			c, err := st.Counts(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if c[StatusDelivered] == n {
				break
			}
			time.Sleep(time.Millisecond)
		}
		b.StopTimer()
		elapsed += time.Since(start)
		close(stop)
		peakHeap = max(peakHeap, <-sampled)
		svc.Close()
		st.Close()
		if got := len(rcv.deliveries(b)); got != n*(i+1) {
			b.Fatalf("%d deliveries verified, want %d", got, n*(i+1))
		}
	}
	b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "alarms/s")
	b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MiB")
	if rss := peakRSS(); rss > 0 {
		b.ReportMetric(float64(rss)/(1<<20), "peak-rss-MiB")
	}
}

func sampleHeap(stop <-chan struct{}, out chan<- uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		metrics.Read(s)
		peak = max(peak, s[0].Value.Uint64())
		select {
		case <-stop:
			out <- peak
			return
		case <-t.C:
		}
	}
}

// peakRSS is VmHWM from /proc/self/status, in bytes; 0 when unknown.
func peakRSS() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func benchN() int {
	if v, err := strconv.Atoi(os.Getenv("ALARM_BENCH_N")); err == nil && v > 0 {
		return v
	}
	return 10000
}
