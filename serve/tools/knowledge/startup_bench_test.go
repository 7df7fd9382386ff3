package knowledge_test

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/servetest"
	"github.com/openshelf/openshelf/serve/tools/knowledge"
	"github.com/openshelf/openshelf/snapshot"
	"github.com/openshelf/openshelf/specs"
)

// BenchmarkStartup measures a server start over the fixture snapshot
// whose specs table is replaced by the spec-query benchmark's 1M
// documents' worth (2M statements): the time to the first 200 of
// /api/stats and to the first paid query_specs answer. "background" is
// this server; "synchronous" waits for the table before the first
// request, as the server did before the table loaded in the background.
//
//	go test -run '^$' -bench Startup -benchtime 1x ./serve/tools/knowledge
func BenchmarkStartup(b *testing.B) {
	data := testsnap.Copy(b)
	snap, err := snapshot.Open(data)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := knowledge.WriteBenchTable(filepath.Join(snap.Dir, specs.TableFile)); err != nil {
		b.Fatal(err)
	}
	b.Logf("specs table written in %v", time.Since(start))
	in := map[string]any{"quantity": "thermal_conductivity", "unit": "W/mK", "min": 200}
	for _, mode := range []string{"background", "synchronous"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				start := time.Now()
				env := servetest.New(b, func(c *serve.Config) { c.DataDir = data })
				if mode == "synchronous" {
					waitSpecs(b, env, "ready")
				}
				if res, _ := env.Call(b, http.MethodGet, "/api/stats", nil, ""); res.StatusCode != http.StatusOK {
					b.Fatalf("/api/stats: %d", res.StatusCode)
				}
				stats := time.Since(start)
				for {
					res, m := env.Call(b, http.MethodPost, "/v1/specs", in, "")
					if res.StatusCode == http.StatusPaymentRequired {
						break
					}
					if res.StatusCode != http.StatusServiceUnavailable {
						b.Fatalf("/v1/specs while loading: %d %v", res.StatusCode, m)
					}
					time.Sleep(50 * time.Millisecond)
				}
				m := env.PaidCall(b, http.MethodPost, "/v1/specs", in)
				query := time.Since(start)
				b.ReportMetric(stats.Seconds(), "s-to-stats")
				b.ReportMetric(query.Seconds(), "s-to-specs")
				b.Logf("%s: first /api/stats 200 after %v, first query_specs answer (total %v) after %v", mode, stats, m["total"], query)
			}
		})
	}
}
