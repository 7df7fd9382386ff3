package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/openshelf/openshelf/ingest/remote/nightly"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/pipelines"
	"github.com/openshelf/openshelf/pipelines/run"
)

func init() {
	register(command{
		name:    "ingest",
		summary: "read source files (or a pipeline) into a new archive snapshot",
		run:     runIngest,
	})
}

// ingestConfig is the ingest command's configuration, filled from flags
// with OPENSHELF_* environment fallbacks.
type ingestConfig struct {
	Data     string
	Pipeline string
	Workers  int
	Keep     int
	Fresh    bool
	Merge    bool
	Licences string
	Now      string
	JSON     bool
	LogLevel string
	Progress string
	Paths    []string
	// Metrics is the nightly run's Prometheus textfile (remote sources).
	Metrics string
	// Retries is how often a failed download is retried (remote sources).
	Retries int
	// CPUProfile is a file for a CPU profile of the whole run (pprof).
	CPUProfile string

	levelSet bool // -log-level or OPENSHELF_LOG_LEVEL was given
}

const ingestSynopsis = `openshelf ingest [flags] PATH...
       openshelf ingest [flags] -pipeline pipelines/NAME.toml

Reads every file under the PATHs (directories recursively; each file's
format is detected from its content), merges the records of the same work,
keeps the openly licensed ones and publishes a new snapshot in the data
directory (DATA/current). Files that are not data and records that cannot
be read are listed in the summary; they do not fail the run.

A pipeline with remote sources (pipelines/nightly.toml) is the nightly job:
it fetches each source's delta into a verified mirror under DATA/state/,
publishes one snapshot and exits 1 when a source fails (docs/nightly.md).`

