package index_test

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/bundle"
	"github.com/openshelf/openshelf/snapshot"
)

var framesDocs = flag.Int("frames-docs", 20_000, "documents whose topic bundles BenchmarkBundleFrames cuts again")

// BenchmarkBundleFrames measures what the size of a bundle's frames costs
// (bundle.Cut): it builds -frames-docs generated documents, reads their
// topic bundles back and cuts their lines again into frames ending where
// a line id's FNV-1a hash is a multiple of L, for several L and zstd
// levels. Per L and level it reports the bundles' compressed MiB, the CPU
// of encoding them (one goroutine), and the share of their bytes in
// frames holding a line of a random 1 % of the documents: what a 1 %
// delta build encodes and writes again.
//
//	go test ./index -run '^$' -bench BundleFrames -benchtime 1x -frames-docs 30000
func BenchmarkBundleFrames(b *testing.B) {
	n := *framesDocs
	g, topics := benchCorpus(b, n)
	data := filepath.Join(b.TempDir(), "data")
	cfg := index.Config{DataDir: data, Now: time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Topics: topics, Fresh: true}
	if _, err := index.Build(context.Background(), cfg, corpusFeed(g, n)); err != nil {
		b.Fatal(err)
	}
	s, err := snapshot.Open(data)
	if err != nil {
		b.Fatal(err)
	}
	var bundles []bundle.Lines
	for _, f := range s.Manifest.Files {
		if strings.HasPrefix(f.Name, snapshot.BundlesDir+"/") && strings.HasSuffix(f.Name, snapshot.BundleExt) {
			lines, err := bundle.ReadLines(filepath.Join(s.Dir, filepath.FromSlash(f.Name)))
			if err != nil {
				b.Fatal(err)
			}
			bundles = append(bundles, lines)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	changed := map[string]bool{}
	for _, bl := range bundles {
		for _, id := range bl.IDs {
			if _, ok := changed[id]; !ok {
				changed[id] = rng.IntN(100) == 0
			}
		}
	}
	for b.Loop() {
		for _, level := range []zstd.EncoderLevel{zstd.SpeedDefault, zstd.SpeedFastest} {
			enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
			if err != nil {
				b.Fatal(err)
			}
			for _, l := range []uint64{32, 16, 8, 4} {
				var all, dirty int64
				c0 := cpuTime()
				for _, bl := range bundles {
					var chunk []byte
					touched := false
					for i, id := range bl.IDs {
						chunk = append(chunk, bl.Lines[i]...)
						touched = touched || changed[id]
						h := fnv.New64a()
						h.Write([]byte(id))
						if h.Sum64()%l == 0 || i == len(bl.IDs)-1 {
							n := int64(len(enc.EncodeAll(chunk, nil)))
							all += n
							if touched {
								dirty += n
							}
							chunk, touched = chunk[:0], false
						}
					}
				}
				name := fmt.Sprintf("%s-L%d", level, l)
				b.ReportMetric((cpuTime() - c0).Seconds(), name+"-cpu-s")
				b.ReportMetric(float64(all)/(1<<20), name+"-MiB")
				b.ReportMetric(100*float64(dirty)/float64(all), name+"-rewritten-%")
			}
		}
	}
}
