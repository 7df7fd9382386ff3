package index_test

import (
	"cmp"
	"context"
	"flag"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/snapshot"
)

var (
	deltaDocs     = flag.Int("delta-docs", 20_000, "documents of the archive BenchmarkDeltaBuild starts from")
	deltaShare    = flag.Float64("delta-share", 0.01, "share of the archive a delta build of BenchmarkDeltaBuild touches")
	deltaProfile  = flag.String("delta-fullprofile", "", "write a CPU profile of BenchmarkDeltaBuild's full build to `file`")
	deltaProfile2 = flag.String("delta-deltaprofile", "", "write a CPU profile of BenchmarkDeltaBuild's delta build to `file`")
	deltaRecords  = flag.Bool("delta-records", false, "keep the works' source records (index.Config.Records, as the nightly job's builds do)")
	deltaNights   = flag.Int("delta-nights", 1, "delta builds of BenchmarkDeltaBuild, one a night, before the merge")
	deltaMerge    = flag.Bool("delta-merge", true, "end BenchmarkDeltaBuild with a full merge")
)

// BenchmarkDeltaBuild measures what a night costs: a full build of
// -delta-docs generated documents through index.Build (the merger, as
// `openshelf ingest` uses it), then a build of a delta of -delta-share of
// the archive: half new documents, 40 % revisions of existing ones (a new
// title) and 10 % deletions. It reports the CPU (user+system) and wall
// time of both builds and the disk each snapshot directory holds on its
// own (files not hard-linked from another directory, measured right after
// the build; -v logs the delta's by kind of file). The full build's
// CPU includes generating the documents, which gen-cpu-s reports alone
// (the delta generates 1 % of them). With -delta-nights N, N-1 more such
// deltas follow, of other documents, one a night: the mean and the
// largest own disk of these later deltas, which may copy the live frames
// of bundle packs mostly dead (delta_bundles.go). Last, a full merge of
// the segmented snapshot (Config.Merge): its time and documents a
// second (-delta-merge=false leaves it out), and the process's peak RSS.
// -delta-records builds as the nightly job does, keeping the works'
// source records. E.g.
//
//	go test ./index -run '^$' -bench DeltaBuild -benchtime 1x -delta-docs 100000 -delta-fullprofile full.pprof
func BenchmarkDeltaBuild(b *testing.B) {
	n := *deltaDocs
	g, topics := benchCorpus(b, n)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	now := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	for b.Loop() {
		// Generating the documents is part of the full build's feed:
		// measured alone first, so that it can be told apart.
		gen, _ := measure(func() (*snapshot.Manifest, error) {
			for i := range n {
				g.Doc(i)
			}
			return nil, nil
		})
		b.Logf("generating %d documents took %.1f s of CPU", n, gen.cpu.Seconds())
		data := filepath.Join(b.TempDir(), "data")
		cfg := index.Config{DataDir: data, Now: now, Logger: quiet, Topics: topics, Fresh: true, Records: *deltaRecords}
		full := buildMeasured(b, *deltaProfile, cfg, corpusFeed(g, n))
		fullOwn := ownBytes(b, filepath.Join(data, snapshot.SnapshotsDir, full.man.ID))
		k := max(int(float64(n)**deltaShare), 10)
		added, deleted := k/2, k-k/2-k*4/10
		cfg.Fresh, cfg.Now, cfg.Keep = false, now.Add(24*time.Hour), *deltaNights+2
		delta := buildMeasured(b, *deltaProfile2, cfg, deltaFeed(g, n, k, 0, cfg.Now))
		if want := int64(n + added - deleted); delta.man.Counts.Accepted != want {
			b.Fatalf("delta build published %d documents, want %d", delta.man.Counts.Accepted, want)
		}
		// Measured before the merge, which may link the delta's files.
		deltaDir := filepath.Join(data, snapshot.SnapshotsDir, delta.man.ID)
		deltaOwn := ownBytes(b, deltaDir)
		logOwnBytes(b, deltaDir)
		// Later nights: as many deltas again, each of other documents.
		var nightsOwn []float64
		for night := 1; night < *deltaNights; night++ {
			cfg.Now = now.Add(time.Duration(night+1) * 24 * time.Hour)
			r := buildMeasured(b, "", cfg, deltaFeed(g, n, k, night, cfg.Now))
			own := ownBytes(b, filepath.Join(data, snapshot.SnapshotsDir, r.man.ID))
			b.Logf("night %d: %.2f MiB of own disk", night+1, float64(own)/(1<<20))
			nightsOwn = append(nightsOwn, float64(own)/(1<<20))
		}
		report := func(name string, r result, own int64) {
			b.ReportMetric(r.cpu.Seconds(), name+"-cpu-s")
			b.ReportMetric(r.wall.Seconds(), name+"-wall-s")
			b.ReportMetric(float64(own)/(1<<20), name+"-own-MiB")
		}
		b.ReportMetric(gen.cpu.Seconds(), "gen-cpu-s")
		report("full", full, fullOwn)
		report("delta", delta, deltaOwn)
		b.ReportMetric(delta.cpu.Seconds()/full.cpu.Seconds(), "delta/full-cpu")
		if *deltaMerge {
			// A forced full merge of the segmented snapshot (openshelf
			// ingest -merge with no input): every live document read back
			// and written into one segment.
			cfg.Merge, cfg.Now = true, now.Add(time.Duration(*deltaNights+1)*24*time.Hour)
			merge := buildMeasured(b, "", cfg, nil)
			report("merge", merge, ownBytes(b, filepath.Join(data, snapshot.SnapshotsDir, merge.man.ID)))
			b.ReportMetric(float64(merge.man.Counts.Accepted)/merge.wall.Seconds(), "merge-docs/s")
		}
		b.ReportMetric(float64(maxRSS())/(1<<20), "peak-rss-MiB")
		if len(nightsOwn) > 0 {
			var sum float64
			for _, o := range nightsOwn {
				sum += o
			}
			b.ReportMetric(sum/float64(len(nightsOwn)), "later-delta-own-MiB")
			b.ReportMetric(slices.Max(nightsOwn), "later-delta-max-own-MiB")
		}
	}
}

