package search_test

import (
	"context"
	"flag"
	"runtime"
	"testing"
	"time"
)

var (
	benchClass      = flag.String("bench.class", "first-prefix", "BenchmarkFirstClass: the first-search class")
	benchMergedSide = flag.Bool("bench.merged", false, "BenchmarkFirstClass: search the merged index instead of the segments")
)

// BenchmarkFirstClass searches the queries of one first-search class of
// BenchmarkSegments (-bench.class) once each on fresh segments (or, with
// -bench.merged, a fresh merged index), each loop on new instances, and
// reports the thread CPU a query: a profile (-cpuprofile) of first
// searches alone.
func BenchmarkFirstClass(b *testing.B) {
	sb, err := openSegBench()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for class, qs := range sb.firstSearches(200) {
		if class != *benchClass {
			continue
		}
		sb.sameAnswers(b, class, qs)
		warm := sb.queries("word", 1)[0]
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var cpu time.Duration
		var n int
		for b.Loop() {
			b.StopTimer()
			ix, m, done, err := sb.fresh()
			if err != nil {
				b.Fatal(err)
			}
			run := m.Search
			if *benchMergedSide {
				run = ix.Search
			}
			if _, err := run(ctx, warm); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			start := threadCPU()
			for _, r := range qs {
				if _, err := run(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
			cpu += threadCPU() - start
			n += len(qs)
			b.StopTimer()
			done()
			b.StartTimer()
		}
		b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-us/query")
	}
}

// BenchmarkRepeatedClass searches the queries of one first-search class
// of BenchmarkSegments (-bench.class) on the segments (or, with
// -bench.merged, the merged index) once to fill what the side keeps for
// them, then again in turn, and reports the thread CPU of a repeat: what
// a query asked again costs (a profile with -cpuprofile).
func BenchmarkRepeatedClass(b *testing.B) {
	sb, err := openSegBench()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for class, qs := range sb.firstSearches(200) {
		if class != *benchClass {
			continue
		}
		sb.sameAnswers(b, class, qs)
		run := sb.multi.Search
		if *benchMergedSide {
			run = sb.bc.ix.Search
		}
		for _, r := range qs {
			if _, err := run(ctx, r); err != nil {
				b.Fatal(err)
			}
		}
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var cpu time.Duration
		n := 0
		for i := 0; b.Loop(); i++ {
			start := threadCPU()
			if _, err := run(ctx, qs[i%len(qs)]); err != nil {
				b.Fatal(err)
			}
			cpu += threadCPU() - start
			n++
		}
		b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-us/query")
	}
}
