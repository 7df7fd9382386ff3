package nightly

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/ingest/detect"
	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/ingest/remote/crossref"
	"github.com/openshelf/openshelf/ingest/remote/download"
	"github.com/openshelf/openshelf/ingest/remote/openalex"
	"github.com/openshelf/openshelf/ingest/remote/pmcoa"
	"github.com/openshelf/openshelf/ingest/remote/pubmed"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/pipelines"
	"github.com/openshelf/openshelf/pipelines/run"
	"github.com/openshelf/openshelf/snapshot"
)

// Errors; test with errors.Is.
var (
	// ErrSourceFailed means at least one source could not be fetched; no
	// snapshot was published and the previous one stays current.
	ErrSourceFailed = errors.New("nightly: a source failed")
	// ErrLocked means another run holds DATA/state/nightly.lock.
	ErrLocked = errors.New("nightly: another run is in progress")
)

// StateDir is the directory under DATA holding checkpoints and mirrors.
const StateDir = "state"

// Config configures a nightly run.
type Config struct {
	// Run is the ingest configuration: DataDir, Pipeline (with remote
	// sources), Families, Workers, Keep, Now, Logger, Progress. Inputs
	// and Fresh are set by the nightly run.
	Run run.Config
	// HTTP is the client for every download; nil means a default one.
	HTTP *http.Client
	// Download tunes retries, backoff and per-host concurrency; its
	// HTTP, UserAgent and Logger are filled in per source.
	Download download.Config
	// MetricsFile is the Prometheus textfile written at the end of every
	// run ("" means DATA/state/nightly.prom; "-" disables it).
	MetricsFile string
	// Display, when set, shows per-source progress (a terminal).
	Display *Display
	// Hold is a test seam: called at "publish" (the build is writing the
	// snapshot) and "published" (published, not yet committed).
	Hold func(phase string)
}

// adapters maps a source kind to its adapter.
var adapters = map[pipelines.SourceKind]remote.Adapter{
	pipelines.S3Inventory:  pmcoa.Adapter{},
	pipelines.FileSequence: pubmed.Adapter{},
	pipelines.S3Partitions: openalex.Adapter{},
	pipelines.RESTCursor:   crossref.Adapter{},
}

// runState is DATA/state/run.json, present while a run publishes.
type runState struct {
	Now   time.Time `json:"now"`
	Phase string    `json:"phase"`
}

// HasRemote reports whether p has an enabled remote source.
func HasRemote(p *pipelines.Pipeline) bool {
	if p == nil {
		return false
	}
	for _, s := range p.Sources {
		if s.IsEnabled() && s.Kind.Remote() {
			return true
		}
	}
	return false
}

