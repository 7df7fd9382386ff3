package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/detect"
	"github.com/openshelf/openshelf/snapshot"
)

// job is one file to read with the readers its source allows.
type job struct {
	detect.File
	readers detect.Readers
	info    detect.Info // from the scan
}

// Run ingests cfg's inputs into a new snapshot under cfg.DataDir and
// returns what it did. On error the Summary holds what was done so far.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	start := time.Now()
	sum := &Summary{
		Formats:           map[string]int{},
		AcceptedByLicence: map[string]int64{},
		RejectedByReason:  map[string]int64{},
		Topics:            map[string]int64{},
	}
	defer func() { sum.Elapsed = time.Since(start) }()
	col := &collector{sum: sum}
	if err := cfg.check(); err != nil {
		return sum, err
	}
	inputs, err := cfg.inputs()
	if err != nil {
		return sum, err
	}
	log := cfg.Logger

	// Find the files first: a mistyped path fails the run before anything
	// is written.
	var jobs []job
	for _, in := range inputs {
		rs := readersFor(cfg.Readers, in.Format)
		err := detect.Walk(ctx, []string{in.Path}, func(f detect.File) error {
			jobs = append(jobs, job{File: f, readers: rs})
			return nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return sum, ctx.Err()
			}
			return sum, fmt.Errorf("%w: %v", ErrInput, err)
		}
	}
	sum.Files = len(jobs)
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return sum, fmt.Errorf("%w: %v", ErrData, err)
	}

	// Scan: detect every file and hash it for the manifest. Files that are
	// not data are reported here and not read again.
	manifestInputs, data, err := scan(ctx, &cfg, jobs, col)
	if err != nil {
		return sum, err
	}
	log.Info("ingest: scanned", "files", len(jobs), "data_files", len(data), "skipped", sum.Skipped, "workers", cfg.Workers)

	families := cfg.families()
	var taxonomy []index.Topic
	for _, t := range cfg.Taxonomy.Topics() {
		taxonomy = append(taxonomy, index.Topic{Slug: t.Slug, Name: t.Name, Parent: t.Parent})
	}
	var read, deletions atomic.Int64
	icfg := index.Config{
		DataDir: cfg.DataDir,
		Inputs:  manifestInputs,
		Now:     cfg.Now,
		Logger:  log,
		Keep:    cfg.Keep,
		Fresh:   cfg.Fresh,
		Topics:  taxonomy,
		// Prepare sees every accepted merged document, from one goroutine.
		Prepare: func(d *ingest.Document) error {
			if !slices.Contains(families, d.Licence.Family) {
				d.Licence.Accepted = false
				d.Licence.Reason = ReasonExcluded
				d.Licence.Detail = fmt.Sprintf("licence %s is accepted by the rules but not published by this pipeline (licences %v)", d.Licence.Family, families)
				return nil
			}
			cfg.Taxonomy.Assign(d)
			for _, t := range d.Topics {
				sum.Topics[t]++
			}
			return nil
		},
		Problem: col.problem,
	}
	feed := func(ctx context.Context, sink ingest.Sink) error {
		if cfg.Progress != nil {
			var total int64
			for _, j := range data {
				total += j.Size
			}
			cfg.Progress.Phase("read", len(data), total)
		}
		counter := &countingSink{Sink: sink, docs: &read, dels: &deletions}
		err := readAll(ctx, &cfg, data, counter, col)
		log.Info("ingest: read", "records", read.Load(), "deletions", deletions.Load(), "problems", sum.Problems)
		if cfg.Progress != nil && err == nil {
			cfg.Progress.Phase("publish", 0, -1)
		}
		return err
	}
	man, err := index.Build(ctx, icfg, feed)
	sum.Read, sum.Deletions = read.Load(), deletions.Load()
	sum.sortLists()
	if err != nil {
		return sum, err
	}
	c := man.Counts
	sum.Snapshot = man.ID
	sum.SnapshotDir = snapshotDir(cfg.DataDir, man.ID)
	sum.Carried, sum.Merged, sum.Superseded, sum.Deleted = c.Previous, c.Merged, c.Superseded, c.Deleted
	sum.Accepted, sum.Rejected = c.Accepted, c.Rejected
	for k, v := range c.AcceptedByLicence {
		sum.AcceptedByLicence[k] = v
	}
	for k, v := range c.RejectedByReason {
		sum.RejectedByReason[k] = v
	}
	return sum, nil
}

