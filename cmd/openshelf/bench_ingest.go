package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/pipelines/run"
)

func init() {
	registerBenchMode(benchMode{name: "ingest", summary: "measure `openshelf ingest` on a generated JATS corpus", run: runBenchIngest})
}

// Targets of the ingest benchmark (issue 2): JATS end to end on the 2-core
// reference machine, and peak memory whatever the corpus size.
const (
	ingestTargetMBps    = 60
	ingestTargetPeakRSS = 1 << 30
)

const benchIngestSynopsis = `openshelf bench ingest [flags]

Generates a JATS corpus of -docs articles from the CC-BY and CC0 fixture
articles (unique ids, perturbed titles; see internal/corpus), then runs
'openshelf ingest -fresh' on it -runs times as a child process, each time
into an empty data directory, and reports documents/s, MB/s of input, the
child's peak resident memory (getrusage maxrss) and CPU time, the load
average, and the best run as a Markdown row for BENCHMARKS.md. The corpus
is kept in -dir for the next invocation only with -keep.`

// benchIngestConfig is the configuration of `openshelf bench ingest`.
type benchIngestConfig struct {
	Docs     int
	Dir      string
	Layout   string
	PerFile  int
	Seed     uint64
	Runs     int
	Workers  int
	Fixtures string
	Keep     bool
	Rebuild  bool
	// exe is the openshelf command the runs execute, with any leading
	// arguments (tests run themselves as a helper process).
	exe []string
}

func parseBenchIngest(e *env, args []string) (*benchIngestConfig, error) {
	c := &benchIngestConfig{}
	fs := flag.NewFlagSet("bench ingest", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.IntVar(&c.Docs, "docs", 50_000, "articles in the corpus")
	fs.StringVar(&c.Dir, "dir", filepath.Join(os.TempDir(), "openshelf-bench-ingest"), "work `directory`: the corpus (DIR/corpus-...) and, during the runs, their data directories (DIR/data-*)")
	fs.StringVar(&c.Layout, "layout", string(corpus.LayoutFiles), "corpus layout: files (one article per file), tar.gz (PMC-style packages) or oai (OAI-PMH ListRecords responses)")
	fs.IntVar(&c.PerFile, "per-file", 1000, "articles per package or OAI-PMH response")
	fs.Uint64Var(&c.Seed, "seed", 1, "corpus seed (ids and title words)")
	fs.IntVar(&c.Runs, "runs", 3, "ingest runs; the best is reported")
	fs.IntVar(&c.Workers, "workers", 0, "-workers of the ingest (0: one per CPU)")
	fs.StringVar(&c.Fixtures, "fixtures", "", "fixture corpus holding jats/ (default: ../shared/fixtures or $OPENSHELF_FIXTURES)")
	fs.BoolVar(&c.Keep, "keep", false, "keep the corpus in -dir for the next invocation (it is removed otherwise)")
	fs.BoolVar(&c.Rebuild, "rebuild", false, "regenerate the corpus even when one is kept in -dir")
	fs.Usage = flagUsage(fs, e.stderr, benchIngestSynopsis)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if err := applyEnv(fs, e.getenv); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	case c.Docs < 1 || c.Docs > corpus.MaxDocuments+1:
		return nil, fmt.Errorf("-docs %d: want 1 to %d", c.Docs, corpus.MaxDocuments+1)
	case c.Runs < 1:
		return nil, fmt.Errorf("-runs %d: want at least 1", c.Runs)
	case c.PerFile < 1:
		return nil, fmt.Errorf("-per-file %d: want at least 1", c.PerFile)
	case c.Workers < 0:
		return nil, errors.New("-workers cannot be negative")
	case c.Dir == "":
		return nil, errors.New("-dir is empty")
	case !slices.Contains(corpus.JATSLayouts, corpus.JATSLayout(c.Layout)):
		return nil, fmt.Errorf("-layout %q: want one of %v", c.Layout, corpus.JATSLayouts)
	}
	return c, nil
}

func runBenchIngest(ctx context.Context, e *env, args []string) int {
	return runBenchIngestWith(ctx, e, args, nil)
}

// runBenchIngestWith is runBenchIngest running exe instead of this
// executable.
func runBenchIngestWith(ctx context.Context, e *env, args, exe []string) int {
	c, err := parseBenchIngest(e, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "openshelf bench ingest: %v\n", err)
		return exitUsage
	}
	c.exe = exe
	if c.exe == nil {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(e.stderr, "openshelf bench ingest:", err)
			return exitFailure
		}
		c.exe = []string{exe}
	}
	if c.Fixtures == "" {
		if c.Fixtures, err = fixtures.Find(); err != nil {
			fmt.Fprintln(e.stderr, "openshelf bench ingest: no fixture corpus found; give -fixtures:", err)
			return exitUsage
		}
	}
	if err := benchIngest(ctx, e, c); err != nil {
		fmt.Fprintln(e.stderr, "openshelf bench ingest:", err)
		if errors.Is(err, corpus.ErrConfig) {
			return exitUsage
		}
		return exitFailure
	}
	return exitOK
}

