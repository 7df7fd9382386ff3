package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/internal/pgtest"
	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/x402"
	"github.com/openshelf/openshelf/snapshot"
)

// Benchmarks of the paid path over real HTTP on loopback (see
// BENCHMARKS.md for the commands and results):
//
//	go test -run '^$' -bench 'BenchmarkPaidDocument/(sqlite|postgres)/paid' -benchtime 20000x ./serve
//	go test -run '^$' -bench BenchmarkBundleStream -benchtime 5x ./serve
//
// Environment:
//
//	OPENSHELF_BENCH_CONCURRENCY  requests in flight (default 32 for documents, 2 for bundles)
//	OPENSHELF_BENCH_BUNDLE_DOCS  documents in the bundle corpus (default 200000)
//	OPENSHELF_BENCH_DIR          cache of the bundle corpus (default $TMPDIR/openshelf-bench-pay)
//	OPENSHELF_NGINX              nginx binary (default: nginx on PATH, else /usr/sbin/nginx)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// liveApp is an App served over HTTP on a loopback port that is also its
// base URL, as `openshelf serve --base-url` would be.
type liveApp struct {
	*App
	URL string
}

func startApp(tb testing.TB, dataDir string, mod func(*Config)) *liveApp {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	cfg := Config{DataDir: dataDir, BaseURL: base, PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}
	if mod != nil {
		mod(&cfg)
	}
	a, err := NewApp(context.Background(), cfg)
	if err != nil {
		ln.Close()
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: a.HTTP, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	go srv.Serve(ln)
	tb.Cleanup(func() {
		srv.Close()
		a.Close()
	})
	return &liveApp{App: a, URL: base}
}

// benchClient keeps conc connections to one host alive.
func benchClient(conc int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns: conc, MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc,
		DisableCompression: true, // Accept-Encoding is set explicitly
	}}
}

// drive runs n requests over conc workers; do performs request i.
func drive(tb testing.TB, n, conc int, do func(i int) error) {
	tb.Helper()
	var next atomic.Int64
	var failed atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := do(i); err != nil {
					failed.Add(1)
					first.CompareAndSwap(nil, err.Error())
				}
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		tb.Fatalf("%d of %d requests failed; first: %v", f, n, first.Load())
	}
}

// cpuTime is the CPU time this process has used (user + system): the
// machine is shared, so CPU per request is steadier than wall-clock rates.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportRate reports req/s and the CPU cost per request (server and client
// together) of n requests that took cpu.
func reportRate(b *testing.B, n int, cpu time.Duration) {
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "req/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-µs/req")
}

func get(c *http.Client, url string, hdr map[string]string, want int) (int64, *http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	n, err := io.Copy(io.Discard, res.Body)
	if err != nil {
		return n, res, err
	}
	if res.StatusCode != want {
		return n, res, fmt.Errorf("GET %s: %d, want %d", url, res.StatusCode, want)
	}
	return n, res, nil
}

// BenchmarkPaidDocument measures paid GET /api/document/{id} per second
// with the local facilitator: every request carries a fresh payment
// (signed before the timer starts) and settles once, over HTTP on
// loopback, the client in the same process. "unpaid" is the 402 path
// alone and "replay" re-sends a settled payment (served from the ledger,
// not charged), to show where the time goes.
// BenchmarkPaidDocument runs the paid document path with each ledger:
// the embedded SQLite default and PostgreSQL (the multi-instance ledger,
// on a local test cluster started by internal/pgtest).
func BenchmarkPaidDocument(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchPaidDocument(b, nil) })
	b.Run("postgres", func(b *testing.B) {
		dsn := pgtest.NewDatabase(b)
		benchPaidDocument(b, func(c *Config) { c.Ledger = dsn })
	})
}

