package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/openshelf/openshelf/index/catalog"
	isearch "github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/corpus"
)

// ErrConfig reports an unusable Config.
var ErrConfig = errors.New("bench: invalid configuration")

// Config configures a run.
type Config struct {
	// Dir holds the cached corpus (Dir/data) and PostgreSQL cluster
	// (Dir/pg). Required.
	Dir string
	// N is the number of documents; Seed selects the corpus.
	N    int
	Seed uint64
	// Fixtures is the real corpus the vocabulary is read from;
	// Vocabulary sizes it (zero: the defaults, 300 000 words).
	Fixtures   string
	Vocabulary corpus.VocabularyConfig
	// Rebuild builds the corpus (and reloads PostgreSQL) even when cached.
	Rebuild bool
	// Segments, when more than 1, builds our snapshot as that many
	// segments, as nights of delta builds leave an archive (a full build
	// of 55 % of the documents, then delta builds of equal parts of the
	// rest; corpus.BuildConfig.Segments): the same live documents, so the
	// peers' loads are the same. A cached snapshot is reused only if it
	// was built with as many.
	Segments int
	// Server is the command line of the server, "serve" subcommand
	// included (e.g. [/path/to/openshelf serve]); the run adds -data,
	// -addr and the other flags it needs.
	Server []string
	// Duration is how long each scenario is measured per system, after
	// Warmup; StatsDuration the same for /api/stats.
	Duration, Warmup, StatsDuration time.Duration
	// Concurrency is the number of requests in flight for search and
	// catalog; StatsConcurrency for /api/stats.
	Concurrency, StatsConcurrency int
	// Queries is the size of the search query list.
	Queries int
	// FirstSearches is the number of queries of each class of the
	// first-searches scenario (first.go), each searched once: 0 for 150,
	// negative for none.
	FirstSearches int
	// Postgres enables the PostgreSQL side.
	Postgres bool
	PGBin    string // directory of initdb, pg_ctl (Debian: /usr/lib/postgresql/15/bin)
	PGUser   string // OS user running PostgreSQL (we run as root; postgres refuses root)
	// Lucene enables the Apache Lucene side (Debian's liblucene8-java
	// driven by bench/lucene/LuceneBench.java); LuceneJars is where the
	// jars are (/usr/share/java), LuceneHeap the JVM's -Xmx.
	Lucene     bool
	LuceneJars string
	LuceneHeap string
	// DeepQueries queries are paged DeepPages pages deep by cursor, for
	// at most DeepBudget per system.
	DeepQueries, DeepPages int
	DeepBudget             time.Duration
	// CompareBudget bounds the comparison of totals with each peer.
	CompareBudget time.Duration
	// KnownItems is the number of known-item probes (recall@1, @10).
	KnownItems int
	// FacetChecks is how many faceted queries DuckDB recounts: 0 for
	// 10, negative for none (at 10M documents each recount takes a
	// minute).
	FacetChecks int
	// RebuildOurs rebuilds the snapshot (our index) but keeps the peers'
	// loads when they were made from the same corpus.
	RebuildOurs bool
	// Reindex rebuilds only the cached snapshot's search index
	// (search/index.bin) with this build's writer, from the snapshot's
	// Parquet tables (index.Reindex), keeping the rest of the snapshot and
	// the peers' loads: a new index format measured without regenerating
	// the corpus.
	Reindex bool
	// ServerArgs are extra flags for the server (e.g. -search-cache).
	ServerArgs []string
	// Turns gives each system the page cache for its measurements
	// (giveTurn): the others' files are dropped from it and its own read
	// in, as if it ran alone on the machine.
	Turns bool
	// PrepareOnly builds (or reuses) the corpus and the peers' loads, then
	// returns without measuring: the long part of a 10M run, started early.
	PrepareOnly bool
	// Out receives the Markdown report.
	Out    io.Writer
	Logger *slog.Logger
}

