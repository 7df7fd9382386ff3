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
	"time"
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
	// Fixtures is the real corpus the vocabulary is read from.
	Fixtures string
	// Rebuild builds the corpus (and reloads PostgreSQL) even when cached.
	Rebuild bool
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
	// Postgres enables the PostgreSQL side.
	Postgres bool
	PGBin    string // directory of initdb, pg_ctl (Debian: /usr/lib/postgresql/15/bin)
	PGUser   string // OS user running PostgreSQL (we run as root; postgres refuses root)
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
		c.Queries = 600
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
	if cfg.PrepareOnly {
		return rep, nil
	}

	rng := rand.New(rand.NewPCG(cfg.Seed, 99))
	queries, err := makeQueries(ctx, c, cfg.Queries, rng)
	if err != nil {
		return nil, err
	}
	log.Info("bench: queries ready", "queries", len(queries))

	srv, err := startServer(ctx, &cfg, c.dataDir)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	rep.ServerStart = srv.startup
	rep.RSSAfterLoad = srv.memory()
	log.Info("bench: server ready", "startup", srv.startup, "rss", rep.RSSAfterLoad.RSS)

	var pg *pgSide
	if cfg.Postgres {
		pg, err = startPostgres(ctx, &cfg, c)
		if err != nil {
			return nil, err
		}
		defer pg.stop()
		rep.PGLoadTime, rep.PGReused, rep.PGBytes = pg.loadTime, pg.reused, pg.bytes
	}

	ours := system{name: "openshelf", base: srv.base, search: "/api/search?limit=10&q=",
		catalog: "/api/catalog?limit=20&offset=", stats: "/api/stats"}
	var peer system
	if pg != nil {
		peer = system{name: "PostgreSQL", base: pg.base, search: "/search?limit=10&q=",
			catalog: "/catalog?limit=20&offset=", stats: "/stats"}
		rep.Agreement, err = compareTotals(ctx, ours, peer, queries, 100)
		if err != nil {
			return nil, err
		}
	}

	searchTargets := func(s system) []target {
		out := make([]target, len(queries))
		for i, q := range queries {
			out[i] = target{class: q.class, path: s.search + urlQuery(q.text)}
		}
		return out
	}
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
	run("search", ours, searchTargets(ours), cfg.Concurrency, cfg.Duration)
	if pg != nil {
		run("search", peer, searchTargets(peer), cfg.Concurrency, cfg.Duration)
	}
	run("catalog", ours, catalogTargets(ours), cfg.Concurrency, cfg.Duration/2)
	run("catalog by topic", ours, topicTargets, cfg.Concurrency, cfg.Duration/2)
	if pg != nil {
		run("catalog", peer, catalogTargets(peer), cfg.Concurrency, cfg.Duration/2)
	}
	run("stats", ours, []target{{class: "stats", path: ours.stats}}, cfg.StatsConcurrency, cfg.StatsDuration)
	if pg != nil {
		run("stats", peer, []target{{class: "stats", path: peer.stats}}, cfg.StatsConcurrency, cfg.StatsDuration)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	rep.RSSEnd = srv.memory()
	if pg != nil {
		rep.PGRSS = pg.memory()
	}
	rep.LoadAfter = loadAverage()
	rep.Finished = time.Now().UTC()
	rep.Markdown(cfg.Out)
	return rep, nil
}

// system is one side of the comparison: its base URL and request paths.
type system struct {
	name, base, search, catalog, stats string
}