func benchPaidDocument(b *testing.B, mod func(*Config)) {
	conc := envInt("OPENSHELF_BENCH_CONCURRENCY", 32)
	app := startApp(b, testsnap.Copy(b), mod)
	var ids []string
	_, page := getJSONAny(b, app.HTTP, "/api/catalog?limit=50")
	for _, it := range page["items"].([]any) {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	reqs := make([]x402.PaymentRequired, len(ids))
	for i, id := range ids {
		reqs[i] = requiredOf(b, app.HTTP, "/api/document/"+id)
	}
	key := testPayer(b)
	c := benchClient(conc)

	b.Run("paid", func(b *testing.B) {
		headers := make([]string, b.N)
		for i := range headers {
			p, err := x402.NewPayment(key, reqs[i%len(reqs)], time.Now())
			if err != nil {
				b.Fatal(err)
			}
			headers[i] = x402.EncodeHeader(p)
		}
		before := settledCount(b, app.App)
		ledger := app.Payments.Core.Config().Ledger
		batches0, ops0 := ledger.Batches()
		b.ResetTimer()
		cpu := cpuTime()
		drive(b, b.N, conc, func(i int) error {
			_, res, err := get(c, app.URL+"/api/document/"+ids[i%len(ids)], map[string]string{x402.HeaderPaymentSignature: headers[i]}, 200)
			if err == nil && res.Header.Get(x402.HeaderPaymentResponse) == "" {
				err = errors.New("200 without PAYMENT-RESPONSE")
			}
			return err
		})
		b.StopTimer()
		reportRate(b, b.N, cpuTime()-cpu)
		batches, ops := ledger.Batches()
		// How many ledger operations shared a transaction (group commit).
		b.ReportMetric(float64(ops-ops0)/float64(max(batches-batches0, 1)), "ops/batch")
		if got := settledCount(b, app.App) - before; got != b.N {
			b.Fatalf("%d settlements for %d paid requests", got, b.N)
		}
	})
	b.Run("unpaid", func(b *testing.B) {
		cpu := cpuTime()
		drive(b, b.N, conc, func(i int) error {
			_, _, err := get(c, app.URL+"/api/document/"+ids[i%len(ids)], nil, 402)
			return err
		})
		reportRate(b, b.N, cpuTime()-cpu)
	})
	b.Run("replay", func(b *testing.B) {
		headers := make([]string, len(ids))
		for i := range ids {
			p, err := x402.NewPayment(key, reqs[i], time.Now())
			if err != nil {
				b.Fatal(err)
			}
			headers[i] = x402.EncodeHeader(p)
			if _, _, err := get(c, app.URL+"/api/document/"+ids[i], map[string]string{x402.HeaderPaymentSignature: headers[i]}, 200); err != nil {
				b.Fatal(err)
			}
		}
		b.ResetTimer()
		cpu := cpuTime()
		drive(b, b.N, conc, func(i int) error {
			_, _, err := get(c, app.URL+"/api/document/"+ids[i%len(ids)], map[string]string{x402.HeaderPaymentSignature: headers[i%len(ids)]}, 200)
			return err
		})
		reportRate(b, b.N, cpuTime()-cpu)
	})
}

// BenchmarkPaidPath is BenchmarkPaidDocument/paid with a handler that
// costs nothing: the x402 path alone (decode, local verification, ledger
// claim, Local facilitator verify and settle, receipt) behind the real
// router and middleware, over HTTP on loopback, with a file ledger.
func BenchmarkPaidPath(b *testing.B) {
	conc := envInt("OPENSHELF_BENCH_CONCURRENCY", 32)
	reg := registry.New()
	reg.Add(registry.Spec[echoInput]{
		Name: "paid_echo", Method: http.MethodGet, Path: "/paid/:name", Group: registry.GroupArchive,
		Price: "0.001", Summary: "Paid echo.",
		Handle: func(_ context.Context, in *echoInput) (*registry.Result, error) {
			return &registry.Result{Value: map[string]any{"name": in.Name, "license": "CC0"}}, nil
		},
	}.Endpoint())
	ledger, err := x402.OpenLedger(x402.LedgerPath(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	defer ledger.Close()
	core, err := x402.New(x402.Config{PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		Facilitator: x402.NewLocal(ledger), Ledger: ledger})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	s := NewHTTP(HTTPConfig{BaseURL: base}, reg, &HTTPPayments{Core: core})
	srv := &http.Server{Handler: s}
	go srv.Serve(ln)
	defer srv.Close()

	names := []string{"alpha", "beta", "gamma", "delta"}
	reqs := make([]x402.PaymentRequired, len(names))
	for i, n := range names {
		reqs[i] = requiredOf(b, s, "/paid/"+n)
	}
	key := testPayer(b)
	headers := make([]string, b.N)
	for i := range headers {
		p, err := x402.NewPayment(key, reqs[i%len(reqs)], time.Now())
		if err != nil {
			b.Fatal(err)
		}
		headers[i] = x402.EncodeHeader(p)
	}
	c := benchClient(conc)
	b.ResetTimer()
	cpu := cpuTime()
	drive(b, b.N, conc, func(i int) error {
		_, res, err := get(c, base+"/paid/"+names[i%len(names)], map[string]string{x402.HeaderPaymentSignature: headers[i]}, 200)
		if err == nil && res.Header.Get(x402.HeaderPaymentResponse) == "" {
			err = errors.New("200 without PAYMENT-RESPONSE")
		}
		return err
	})
	b.StopTimer()
	reportRate(b, b.N, cpuTime()-cpu)
	if n, _, err := ledger.CountSettlements(context.Background()); err != nil || n != b.N {
		b.Fatalf("%d settlements (%v) for %d paid requests", n, err, b.N)
	}
}

// benchTopic is the one topic of the bundle corpus: every document is in it.
const benchTopic = "bench-bundle"

// bundleCorpus returns a data directory whose snapshot has one topic of
// OPENSHELF_BENCH_BUNDLE_DOCS documents, built once with internal/corpus
// and cached.
func bundleCorpus(b *testing.B) string {
	b.Helper()
	n := envInt("OPENSHELF_BENCH_BUNDLE_DOCS", 200_000)
	root := os.Getenv("OPENSHELF_BENCH_DIR")
	if root == "" {
		root = filepath.Join(os.TempDir(), "openshelf-bench-pay")
	}
	dir := filepath.Join(root, fmt.Sprintf("bundle-%d", n))
	stamp := filepath.Join(dir, "built")
	if want, err := os.ReadFile(stamp); err == nil {
		if cur, err := snapshot.Current(dir); err == nil && cur == string(want) {
			return dir
		}
	}
	os.RemoveAll(dir)
	fx, err := fixtures.Find()
	if err != nil {
		b.Skipf("no fixture corpus to take the vocabulary from: %v", err)
	}
	start := time.Now()
	v, err := corpus.ReadVocabulary(context.Background(), corpus.VocabularyConfig{}, fx)
	if err != nil {
		b.Fatal(err)
	}
	g, err := corpus.New(v, corpus.Config{Seed: 1, Topics: []string{benchTopic}})
	if err != nil {
		b.Fatal(err)
	}
	m, err := corpus.Build(context.Background(), corpus.BuildConfig{DataDir: dir, N: n, Generator: g,
		Topics: []index.Topic{{Slug: benchTopic, Name: "Benchmark bundle"}}})
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(stamp, []byte(m.ID), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("built a %d-document corpus in %s", n, time.Since(start).Round(time.Second))
	return dir
}

// nginx serves dir on a loopback port as a child process and returns its
// base URL and the master's process id.
func startNginx(b *testing.B, dir string) (string, int) {
	b.Helper()
	bin := os.Getenv("OPENSHELF_NGINX")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("nginx"); err != nil {
			bin = "/usr/sbin/nginx"
		}
	}
	if _, err := os.Stat(bin); err != nil {
		b.Skipf("nginx not installed (scripts/setup.sh installs it): %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	prefix := b.TempDir()
	user := ""
	if os.Getuid() == 0 {
		user = "user root;" // workers must read files that only root may
	}
	conf := fmt.Sprintf(`%s
worker_processes auto;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log warn;
events { worker_connections 256; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	types { application/x-ndjson ndjson; application/zstd zst; }
	default_type application/octet-stream;
	client_body_temp_path %[2]s/body;
	proxy_temp_path %[2]s/proxy;
	fastcgi_temp_path %[2]s/fastcgi;
	uwsgi_temp_path %[2]s/uwsgi;
	scgi_temp_path %[2]s/scgi;
	server {
		listen %[3]s;
		root %[4]s;
	}
}
`, user, prefix, addr, dir)
	cf := filepath.Join(prefix, "nginx.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", prefix, "-c", cf, "-g", "daemon off;")
	out, err := os.Create(filepath.Join(prefix, "stderr"))
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt) // fast shutdown
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		out.Close()
	})
	base := "http://" + addr
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(prefix, "stderr"))
			elog, _ := os.ReadFile(filepath.Join(prefix, "error.log"))
			b.Fatalf("nginx did not start: %s %s", log, elog)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return base, cmd.Process.Pid
}

// procCPU is the CPU time (user + system) of process pid and its children
// (nginx's workers), from /proc; 0 where /proc is unreadable.
func procCPU(pid int) time.Duration {
	ticks := func(stat string) (ppid, cpu int64) {
		// Fields after the parenthesised command name: state ppid ... utime(14) stime(15).
		i := strings.LastIndexByte(stat, ')')
		if i < 0 {
			return -1, 0
		}
		f := strings.Fields(stat[i+1:])
		if len(f) < 13 {
			return -1, 0
		}
		ppid, _ = strconv.ParseInt(f[1], 10, 64)
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		return ppid, u + s
	}
	entries, _ := os.ReadDir("/proc")
	var total int64
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if ppid, t := ticks(string(b)); n == pid || ppid == int64(pid) {
			total += t
		}
	}
	const hz = 100 // USER_HZ on Linux
	return time.Duration(total) * time.Second / hz
}

