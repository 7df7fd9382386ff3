package archive

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/snapshot"
)

// BenchmarkContentLookup measures a paid content lookup (the handler's
// work, without HTTP or payment) from the content store and, for
// comparison, through DuckDB over Parquet, on a corpus built with
// internal/corpus and cached:
//
//	OPENSHELF_BENCH_CONTENT_DOCS=1000000 go test -run '^$' -bench BenchmarkContentLookup -benchtime 2000x ./serve/archive
//
// OPENSHELF_BENCH_CONTENT_DOCS (default 20 000) sets the corpus size,
// OPENSHELF_BENCH_DIR the cache (default $TMPDIR/openshelf-bench-content).
// cpu-µs/op is the process's CPU time per lookup (DuckDB runs threads of
// its own).
func BenchmarkContentLookup(b *testing.B) {
	ctx := context.Background()
	_, g := benchStore(b)
	n := g.catalog.Len()
	for _, bc := range []struct {
		name string
		fn   func(context.Context, string) (any, error)
	}{
		{"document", func(ctx context.Context, id string) (any, error) { return g.document(ctx, id) }},
		{"fulltext", func(ctx context.Context, id string) (any, error) { return g.fulltext(ctx, id) }},
		{"references", func(ctx context.Context, id string) (any, error) { return g.references(ctx, id) }},
		{"document-duckdb", func(ctx context.Context, id string) (any, error) { return g.documentSQL(ctx, id) }},
		{"fulltext-duckdb", func(ctx context.Context, id string) (any, error) { return g.fulltextSQL(ctx, id) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			cpu0 := cpuTime()
			b.ResetTimer()
			for range b.N {
				id := string(g.catalog.ID(int32(rng.IntN(n))))
				v, err := bc.fn(ctx, id)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := encodeJSON(v); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func contentCorpus(b *testing.B) string {
	b.Helper()
	n := 20_000
	if v, err := strconv.Atoi(os.Getenv("OPENSHELF_BENCH_CONTENT_DOCS")); err == nil && v > 0 {
		n = v
	}
	root := os.Getenv("OPENSHELF_BENCH_DIR")
	if root == "" {
		root = filepath.Join(os.TempDir(), "openshelf-bench-content")
	}
	dir := filepath.Join(root, fmt.Sprintf("content-%d", n))
	stamp := filepath.Join(dir, "built")
	if want, err := os.ReadFile(stamp); err == nil {
		if cur, err := snapshot.Current(dir); err == nil && cur == string(want) {
			return dir
		}
	}
	os.RemoveAll(dir)
	fx, err := fixtures.Find()
	if err != nil {
		b.Skipf("no fixture corpus to take the vocabulary from: %v", err)
	}
	v, err := corpus.ReadVocabulary(context.Background(), corpus.VocabularyConfig{}, fx)
	if err != nil {
		b.Fatal(err)
	}
	g, err := corpus.New(v, corpus.Config{Seed: 1, Topics: []string{"bench"}})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	m, err := corpus.Build(context.Background(), corpus.BuildConfig{DataDir: dir, N: n, Generator: g,
		Topics: []index.Topic{{Slug: "bench", Name: "Benchmark"}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("built %d documents in %v", n, time.Since(start))
	if err := os.WriteFile(stamp, []byte(m.ID), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// benchStore opens the store over the cached benchmark corpus and holds
// its generation until the benchmark ends.
func benchStore(b *testing.B) (*Store, *generation) {
	st, err := OpenStore(context.Background(), StoreConfig{DataDir: contentCorpus(b)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	g, err := st.acquire()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(g.release)
	return st, g
}