// Run fetches the pipeline's remote sources, ingests their mirrors with
// its local sources into a new snapshot and commits the sources' cursors.
// The Summary is filled as far as the run got, also on error.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	start := time.Now()
	p := cfg.Run.Pipeline
	sum := &Summary{Started: start.UTC()}
	defer func() { sum.Elapsed = time.Since(start) }()
	if p == nil || cfg.Run.DataDir == "" {
		return sum, fmt.Errorf("%w: a nightly run needs a pipeline and a data directory", run.ErrConfig)
	}
	sum.Pipeline = p.Name
	log := cfg.Run.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
		cfg.Run.Logger = log
	}
	stateDir := filepath.Join(cfg.Run.DataDir, StateDir)
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return sum, fmt.Errorf("%w: %v", run.ErrData, err)
	}
	unlock, err := lock(filepath.Join(stateDir, "nightly.lock"))
	if err != nil {
		return sum, err
	}
	defer unlock()
	metrics := cfg.MetricsFile
	if metrics == "" {
		metrics = filepath.Join(stateDir, "nightly.prom")
	}
	defer func() {
		if metrics != "-" {
			if err := writeMetrics(metrics, sum); err != nil {
				log.Warn("nightly: metrics file not written", "path", metrics, "err", err)
			}
		}
	}()

	runPath := filepath.Join(stateDir, "run.json")
	var rs runState
	resumed, err := remote.LoadJSON(runPath, &rs)
	if err != nil {
		return sum, err
	}
	now := cfg.Run.Now
	if now.IsZero() {
		now = time.Now()
	}
	now = now.UTC().Truncate(time.Second)
	if resumed {
		// Publish with the interrupted run's time: its snapshot, if it
		// was published, is recognised by it.
		now, sum.Resumed = rs.Now, true
		sum.Now = now
		log.Info("nightly: resuming an interrupted run", "run", now)
		if cur, err := snapshot.Open(cfg.Run.DataDir); err == nil && cur.Manifest.Created.Equal(now) {
			log.Info("nightly: its snapshot was published; finishing the commit", "snapshot", cur.ID)
			sum.Snapshot = cur.ID
			srcs := sourceDirs(p, stateDir)
			sum.Sources = make([]*SourceSummary, len(srcs))
			for i, s := range srcs {
				sum.Sources[i] = &SourceSummary{Name: s.name, Kind: string(s.kind), OK: true, Stats: &remote.Stats{}}
			}
			return sum, finish(cfg.Run.DataDir, runPath, srcs, nil, sum, log)
		}
	}
	sum.Now = now

	results := fetchAll(ctx, &cfg, p, stateDir, now, sum)
	var failed []string
	for _, s := range sum.Sources {
		if !s.OK {
			failed = append(failed, s.Name)
		}
	}
	if ctx.Err() != nil {
		return sum, ctx.Err()
	}
	if len(failed) > 0 {
		return sum, fmt.Errorf("%w: %s; nothing published, the previous snapshot stays current", ErrSourceFailed, strings.Join(failed, ", "))
	}

	srcs := sourceDirs(p, stateDir)
	for i, s := range srcs {
		if err := remote.SaveJSON(filepath.Join(s.dir, remote.CommitFile), results[i].State); err != nil {
			return sum, fmt.Errorf("%w: %v", run.ErrData, err)
		}
	}
	if cur, ok := unchanged(cfg.Run.DataDir, p, results); ok {
		// Nothing new upstream: another copy of the same snapshot would
		// only push a real one out of the retained history.
		log.Info("nightly: nothing changed upstream; the current snapshot stays", "snapshot", cur)
		sum.Snapshot, sum.Unchanged = cur, true
		if resumed {
			os.Remove(runPath)
		}
		return sum, finish(cfg.Run.DataDir, "", srcs, results, sum, log)
	}
	if err := remote.SaveJSON(runPath, runState{Now: now, Phase: "publish"}); err != nil {
		return sum, fmt.Errorf("%w: %v", run.ErrData, err)
	}
	rc := ingestConfig(&cfg, p, results, now)
	log.Info("nightly: publishing", "run", now, "inputs", len(rc.Inputs))
	ing, err := run.Run(ctx, rc)
	sum.Ingest = ing
	if err != nil {
		return sum, err
	}
	sum.Snapshot = ing.Snapshot
	log.Info("nightly: published", "snapshot", ing.Snapshot)
	if cfg.Hold != nil {
		cfg.Hold("published")
	}
	return sum, finish(cfg.Run.DataDir, runPath, srcs, results, sum, log)
}

