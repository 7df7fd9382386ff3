package corpus

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/pipelines/topics"
	"github.com/openshelf/openshelf/snapshot"
)

// DefaultTopics returns the curated taxonomy (pipelines/topics.csv) as the
// slugs for Config.Topics and the topics for BuildConfig.Topics.
func DefaultTopics() (slugs []string, taxonomy []index.Topic, err error) {
	tax, err := topics.Default()
	if err != nil {
		return nil, nil, err
	}
	for _, t := range tax.Topics() {
		slugs = append(slugs, t.Slug)
		taxonomy = append(taxonomy, index.Topic{Slug: t.Slug, Name: t.Name, Parent: t.Parent})
	}
	return slugs, taxonomy, nil
}

// BuildConfig configures Build.
type BuildConfig struct {
	// DataDir receives the snapshot (DATA/current). Required.
	DataDir string
	// N is the number of documents, 1..MaxDocuments+1.
	N int
	// Generator makes the documents. Required.
	Generator *Generator
	// Topics is the taxonomy for topics.parquet (names and parents).
	Topics []index.Topic
	// Now is the snapshot time; zero means time.Now().
	Now time.Time
	// Workers generate documents in parallel; 0 means GOMAXPROCS.
	Workers int
	Logger  *slog.Logger
	// Progress, when set, is called every 100 000 documents.
	Progress func(done int)
	// Index tunes the builder (RowGroupRows, SortMemory); other fields
	// are set by Build.
	Index index.Config
	// Segments, when more than 1, builds the snapshot as that many
	// segments, as nights of delta builds leave it: a fresh build of the
	// first 55 % of the documents (firstShare), then Segments-1 delta builds of
	// equal parts of the rest, none merged. The live documents are the
	// same N, so a peer's index of them answers alike.
	Segments int
}

// firstShare is the share of the documents that a build of Segments
// segments writes in its first, as an archive's first full build before
// its nights.
const firstShare = 0.55

// batchSize is how many documents a worker makes per hand-over.
const batchSize = 256

// Build generates N documents and writes them, in id order, as a fresh
// snapshot with index.NewBuilder, then publishes it; with Segments, the
// rest of them as delta builds after it.
func Build(ctx context.Context, cfg BuildConfig) (*snapshot.Manifest, error) {
	if cfg.DataDir == "" || cfg.Generator == nil {
		return nil, fmt.Errorf("%w: DataDir and Generator are required", ErrConfig)
	}
	if cfg.N < 1 || cfg.N > MaxDocuments+1 {
		return nil, fmt.Errorf("%w: N=%d outside 1..%d", ErrConfig, cfg.N, MaxDocuments+1)
	}
	if cfg.Now.IsZero() {
		cfg.Now = time.Now()
	}
	if cfg.Segments < 1 {
		cfg.Segments = 1
	}
	first := cfg.N
	if cfg.Segments > 1 {
		first = max(1, int(float64(cfg.N)*firstShare))
	}
	if cfg.N-first < cfg.Segments-1 { // a delta build of nothing
		return nil, fmt.Errorf("%w: %d segments of %d documents", ErrConfig, cfg.Segments, cfg.N)
	}
	icfg := cfg.Index
	icfg.DataDir, icfg.Fresh, icfg.Topics, icfg.Now, icfg.Logger = cfg.DataDir, true, cfg.Topics, cfg.Now, cfg.Logger
	b, err := index.NewBuilder(icfg)
	if err != nil {
		return nil, err
	}
	defer b.Abort()
	if err := buildRange(ctx, cfg, 0, first, b.Add); err != nil {
		return nil, err
	}
	m, err := b.Finish(ctx)
	if err != nil {
		return nil, err
	}
	// The nights: each a delta build of its part, as a new segment that
	// no merge joins to another (the test of the server over segments).
	icfg.Fresh, icfg.Keep = false, 2
	icfg.Tiers = index.Tiers{PerTier: cfg.Segments + 1}
	rest := cfg.Segments - 1
	for k := range rest {
		from, to := first+(cfg.N-first)*k/rest, first+(cfg.N-first)*(k+1)/rest
		icfg.Now = cfg.Now.Add(time.Duration(k+1) * time.Second)
		m, err = index.Build(ctx, icfg, func(ctx context.Context, sink ingest.Sink) error {
			return buildRange(ctx, cfg, from, to, sink.Document)
		})
		if err != nil {
			return nil, fmt.Errorf("corpus: segment %d: %w", k+1, err)
		}
	}
	return m, nil
}

// buildRange generates documents from to to in parallel and hands them
// to add in id order, reporting progress as it goes.
func buildRange(ctx context.Context, cfg BuildConfig, from, to int, add func(*ingest.Document) error) error {
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Batches are handed out in order; each carries its own result
	// channel, queued in the same order, so the writer sees documents in
	// id order whatever worker finishes first.
	type batch struct {
		start int
		out   chan []*ingest.Document
	}
	jobs := make(chan batch)
	queue := make(chan batch, 4*workers)
	go func() {
		defer close(jobs)
		defer close(queue)
		for s := from; s < to; s += batchSize {
			bt := batch{start: s, out: make(chan []*ingest.Document, 1)}
			select {
			case queue <- bt:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- bt:
			case <-ctx.Done():
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		go func() {
			for bt := range jobs {
				end := min(bt.start+batchSize, to)
				docs := make([]*ingest.Document, 0, end-bt.start)
				for i := bt.start; i < end; i++ {
					docs = append(docs, cfg.Generator.Doc(i))
				}
				bt.out <- docs
			}
		}()
	}
	done := from
	for bt := range queue {
		var docs []*ingest.Document
		select {
		case docs = <-bt.out:
		case <-ctx.Done():
			return ctx.Err()
		}
		for _, d := range docs {
			if err := add(d); err != nil {
				return fmt.Errorf("corpus: document %s: %w", d.ID, err)
			}
			done++
			if cfg.Progress != nil && done%100_000 == 0 {
				cfg.Progress(done)
			}
		}
	}
	return ctx.Err()
}
