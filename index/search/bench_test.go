package search_test

// Benchmarks of the engine alone (no HTTP) on a generated corpus:
//
//	go test ./index/search -run XXX -bench . -benchtime 200x                  # 20 000 documents, built in the test
//	go test ./index/search -run XXX -bench . -bench.dir /tmp/se1m -bench.n 1000000 -timeout 2h
//	go test ./index/search -run XXX -bench Queries -bench.q 'cons*;"natural resource"' -bench.dir ...
//
// With -bench.dir the corpus is built there once (internal/corpus, the
// generator of openshelf bench, same seed and vocabulary) and reused.

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	gencorpus "github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/snapshot"
)

var (
	benchDir    = flag.String("bench.dir", "", "data directory of the benchmark corpus (built there if empty); default a temporary one")
	benchN      = flag.Int("bench.n", 20000, "documents in the benchmark corpus")
	benchNoConj = flag.Bool("bench.noconj", false, "conjunctions take the generic path, not the bitset count (conj.go)")
	benchSets   = flag.Bool("bench.sets", true, "keep the sets of frequent terms and expansions (sets.go) within their default budget")
	benchPrefix = flag.Bool("bench.prefixterms", true, "count prefixes from the index's prefix terms where it has them (prefixes.go)")
	benchQ      = flag.String("bench.q", `science;geography business;"natural resource";cons*`,
		"queries of BenchmarkQueries, in the query language, separated by ';'")
)

type benchCorpus struct {
	ix  *search.Index
	gen *gencorpus.Generator
	n   int
}

var openBench = sync.OnceValues(func() (*benchCorpus, error) {
	ctx := context.Background()
	gen, its, dir, err := benchSetup(ctx, "search-bench-")
	if err != nil {
		return nil, err
	}
	if _, err := snapshot.Open(dir); err != nil {
		start := time.Now()
		if _, err := gencorpus.Build(ctx, gencorpus.BuildConfig{DataDir: dir, N: *benchN, Generator: gen, Topics: its}); err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "corpus of %d documents built in %v\n", *benchN, time.Since(start).Round(time.Second))
	}
	snap, err := snapshot.Open(dir)
	if err != nil {
		return nil, err
	}
	opts := search.Options{}
	if !*benchSets {
		opts.Sets = -1
	}
	ix, err := search.Open(snap, nil, opts)
	if err != nil {
		return nil, err
	}
	st, _ := os.Stat(filepath.Join(snap.Dir, filepath.FromSlash(search.File)))
	fmt.Fprintf(os.Stderr, "index: %d documents, %d terms, %d frequent pair words, %d MiB\n",
		ix.Len(), ix.Terms(), len(ix.Pairs().Frequent()), st.Size()>>20)
	return &benchCorpus{ix: ix, gen: gen, n: ix.Len()}, nil
})

// queries of one class, made from random documents so that they match.
func (bc *benchCorpus) queries(class string, k int) []search.Request {
	rng := rand.New(rand.NewPCG(uint64(len(class)), 7))
	var out []search.Request
	for len(out) < k {
		d := bc.gen.Doc(rng.IntN(bc.n))
		words := strings.Fields(strings.ToLower(d.Title))
		if len(words) < 4 {
			continue
		}
		i := rng.IntN(len(words) - 3)
		var q string
		req := search.Request{Limit: 10}
		switch class {
		case "word":
			q = words[i]
		case "and":
			q = words[i] + " " + words[i+2]
		case "and3":
			q = words[i] + " " + words[i+1] + " " + words[i+3]
		case "phrase":
			q = `"` + strings.Join(words[i:i+2], " ") + `"`
		case "boolean":
			q = "(" + words[i] + " OR " + words[i+1] + ") -" + words[i+3]
		case "prefix":
			if len(words[i]) < 4 {
				continue
			}
			q = words[i][:3] + "*"
		case "faceted":
			q = words[i]
			req.Facets = []string{search.FacetLicense, search.FacetTopic, search.FacetYear, search.FacetSource, search.FacetFulltext}
			req.Where = map[string][]string{search.FacetLicense: {"CC-BY"}}
		case "year":
			q = words[i]
			req.Sort = search.ByYearDesc
		}
		n, err := query.Parse(q)
		if err != nil || n == nil {
			continue
		}
		req.Query = n
		out = append(out, req)
	}
	return out
}

