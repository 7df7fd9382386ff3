package nightly_test

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest/remote/download"
	"github.com/openshelf/openshelf/ingest/remote/nightly"
	"github.com/openshelf/openshelf/internal/fixtures"
	fake "github.com/openshelf/openshelf/internal/upstreamfake"
	"github.com/openshelf/openshelf/pipelines"
	"github.com/openshelf/openshelf/pipelines/run"
	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/servetest"
)

// TestServedAfterTwoNights serves the snapshot of two nightly runs with the
// real server and a paying client: the merged-away OpenAlex id answers with
// the survivor's document, and the article whose PubMed record was deleted
// is still sold, PubMed gone from its sources.
func TestServedAfterTwoNights(t *testing.T) {
	fix := fixtures.Dir(t)
	srv := fake.New()
	defer srv.Close()
	path, err := srv.WritePipeline(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := pipelines.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "data")
	night := func(now string, publish func(string) error) {
		t.Helper()
		if err := publish(fix); err != nil {
			t.Fatal(err)
		}
		at, _ := time.Parse(time.RFC3339, now)
		_, err := nightly.Run(context.Background(), nightly.Config{
			Run:      run.Config{DataDir: data, Pipeline: p, Now: at, Logger: slog.New(slog.DiscardHandler)},
			Download: download.Config{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }},
		})
		if err != nil {
			t.Fatalf("night %s: %v", now, err)
		}
	}
	night(fake.Night1Now, srv.Night1)
	night(fake.Night2Now, srv.Night2)

	env := servetest.New(t, func(c *serve.Config) { c.DataDir = data })
	old, survivor, err := fake.MergePair(fix)
	if err != nil {
		t.Fatal(err)
	}
	oldID := "oa-w" + strings.TrimPrefix(strings.ToLower(old), "w")
	// The id resolves before any payment is asked.
	resp, _ := env.Call(t, http.MethodGet, "/api/document/"+oldID, nil, "")
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("GET /api/document/%s without payment: %d, want 402 (the alias must resolve)", oldID, resp.StatusCode)
	}
	doc := env.PaidCall(t, http.MethodGet, "/api/document/"+oldID, nil)
	if got, _ := doc["openalex"].(string); !strings.EqualFold(got, survivor) {
		t.Errorf("%s answered with openalex %v (id %v), want the survivor %s", oldID, doc["openalex"], doc["id"], survivor)
	}

	art := env.PaidCall(t, http.MethodGet, "/api/document/pmc-"+strings.TrimPrefix(fake.EnrichedPMCID, "PMC"), nil)
	if art["id"] != "pmc-"+strings.TrimPrefix(fake.EnrichedPMCID, "PMC") {
		t.Fatalf("the enriched article is not served: %v", art)
	}
	// The document lists its sources: PubMed is gone from them.
	if list, _ := art["sources"].([]any); len(list) == 0 || containsString(list, "pubmed") {
		t.Errorf("sources %v: want the PMC source only, PubMed's record was deleted", art["sources"])
	}
}

func containsString(list []any, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