// finish commits every source's staged state, records the summary in the
// snapshot's manifest and ends the run.
func finish(dataDir, runPath string, srcs []srcDir, results []*remote.Result, sum *Summary, log *slog.Logger) error {
	for i, s := range srcs {
		staged := filepath.Join(s.dir, remote.CommitFile)
		if err := os.Rename(staged, filepath.Join(s.dir, remote.StateFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: commit %s: %v", run.ErrData, s.name, err)
		}
		if results != nil && results[i].Cleanup != nil {
			results[i].Cleanup()
		}
	}
	sum.OK = true
	if runPath == "" { // nothing was published
		return nil
	}
	if err := recordInManifest(dataDir, sum); err != nil {
		log.Warn("nightly: summary not recorded in manifest.json", "err", err)
	}
	return os.Remove(runPath)
}

// unchanged reports whether no source changed since the current snapshot
// was built by a nightly run of this pipeline, and that snapshot's id. A
// pipeline with local sources always builds (their files are not
// tracked).
func unchanged(dataDir string, p *pipelines.Pipeline, results []*remote.Result) (string, bool) {
	for _, s := range p.Sources {
		if s.IsEnabled() && !s.Kind.Remote() {
			return "", false
		}
	}
	for _, r := range results {
		if r.Changed {
			return "", false
		}
	}
	cur, err := snapshot.Open(dataDir)
	if err != nil {
		return "", false
	}
	if _, ok := publishedBy(cur, p); !ok {
		return "", false
	}
	return cur.ID, true
}

// srcDir is an enabled remote source and its state directory.
type srcDir struct {
	name, dir string
	kind      pipelines.SourceKind
	src       *pipelines.Source
}

func sourceDirs(p *pipelines.Pipeline, stateDir string) []srcDir {
	var out []srcDir
	for i := range p.Sources {
		s := &p.Sources[i]
		if !s.IsEnabled() || !s.Kind.Remote() {
			continue
		}
		name := s.Name
		if s.Cursor != nil && s.Cursor.State != "" {
			name = s.Cursor.State
		}
		out = append(out, srcDir{name: s.Name, dir: filepath.Join(stateDir, name), kind: s.Kind, src: s})
	}
	return out
}

// fetchAll runs every enabled remote source at once (they are different
// hosts; each bounds its own concurrency) and fills sum.Sources.
func fetchAll(ctx context.Context, cfg *Config, p *pipelines.Pipeline, stateDir string, now time.Time, sum *Summary) []*remote.Result {
	srcs := sourceDirs(p, stateDir)
	results := make([]*remote.Result, len(srcs))
	sum.Sources = make([]*SourceSummary, len(srcs))
	var wg sync.WaitGroup
	for i, s := range srcs {
		ss := &SourceSummary{Name: s.name, Kind: string(s.kind), Stats: &remote.Stats{}}
		sum.Sources[i] = ss
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			res, err := fetchOne(ctx, cfg, p, s, now, ss)
			ss.Stats.Duration = time.Since(t0)
			if err != nil {
				ss.Stats.Errors++
				ss.Stats.Error = err.Error()
				cfg.Run.Logger.Error("nightly: source failed", "source", s.name, "err", err)
				return
			}
			ss.Stats.Files = len(res.Files)
			ss.OK = true
			results[i] = res
			cfg.Run.Logger.Info("nightly: source fetched", "source", s.name, "fetched", ss.Stats.Fetched,
				"skipped", ss.Stats.Skipped, "bytes", ss.Stats.Bytes, "retries", ss.Stats.Retries,
				"mirror_files", len(res.Files), "cursor", ss.Stats.Cursor)
		}()
	}
	wg.Wait()
	return results
}

func fetchOne(ctx context.Context, cfg *Config, p *pipelines.Pipeline, s srcDir, now time.Time, ss *SourceSummary) (*remote.Result, error) {
	ad, ok := adapters[s.kind]
	if !ok {
		return nil, fmt.Errorf("%w: no adapter for kind %q", run.ErrConfig, s.kind)
	}
	dc := cfg.Download
	dc.HTTP = cfg.HTTP
	dc.Logger = cfg.Run.Logger.With("source", s.name)
	dc.UserAgent = "openshelf-nightly/1"
	if m := s.src.Params["mailto"]; m != "" {
		dc.UserAgent += " (mailto:" + m + ")"
	}
	client := download.New(dc)
	env := &remote.Env{Source: *s.src, Dir: s.dir, Client: client, Logger: dc.Logger, Now: now,
		Families: families(p, s.src), Stats: ss.Stats}
	if cfg.Display != nil {
		pr := cfg.Display.Source(s.name)
		env.Progress = pr
		client.Progress = pr.Bytes
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %v", run.ErrData, err)
	}
	res, err := ad.Fetch(ctx, env)
	ss.Stats.FromClient(client.Stats())
	if cfg.Display != nil {
		cfg.Display.Source(s.name).Finish(err)
	}
	return res, err
}