func BenchmarkSearch(b *testing.B) {
	bc, err := openBench()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	search.SetConj(bc.ix, !*benchNoConj, 0)
	for _, class := range []string{"word", "and", "and3", "phrase", "boolean", "prefix", "faceted", "year"} {
		qs := bc.queries(class, 200)
		b.Run(class, func(b *testing.B) {
			var total int64
			var cpus []time.Duration
			// Each query's CPU time on this thread: on a shared machine,
			// a single query's wall time measures the neighbours too.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu0 := cpuTime()
			for i := 0; b.Loop(); i++ {
				start := threadCPU()
				res, err := bc.ix.Search(ctx, qs[i%len(qs)])
				if err != nil {
					b.Fatal(err)
				}
				cpus = append(cpus, threadCPU()-start)
				total += res.Total
			}
			b.ReportMetric(float64(total)/float64(b.N), "hits/op")
			// CPU time per query: on a shared machine, wall time measures
			// the neighbours too.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
			reportPercentiles(b, cpus)
		})
	}
	// A deep page: the page after 100 000 listed documents (half the
	// corpus if smaller), by cursor.
	b.Run("cursor-deep", func(b *testing.B) {
		req := search.Request{Limit: min(100_000, bc.n/2)}
		res, err := bc.ix.Search(ctx, req)
		if err != nil || res.Next == "" {
			b.Fatalf("no cursor: %v", err)
		}
		deep := search.Request{Limit: 10, Cursor: res.Next}
		for b.Loop() {
			if _, err := bc.ix.Search(ctx, deep); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Deep pages of a word: page 120 by cursor (10 a page) of the word
	// with the most matches among the class's queries, where the later
	// pages' matches mostly tie on score.
	b.Run("cursor-deep-word", func(b *testing.B) {
		var best search.Request
		var most int64 = -1
		for _, r := range bc.queries("word", 50) {
			res, err := bc.ix.Search(ctx, r)
			if err != nil {
				b.Fatal(err)
			}
			if res.Total > most {
				best, most = r, res.Total
			}
		}
		for range 119 {
			res, err := bc.ix.Search(ctx, best)
			if err != nil || res.Next == "" {
				b.Fatalf("no cursor after %v: %v", best.Cursor, err)
			}
			best.Cursor = res.Next
		}
		b.ReportMetric(float64(most), "hits/op")
		for b.Loop() {
			if _, err := bc.ix.Search(ctx, best); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Resident memory: anonymous (Go heap, the corpus generator) and
	// file-backed (the mapped index pages the queries touched).
	if st, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(st), "\n") {
			if strings.HasPrefix(l, "Rss") || strings.HasPrefix(l, "VmHWM") {
				fmt.Fprintln(os.Stderr, l)
			}
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(os.Stderr, "Go heap in use: %d MiB\n", ms.HeapInuse>>20)
}

// BenchmarkQueries times the queries of -bench.q one by one (CPU time
// on this thread): the slowest queries that openshelf bench names, for
// instance. Each is asked twice first, so that the sets of its terms or
// its expansion are built as a server's are after its first searches
// (sets.go).
func BenchmarkQueries(b *testing.B) {
	bc, err := openBench()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	search.SetConj(bc.ix, !*benchNoConj, 0)
	search.SetPrefixTerms(bc.ix, *benchPrefix)
	for _, q := range strings.Split(*benchQ, ";") {
		n, err := query.Parse(q)
		if err != nil {
			b.Fatalf("%s: %v", q, err)
		}
		req := search.Request{Query: n, Limit: 10}
		b.Run(q, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			// The first two searches build what later ones reuse (sets.go):
			// their CPU is reported apart.
			var total int64
			var ask [2]time.Duration
			for i := range ask {
				start := threadCPU()
				res, err := bc.ix.Search(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				ask[i], total = threadCPU()-start, res.Total
			}
			var cpu time.Duration
			for b.Loop() {
				start := threadCPU()
				if _, err := bc.ix.Search(ctx, req); err != nil {
					b.Fatal(err)
				}
				cpu += threadCPU() - start
			}
			b.ReportMetric(float64(total), "hits")
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(ask[0])/1e6, "ask1-cpu-ms")
			b.ReportMetric(float64(ask[1])/1e6, "ask2-cpu-ms")
		})
	}
}

// reportPercentiles reports the percentiles of the single queries' CPU
// times.
func reportPercentiles(b *testing.B, cpus []time.Duration) {
	slices.Sort(cpus)
	pct := func(q float64) float64 { return float64(cpus[int(q*float64(len(cpus)-1))]) / 1e6 }
	b.ReportMetric(pct(0.5), "p50-cpu-ms")
	b.ReportMetric(pct(0.99), "p99-cpu-ms")
	b.ReportMetric(pct(1), "max-cpu-ms")
}

// cpuTime is the process's user and system time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// threadCPU is the calling thread's CPU time (clock_gettime
// CLOCK_THREAD_CPUTIME_ID, Linux), 0 if the clock is unavailable.
func threadCPU() time.Duration {
	const clockThreadCPUTime = 3
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
