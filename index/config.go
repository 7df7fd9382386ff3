package index

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/snapshot"
)

// Errors; test with errors.Is.
var (
	// ErrConfig reports an invalid Config.
	ErrConfig = errors.New("index: invalid configuration")
	// ErrLocked means another build (or a replica's pull) holds the
	// data directory's lock.
	ErrLocked = snapshot.ErrLocked
	// ErrUnsorted means accepted documents were not added in strictly
	// increasing id order (use ingest.Merger, which emits that order).
	ErrUnsorted = errors.New("index: documents not in increasing id order")
	// ErrInvalidDocument means an accepted document cannot be published
	// (bad id, licence fields, topic slug...). It is listed in rejects.
	ErrInvalidDocument = errors.New("index: invalid document")
	// ErrNoTopic means an accepted document has no topic. The caller
	// guarantees at least one; the document is listed in rejects.
	ErrNoTopic = errors.New("index: published document without a topic")
	// ErrFinished means the Builder was used after Finish or Abort.
	ErrFinished = errors.New("index: builder already finished")
)

// Config configures a snapshot build.
type Config struct {
	// DataDir is the data root holding current and snapshots/.
	DataDir string
	// Inputs are recorded in the manifest (see HashInput).
	Inputs []snapshot.Input
	// FeedInputs, when set, is called by Build once the feed has returned,
	// and what it returns is recorded instead of Inputs: a caller that
	// hashes its input files while reading them knows them only then.
	FeedInputs func() []snapshot.Input
	// Now is the run time: the snapshot id and created time, and the time
	// licences are decided for. Zero means time.Now().
	Now    time.Time
	Logger *slog.Logger
	// Keep is how many snapshots to retain, current included; 0 means 3.
	// The snapshot current points to is never deleted.
	Keep int
	// Fresh ignores the previous snapshot: the new one holds only the
	// documents of this run's inputs. By default (incremental) the previous
	// snapshot's documents are carried over.
	Fresh bool
	// Merge carries every document of the previous snapshot into the new
	// one, which is then a single segment in its own directory: a full
	// merge. By default a build whose previous snapshot allows it is a
	// delta build (delta.go): it writes one new segment with the
	// documents the run adds or changes and shares the others.
	Merge bool
	// Policy names everything besides a document's own records that
	// decides whether and how it is published: the licence rules'
	// version, the caller's licence filter and topic rules (Prepare). A
	// delta build leaves untouched documents as they are, so a build
	// whose Policy differs from the previous snapshot's is a full merge,
	// which decides every document again.
	Policy string
	// Tiers is the merge policy of delta builds (delta_merge.go).
	Tiers Tiers
	// Records keeps, in every segment written, the source records each
	// work was merged from, rejected works included (records.go), and
	// makes builds carry those records instead of the merged documents
	// wherever the previous segments have them: a record that leaves
	// (KeepRecord) or changes then merges the work again exactly as a build from
	// all the sources' records would. A build over a snapshot that keeps
	// records keeps them whatever Records says.
	Records bool
	// Touch names ids whose works a delta build merges again although
	// the run brings no record of them: works one of whose records left
	// a source (a PubMed deletion, a withdrawn PMC article, an OpenAlex
	// merge). Only segments with records can honour it.
	Touch []string
	// KeepRecord, when set, decides which carried source records stay: a
	// record for which it returns false leaves its work (the nightly
	// job's source filters). It is called with the record's Origin.
	KeepRecord func(origin string, d *ingest.Document) bool

	// hook, when set, is called at the named stages of a build, where
	// the crash tests kill it: "linked" (a delta build's previous
	// segments linked) and "switch" (published, current not switched).
	hook func(stage string)
	// Topics is the taxonomy, for the names and parents in topics.parquet.
	// Every listed topic gets a row and a bundle, empty when it has no
	// documents; a document's topic missing from the list is kept with its
	// slug as name.
	Topics []Topic
	// Prepare, when set, is called on every accepted merged document before
	// it is written (Build only), e.g. to assign topics. An error stops the
	// build.
	Prepare func(*ingest.Document) error
	// Problem receives the problems reported to the sink during Build.
	Problem func(ingest.Problem)
	// Decide overrides licence.Decide for merged documents (tests).
	Decide func([]licence.Evidence, time.Time) licence.Decision

	// NoPhrasePairs leaves the word pairs out of the search index
	// (search.PairTerm): phrases are then checked word by word, as in an
	// index written before pairs. For tests and measurements.
	NoPhrasePairs bool
	// PairSample is the number of first documents whose words choose the
	// frequent pair words of the search index (default 8192).
	PairSample int
	// PairMinDF is the fewest documents of a word pair of the search
	// index with a word neither stop nor frequent (search.Writer.DropRarePairs):
	// rarer ones are left out and checked word by word. 0 picks
	// search.DefaultPairMinDF; 1 keeps every pair.
	PairMinDF int
	// JoinSegments are the directories of the segments (oldest first)
	// that the index built here will be searched with, as the newest,
	// when the build is not a delta build: its word pairs then follow
	// theirs as a delta build's new segment's follow the previous
	// snapshot's segments (pairsample.go). For tests and measurements
	// that build an archive's segments one at a time.
	JoinSegments []string

	// Tuning; zero values pick the defaults.
	RowGroupRows int // rows per row group of documents.parquet (default 50 000)
	SortMemory   int // bytes of records per external-sort buffer (default defaultSortMemory)
}

