package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openshelf/openshelf/bench"
	"github.com/openshelf/openshelf/internal/fixtures"
)

func init() {
	register(command{name: "bench", summary: "measure the read server on a large synthetic corpus, side by side with PostgreSQL and Lucene", run: runBench})
}

func runBench(ctx context.Context, e *env, args []string) int {
	if code, ok := runBenchMode(ctx, e, args); ok { // `openshelf bench ingest ...` (bench_modes.go)
		return code
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var cfg bench.Config
	var out, logLevel, serverBin, serveArgs string
	var seed uint64
	fs.StringVar(&cfg.Dir, "dir", filepath.Join(os.TempDir(), "openshelf-bench"), "work directory: cached corpus (DIR/data) and PostgreSQL cluster (DIR/pg)")
	fs.IntVar(&cfg.N, "n", 1_000_000, "documents in the corpus")
	fs.Uint64Var(&seed, "seed", 1, "corpus seed")
	fs.StringVar(&cfg.Fixtures, "fixtures", "", "real corpus to read the vocabulary from (default: ../shared/fixtures or $OPENSHELF_FIXTURES)")
	fs.BoolVar(&cfg.Rebuild, "rebuild", false, "rebuild the corpus and reload PostgreSQL even when cached")
	fs.DurationVar(&cfg.Duration, "duration", 30*time.Second, "measuring time of the search scenario per system; catalog scenarios get half")
	fs.DurationVar(&cfg.Warmup, "warmup", 3*time.Second, "unrecorded warm-up before each scenario")
	fs.DurationVar(&cfg.StatsDuration, "stats-duration", 10*time.Second, "measuring time of /api/stats per system")
	fs.IntVar(&cfg.Concurrency, "concurrency", 2, "requests in flight for search and catalog")
	fs.IntVar(&cfg.StatsConcurrency, "stats-concurrency", 8, "requests in flight for /api/stats")
	fs.IntVar(&cfg.Queries, "queries", 700, "search queries, spread over the query classes")
	fs.BoolVar(&cfg.Postgres, "postgres", true, "measure PostgreSQL full-text search side by side")
	fs.StringVar(&cfg.PGBin, "pg-bin", "/usr/lib/postgresql/15/bin", "directory of initdb and pg_ctl")
	fs.StringVar(&cfg.PGUser, "pg-user", "postgres", "OS user running PostgreSQL when bench runs as root")
	fs.BoolVar(&cfg.Lucene, "lucene", true, "measure Apache Lucene (Debian liblucene8-java, a Java harness) side by side")
	fs.StringVar(&cfg.LuceneJars, "lucene-jars", "/usr/share/java", "directory of the lucene-*.jar files")
	fs.StringVar(&cfg.LuceneHeap, "lucene-heap", "1g", "JVM heap (-Xmx) of the Lucene harness")
	fs.IntVar(&cfg.DeepQueries, "deep-queries", 3, "queries paged deep by cursor")
	fs.IntVar(&cfg.DeepPages, "deep-pages", 120, "pages followed per deep query")
	fs.DurationVar(&cfg.DeepBudget, "deep-budget", 90*time.Second, "time limit of the deep-page scenario per system")
	fs.DurationVar(&cfg.CompareBudget, "compare-budget", 5*time.Minute, "time limit of the comparison of totals with each peer (20 queries a class)")
	fs.IntVar(&cfg.KnownItems, "known-items", 200, "known-item probes for recall@1 and recall@10")
	fs.IntVar(&cfg.FacetChecks, "facet-checks", 10, "faceted queries recounted by DuckDB over the Parquet (0: none)")
	fs.IntVar(&cfg.Segments, "segments", 1, "build our snapshot as this many segments, as nights of delta builds leave it (a full build of 55 % of the documents, then delta builds of the rest); the peers index the same documents")
	fs.BoolVar(&cfg.RebuildOurs, "rebuild-ours", false, "rebuild the snapshot (our index) but keep PostgreSQL's and Lucene's loads of the same corpus")
	fs.BoolVar(&cfg.Reindex, "reindex", false, "rebuild only the cached snapshot's search index (search/index.bin) with this binary's format, from the snapshot's Parquet tables, keeping the rest and the peers' loads")
	fs.StringVar(&serveArgs, "serve-args", "", "extra flags for the measured server, space-separated (e.g. \"-search-cache 512MiB\")")
	fs.BoolVar(&cfg.Turns, "turns", true, "before each system's measurements, drop the other systems' files from the page cache and read its own (as if it ran alone)")
	fs.BoolVar(&cfg.PrepareOnly, "prepare", false, "only build (or reuse) the corpus and the peers' loads, then exit")
	fs.StringVar(&serverBin, "server-bin", "", "openshelf binary to measure (default: this one), e.g. a build of another branch")
	fs.StringVar(&out, "out", "", "also write the Markdown report to this file")
	fs.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	fs.Usage = flagUsage(fs, e.stderr, "openshelf bench [flags]\n       (the ingest benchmark: openshelf bench ingest -h)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if err := applyEnv(fs, e.getenv); err != nil {
		fmt.Fprintln(e.stderr, "openshelf bench:", err)
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "openshelf bench: unexpected arguments %q\n", fs.Args())
		return exitUsage
	}
	if cfg.FacetChecks <= 0 {
		cfg.FacetChecks = -1 // none; bench.Config reads 0 as its default
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		fmt.Fprintf(e.stderr, "openshelf bench: -log-level: %v\n", err)
		return exitUsage
	}
	cfg.Seed = seed
	cfg.ServerArgs = strings.Fields(serveArgs)
	cfg.Logger = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	cfg.Out = e.stdout
	if cfg.Fixtures == "" {
		dir, err := fixtures.Find()
		if err != nil {
			fmt.Fprintln(e.stderr, "openshelf bench: no fixture corpus found; give -fixtures:", err)
			return exitUsage
		}
		cfg.Fixtures = dir
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(e.stderr, "openshelf bench:", err)
		return exitFailure
	}
	if serverBin != "" {
		exe = serverBin
	}
	cfg.Server = []string{exe, "serve"}
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(e.stderr, "openshelf bench:", err)
		if errors.Is(err, bench.ErrConfig) {
			return exitUsage
		}
		return exitFailure
	}
	if out != "" && !cfg.PrepareOnly {
		f, err := os.Create(out)
		if err != nil {
			fmt.Fprintln(e.stderr, "openshelf bench:", err)
			return exitFailure
		}
		rep.Markdown(f)
		if err := f.Close(); err != nil {
			fmt.Fprintln(e.stderr, "openshelf bench:", err)
			return exitFailure
		}
	}
	return exitOK
}