// ingestRun is the measurement of one ingest.
type ingestRun struct {
	Wall       time.Duration
	CPU        time.Duration // user + system of the child
	PeakRSS    int64         // bytes (getrusage maxrss)
	Docs       int64
	Bytes      int64
	LoadBefore string
	LoadAfter  string
	Phases     []phase
	Summary    run.Summary
}

type phase struct {
	Name string
	D    time.Duration
}

func (r *ingestRun) docsPerSec() float64 { return float64(r.Docs) / r.Wall.Seconds() }
func (r *ingestRun) mbPerSec() float64   { return float64(r.Bytes) / 1e6 / r.Wall.Seconds() }

func benchIngest(ctx context.Context, e *env, c *benchIngestConfig) error {
	dir := filepath.Join(c.Dir, fmt.Sprintf("corpus-%s-%d-s%d", c.Layout, c.Docs, c.Seed))
	if c.Layout != string(corpus.LayoutFiles) {
		dir += fmt.Sprintf("-p%d", c.PerFile)
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	// Only what this command creates is ever removed: the corpus
	// directory (it holds a corpus, or WriteJATS refuses it), and a data
	// directory of its own.
	cor, err := corpus.ReadJATSCorpus(dir)
	if err != nil || !cor.Complete || c.Rebuild || cor.Docs != c.Docs {
		fmt.Fprintf(e.stderr, "generating %d JATS articles (%s) in %s\n", c.Docs, c.Layout, dir)
		start := time.Now()
		ts, err := corpus.LoadJATSTemplates(ctx, c.Fixtures)
		if err != nil {
			return err
		}
		cor, err = corpus.WriteJATS(ctx, corpus.JATSConfig{Dir: dir, N: c.Docs, Seed: c.Seed,
			Layout: corpus.JATSLayout(c.Layout), PerFile: c.PerFile, Templates: ts})
		if err != nil {
			if _, rerr := corpus.ReadJATSCorpus(dir); rerr == nil {
				os.RemoveAll(dir) // a half-written corpus
			}
			return err
		}
		fmt.Fprintf(e.stderr, "generated %d files, %.1f MB from %d fixture articles in %s\n",
			cor.Files, float64(cor.Bytes)/1e6, len(cor.Templates), time.Since(start).Round(time.Millisecond))
	}
	if !c.Keep {
		defer os.RemoveAll(dir)
	}
	fmt.Fprintf(e.stdout, "corpus: %d JATS articles (%s), %d files, %.1f MB, from %d CC-BY/CC0 fixture articles\n",
		cor.Docs, cor.Layout, cor.Files, float64(cor.Bytes)/1e6, len(cor.Templates))

	work, err := os.MkdirTemp(c.Dir, "data-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	var runs []*ingestRun
	for i := 0; i < c.Runs; i++ {
		// Every run starts from an empty data directory: the same work.
		data := filepath.Join(work, strconv.Itoa(i))
		r, err := ingestOnce(ctx, c, dir, data)
		os.RemoveAll(data)
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		if r.Docs != int64(cor.Docs) || r.Summary.Accepted != int64(cor.Docs) || r.Summary.Problems != 0 || r.Summary.Skipped != 0 {
			return fmt.Errorf("run %d: read %d, accepted %d, %d problems, %d skipped of %d articles: the corpus or the pipeline is broken",
				i+1, r.Docs, r.Summary.Accepted, r.Summary.Problems, r.Summary.Skipped, cor.Docs)
		}
		runs = append(runs, r)
		fmt.Fprintf(e.stdout, "run %d/%d: %s\n", i+1, c.Runs, r)
	}
	best := slices.MinFunc(runs, func(a, b *ingestRun) int { return int(a.Wall - b.Wall) })
	peak := slices.MaxFunc(runs, func(a, b *ingestRun) int { return int(a.PeakRSS - b.PeakRSS) })
	fmt.Fprintf(e.stdout, "\nbest of %d: %.0f documents/s, %.1f MB/s; peak RSS (all runs) %s\n", len(runs),
		best.docsPerSec(), best.mbPerSec(), mib(peak.PeakRSS))
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	fmt.Fprintf(e.stdout, "targets: >= %d MB/s %s; peak < 1 GiB %s\n", ingestTargetMBps,
		verdict(best.mbPerSec() >= ingestTargetMBps), verdict(peak.PeakRSS < ingestTargetPeakRSS))
	fmt.Fprintf(e.stdout, "\nmachine: %s\n\n", machine())
	fmt.Fprintln(e.stdout, "| date | corpus | docs/s | MB/s | peak RSS | CPU (user+sys) | load avg before → after | runs (wall) |")
	fmt.Fprintln(e.stdout, "|---|---|---|---|---|---|---|---|")
	var walls []string
	for _, r := range runs {
		walls = append(walls, r.Wall.Round(100*time.Millisecond).String())
	}
	fmt.Fprintf(e.stdout, "| %s | %d docs, %.0f MB (%s) | %.0f | %.1f | %s | %.0f s | %s → %s | %s |\n",
		time.Now().UTC().Format("2006-01-02"), cor.Docs, float64(cor.Bytes)/1e6, cor.Layout,
		best.docsPerSec(), best.mbPerSec(), mib(peak.PeakRSS), best.CPU.Seconds(), best.LoadBefore, best.LoadAfter,
		strings.Join(walls, ", "))
	return nil
}

func (r *ingestRun) String() string {
	var ph []string
	for _, p := range r.Phases {
		ph = append(ph, fmt.Sprintf("%s %.1fs", p.Name, p.D.Seconds()))
	}
	return fmt.Sprintf("%.1fs, %.0f documents/s, %.1f MB/s, peak RSS %s, CPU %.1fs (%.0f MB per CPU-second), load %s → %s; %s",
		r.Wall.Seconds(), r.docsPerSec(), r.mbPerSec(), mib(r.PeakRSS), r.CPU.Seconds(),
		float64(r.Bytes)/1e6/r.CPU.Seconds(), r.LoadBefore, r.LoadAfter, strings.Join(ph, ", "))
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// ingestOnce runs `openshelf ingest` on dir into data and measures it.
func ingestOnce(ctx context.Context, c *benchIngestConfig, dir, data string) (*ingestRun, error) {
	args := []string{"ingest", "-data", data, "-fresh", "-keep", "1", "-json", "-progress", "never",
		"-log-level", "info", "-workers", strconv.Itoa(c.Workers), dir}
	cmd := exec.CommandContext(ctx, c.exe[0], append(c.exe[1:], args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r := &ingestRun{LoadBefore: loadAvg()}
	start := time.Now()
	err := cmd.Run()
	r.Wall = time.Since(start)
	r.LoadAfter = loadAvg()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, tail(stderr.Bytes(), 2000))
	}
	if err := json.Unmarshal(stdout.Bytes(), &r.Summary); err != nil {
		return nil, fmt.Errorf("ingest -json output: %v", err)
	}
	r.Docs, r.Bytes = r.Summary.Read, r.Summary.Bytes
	r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.PeakRSS = maxRSSBytes(ru.Maxrss)
	}
	r.Phases = ingestPhases(start, r.Wall, &stderr)
	return r, nil
}

// maxRSSBytes converts getrusage's ru_maxrss: KiB on Linux, bytes on
// Darwin.
func maxRSSBytes(v int64) int64 {
	if runtime.GOOS == "darwin" {
		return v
	}
	return v << 10
}

// ingestPhases splits a run's wall time at the log lines that end its
// phases: finding the files, reading them, publishing the snapshot.
func ingestPhases(start time.Time, wall time.Duration, log io.Reader) []phase {
	marks := []struct{ msg, name string }{
		{`msg="ingest: found"`, "start+walk"},
		{`msg="ingest: read"`, "read"},
		{`msg="index: snapshot published"`, "publish"},
	}
	var out []phase
	last := start
	sc := bufio.NewScanner(log)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, m := range marks {
			if !strings.Contains(line, m.msg) {
				continue
			}
			ts, ok := strings.CutPrefix(strings.Fields(line)[0], "time=")
			t, err := time.Parse(time.RFC3339Nano, ts)
			if !ok || err != nil {
				continue
			}
			out = append(out, phase{m.name, t.Sub(last)})
			last = t
		}
	}
	if len(out) > 0 {
		out = append(out, phase{"exit", start.Add(wall).Sub(last)})
	}
	return out
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// loadAvg returns the 1-minute load average, "?" where /proc is missing.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// machine describes the host for the report.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 2 && f[0] == "MemTotal:" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				mem = fmt.Sprintf(", %.0f GiB RAM", float64(kb)/(1<<20))
			}
		}
	}
	kernel := ""
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = ", Linux " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%d CPUs (%s)%s%s, %s", runtime.NumCPU(), model, mem, kernel, runtime.Version())
}
