package finance

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/serve/tools/finance/edgar"
)

// Benchmarks (see BENCHMARKS.md):
//
//	go test ./serve/tools/finance -run '^$' -bench . -benchmem -count 1
//
// Marvell's companyfacts (1.28 MB, 378 us-gaap concepts, real) is the
// largest file in the shared fixtures.

const marvellFacts = "companyfacts_CIK0001835632.json"

// BenchmarkColdParse is the cost of a cache miss: decoding a companyfacts
// body and reading the fundamentals. "filtered" is what the client does
// (only the ~60 concepts the tools read are built); "full" decodes every
// concept into the same types, the obvious alternative.
func BenchmarkColdParse(b *testing.B) {
	body, err := os.ReadFile(fixtures.Path(b, "upstreams", "sec-edgar", marvellFacts))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		keep func(string, string) bool
	}{{"filtered", keepConcept}, {"full", nil}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				cf, err := edgar.DecodeCompanyFacts(body, bc.keep)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := fundamentals(cf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(retained(b, body, bc.keep)), "cached-B")
		})
	}
}

// retained is the heap one decoded file keeps alive in the cache.
func retained(b *testing.B, body []byte, keep func(string, string) bool) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cf, err := edgar.DecodeCompanyFacts(body, keep)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(cf)
	return after.HeapAlloc - before.HeapAlloc
}

// BenchmarkFinanceSnapshotWarm is finance_snapshot from a warm cache: the
// ticker map and the company files are cached and fresh, so no request
// leaves the process. "plain_json" decodes the whole facts file on every
// call (what a client without a cache of decoded facts would do), for
// comparison. The filing list is Apple's real submissions file (1,005
// recent filings; Marvell's is not in the fixtures), read for the year's
// amendments on every call.
func BenchmarkFinanceSnapshotWarm(b *testing.B) {
	body, err := os.ReadFile(fixtures.Path(b, "upstreams", "sec-edgar", marvellFacts))
	if err != nil {
		b.Fatal(err)
	}
	submissions, err := os.ReadFile(fixtures.Path(b, "upstreams", "sec-edgar", "submissions_CIK0000320193.json"))
	if err != nil {
		b.Fatal(err)
	}
	tickers := []byte(`{"0":{"cik_str":1835632,"ticker":"MRVL","title":"Marvell Technology, Inc."}}`) // company_tickers.json format
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/files/company_tickers.json":
			w.Write(tickers)
		case strings.HasPrefix(r.URL.Path, "/submissions/"):
			w.Write(submissions)
		default:
			w.Write(body)
		}
	}))
	defer srv.Close()
	f := New(Config{EDGAR: edgar.Config{TickersURL: srv.URL + "/files/company_tickers.json", DataURL: srv.URL}})
	defer f.Close()
	ctx := context.Background()
	if _, err := f.Finance(ctx, "MRVL"); err != nil {
		b.Fatal(err)
	}
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := f.Finance(ctx, "MRVL")
			if err != nil || out.Fundamentals.Revenue.Value == nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(out); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "snapshots/s")
	})
	b.Run("plain_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var cf edgar.CompanyFacts
			if err := json.Unmarshal(body, &cf); err != nil {
				b.Fatal(err)
			}
			fund, err := fundamentals(&cf)
			if err != nil {
				b.Fatal(err)
			}
			out := &FundamentalsOutput{Fundamentals: fund, Ratios: ratios(fund)}
			if _, err := json.Marshal(out); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "snapshots/s")
	})
}
