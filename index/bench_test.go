package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
)

// benchDoc makes a synthetic document of a few kB with a Zipf-like
// vocabulary, so that postings and compression behave like real text.
func benchDoc(rng *rand.Rand, zipf *rand.Zipf, i int, topics []string) *ingest.Document {
	words := func(n int) string {
		var b strings.Builder
		for j := 0; j < n; j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "w%x", zipf.Uint64())
		}
		return b.String()
	}
	d := &ingest.Document{
		PMCID: fmt.Sprint(i + 1), DOI: fmt.Sprintf("10.5555/bench.%d", i), PMID: fmt.Sprint(i + 10_000_000),
		Title: words(12), Abstract: words(200), Keywords: []string{words(2), words(1), words(2)},
		Venue: "Bench Journal", Year: 1990 + i%35, Type: "research-article", Language: "en",
		Sources: []string{"jats:pmc"}, Origin: fmt.Sprintf("bench/%d.nxml", i),
		Topics: []string{topics[rng.IntN(len(topics))]},
	}
	for a := 0; a < 1+rng.IntN(8); a++ {
		d.Authors = append(d.Authors, ingest.Author{Name: "Author" + words(1) + " " + words(1)})
	}
	for s := 0; s < 4; s++ {
		d.Sections = append(d.Sections, ingest.Section{Title: words(2), Paragraphs: []string{words(60), words(60)}})
	}
	for r := 0; r < 10; r++ {
		d.References = append(d.References, ingest.Reference{Title: words(8), Year: "2001", Raw: words(20)})
	}
	d.Licence = testDecide(nil, testNow)
	if i%10 != 9 {
		d.Licence = testDecide([]licence.Evidence{{Kind: licence.KindJATSHref, Source: licence.SourcePMC, Value: "cc-by"}}, testNow)
	}
	return d
}

// BenchmarkBuild50k builds a snapshot of 50 000 synthetic documents through
// the whole path (merger, tables, search, bundles, publication) and reports
// documents per second and the peak Go heap.
func BenchmarkBuild50k(b *testing.B) {
	const n = 50_000
	topics := []string{"neuroscience", "genetics", "ecology", "biology", "physics", "chemistry"}
	for b.Loop() {
		b.StopTimer()
		data := b.TempDir()
		cfg := testConfig(data)
		cfg.Fresh = true
		var peak atomic.Uint64
		stop := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > peak.Load() {
						peak.Store(ms.HeapInuse)
					}
				}
			}
		}()
		// Generating text is slower than indexing it: make 2 000 documents
		// up front and vary only their ids and topics.
		rng := rand.New(rand.NewPCG(1, 2))
		zipf := rand.NewZipf(rng, 1.1, 1, 200_000)
		templates := make([]*ingest.Document, 2000)
		for i := range templates {
			templates[i] = benchDoc(rng, zipf, i, topics)
		}
		b.StartTimer()
		start := time.Now()
		m, err := Build(context.Background(), cfg, func(ctx context.Context, sink ingest.Sink) error {
			for i := 0; i < n; i++ {
				d := *templates[i%len(templates)]
				d.PMCID, d.DOI, d.PMID = fmt.Sprint(i+1), fmt.Sprintf("10.5555/bench.%d", i), fmt.Sprint(i+10_000_000)
				d.Topics = []string{topics[i%len(topics)], topics[(i/7)%len(topics)]}
				if err := sink.Document(&d); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		close(stop)
		b.ReportMetric(float64(n)/el.Seconds(), "docs/s")
		b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
		var bytes int64
		for _, f := range m.Files {
			bytes += f.Bytes
		}
		b.ReportMetric(float64(bytes)/(1<<20), "snapshot-MiB")
	}
}
