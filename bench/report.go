package bench

import (
	"fmt"
	"io"
	"runtime"
	"time"
)

// Report is what a run measured.
type Report struct {
	N                             int
	Snapshot                      string
	SnapshotBytes                 int64
	BuildTime                     time.Duration
	ServerStart                   time.Duration
	RSSAfterLoad, RSSEnd, PGRSS   Memory
	PGLoadTime                    time.Duration
	PGReused                      bool
	PGBytes                       int64
	Concurrency, StatsConcurrency int
	Duration, StatsDuration       time.Duration
	Agreement                     Agreement
	Results                       []Result
	Started, Finished             time.Time
	LoadBefore, LoadAfter         string
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// Markdown writes the report as Markdown tables.
func (r *Report) Markdown(w io.Writer) {
	fmt.Fprintf(w, "Run %s → %s, %d documents (snapshot %s, %s on disk), GOMAXPROCS %d, load average before %s, after %s.\n\n",
		r.Started.Format(time.RFC3339), r.Finished.Format(time.RFC3339), r.N, r.Snapshot, mib(r.SnapshotBytes),
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
		fmt.Fprintf(w, "\nSearch latency by query class (ms, p50 / p99):\n\n| query class |")
		for _, s := range search {
			fmt.Fprintf(w, " %s |", s.System)
		}
		fmt.Fprintf(w, "\n|---|")
		for range search {
			fmt.Fprintf(w, "---:|")
		}
		fmt.Fprintln(w)
		for _, cl := range classOrder {
			fmt.Fprintf(w, "| %s |", cl)
			for _, s := range search {
				l := s.ByClass[cl]
				fmt.Fprintf(w, " %s / %s (n=%d) |", ms(l.P50), ms(l.P99), l.N)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "\nMemory and set-up:\n\n")
	fmt.Fprintf(w, "- openshelf serve: RSS %s after loading (start-up %s), %s at the end, peak (VmHWM) %s.\n",
		mib(r.RSSAfterLoad.RSS), r.ServerStart.Round(100*time.Millisecond), mib(r.RSSEnd.RSS), mib(r.RSSEnd.HWM))
	if r.PGRSS.RSS > 0 || r.PGBytes > 0 {
		load := "reused from a previous run"
		if !r.PGReused {
			load = "loaded in " + r.PGLoadTime.Round(time.Second).String()
		}
		fmt.Fprintf(w, "- PostgreSQL: table and indexes %s (%s); processes' PSS at the end %s.\n",
			mib(r.PGBytes), load, mib(r.PGRSS.RSS))
	}
	if r.BuildTime > 0 {
		fmt.Fprintf(w, "- Corpus build (generation + index.Builder): %s.\n", r.BuildTime.Round(time.Second))
	}
	if r.Agreement.Compared > 0 {
		fmt.Fprintf(w, "- Totals agree for %d of %d queries compared.", r.Agreement.Equal, r.Agreement.Compared)
		for _, d := range r.Agreement.Differences {
			fmt.Fprintf(w, " %s;", d)
		}
		fmt.Fprintln(w)
	}
	for _, res := range r.Results {
		if res.FirstError != "" {
			fmt.Fprintf(w, "- %s/%s: first error: %s\n", res.Scenario, res.System, res.FirstError)
		}
	}
}
