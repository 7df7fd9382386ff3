package run

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/internal/fixtures"
)

// Environment of BenchmarkIngest50k.
const (
	// benchCorpusEnv names a directory to keep the generated corpus in
	// between runs (generation writes ~4.8 GB for 50 000 articles).
	benchCorpusEnv = "OPENSHELF_BENCH_CORPUS"
	// benchDocsEnv overrides the number of articles.
	benchDocsEnv = "OPENSHELF_BENCH_DOCS"
)

// BenchmarkIngest50k runs Run, the code behind `openshelf ingest`, on
// 50 000 JATS articles generated from the CC-BY and CC0 fixtures (see
// corpus.WriteJATS) and reports documents/s, MB/s of input and the peak
// resident memory of the process during the run (VmHWM, reset before it).
// `openshelf bench ingest` measures the same in a child process, the number
// BENCHMARKS.md quotes; this benchmark exists for -cpuprofile/-memprofile:
//
//	OPENSHELF_BENCH_CORPUS=/tmp/ingest-corpus go test -run '^$' \
//	    -bench Ingest50k -benchtime 1x -cpuprofile cpu.out ./pipelines/run
func BenchmarkIngest50k(b *testing.B) {
	n := 50_000
	if s := os.Getenv(benchDocsEnv); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			b.Fatalf("%s=%q: want a positive number", benchDocsEnv, s)
		}
		n = v
	}
	dir := os.Getenv(benchCorpusEnv)
	if dir == "" {
		dir = filepath.Join(b.TempDir(), "corpus")
	}
	c, err := corpus.ReadJATSCorpus(dir)
	if err != nil || c.Docs != n || c.Layout != corpus.LayoutFiles {
		ts, err := corpus.LoadJATSTemplates(context.Background(), fixtures.Dir(b))
		if err != nil {
			b.Fatal(err)
		}
		c, err = corpus.WriteJATS(context.Background(), corpus.JATSConfig{Dir: dir, N: n, Seed: 1, Templates: ts})
		if err != nil {
			b.Fatal(err)
		}
	}
	data := b.TempDir()
	for b.Loop() {
		resetPeakRSS(b)
		ph := &phaseTimer{start: time.Now()}
		sum, err := Run(context.Background(), Config{DataDir: data, Inputs: []Input{{Path: dir}}, Fresh: true, Keep: 1, Progress: ph})
		if err != nil {
			b.Fatal(err)
		}
		if sum.Read != int64(n) || sum.Accepted != int64(n) || sum.Problems != 0 {
			b.Fatalf("read %d, accepted %d, problems %d of %d articles", sum.Read, sum.Accepted, sum.Problems, n)
		}
		b.ReportMetric(sum.DocsPerSecond(), "docs/s")
		b.ReportMetric(sum.MBPerSecond(), "MB/s")
		b.ReportMetric(float64(peakRSS(b))/(1<<20), "peak-RSS-MiB")
		ph.phase("end")
		for _, p := range ph.phases {
			b.ReportMetric(p.d.Seconds(), p.name+"-s")
		}
	}
	b.ReportMetric(float64(c.Bytes)/1e6, "input-MB")
}

// phaseTimer times the phases of a run.
type phaseTimer struct {
	start  time.Time
	name   string
	phases []struct {
		name string
		d    time.Duration
	}
}

func (p *phaseTimer) phase(name string) {
	now := time.Now()
	if p.name == "" {
		p.name = "setup"
	}
	p.phases = append(p.phases, struct {
		name string
		d    time.Duration
	}{p.name, now.Sub(p.start)})
	p.name, p.start = name, now
}

func (p *phaseTimer) Phase(name string, files int, bytes int64) { p.phase(name) }
func (p *phaseTimer) File(string, int64)                        {}

// resetPeakRSS resets the kernel's VmHWM of this process (Linux >= 4.0),
// so that peakRSS measures the run, not the corpus generation before it.
func resetPeakRSS(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Logf("cannot reset the peak RSS (%v); it includes what ran before", err)
	}
}

// peakRSS returns VmHWM in bytes, or 0 where /proc is missing.
func peakRSS(b *testing.B) int64 {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(st))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				b.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	return 0
}