// benchCorpus returns the generator of the bench corpus of n documents
// and the topics of its taxonomy.
func benchCorpus(b *testing.B, n int) (*corpus.Generator, []index.Topic) {
	v, err := corpus.ReadVocabulary(context.Background(), corpus.VocabularyConfig{}, fixtures.Dir(b))
	if err != nil {
		b.Fatal(err)
	}
	slugs, topics, err := corpus.DefaultTopics()
	if err != nil {
		b.Fatal(err)
	}
	g, err := corpus.New(v, corpus.Config{Seed: 1, Topics: slugs, Documents: n})
	if err != nil {
		b.Fatal(err)
	}
	return g, topics
}

// corpusFeed is the feed of the first n documents of g.
func corpusFeed(g *corpus.Generator, n int) index.Feed {
	return func(_ context.Context, sink ingest.Sink) error {
		for i := range n {
			if err := sink.Document(g.Doc(i)); err != nil {
				return err
			}
		}
		return nil
	}
}

// deltaFeed is the feed of a delta of k documents of an archive of the
// first n documents of g: k/2 new documents, 40 % revisions (a new title)
// and 10 % deletions spread evenly over the archive. Each night (0 the
// first delta) takes other documents.
func deltaFeed(g *corpus.Generator, n, k, night int, now time.Time) index.Feed {
	added, revised := k/2, k*4/10
	deleted := k - added - revised
	return func(_ context.Context, sink ingest.Sink) error {
		for i := range added {
			if err := sink.Document(g.Doc(n + night*added + i)); err != nil {
				return err
			}
		}
		step := n / (revised + deleted)
		for j := range revised + deleted {
			i := (j*step + 3 + 5*night) % n
			if j >= revised {
				if err := sink.Delete(ingest.Deletion{ID: corpus.ID(i), Origin: "bench"}); err != nil {
					return err
				}
				continue
			}
			d := g.Doc(i)
			d.Title += " (revised)"
			d.Updated = now
			if err := sink.Document(d); err != nil {
				return err
			}
		}
		return nil
	}
}

// buildMeasured runs index.Build, under a CPU profile written to profile
// unless it is "", and measures it.
func buildMeasured(b *testing.B, profile string, cfg index.Config, feed index.Feed) result {
	if profile != "" {
		defer startProfile(b, profile)()
	}
	r, err := measure(func() (*snapshot.Manifest, error) { return index.Build(context.Background(), cfg, feed) })
	if err != nil {
		b.Fatal(err)
	}
	return r
}

type result struct {
	man       *snapshot.Manifest
	cpu, wall time.Duration
}

// measure runs fn and returns the process's CPU time (user and system,
// every goroutine) and the wall time it took.
func measure(fn func() (*snapshot.Manifest, error)) (result, error) {
	c0, t0 := cpuTime(), time.Now()
	m, err := fn()
	return result{man: m, cpu: cpuTime() - c0, wall: time.Since(t0)}, err
}

// maxRSS is the process's peak resident set in bytes.
func maxRSS() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Maxrss << 10
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ownBytes is the disk used by the regular files under dir that have no
// other link: what removing the directory would free.
func ownBytes(tb testing.TB, dir string) int64 {
	var n int64
	for _, b := range ownKinds(tb, dir) {
		n += b
	}
	return n
}

// logOwnBytes logs what ownBytes counts under dir, by kind of file (the
// path with its file name's stem left out), largest first.
func logOwnBytes(tb testing.TB, dir string) {
	kinds := ownKinds(tb, dir)
	for _, k := range slices.SortedFunc(maps.Keys(kinds), func(a, b string) int { return cmp.Compare(kinds[b], kinds[a]) }) {
		tb.Logf("own disk of %s: %.2f MiB", k, float64(kinds[k])/(1<<20))
	}
}

// ownKinds sums the sizes of the regular files under dir that have no
// other link by kind of file (fileKind).
func ownKinds(tb testing.TB, dir string) map[string]int64 {
	kinds := map[string]int64{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		kinds[fileKind(rel)] += fi.Size()
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return kinds
}

// fileKind names the kind of a snapshot's file: its directory and its
// extension.
func fileKind(rel string) string {
	d, base := filepath.Split(rel)
	ext := base
	if i := strings.Index(base, "."); i >= 0 {
		ext = "*" + base[i:]
	}
	return d + ext
}

func startProfile(tb testing.TB, path string) func() {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		tb.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
