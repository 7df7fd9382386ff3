package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/remote/download"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/pipelines"
)

// ErrUpstream means a source's server sent something the adapter cannot
// use (a manifest without files, a page that is not JSON...).
var ErrUpstream = errors.New("remote: unusable upstream response")

// Env is what an adapter gets for one run.
type Env struct {
	Source pipelines.Source
	// Dir is the source's directory under DATA/state/, named by its
	// cursor's state (or the source name): the mirror and the checkpoint.
	Dir    string
	Client *download.Client
	Logger *slog.Logger
	// Now is the run time (cursor dates).
	Now time.Time
	// Families are the licence families the source may fetch (the
	// source's licences, else the pipeline's).
	Families []licence.Family
	// Stats is where the adapter counts what it did.
	Stats *Stats
	// Progress, when set, is told the files the adapter plans to fetch
	// and each file done.
	Progress Progress
}

// Progress receives an adapter's progress; calls may come from several
// goroutines.
type Progress interface {
	Plan(files int, bytes int64)
	Done(files int)
}

// Param returns the source's kind-specific parameter, or def.
func (e *Env) Param(name, def string) string {
	if v, ok := e.Source.Params[name]; ok && v != "" {
		return v
	}
	return def
}

// Result is what an adapter hands to the orchestrator.
type Result struct {
	// Files are the mirror's files to ingest, in the order they must be
	// read (older first: the merger prefers later arrivals).
	Files []string
	// Format is the readers' format for Files ("jats", "pubmed"...).
	Format string
	// Filter, when set, sees every record read from Files and the file it
	// came from, and may drop it (false) or amend it: PubMed deletions
	// and OpenAlex merges are applied there.
	Filter func(file string, d *ingest.Document) bool
	// DropDeletions discards the deletions the readers report (the
	// adapter's Filter applies them instead).
	DropDeletions bool
	// Delta means New and Gone are complete, so that the night can be a
	// delta build: New are the Files this run added or rewrote (the only
	// ones the build reads), Gone the project ids of works one of whose
	// records left the mirror or changed under Filter this run (the build
	// merges them again from the records it kept, Filter applied).
	Delta bool
	New   []string
	Gone  []string
	// State is the source's checkpoint once this run is published (its
	// new cursor and mirror). The orchestrator stages it beside the
	// committed one (commit.json) before publishing and renames it over
	// state.json once the snapshot is published, so a run killed between
	// the two finishes the commit when it resumes.
	State any
	// Changed reports that the mirror or the filters differ from the last
	// committed state (new files, removed articles, new merges): when no
	// source changed, the orchestrator publishes nothing new.
	Changed bool
	// Cleanup, when set, runs after the commit (removing files the new
	// state no longer names); it may be skipped by a crash.
	Cleanup func()
}

// StateFile and CommitFile are the committed and staged checkpoints in a
// source's directory.
const (
	StateFile  = "state.json"
	CommitFile = "commit.json"
)

// Adapter fetches one kind of remote source.
type Adapter interface {
	Fetch(ctx context.Context, env *Env) (*Result, error)
}

