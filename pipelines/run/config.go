package run

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/detect"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/pipelines"
	"github.com/openshelf/openshelf/pipelines/topics"
)

var (
	// ErrConfig reports an unusable Config; the message says which field.
	ErrConfig = errors.New("ingest: invalid configuration")
	// ErrRemoteNotImplemented means the pipeline asks for a remote source
	// (S3, HTTP, REST); only local sources can run in this version.
	ErrRemoteNotImplemented = errors.New("remote sources are not implemented yet")
	// ErrInput means an input path does not exist or cannot be listed.
	ErrInput = errors.New("ingest: input not found")
	// ErrData means the data directory cannot be created or written.
	ErrData = errors.New("ingest: data directory not writable")
)

// ReasonExcluded is the reject reason of a document whose licence is
// accepted by the licence rules but not among the pipeline's licences.
const ReasonExcluded licence.Reason = "excluded-by-pipeline"

// Input is a file or directory to ingest.
type Input struct {
	Path string
	// Format, when not "" or "auto", is what every file under Path must
	// be (a pipeline source's declared format); other files are skipped.
	Format string
	// Source names the pipeline source, for logs.
	Source string
}

// Config configures one run.
type Config struct {
	// DataDir is the data root (DATA/current, DATA/snapshots). Required.
	DataDir string
	// Inputs are files or directories; directories are walked
	// recursively in lexical order.
	Inputs []Input
	// Pipeline, when set, adds its enabled local sources to Inputs and
	// its licence families to the filter. A remote source makes Run fail
	// with ErrRemoteNotImplemented before anything is read.
	Pipeline *pipelines.Pipeline
	// Families restricts the published licence families; empty means all
	// (or the pipeline's).
	Families []licence.Family

	// Workers is the number of files read at once; 0 means GOMAXPROCS.
	Workers int
	// BufferBytes bounds the records one reader may hold while it waits
	// for its turn to hand them to the merger; 0 means 32 MiB.
	BufferBytes int
	// Now is the run time (licence embargoes, snapshot id); zero means
	// time.Now().
	Now time.Time
	// Fresh builds the snapshot from this run's inputs only, instead of
	// carrying over the previous snapshot's documents.
	Fresh bool
	// Merge writes every document into one new segment (a full merge)
	// rather than a delta segment beside the previous snapshot's.
	Merge bool
	// Keep is how many snapshots to retain; 0 means the index default.
	Keep int
	// Records, Touch and KeepRecord are index.Config's: keep the works'
	// source records in the snapshot, and in a delta build merge again
	// the works Touch names with the kept records KeepRecord leaves (the
	// nightly job's delta nights).
	Records    bool
	Touch      []string
	KeepRecord func(origin string, d *ingest.Document) bool

	// Readers overrides detect.Default() (tests).
	Readers detect.Readers
	// Taxonomy overrides topics.Default() (tests).
	Taxonomy *topics.Taxonomy
	// Logger receives progress and per-file lines; nil discards them.
	Logger *slog.Logger
	// Progress, when set, is told about the work as it happens (the CLI
	// draws a progress bar with it).
	Progress Progress
}

// Progress receives progress events. Calls come from several goroutines
// but never at the same time.
type Progress interface {
	// Phase starts a stage: "read" (detect, hash and parse the inputs),
	// then "publish" (merge and write the snapshot), with the files and
	// bytes it will go through; bytes < 0 when unknown.
	Phase(name string, files int, bytes int64)
	// File reports one more file of the stage done, and its size.
	File(path string, bytes int64)
}

func (c *Config) check() error {
	if c.DataDir == "" {
		return fmt.Errorf("%w: no data directory (--data or OPENSHELF_DATA)", ErrConfig)
	}
	if len(c.Inputs) == 0 && c.Pipeline == nil && !c.Merge {
		return fmt.Errorf("%w: no inputs: give paths, a pipeline or a merge", ErrConfig)
	}
	for _, f := range c.Families {
		if !slices.Contains(licence.Families, f) {
			return fmt.Errorf("%w: licence family %q is not one of %v", ErrConfig, f, licence.Families)
		}
	}
	if c.Workers < 0 || c.BufferBytes < 0 || c.Keep < 0 {
		return fmt.Errorf("%w: negative workers, buffer or keep", ErrConfig)
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.BufferBytes == 0 {
		c.BufferBytes = 32 << 20
	}
	if c.Now.IsZero() {
		c.Now = time.Now()
	}
	if c.Readers == nil {
		c.Readers = detect.Default()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Taxonomy == nil {
		t, err := topics.Default()
		if err != nil {
			return err
		}
		c.Taxonomy = t
	}
	return nil
}

// families returns the licence families to publish.
func (c *Config) families() []licence.Family {
	fs := licence.Families
	if c.Pipeline != nil {
		fs = c.Pipeline.AcceptedFamilies()
	}
	if len(c.Families) > 0 {
		var out []licence.Family
		for _, f := range fs {
			if slices.Contains(c.Families, f) {
				out = append(out, f)
			}
		}
		fs = out
	}
	return fs
}

// inputs returns Inputs plus the pipeline's local sources, or
// ErrRemoteNotImplemented naming the remote sources.
func (c *Config) inputs() ([]Input, error) {
	in := slices.Clone(c.Inputs)
	if c.Pipeline == nil {
		return in, nil
	}
	var remote []string
	for _, s := range c.Pipeline.Sources {
		if !s.IsEnabled() {
			continue
		}
		if s.Kind.Remote() {
			remote = append(remote, fmt.Sprintf("%s (%s %s)", s.Name, s.Kind, s.URL))
			continue
		}
		for _, p := range s.Paths {
			in = append(in, Input{Path: c.Pipeline.Resolve(p), Format: s.Format, Source: s.Name})
		}
	}
	if len(remote) > 0 {
		return nil, fmt.Errorf("pipeline %s: %w: only kind = \"local\" sources can run; disable (enabled = false) or fetch these first: %v",
			c.Pipeline.Name, ErrRemoteNotImplemented, remote)
	}
	return in, nil
}

// readersFor returns the readers allowed for a declared format.
func readersFor(all detect.Readers, format string) detect.Readers {
	var keep []detect.Format
	switch format {
	case "", "auto":
		return all
	case "jats":
		keep = []detect.Format{detect.JATS, detect.OAIPMH}
	default:
		keep = []detect.Format{detect.Format(format)}
	}
	out := detect.Readers{}
	for _, f := range keep {
		if r, ok := all[f]; ok {
			out[f] = r
		}
	}
	return out
}
