package browser

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The benchmarks measure throughput with two calls in flight (one per
// core of the reference machine) and the peak memory of the browser
// processes, sampled every 50 ms as the summed RSS of every process
// descended from the test binary (Chromium's browser, renderer, GPU and
// utility processes; shared pages are counted in each, so it is an upper
// bound). Run:
//
//	go test ./serve/tools/browser/ -run '^$' -bench . -benchtime 60x -count 1

// rssSampler tracks the peak summed RSS of this process's descendants.
type rssSampler struct {
	peak atomic.Int64
	stop chan struct{}
	done sync.WaitGroup
}

func startRSS() *rssSampler {
	s := &rssSampler{stop: make(chan struct{})}
	s.done.Go(func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if v := descendantsRSS(os.Getpid()); v > s.peak.Load() {
				s.peak.Store(v)
			}
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	})
	return s
}

func (s *rssSampler) end() float64 {
	close(s.stop)
	s.done.Wait()
	return float64(s.peak.Load()) / (1 << 20)
}

// descendantsRSS sums VmRSS (bytes) of every descendant of root.
func descendantsRSS(root int) int64 {
	entries, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	rss := map[int]int64{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(line, ":")
			f := strings.Fields(v)
			if len(f) == 0 {
				continue
			}
			switch k {
			case "PPid":
				parent[pid], _ = strconv.Atoi(f[0])
			case "VmRSS":
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				rss[pid] = kb << 10
			}
		}
	}
	var sum int64
	for pid, r := range rss {
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == root {
				sum += r
				break
			}
		}
	}
	return sum
}

// runPar runs n calls of f with two in flight and reports calls/min and
// the browser's peak memory.
func runPar(b *testing.B, f func(i int) error) {
	var next atomic.Int64
	var errs atomic.Int64
	rss := startRSS()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				if err := f(i); err != nil {
					errs.Add(1)
					b.Log(err)
				}
			}
		})
	}
	wg.Wait()
	el := time.Since(start)
	b.StopTimer()
	peak := rss.end()
	if errs.Load() > 0 {
		b.Fatalf("%d calls failed", errs.Load())
	}
	b.ReportMetric(float64(b.N)/el.Minutes(), "calls/min")
	b.ReportMetric(peak, "peak-MB")
}

func benchSite(b *testing.B) string {
	srv := httptest.NewServer(html(refPage))
	b.Cleanup(srv.Close)
	return srv.URL + "/"
}

func BenchmarkScreenshotTool(b *testing.B) {
	tools := newTestTools(b.TempDir(), Config{Concurrency: 2})
	defer tools.Close()
	u := benchSite(b)
	in := ScreenshotInput{URL: u, Width: 800, Height: 600, WaitUntil: "load"}
	if _, err := tools.Screenshot(context.Background(), in); err != nil { // start the browser outside the timing
		b.Fatal(err)
	}
	runPar(b, func(int) error { _, err := tools.Screenshot(context.Background(), in); return err })
}

func BenchmarkBareChromiumScreenshot(b *testing.B) {
	u := benchSite(b)
	dir := b.TempDir()
	runPar(b, func(i int) error {
		return bareScreenshot(context.Background(), filepath.Join(dir, strconv.Itoa(i)+".png"), u, 800, 600)
	})
}

func BenchmarkRenderPDF(b *testing.B) {
	tools := newTestTools(b.TempDir(), Config{Concurrency: 2})
	defer tools.Close()
	in := RenderInput{Markdown: sampleMarkdown, Format: "pdf"}
	if _, err := tools.Render(context.Background(), in); err != nil {
		b.Fatal(err)
	}
	runPar(b, func(int) error { _, err := tools.Render(context.Background(), in); return err })
}

func BenchmarkRenderDOCX(b *testing.B) {
	tools := newTestTools(b.TempDir(), Config{Concurrency: 2})
	defer tools.Close()
	in := RenderInput{Markdown: sampleMarkdown, Format: "docx"}
	runPar(b, func(int) error { _, err := tools.Render(context.Background(), in); return err })
}