// Stats is one source's part of the run summary.
type Stats struct {
	mu sync.Mutex
	// Fetched counts files (or API pages) downloaded this run; Skipped
	// those unchanged since the last run or already on disk.
	Fetched int64 `json:"fetched"`
	Skipped int64 `json:"skipped"`
	// Rejected counts records not fetched because of what their source
	// says about them, by reason ("licence:CC BY-NC", "retracted"...).
	Rejected map[string]int64 `json:"rejected_by_reason,omitempty"`
	// Removed counts records dropped from the mirror or the feed
	// (retracted since, deleted upstream, merged away).
	Removed  int64         `json:"removed,omitempty"`
	Bytes    int64         `json:"bytes"`
	Retries  int64         `json:"retries"`
	Corrupt  int64         `json:"corrupt"`
	Errors   int64         `json:"errors"`
	Files    int           `json:"mirror_files"` // files of the mirror read by the build
	Cursor   string        `json:"cursor,omitempty"`
	Error    string        `json:"error,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Reject counts one record rejected for reason.
func (s *Stats) Reject(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Rejected == nil {
		s.Rejected = map[string]int64{}
	}
	s.Rejected[reason]++
}

// Add adds to a counter under the lock (fetched, skipped, removed).
func (s *Stats) Add(fetched, skipped, removed int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Fetched += fetched
	s.Skipped += skipped
	s.Removed += removed
}

// FromClient copies a download client's counts into s.
func (s *Stats) FromClient(st download.Stats) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Bytes, s.Retries, s.Corrupt = st.Bytes, st.Retries, st.Corrupt
}

// LoadJSON reads the JSON checkpoint at path into v. A missing file leaves
// v untouched and returns false.
func LoadJSON(path string, v any) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return true, nil
}

// SaveJSON writes v to path atomically (temporary file, fsync, rename):
// a crash leaves the old checkpoint or the new one, never half of one.
func SaveJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// WriteFileAtomic writes b to path through a temporary file and a rename.
func WriteFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// HTTPSBase turns a source URL into the HTTPS base its objects are fetched
// from: an http(s) URL as is; for s3://bucket/prefix, the bucket endpoint
// (BucketBase) followed by the prefix.
func HTTPSBase(env *Env) string {
	if strings.HasPrefix(env.Source.URL, "s3://") {
		return BucketBase(env) + withSlash(S3Key(env.Source.URL))
	}
	return withSlash(env.Source.URL)
}

// S3Key returns the key of an s3://bucket/key URL (query dropped), or ""
// when u is not one.
func S3Key(u string) string {
	rest, ok := strings.CutPrefix(u, "s3://")
	if !ok {
		return ""
	}
	_, key, _ := strings.Cut(rest, "/")
	key, _, _ = strings.Cut(key, "?")
	return key
}

// BucketBase returns the HTTPS endpoint of the bucket of an s3:// source
// URL, ending in "/": params.https_mirror when set (tests point it at a
// local server), else https://BUCKET.s3.amazonaws.com/.
func BucketBase(env *Env) string {
	if m := env.Param("https_mirror", ""); m != "" {
		return withSlash(m)
	}
	if rest, ok := strings.CutPrefix(env.Source.URL, "s3://"); ok {
		bucket, _, _ := strings.Cut(rest, "/")
		return "https://" + bucket + ".s3.amazonaws.com/"
	}
	return withSlash(env.Source.URL)
}

func withSlash(s string) string {
	if s != "" && s[len(s)-1] != '/' {
		return s + "/"
	}
	return s
}

// Each runs fn(i) for i in [0, n) on up to workers goroutines and returns
// the first error (the others stop taking work then).
func Each(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(max(workers, 1), max(n, 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(ctx, i); err != nil {
					cancel(err)
				}
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
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

// Match reports whether the base name of key matches the source's include
// globs (any; all when none) and none of its exclude globs.
func Match(src *pipelines.Source, key string, defInclude ...string) bool {
	inc := src.Include
	if len(inc) == 0 {
		inc = defInclude
	}
	ok := len(inc) == 0
	for _, g := range inc {
		if globMatch(g, key) {
			ok = true
			break
		}
	}
	for _, g := range src.Exclude {
		if globMatch(g, key) {
			return false
		}
	}
	return ok
}

// globMatch matches g against the whole key, or against its last segments
// when g has fewer segments ("metadata/PMC*.json" against a full key).
func globMatch(g, key string) bool {
	gs := strings.Count(g, "/")
	parts := strings.Split(key, "/")
	if len(parts) > gs+1 {
		key = strings.Join(parts[len(parts)-gs-1:], "/")
	}
	ok, _ := path.Match(g, key)
	return ok
}