func (c *Config) defaults() error {
	if c.Dir == "" {
		return fmt.Errorf("%w: no directory", ErrConfig)
	}
	abs, err := filepath.Abs(c.Dir)
	if err != nil {
		return err
	}
	c.Dir = abs
	if c.N <= 0 {
		return fmt.Errorf("%w: N must be positive", ErrConfig)
	}
	if len(c.Server) == 0 {
		return fmt.Errorf("%w: no server command", ErrConfig)
	}
	if c.Duration <= 0 {
		c.Duration = 30 * time.Second
	}
	if c.Warmup < 0 {
		c.Warmup = 0
	}
	if c.StatsDuration <= 0 {
		c.StatsDuration = 10 * time.Second
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 2
	}
	if c.StatsConcurrency <= 0 {
		c.StatsConcurrency = 8
	}
	if c.Queries <= 0 {
		c.Queries = 700
	}
	if c.FirstSearches == 0 {
		c.FirstSearches = defaultFirstSearches
	}
	if c.LuceneJars == "" {
		c.LuceneJars = "/usr/share/java"
	}
	if c.LuceneHeap == "" {
		c.LuceneHeap = "1g"
	}
	if c.DeepQueries <= 0 {
		c.DeepQueries = 3
	}
	if c.DeepPages <= 0 {
		c.DeepPages = 120
	}
	if c.CompareBudget <= 0 {
		c.CompareBudget = 5 * time.Minute
	}
	if c.DeepBudget <= 0 {
		c.DeepBudget = 90 * time.Second
	}
	if c.KnownItems <= 0 {
		c.KnownItems = 200
	}
	if c.FacetChecks == 0 {
		c.FacetChecks = 10
	}
	if c.PGBin == "" {
		c.PGBin = "/usr/lib/postgresql/15/bin"
	}
	if c.PGUser == "" {
		c.PGUser = "postgres"
	}
	if c.Out == nil {
		c.Out = os.Stdout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// scenarioOrder is the order of the report's rows, whatever the order of
// the measurements.
var scenarioOrder = []string{scenarioFirst, "search", "catalog", "catalog by topic", "stats"}

// Run performs the whole benchmark and writes the report to cfg.Out.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	rep := &Report{N: cfg.N, Started: time.Now().UTC(), Concurrency: cfg.Concurrency,
		StatsConcurrency: cfg.StatsConcurrency, Duration: cfg.Duration, StatsDuration: cfg.StatsDuration}
	rep.LoadBefore = loadAverage()

	c, err := ensureCorpus(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	rep.Snapshot, rep.BuildTime, rep.SnapshotBytes = c.snapshotID, c.buildTime, c.bytes
	rep.Segments = max(len(c.snap.Manifest.Segments), 1)
	rep.ReindexTime, rep.IndexBytes = c.reindexTime, c.indexBytes

	var pg *pgSide
	if cfg.Postgres {
		pg, err = startPostgres(ctx, &cfg, c)
		if err != nil {
			return nil, err
		}
		defer pg.stop()
		rep.PGLoadTime, rep.PGReused, rep.PGBytes = pg.loadTime, pg.reused, pg.bytes
	}
	var lc *luceneSide
	if cfg.Lucene {
		lc, err = startLucene(ctx, &cfg, c)
		if err != nil {
			return nil, err
		}
		defer lc.stop()
		rep.LuceneIndexTime, rep.LuceneReused, rep.LuceneBytes = lc.indexTime, lc.reused, lc.bytes
	}
	if cfg.PrepareOnly {
		return rep, nil
	}

	rng := rand.New(rand.NewPCG(cfg.Seed, 99))
	stats := sampleTerms(c.sampleDocs(20_000, rng), c.n)
	randomDoc := func() *ingest.Document { return c.gen.Doc(rng.IntN(c.n)) }
	queries := makeQueryList(stats, cfg.Queries, rng, randomDoc)
	probes := makeKnownItems(cfg.KnownItems, rng, func() (int, *ingest.Document) {
		i := rng.IntN(c.n)
		return i, c.gen.Doc(i)
	})
	// Deep pages need long result lists: words among the 50 most
	// frequent.
	var deepQs []squery
	top := stats.mostFrequent(50)
	for len(deepQs) < cfg.DeepQueries && len(top) > 0 {
		deepQs = append(deepQs, squery{class: classDeep, node: word(top[rng.IntN(len(top))])})
	}
	var firstQs []squery
	if cfg.FirstSearches > 0 {
		seen := map[string]bool{}
		for _, q := range append(slices.Clone(queries), deepQs...) {
			seen[q.label()] = true
		}
		frng := rand.New(rand.NewPCG(cfg.Seed, 101))
		firstQs = makeFirstSearches(stats, cfg.FirstSearches, frng, func() *ingest.Document { return c.gen.Doc(frng.IntN(c.n)) }, seen)
	}
	log.Info("bench: queries ready", "queries", len(queries), "known_items", len(probes), "deep", len(deepQs))

	srv, err := startServer(ctx, &cfg, c.dataDir)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	rep.ServerStart = srv.startup
	rep.RSSAfterLoad = srv.memory()
	log.Info("bench: server ready", "startup", srv.startup, "rss", rep.RSSAfterLoad.RSS)

	ours := oursSystem(srv.base)
	ours.files = []string{filepath.Join(c.snap.Dir, filepath.FromSlash(isearch.File)),
		filepath.Join(c.snap.Dir, filepath.FromSlash(catalog.File))}
	systems := []system{ours}
	var peer system
	if pg != nil {
		peer = pgSystem(pg.base)
		peer.files = []string{filepath.Join(pg.data, "base")}
		systems = append(systems, peer)
	}
	if lc != nil {
		l := luceneSystem(lc.base)
		l.files = []string{lc.index}
		systems = append(systems, l)
	}
	if len(systems) > 1 {
		rep.ByClass = compareByClass(ctx, systems, queries, 20, cfg.CompareBudget)
	}
	if cfg.FacetChecks > 0 {
		if rep.Facets, err = duckFacets(ctx, c.snap, systems, queries, cfg.FacetChecks); err != nil {
			return nil, err
		}
	}
	for _, s := range systems {
		log.Info("bench: known items", "system", s.name)
		rep.Quality = append(rep.Quality, knownItems(ctx, s, probes))
	}

	searchTargets := func(s system) []target { return targetsOf(s, queries) }
	offsets := make([]int, 2000)
	for i := range offsets {
		offsets[i] = rng.IntN(max(cfg.N-20, 1))
	}
	catalogTargets := func(s system) []target {
		out := make([]target, len(offsets))
		for i, o := range offsets {
			out[i] = target{class: "catalog", path: s.catalog + fmt.Sprint(o)}
		}
		return out
	}
	topicTargets := make([]target, 0, 2000)
	for len(topicTargets) < 2000 && len(c.topics) > 0 {
		t := c.topics[rng.IntN(len(c.topics))]
		if t.docs < 1 {
			continue
		}
		topicTargets = append(topicTargets, target{class: "catalog by topic",
			path: fmt.Sprintf("/api/catalog?limit=20&topic=%s&offset=%d", t.slug, rng.Int64N(t.docs))})
	}

	run := func(scenario string, s system, ts []target, conc int, d time.Duration) {
		log.Info("bench: measuring", "scenario", scenario, "system", s.name, "duration", d, "concurrency", conc)
		res := drive(ctx, s.base, ts, conc, cfg.Warmup, d)
		res.Scenario, res.System = scenario, s.name
		rep.Results = append(rep.Results, res)
		log.Info("bench: done", "scenario", scenario, "system", s.name, "requests", res.Requests,
			"p50", res.All.P50, "p99", res.All.P99, "rps", res.RPS, "errors", res.Errors)
	}
	// Each system is measured in one go (searches, deep pages, catalog,
	// statistics), so that its turn of the page cache covers all of it.
	for _, s := range systems {
		if cfg.Turns {
			t := giveTurn(ctx, s, systems)
			log.Info("bench: page cache turn", "system", s.name, "read", t.Read, "took", t.Took, "skipped", t.Skipped)
			rep.Turns = append(rep.Turns, t)
		}
		if len(firstQs) > 0 {
			// Before the search scenario, whose queries would warm the
			// caches the first searches must find cold.
			log.Info("bench: measuring", "scenario", scenarioFirst, "system", s.name, "queries", len(firstQs))
			res := driveOnce(ctx, s.base, targetsOf(s, firstQs), cfg.Concurrency)
			res.Scenario, res.System = scenarioFirst, s.name
			rep.Results = append(rep.Results, res)
			log.Info("bench: done", "scenario", scenarioFirst, "system", s.name, "requests", res.Requests,
				"p50", res.All.P50, "p99", res.All.P99, "errors", res.Errors)
		}
		run("search", s, searchTargets(s), cfg.Concurrency, cfg.Duration)
		log.Info("bench: deep pages", "system", s.name)
		rep.Deep = append(rep.Deep, deepPages(ctx, s, deepQs, cfg.DeepPages, 10, cfg.DeepBudget))
		switch s.name {
		case ours.name:
			run("catalog", s, catalogTargets(s), cfg.Concurrency, cfg.Duration/2)
			run("catalog by topic", s, topicTargets, cfg.Concurrency, cfg.Duration/2)
		case peer.name:
			run("catalog", s, catalogTargets(s), cfg.Concurrency, cfg.Duration/2)
		}
		if s.stats != "" {
			run("stats", s, []target{{class: "stats", path: s.stats}}, cfg.StatsConcurrency, cfg.StatsDuration)
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	slices.SortStableFunc(rep.Results, func(a, b Result) int {
		return slices.Index(scenarioOrder, a.Scenario) - slices.Index(scenarioOrder, b.Scenario)
	})
	rep.RSSEnd = srv.memory()
	if pg != nil {
		rep.PGRSS = pg.memory()
	}
	if lc != nil {
		rep.LuceneRSS = lc.memory()
	}
	rep.LoadAfter = loadAverage()
	rep.Finished = time.Now().UTC()
	rep.Markdown(cfg.Out)
	return rep, nil
}

// targetsOf are the searches of qs on system s, first pages of 10 hits.
func targetsOf(s system, qs []squery) []target {
	out := make([]target, len(qs))
	for i, q := range qs {
		out[i] = target{class: q.class, path: s.searchPath(q, 10, ""), label: q.label()}
	}
	return out
}
