package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
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
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/snapshot"
)

// job is one file to read with the readers its source allows.
type job struct {
	detect.File
	readers detect.Readers
}

// fileResult is what reading one file found out: its format and, for a
// data file, its size and SHA-256 for the manifest.
type fileResult struct {
	info   detect.Info
	data   bool // a data file with an enabled reader: listed in the manifest
	digest string
	bytes  int64
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

	log.Info("ingest: found", "files", len(jobs), "workers", cfg.Workers)

	families := cfg.families()
	var taxonomy []index.Topic
	for _, t := range cfg.Taxonomy.Topics() {
		taxonomy = append(taxonomy, index.Topic{Slug: t.Slug, Name: t.Name, Parent: t.Parent})
	}
	var read, deletions atomic.Int64
	results := make([]fileResult, len(jobs))
	icfg := index.Config{
		DataDir: cfg.DataDir,
		// Each file is hashed while it is read, so the manifest's inputs
		// are known once the feed is done.
		FeedInputs: func() []snapshot.Input { return manifestInputs(jobs, results) },
		Now:        cfg.Now,
		Logger:     log,
		Keep:       cfg.Keep,
		Fresh:      cfg.Fresh,
		Merge:      cfg.Merge,
		Records:    cfg.Records,
		Touch:      cfg.Touch,
		KeepRecord: cfg.KeepRecord,
		Policy: fmt.Sprintf("licence rules %s; licences %v; topics %s", licence.RulesVersion, families,
			cfg.Taxonomy.Fingerprint()),
		Topics: taxonomy,
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
			for _, j := range jobs {
				total += j.Size
			}
			cfg.Progress.Phase("read", len(jobs), total)
		}
		counter := &countingSink{Sink: sink, docs: &read, dels: &deletions}
		err := readAll(ctx, &cfg, jobs, results, counter, col)
		data := 0
		for _, r := range results {
			if r.data {
				data++
				sum.Formats[r.info.String()]++
				sum.Bytes += r.bytes
			}
		}
		log.Info("ingest: read", "data_files", data, "skipped", sum.Skipped, "records", read.Load(),
			"deletions", deletions.Load(), "problems", sum.Problems)
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

// manifestInputs lists the data files, in input order, for the manifest.
func manifestInputs(jobs []job, results []fileResult) []snapshot.Input {
	var in []snapshot.Input
	for i, r := range results {
		if r.data {
			in = append(in, snapshot.Input{Path: jobs[i].Path, SHA256: r.digest, Bytes: r.bytes, Kind: string(r.info.Format)})
		}
	}
	return in
}

// hashReader hashes and counts what is read through it.
type hashReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (h *hashReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.h.Write(p[:n])
	h.n += int64(n)
	return n, err
}

// readFile detects and reads one file into sink, hashing it on the way:
// each input is read from disk once. It returns what it learnt and the
// error of opening or reading the file (a *detect.SkipError for a file
// that is not data).
func readFile(ctx context.Context, j job, sink ingest.Sink) (fileResult, error) {
	var res fileResult
	if err := ctx.Err(); err != nil {
		return res, err
	}
	f, err := os.Open(j.Path)
	if err != nil {
		return res, err
	}
	defer f.Close()
	hr := &hashReader{r: f, h: sha256.New()}
	info, rerr := j.readers.ReadFrom(ctx, hr, j.Path, sink)
	res.info = info
	if info.Format == "" || j.readers[info.Format] == nil || ctx.Err() != nil {
		return res, rerr
	}
	// A reader may stop before the end (trailing bytes, a damaged
	// record): hash the rest so the digest is the file's.
	if _, err := io.Copy(io.Discard, hr); err != nil && rerr == nil {
		rerr = err
	}
	res.data, res.digest, res.bytes = true, hex.EncodeToString(hr.h.Sum(nil)), hr.n
	return res, rerr
}

// readAll reads the files with cfg.Workers goroutines into sink, in input
// order (see sequencer), and fills results. Files that are not data are
// skipped, files that cannot be read are problems; it fails only when sink
// fails or ctx ends.
func readAll(ctx context.Context, cfg *Config, jobs []job, results []fileResult, sink ingest.Sink, col *collector) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	seq := newSequencer(ctx, sink, cfg.BufferBytes)
	seq.limit = cfg.Workers * cfg.BufferBytes
	var mu sync.Mutex // serialises Progress calls
	parallel(ctx, cfg.Workers, len(jobs), func(i int) {
		j := jobs[i]
		fs := seq.sink(i, col.problem)
		res, rerr := readFile(ctx, j, fs)
		results[i] = res
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
		var se *detect.SkipError
		switch {
		case rerr == nil:
		case errors.As(rerr, &se):
			col.skip(Skip{Path: j.Path, Reason: se.Reason})
			if errors.Is(rerr, detect.ErrNoReader) {
				cfg.Logger.Warn("ingest: skipped", "path", j.Path, "reason", se.Reason)
			} else {
				cfg.Logger.Debug("ingest: skipped", "path", j.Path, "reason", se.Reason)
			}
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
	if err := seq.failure(); err != nil {
		return fmt.Errorf("%w: %v", ErrData, err)
	}
	if !seq.done(len(jobs)) {
		return errors.New("ingest: internal error: records of some files were not delivered")
	}
	return nil
}

// failure returns the sink error that stopped the sequencer, if any.
func (s *sequencer) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