func snapshotDir(dataDir, id string) string {
	dir := filepath.Join(dataDir, snapshot.SnapshotsDir, id)
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// countingSink counts what the readers deliver to the merger.
type countingSink struct {
	ingest.Sink
	docs, dels *atomic.Int64
}

func (c *countingSink) Document(d *ingest.Document) error {
	c.docs.Add(1)
	return c.Sink.Document(d)
}

func (c *countingSink) Delete(d ingest.Deletion) error {
	c.dels.Add(1)
	return c.Sink.Delete(d)
}

// parallel runs fn(i) for i in [0, n) on cfg.Workers goroutines, in
// order of i, until ctx is done.
func parallel(ctx context.Context, workers, n int, fn func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, max(n, 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
feed:
	for i := 0; i < n; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
}

// scan sniffs and hashes every file. It returns the manifest inputs and
// the jobs worth reading; skips and unreadable files go to col.
func scan(ctx context.Context, cfg *Config, jobs []job, col *collector) ([]snapshot.Input, []job, error) {
	sum := col.sum
	if cfg.Progress != nil {
		var total int64
		for _, j := range jobs {
			total += j.Size
		}
		cfg.Progress.Phase("scan", len(jobs), total)
	}
	type result struct {
		info   detect.Info
		digest string
		n      int64
		err    error
	}
	res := make([]result, len(jobs))
	var mu sync.Mutex
	parallel(ctx, cfg.Workers, len(jobs), func(i int) {
		info, digest, n, err := sniffAndHash(jobs[i].Path)
		res[i] = result{info, digest, n, err}
		if cfg.Progress != nil {
			mu.Lock()
			cfg.Progress.File(jobs[i].Path, jobs[i].Size)
			mu.Unlock()
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var inputs []snapshot.Input
	var data []job
	for i, r := range res {
		j := jobs[i]
		switch {
		case r.err != nil:
			col.problem(ingest.Problem{Path: j.Path, Reason: r.err.Error()})
			cfg.Logger.Warn("ingest: file problem", "path", j.Path, "err", r.err)
		case r.info.Format == "":
			col.skip(Skip{Path: j.Path, Reason: r.info.Reason})
			cfg.Logger.Debug("ingest: skipped", "path", j.Path, "reason", r.info.Reason)
		case j.readers[r.info.Format] == nil:
			reason := "detected " + r.info.String() + ", but no reader for it is enabled"
			col.skip(Skip{Path: j.Path, Reason: reason})
			cfg.Logger.Warn("ingest: skipped", "path", j.Path, "reason", reason)
		default:
			j.info = r.info
			data = append(data, j)
			inputs = append(inputs, snapshot.Input{Path: j.Path, SHA256: r.digest, Bytes: r.n, Kind: string(r.info.Format)})
			sum.Formats[r.info.String()]++
			sum.Bytes += r.n
		}
	}
	return inputs, data, nil
}

func sniffAndHash(path string) (detect.Info, string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return detect.Info{}, "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	info, rc, err := detect.Sniff(io.TeeReader(f, h))
	if err != nil {
		return info, "", 0, err
	}
	rc.Close()
	// Sniff read a prefix through the tee; hash the rest.
	if _, err := io.Copy(h, f); err != nil {
		return info, "", 0, err
	}
	n, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return info, "", 0, err
	}
	return info, hex.EncodeToString(h.Sum(nil)), n, nil
}

// readAll reads the data files with cfg.Workers goroutines into sink, in
// input order (see sequencer). It fails only when sink fails or ctx ends.
func readAll(ctx context.Context, cfg *Config, jobs []job, sink ingest.Sink, col *collector) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	seq := newSequencer(ctx, sink, cfg.BufferBytes)
	var mu sync.Mutex // serialises Progress calls
	parallel(ctx, cfg.Workers, len(jobs), func(i int) {
		j := jobs[i]
		fs := seq.sink(i, col.problem)
		_, rerr := j.readers.ReadFile(ctx, j.Path, fs)
		ferr := fs.finish()
		if cfg.Progress != nil {
			mu.Lock()
			cfg.Progress.File(j.Path, j.Size)
			mu.Unlock()
		}
		if err := seq.failure(); err != nil {
			// The merger could not keep a record (its spill file
			// cannot be written): stop everything.
			cancel(fmt.Errorf("%w: %v", ErrData, err))
			return
		}
		if ctx.Err() != nil {
			return
		}
		if ferr != nil {
			cancel(ferr)
			return
		}
		switch {
		case rerr == nil:
		case errors.Is(rerr, detect.ErrSkipped):
			// The scan saw data; the file changed since. Report it.
			var se *detect.SkipError
			reason := rerr.Error()
			if errors.As(rerr, &se) {
				reason = se.Reason
			}
			col.skip(Skip{Path: j.Path, Reason: reason})
		default:
			// The file (or its end) could not be read: a problem, not a
			// failure of the run. What was read before stands.
			col.problem(ingest.Problem{Path: j.Path, Reason: rerr.Error()})
			cfg.Logger.Warn("ingest: file problem", "path", j.Path, "err", rerr)
		}
	})
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			return cause
		}
		return ctx.Err()
	}
	return nil
}

// failure returns the sink error that stopped the sequencer, if any.
func (s *sequencer) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
