package corpus

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/fixtures"
)

var buildDocs = flag.Int("build-docs", 20_000, "documents built by BenchmarkBuild")

// BenchmarkBuild times Build (generation, snapshot builder, search index)
// with the bench's vocabulary; run it with -cpuprofile to see where a
// corpus build spends its time, e.g.
//
//	go test ./internal/corpus -run '^$' -bench Build -benchtime 1x -build-docs 100000 -cpuprofile cpu.out
func BenchmarkBuild(b *testing.B) {
	dir, err := fixtures.Find()
	if err != nil {
		b.Skip(err)
	}
	v, err := ReadVocabulary(context.Background(), VocabularyConfig{}, dir)
	if err != nil {
		b.Fatal(err)
	}
	slugs, its, err := DefaultTopics()
	if err != nil {
		b.Fatal(err)
	}
	g, err := New(v, Config{Seed: 1, Topics: slugs, Documents: *buildDocs})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		_, err := Build(context.Background(), BuildConfig{DataDir: filepath.Join(b.TempDir(), "data"), N: *buildDocs,
			Generator: g, Topics: its, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(*buildDocs)/time.Since(start).Minutes(), "docs/min")
	}
}
