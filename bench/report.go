package bench

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"
)

// Report is what a run measured.
type Report struct {
	N                             int
	Snapshot                      string
	Segments                      int // of the snapshot, 1 if built whole
	SnapshotBytes                 int64
	BuildTime                     time.Duration
	ReindexTime                   time.Duration // this run's index.Reindex, 0 when none
	IndexBytes                    int64         // search/index.bin
	ServerStart                   time.Duration
	RSSAfterLoad, RSSEnd, PGRSS   Memory
	PGLoadTime                    time.Duration
	PGReused                      bool
	PGBytes                       int64
	Concurrency, StatsConcurrency int
	Duration, StatsDuration       time.Duration
	ByClass                       map[string][]ClassAgreement // peer -> totals compared with ours, per class
	Facets                        FacetCheck
	Quality                       []Quality
	Deep                          []Deep
	Turns                         []Turn // page-cache turns, when Config.Turns
	LuceneIndexTime               time.Duration
	LuceneReused                  bool
	LuceneBytes                   int64
	LuceneRSS                     Memory
	Results                       []Result
	Started, Finished             time.Time
	LoadBefore, LoadAfter         string
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// Markdown writes the report as Markdown tables.
func (r *Report) Markdown(w io.Writer) {
	segs := ""
	if r.Segments > 1 {
		segs = fmt.Sprintf(" in %d segments", r.Segments)
	}
	fmt.Fprintf(w, "Run %s → %s, %d documents (snapshot %s%s, %s on disk), GOMAXPROCS %d, load average before %s, after %s.\n\n",
		r.Started.Format(time.RFC3339), r.Finished.Format(time.RFC3339), r.N, r.Snapshot, segs, mib(r.SnapshotBytes),
		runtime.GOMAXPROCS(0), r.LoadBefore, r.LoadAfter)
	fmt.Fprintf(w, "| scenario | system | concurrency | requests | req/s | p50 ms | p95 ms | p99 ms | max ms | errors |\n")
	fmt.Fprintf(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, res := range r.Results {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %.0f | %s | %s | %s | %s | %d |\n", res.Scenario, res.System, res.Concurrency,
			res.Requests, res.RPS, ms(res.All.P50), ms(res.All.P95), ms(res.All.P99), ms(res.All.Max), res.Errors)
	}
	// Search by query class, both systems side by side.
	var search []Result
	for _, res := range r.Results {
		if res.Scenario == "search" && len(res.ByClass) > 0 {
			search = append(search, res)
		}
	}
	if len(search) > 0 {
		classHeader(w, "Search latency by query class (ms, p50 / p99)", search, "---:|")
		for _, cl := range classOrder {
			fmt.Fprintf(w, "| %s |", cl)
			for _, s := range search {
				l := s.ByClass[cl]
				fmt.Fprintf(w, " %s / %s (n=%d) |", ms(l.P50), ms(l.P99), l.N)
			}
			fmt.Fprintln(w)
		}
		slowestMarkdown(w, search)
		sameQueriesMarkdown(w, search)
	}
	firstMarkdown(w, r.Results)
	fmt.Fprintf(w, "\nMemory and set-up:\n\n")
	fmt.Fprintf(w, "- openshelf serve: RSS %s after loading (start-up %s), %s at the end (%s of it file pages, %s anonymous), peak (VmHWM) %s; search/index.bin %s.\n",
		mib(r.RSSAfterLoad.RSS), r.ServerStart.Round(100*time.Millisecond), mib(r.RSSEnd.RSS), mib(r.RSSEnd.File),
		mib(r.RSSEnd.Anon), mib(r.RSSEnd.HWM), mib(r.IndexBytes))
	if r.PGRSS.RSS > 0 || r.PGBytes > 0 {
		load := "reused from a previous run"
		if !r.PGReused {
			load = "loaded in " + r.PGLoadTime.Round(time.Second).String()
		}
		fmt.Fprintf(w, "- PostgreSQL: table and indexes %s (%s); processes' PSS at the end %s.\n",
			mib(r.PGBytes), load, mib(r.PGRSS.RSS))
	}
	if r.LuceneRSS.RSS > 0 || r.LuceneBytes > 0 {
		load := "reused from a previous run"
		if !r.LuceneReused {
			load = "indexed in " + r.LuceneIndexTime.Round(time.Second).String()
		}
		fmt.Fprintf(w, "- Lucene: index %s (%s, force-merged to one segment); JVM RSS at the end %s, peak %s.\n",
			mib(r.LuceneBytes), load, mib(r.LuceneRSS.RSS), mib(r.LuceneRSS.HWM))
	}
	if r.BuildTime > 0 {
		fmt.Fprintf(w, "- Corpus build (generation + index.Builder): %s.\n", r.BuildTime.Round(time.Second))
	}
	if r.ReindexTime > 0 {
		fmt.Fprintf(w, "- Search index rebuilt by this run (index.Reindex from the snapshot's Parquet): %s.\n",
			r.ReindexTime.Round(time.Second))
	}
	turnsMarkdown(w, r.Turns)
	r.searchMarkdown(w)
	for _, res := range r.Results {
		if res.FirstError != "" {
			fmt.Fprintf(w, "- %s/%s: first error: %s\n", res.Scenario, res.System, res.FirstError)
		}
	}
}

// classHeader writes the title and header of a table with a row per
// query class and a column per system, whose cells are aligned by align.
func classHeader(w io.Writer, title string, search []Result, align string) {
	fmt.Fprintf(w, "\n%s:\n\n| query class |", title)
	for _, s := range search {
		fmt.Fprintf(w, " %s |", s.System)
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat(align, len(search)))
}

// sameQueriesMarkdown compares, class by class, each peer with the first
// system (ours) on the queries the peer answered in its timed run, by
// each query's median: a peer that answers a few queries in 30 s has no
// p99 to set beside ours, but each of its answers has a counterpart.
func sameQueriesMarkdown(w io.Writer, search []Result) {
	if len(search) < 2 {
		return
	}
	ours, peers := search[0], search[1:]
	classHeader(w, fmt.Sprintf("The same queries: %s faster on k of n, and the median of the queries' medians (ms, %s / peer)",
		ours.System, ours.System), peers, "---:|")
	for _, cl := range classOrder {
		fmt.Fprintf(w, "| %s |", cl)
		for _, p := range peers {
			var a, b []time.Duration
			faster := 0
			for l, q := range p.Queries {
				o, ok := ours.Queries[l]
				if q.Class != cl || !ok {
					continue
				}
				a, b = append(a, o.Median), append(b, q.Median)
				if o.Median < q.Median {
					faster++
				}
			}
			if len(a) == 0 {
				fmt.Fprintf(w, " |")
				continue
			}
			fmt.Fprintf(w, " %d of %d, %s / %s |", faster, len(a), ms(summarise(a).P50), ms(summarise(b).P50))
		}
		fmt.Fprintln(w)
	}
}

// slowestMarkdown writes each system's slowest query of each class: the
// queries behind a class's p99.
func slowestMarkdown(w io.Writer, search []Result) {
	classHeader(w, "Slowest query of each class (highest median over its repeats, ms; repeats)", search, "---|")
	for _, cl := range classOrder {
		fmt.Fprintf(w, "| %s |", cl)
		for _, s := range search {
			if q, ok := s.Slowest[cl]; ok {
				fmt.Fprintf(w, " `%s` %s (%d) |", strings.ReplaceAll(q.Label, "|", `\|`), ms(q.Median), q.N)
			} else {
				fmt.Fprintf(w, " |")
			}
		}
		fmt.Fprintln(w)
	}
}

// searchMarkdown writes the tables of issue #21: totals per class,
// deep pages, known items, DuckDB's facet check.
func (r *Report) searchMarkdown(w io.Writer) {
	for peer, cls := range r.ByClass {
		fmt.Fprintf(w, "\nTotals, openshelf vs %s (first 20 queries of each class, within the comparison's time budget):\n\n", peer)
		fmt.Fprintf(w, "| query class | equal / compared | refused | example of a difference |\n|---|---:|---:|---|\n")
		for _, a := range cls {
			fmt.Fprintf(w, "| %s | %d / %d | %d | %s |\n", a.Class, a.Equal, a.Compared, a.Failed, mdEscape(a.Example))
		}
	}
	if len(r.Deep) > 0 {
		fmt.Fprintf(w, "\nDeep pages (cursor, 10 hits a page, one request at a time):\n\n")
		fmt.Fprintf(w, "| system | queries × depth | pages | p50 ms | p99 ms | deepest page p50 / max ms | failures |\n|---|---:|---:|---:|---:|---:|---|\n")
		for _, d := range r.Deep {
			fail := fmt.Sprint(d.Failures)
			if d.Error != "" {
				fail += ": " + mdEscape(d.Error)
			}
			if d.OutOfTime {
				fail += " (time budget ended the scenario)"
			}
			fmt.Fprintf(w, "| %s | %d × %d | %d | %s | %s | %s / %s | %s |\n", d.System, d.Queries, d.Depth, d.Pages,
				ms(d.Latency.P50), ms(d.Latency.P99), ms(d.Last.P50), ms(d.Last.Max), fail)
		}
	}
	if len(r.Quality) > 0 {
		fmt.Fprintf(w, "\nKnown items (a 3–6-word title fragment of a random document):\n\n")
		fmt.Fprintf(w, "| system | probes | words recall@1 | words recall@10 | phrase recall@1 | phrase recall@10 | failures |\n|---|---:|---:|---:|---:|---:|---|\n")
		pct := func(k, n int) string {
			if n == 0 {
				return "-"
			}
			return fmt.Sprintf("%.3f", float64(k)/float64(n))
		}
		for _, q := range r.Quality {
			fail := fmt.Sprint(q.Failures)
			if q.Error != "" {
				fail += ": " + mdEscape(q.Error)
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s |\n", q.System, q.Probes, pct(q.WordsAt1, q.Probes),
				pct(q.WordsAt10, q.Probes), pct(q.PhraseAt1, q.Probes), pct(q.PhraseAt10, q.Probes), fail)
		}
	}
	if r.Facets.Queries > 0 {
		fmt.Fprintf(w, "\nFacet counts (license, topic, year) of %d single-word faceted queries recounted by DuckDB scanning documents.parquet: DuckDB p50 %s ms, max %s ms.",
			r.Facets.Queries, ms(r.Facets.DuckDB.P50), ms(r.Facets.DuckDB.Max))
		for sys, n := range r.Facets.Equal {
			fmt.Fprintf(w, " %s equal for %d.", sys, n)
		}
		for sys, e := range r.Facets.Example {
			fmt.Fprintf(w, " %s: %s.", sys, mdEscape(e))
		}
		fmt.Fprintln(w)
	}
}

func mdEscape(s string) string {
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}