func parseIngest(e *env, args []string) (*ingestConfig, error) {
	c := &ingestConfig{}
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&c.Data, "data", "data", "data `directory` holding current and snapshots/")
	fs.StringVar(&c.Pipeline, "pipeline", "", "pipeline definition `file` (pipelines/*.toml); its local sources are read besides the PATHs")
	fs.IntVar(&c.Workers, "workers", 0, "files read at once (0: one per CPU)")
	fs.IntVar(&c.Keep, "keep", 0, "snapshots to keep, current included (0: the default, 3)")
	fs.BoolVar(&c.Fresh, "fresh", false, "build from these inputs only, without carrying over the current snapshot")
	fs.BoolVar(&c.Merge, "merge", false, "write the whole archive into one new segment (a full merge) instead of a delta segment beside the current ones")
	fs.StringVar(&c.Licences, "licences", "", "comma-separated licence `families` to publish (CC0,PDM,CC-BY,CC-BY-SA; default all)")
	fs.StringVar(&c.Now, "now", "", "run `time` (RFC 3339) for licence embargoes and the snapshot id (default: the clock)")
	fs.BoolVar(&c.JSON, "json", false, "print the summary as JSON on stdout")
	fs.StringVar(&c.LogLevel, "log-level", "info", "log `level`: debug, info, warn, error")
	fs.StringVar(&c.Progress, "progress", "auto", "progress bar on stderr: auto (when a terminal), always, never")
	fs.IntVar(&c.Retries, "retries", 6, "times a failed download of a remote source is retried, with jittered exponential backoff from 1s")
	fs.StringVar(&c.Metrics, "metrics-file", "", "Prometheus textfile with the outcome of a pipeline with remote sources (default DATA/state/nightly.prom; - for none)")
	fs.StringVar(&c.CPUProfile, "cpuprofile", "", "write a CPU profile of the run to `file` (go tool pprof)")
	fs.Usage = flagUsage(fs, e.stderr, ingestSynopsis)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if err := applyEnv(fs, e.getenv); err != nil {
		return nil, err
	}
	fs.Visit(func(f *flag.Flag) { c.levelSet = c.levelSet || f.Name == "log-level" })
	c.levelSet = c.levelSet || e.getenv(envName("log-level")) != ""
	c.Paths = fs.Args()
	if len(c.Paths) == 0 && c.Pipeline == "" && !c.Merge {
		return nil, errors.New("nothing to ingest: give PATHs, -pipeline or -merge")
	}
	if c.Data == "" {
		return nil, errors.New("-data is empty")
	}
	if c.Workers < 0 || c.Keep < 0 || c.Retries < 0 {
		return nil, errors.New("-workers, -keep and -retries cannot be negative")
	}
	switch c.Progress {
	case "auto", "always", "never":
	default:
		return nil, fmt.Errorf("-progress %q: want auto, always or never", c.Progress)
	}
	if _, err := parseLevel(c.LogLevel); err != nil {
		return nil, err
	}
	return c, nil
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("-log-level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

// runConfig turns the flags into the run package's Config.
func (c *ingestConfig) runConfig() (run.Config, error) {
	cfg := run.Config{DataDir: c.Data, Workers: c.Workers, Keep: c.Keep, Fresh: c.Fresh, Merge: c.Merge}
	for _, p := range c.Paths {
		cfg.Inputs = append(cfg.Inputs, run.Input{Path: p})
	}
	if c.Pipeline != "" {
		p, err := pipelines.Load(c.Pipeline)
		if err != nil {
			return cfg, err
		}
		cfg.Pipeline = p
	}
	if c.Licences != "" {
		for _, f := range strings.Split(c.Licences, ",") {
			cfg.Families = append(cfg.Families, licence.Family(strings.TrimSpace(f)))
		}
	}
	if c.Now != "" {
		t, err := time.Parse(time.RFC3339, c.Now)
		if err != nil {
			return cfg, fmt.Errorf("%w: -now %q: want RFC 3339, e.g. 2026-11-22T03:15:00Z", run.ErrConfig, c.Now)
		}
		cfg.Now = t
	}
	return cfg, nil
}

func runIngest(ctx context.Context, e *env, args []string) (code int) {
	c, err := parseIngest(e, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "openshelf ingest: %v\n", err)
		return exitUsage
	}
	cfg, err := c.runConfig()
	if err != nil {
		fmt.Fprintf(e.stderr, "openshelf ingest: %v\n", err)
		return exitUsage
	}

	stop, err := startCPUProfile(c.CPUProfile)
	if err != nil {
		fmt.Fprintf(e.stderr, "openshelf ingest: %v\n", err)
		return exitFailure
	}
	defer func() {
		if err := stop(); err != nil {
			fmt.Fprintf(e.stderr, "openshelf ingest: %v\n", err)
			if code == exitOK {
				code = exitFailure
			}
		}
	}()

	showBar := c.Progress == "always" || (c.Progress == "auto" && e.stderrTTY)
	if nightly.HasRemote(cfg.Pipeline) {
		return runNightly(ctx, e, c, cfg, showBar)
	}
	level, _ := parseLevel(c.LogLevel)
	if showBar && !c.levelSet {
		level = slog.LevelWarn // info lines would tear the bar apart
	}
	cfg.Logger = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	var bar *barProgress
	if showBar {
		bar = &barProgress{w: e.stderr}
		cfg.Progress = bar
	}

	setIngestMemoryLimit()
	sum, err := run.Run(ctx, cfg)
	if bar != nil {
		bar.done()
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "openshelf ingest: %v\n", err)
		return ingestExitCode(ctx, err)
	}
	if c.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			fmt.Fprintf(e.stderr, "openshelf ingest: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	if err := sum.WriteText(e.stdout); err != nil {
		fmt.Fprintf(e.stderr, "openshelf ingest: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// ingestMemoryLimit is the soft limit of the Go heap during an ingest. The
// run's buffers are bounded (row groups, sort buffers, reader queues, one
// bundle encoder per topic: about 350 MiB live on 200 000 articles), but
// the garbage collector lets the heap grow to five times what is live
// (ingestGCPercent); the limit makes it collect sooner instead, so the
// whole process stays well under the 1 GiB budget (BENCHMARKS.md,
// "Ingest").
const ingestMemoryLimit = 640 << 20

// ingestGCPercent is an ingest's GOGC unless the environment sets one.
// The memory limit bounds the heap anyway; while what is live is small
// (reading the inputs, the merger holding only descriptors) GOGC 100
// collected several times as often as 400 does, for no memory the limit
// would not have allowed (BENCHMARKS.md, "Where a full build's CPU goes").
const ingestGCPercent = 400

// setIngestMemoryLimit applies ingestMemoryLimit and ingestGCPercent
// unless the process was started with GOMEMLIMIT or GOGC (which the runtime
// has applied already).
func setIngestMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(ingestMemoryLimit)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(ingestGCPercent)
	}
}

// startCPUProfile starts a CPU profile of the run into path (none when
// path is empty); stop ends it and closes the file.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		return nil
	}, nil
}

// ingestExitCode maps a run error to the exit code: configuration and
// input mistakes are usage errors, an unsupported remote source is "not
// implemented", anything else (DATA not writable, interrupted) a failure.
func ingestExitCode(ctx context.Context, err error) int {
	switch {
	case ctx.Err() != nil:
		return exitFailure
	case errors.Is(err, run.ErrRemoteNotImplemented):
		return exitNotImplemented
	case errors.Is(err, run.ErrConfig), errors.Is(err, run.ErrInput), errors.Is(err, pipelines.ErrInvalid):
		return exitUsage
	}
	return exitFailure
}

// barProgress draws a progress bar per phase on stderr.
type barProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (b *barProgress) Phase(name string, files int, bytes int64) {
	b.done()
	desc := map[string]string{"scan": "scanning  ", "read": "reading   ", "publish": "publishing"}[name]
	if desc == "" {
		desc = name
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(b.w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(b.w) }),
	}
	if bytes >= 0 {
		opts = append(opts, progressbar.OptionShowBytes(true), progressbar.OptionShowTotalBytes(true))
	} else {
		opts = append(opts, progressbar.OptionSpinnerType(14))
	}
	b.bar = progressbar.NewOptions64(bytes, opts...)
}

func (b *barProgress) File(_ string, bytes int64) {
	if b.bar != nil {
		b.bar.Add64(bytes)
	}
}

func (b *barProgress) done() {
	if b.bar != nil {
		b.bar.Finish()
		b.bar = nil
	}
}