// BenchmarkBundleStream measures topic bundle downloads in MB/s (bytes on
// the wire): openshelf sending the stored zstd bytes and decompressing on
// the fly, each beside nginx serving the same bytes as a static file.
// Every openshelf download is paid with a fresh payment.
func BenchmarkBundleStream(b *testing.B) {
	conc := envInt("OPENSHELF_BENCH_CONCURRENCY", 2)
	dir := bundleCorpus(b)
	snap, err := snapshot.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	stored, err := snap.BundlePath(benchTopic)
	if err != nil {
		b.Fatal(err)
	}
	// nginx's document root: the stored bundle and its decompressed form.
	www := b.TempDir()
	if err := os.Symlink(stored, filepath.Join(www, "bundle.ndjson.zst")); err != nil {
		b.Fatal(err)
	}
	plainSize := decompressTo(b, stored, filepath.Join(www, "bundle.ndjson"))
	st, err := os.Stat(stored)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("bundle: %d documents, %.1f MB zstd, %.1f MB NDJSON", envInt("OPENSHELF_BENCH_BUNDLE_DOCS", 200_000),
		float64(st.Size())/1e6, float64(plainSize)/1e6)

	app := startApp(b, dir, nil)
	ngx, ngxPID := startNginx(b, www)
	c := benchClient(conc)
	target := "/api/topic/" + benchTopic + "/content"
	req := requiredOf(b, app.HTTP, target)
	key := testPayer(b)

	// run downloads url b.N times. cpu-ns/B is the CPU per byte of the
	// client and the server together (for nginx: its processes plus the
	// client here), a steadier comparison than MB/s on a shared machine.
	run := func(b *testing.B, url string, size int64, hdr func(i int) map[string]string, server func() time.Duration) {
		hdrs := make([]map[string]string, b.N)
		for i := range hdrs {
			hdrs[i] = hdr(i)
		}
		b.SetBytes(size)
		b.ResetTimer()
		cpu, scpu := cpuTime(), server()
		drive(b, b.N, conc, func(i int) error {
			n, _, err := get(c, url, hdrs[i], 200)
			if err == nil && n != size {
				err = fmt.Errorf("got %d bytes, want %d", n, size)
			}
			return err
		})
		b.StopTimer()
		used := cpuTime() - cpu + server() - scpu
		b.ReportMetric(float64(used.Nanoseconds())/float64(size)/float64(b.N), "cpu-ns/B")
	}
	inProcess := func() time.Duration { return 0 }
	nginxCPU := func() time.Duration { return procCPU(ngxPID) }
	pay := func(enc string) func(i int) map[string]string {
		return func(int) map[string]string {
			p, err := x402.NewPayment(key, req, time.Now())
			if err != nil {
				b.Fatal(err)
			}
			return map[string]string{x402.HeaderPaymentSignature: x402.EncodeHeader(p), "Accept-Encoding": enc}
		}
	}
	static := func(int) map[string]string { return nil }
	b.Run("zstd/openshelf", func(b *testing.B) { run(b, app.URL+target, st.Size(), pay("zstd"), inProcess) })
	b.Run("zstd/nginx", func(b *testing.B) { run(b, ngx+"/bundle.ndjson.zst", st.Size(), static, nginxCPU) })
	b.Run("ndjson/openshelf", func(b *testing.B) { run(b, app.URL+target, plainSize, pay("identity"), inProcess) })
	b.Run("ndjson/nginx", func(b *testing.B) { run(b, ngx+"/bundle.ndjson", plainSize, static, nginxCPU) })
}

// decompressTo writes the decompressed bundle src to dst and returns its
// size.
func decompressTo(b *testing.B, src, dst string) int64 {
	b.Helper()
	in, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	d, err := zstd.NewReader(in)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	n, err := io.Copy(out, d)
	if err == nil {
		err = out.Close()
	}
	if err != nil {
		b.Fatal(err)
	}
	return n
}