// families are the licence families a source may fetch.
func families(p *pipelines.Pipeline, s *pipelines.Source) []licence.Family {
	if len(s.Licences) > 0 {
		return slices.Clone(s.Licences)
	}
	return p.AcceptedFamilies()
}

// ingestConfig is the run of the build, with readers that apply the
// sources' filters. Every build keeps the works' source records. Unless
// the run is Fresh (-fresh), a night after a snapshot this pipeline
// published with them is a delta build (deltaNight): it reads only the
// files the sources added, and merges again, from the kept records the
// filters leave, the works whose records changed or left. Otherwise (the
// first night, local sources, a source that cannot say what changed) the
// build reads the mirrors' files after the pipeline's local sources from
// scratch, so that deletions and merges apply to everything.
func ingestConfig(cfg *Config, p *pipelines.Pipeline, results []*remote.Result, now time.Time) run.Config {
	rc := cfg.Run
	local := *p
	local.Sources = nil
	for _, s := range p.Sources {
		if !s.Kind.Remote() {
			local.Sources = append(local.Sources, s)
		}
	}
	rc.Pipeline = &local
	rc.Now, rc.Records = now, true
	delta := !cfg.Run.Fresh && deltaNight(rc.DataDir, p, results)
	rc.Fresh = !delta
	srcs := sourceDirs(p, "")
	for i, r := range results {
		files := r.Files
		if delta {
			files = r.New
			rc.Touch = append(rc.Touch, r.Gone...)
		}
		for _, f := range files {
			rc.Inputs = append(rc.Inputs, run.Input{Path: f, Format: r.Format, Source: srcs[i].name})
		}
	}
	readers := rc.Readers
	if readers == nil {
		readers = detect.Default()
	}
	rc.Readers = filtered(readers, results)
	if delta {
		rc.KeepRecord = keepRecord(results)
	}
	if cfg.Hold != nil {
		rc.Progress = holdAtPublish{next: rc.Progress, hold: cfg.Hold}
	}
	return rc
}

// deltaNight reports whether tonight can be a delta build: the pipeline
// has only remote sources, each says what it added and what left, and
// the current snapshot was published by this pipeline with its works'
// records.
func deltaNight(dataDir string, p *pipelines.Pipeline, results []*remote.Result) bool {
	for _, s := range p.Sources {
		if s.IsEnabled() && !s.Kind.Remote() {
			return false
		}
	}
	for _, r := range results {
		if !r.Delta {
			return false
		}
	}
	cur, err := snapshot.Open(dataDir)
	if err != nil || !index.HasRecords(cur) {
		return false
	}
	// The same sources as the night that published it: a source enabled
	// since has no records in the snapshot, one disabled still has.
	srcs, ok := publishedBy(cur, p)
	var now []string
	for _, s := range sourceDirs(p, "") {
		now = append(now, s.name)
	}
	return ok && slices.Equal(srcs, now)
}

// publishedBy reports whether the snapshot s was published by a nightly
// run of pipeline p, and the sources of that run.
func publishedBy(s *snapshot.Snapshot, p *pipelines.Pipeline) ([]string, bool) {
	b, err := os.ReadFile(filepath.Join(s.Dir, "manifest.json"))
	if err != nil {
		return nil, false
	}
	var m struct {
		Nightly *struct {
			Pipeline string `json:"pipeline"`
			Sources  []struct {
				Name string `json:"name"`
			} `json:"sources"`
		} `json:"nightly"`
	}
	if json.Unmarshal(b, &m) != nil || m.Nightly == nil || m.Nightly.Pipeline != p.Name {
		return nil, false
	}
	var names []string
	for _, s := range m.Nightly.Sources {
		names = append(names, s.Name)
	}
	return names, true
}

// holdAtPublish calls the test seam when the build starts writing.
type holdAtPublish struct {
	next run.Progress
	hold func(string)
}

func (h holdAtPublish) Phase(name string, files int, bytes int64) {
	if h.next != nil {
		h.next.Phase(name, files, bytes)
	}
	if name == "publish" {
		h.hold("publish")
	}
}

func (h holdAtPublish) File(path string, bytes int64) {
	if h.next != nil {
		h.next.File(path, bytes)
	}
}