// defaultSortMemory is the postings sort's buffer size (the other sorts
// take a fraction of it). A sort holds two buffers, each with a 16-byte
// span a record (postings records average about 20 bytes) and the radix
// sort's scratch spans: at 64 MiB that was 300 MiB, most of the live heap
// of a build, and under the ingest's memory limit the collector ran 80
// times in a build of 20 000 JATS articles and the runtime returned and
// faulted back pages all along. At 32 MiB it ran 45 times, and the build
// took 7.5 % less CPU (a third less system time) for twice as many runs to
// merge (BENCHMARKS.md, "Where a full build's CPU goes").
const defaultSortMemory = 32 << 20

// Topic is one entry of the taxonomy.
type Topic struct {
	Slug   string
	Name   string
	Parent string // slug, "" at the top level
}

// Reject is a record that could not be published, for rejects.parquet.
// Builder.Add produces them from rejected documents; callers may add their
// own (e.g. unreadable records) with Builder.Reject.
type Reject struct {
	Path     string // source file (and member)
	SourceID string // id of the record in its source, or project id
	Reason   string // licence.Reason or a pipeline reason ("no-id", "invalid")
	Detail   string
	Evidence []licence.Evidence
	Sources  []string
}

// Reasons the builder itself gives in rejects, besides licence reasons.
const (
	ReasonNoID    = "no-id"   // no usable identifier: cannot be addressed
	ReasonInvalid = "invalid" // accepted but unpublishable (ErrInvalidDocument, ErrNoTopic)
)

func (c *Config) defaults() error {
	if c.DataDir == "" {
		return fmt.Errorf("%w: DataDir is empty", ErrConfig)
	}
	if c.Now.IsZero() {
		c.Now = time.Now()
	}
	c.Now = c.Now.UTC()
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Keep <= 0 {
		c.Keep = 3
	}
	if c.Decide == nil {
		c.Decide = licence.Decide
	}
	if c.RowGroupRows <= 0 {
		c.RowGroupRows = 50_000
	}
	if c.SortMemory <= 0 {
		c.SortMemory = defaultSortMemory
	}
	if c.PairSample <= 0 {
		c.PairSample = defaultPairSample
	}
	c.Tiers.defaults()
	for _, t := range c.Topics {
		if !snapshot.ValidSlug(t.Slug) {
			return fmt.Errorf("%w: topic slug %q", ErrConfig, t.Slug)
		}
		if t.Parent != "" && !snapshot.ValidSlug(t.Parent) {
			return fmt.Errorf("%w: parent slug %q of topic %q", ErrConfig, t.Parent, t.Slug)
		}
	}
	return nil
}

// HashInput describes an input file for the manifest: its size and SHA-256.
func HashInput(path, kind string) (snapshot.Input, error) {
	f, err := os.Open(path)
	if err != nil {
		return snapshot.Input{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return snapshot.Input{}, fmt.Errorf("index: hash %s: %w", path, err)
	}
	return snapshot.Input{Path: path, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: n, Kind: kind}, nil
}
