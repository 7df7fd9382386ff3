package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/openshelf/openshelf/ingest/remote/nightly"
	"github.com/openshelf/openshelf/pipelines/run"
)

// runNightly runs a pipeline with remote sources (the nightly job):
// per-source progress on a terminal, JSON logs otherwise, the per-source
// summary at the end, exit 1 when a source failed or another run holds
// the lock.
func runNightly(ctx context.Context, e *env, c *ingestConfig, cfg run.Config, showBar bool) int {
	level, _ := parseLevel(c.LogLevel)
	var handler slog.Handler
	if showBar {
		if !c.levelSet {
			level = slog.LevelWarn // info lines would tear the display apart
		}
		handler = slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level})
	} else {
		handler = slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: level})
	}
	cfg.Logger = slog.New(handler)
	ncfg := nightly.Config{Run: cfg, MetricsFile: c.Metrics}
	ncfg.Download.Retries = c.Retries
	if c.Retries == 0 {
		ncfg.Download.Retries = -1 // download.Config: 0 means the default
	}
	var bar *barProgress
	if showBar {
		ncfg.Display = nightly.NewDisplay(e.stderr)
		bar = &barProgress{w: e.stderr}
		ncfg.Run.Progress = startAfter{display: ncfg.Display, bar: bar}
	}
	if h := e.getenv("OPENSHELF_NIGHTLY_HOLD"); h != "" {
		// Test seam for the crash tests (cmd/openshelf/nightly_crash_test.go):
		// stop at a phase, say so, and wait to be killed.
		ncfg.Hold = func(phase string) {
			if phase == h {
				cfg.Logger.Warn("nightly: holding for a test", "phase", phase)
				<-ctx.Done()
			}
		}
	}
	setIngestMemoryLimit()
	sum, err := nightly.Run(ctx, ncfg)
	if ncfg.Display != nil {
		ncfg.Display.Stop()
	}
	if bar != nil {
		bar.done()
	}
	if c.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if eerr := enc.Encode(sum); eerr != nil {
			fmt.Fprintf(e.stderr, "openshelf ingest: %v\n", eerr)
			return exitFailure
		}
	} else if sum != nil && (len(sum.Sources) > 0 || sum.Ingest != nil) {
		sum.WriteText(e.stdout)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "openshelf ingest: %v\n", strings.TrimSpace(err.Error()))
		if errors.Is(err, nightly.ErrSourceFailed) || errors.Is(err, nightly.ErrLocked) {
			return exitFailure
		}
		return ingestExitCode(ctx, err)
	}
	return exitOK
}

// startAfter stops the per-source display when the build starts and hands
// the build's phases to the progress bar.
type startAfter struct {
	display *nightly.Display
	bar     *barProgress
}

func (s startAfter) Phase(name string, files int, bytes int64) {
	s.display.Stop()
	s.bar.Phase(name, files, bytes)
}

func (s startAfter) File(path string, bytes int64) { s.bar.File(path, bytes) }
