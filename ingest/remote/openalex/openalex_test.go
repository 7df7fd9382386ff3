package openalex

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/ingest"
	oareader "github.com/openshelf/openshelf/ingest/openalex"
	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/ingest/remote/download"
	"github.com/openshelf/openshelf/internal/fixtures"
	fake "github.com/openshelf/openshelf/internal/upstreamfake"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/pipelines"
)

// TestFilter: merged-away works are dropped, their ids become aliases of
// the final survivor (chains resolve), other sources are left alone.
func TestFilter(t *testing.T) {
	f := filter(map[string]string{"W1": "W2", "W2": "W3", "W9": "W9X"}, &remote.Stats{})
	tests := []struct {
		doc         ingest.Document
		wantKeep    bool
		wantAliases []string
	}{
		{ingest.Document{OpenAlex: "W1", Sources: []string{"openalex"}}, false, nil},
		{ingest.Document{OpenAlex: "W2", Sources: []string{"openalex"}}, false, nil},
		{ingest.Document{OpenAlex: "W3", Sources: []string{"openalex"}, Aliases: []string{"doi-x"}}, true, []string{"doi-x", "oa-w1", "oa-w2"}},
		{ingest.Document{OpenAlex: "W1", Sources: []string{"crossref"}}, true, nil},
	}
	for _, tc := range tests {
		got := f("part_000.gz", &tc.doc)
		if got != tc.wantKeep || !slices.Equal(tc.doc.Aliases, tc.wantAliases) {
			t.Errorf("%s: keep %v aliases %v; want %v %v", tc.doc.OpenAlex, got, tc.doc.Aliases, tc.wantKeep, tc.wantAliases)
		}
	}
}

func TestWorkID(t *testing.T) {
	for in, want := range map[string]string{"W123": "W123", "https://openalex.org/W123": "W123", "w5": "W5", "A1": "", "": ""} {
		if got := workID(in); got != want {
			t.Errorf("workID(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLayouts: the 2026 layout (combined manifest.json, data/jsonl/works)
// and the legacy one (legacy-data/works/manifest) give the same nights:
// the first fetches every part from the cursor's start, the second only
// the new partition and the new merged-id list.
func TestLayouts(t *testing.T) {
	fix := fixtures.Dir(t)
	first, err := fake.OpenAlexLines(fix, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	more, err := fake.OpenAlexLines(fix, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	parquetCopy := func(s *fake.Server, parts []fake.OpenAlexPart) {
		if err := s.PublishOpenAlexParquet(parts); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		layout, url, include string
		publish              func(*fake.Server, []fake.OpenAlexPart)
		folder               string
	}{
		{"jsonl", "s3://openalex/" + fake.OpenAlexWorks, "updated_date=*/part_*.gz", (*fake.Server).PublishOpenAlex, fake.OpenAlexWorks},
		{"parquet", "s3://openalex/" + fake.OpenAlexParquetWorks, "", parquetCopy, fake.OpenAlexParquetWorks},
		{"legacy", "s3://openalex/" + fake.OpenAlexLegacyWorks, "updated_date=*/part_*.gz", (*fake.Server).PublishOpenAlexLegacy, fake.OpenAlexLegacyWorks},
	}
	for _, tc := range tests {
		t.Run(tc.layout, func(t *testing.T) {
			srv := fake.New()
			defer srv.Close()
			dir := t.TempDir()
			fetch := func() (*remote.Result, *remote.Stats) {
				t.Helper()
				stats := &remote.Stats{}
				env := &remote.Env{
					Source: pipelines.Source{URL: tc.url, Include: strings.Fields(tc.include),
						Params: map[string]string{"https_mirror": srv.URL + "/openalex/", "layout": tc.layout,
							"merged_ids": "s3://openalex/" + fake.OpenAlexMergedIDs},
						Cursor: &pipelines.Cursor{Start: "2026-01-01"}},
					Dir: dir, Client: download.New(download.Config{}), Logger: slog.New(slog.DiscardHandler), Stats: stats,
					Families: []licence.Family{licence.CC0, licence.PDM, licence.CCBY, licence.CCBYSA},
				}
				res, err := Adapter{}.Fetch(context.Background(), env)
				if err != nil {
					t.Fatal(err)
				}
				if err := remote.SaveJSON(filepath.Join(dir, remote.StateFile), res.State); err != nil {
					t.Fatal(err)
				}
				return res, stats
			}
			tc.publish(srv, []fake.OpenAlexPart{{Date: "2025-12-31", Lines: more}, {Date: "2026-01-10", Lines: first}})
			res, stats := fetch()
			if len(res.Files) != 1 || stats.Fetched != 1 || stats.Cursor != "2026-01-10" || !res.Changed {
				t.Fatalf("night 1: files %v, fetched %d, cursor %s; want the 2026-01-10 part only", res.Files, stats.Fetched, stats.Cursor)
			}
			if !strings.Contains(filepath.ToSlash(res.Files[0]), tc.folder+"updated_date=2026-01-10/part_") {
				t.Errorf("night 1: mirror file %s is not under %s", res.Files[0], tc.folder)
			}
			tc.publish(srv, []fake.OpenAlexPart{{Date: "2025-12-31", Lines: more}, {Date: "2026-01-10", Lines: first}, {Date: "2026-02-01", Lines: more}})
			srv.PutMergedIDs("2026-02-01", [][2]string{{"W1", "W2"}})
			res, stats = fetch()
			if len(res.Files) != 2 || stats.Fetched != 2 || stats.Cursor != "2026-02-01" || res.Filter == nil {
				t.Errorf("night 2: files %v, fetched %d (want the part and the list), cursor %s", res.Files, stats.Fetched, stats.Cursor)
			}
			res, stats = fetch()
			if res.Changed || stats.Fetched != 0 {
				t.Errorf("night 3 (nothing new): changed %v, fetched %d", res.Changed, stats.Fetched)
			}
		})
	}
}

// TestManifestKey: where each layout's manifest is read.
func TestManifestKey(t *testing.T) {
	tests := []struct{ url, layout, manifest, want string }{
		{"s3://openalex/data/jsonl/works/", "", "", "data/jsonl/manifest.json"},
		{"s3://openalex/data/jsonl/works", "jsonl", "", "data/jsonl/manifest.json"},
		{"s3://openalex/legacy-data/works/", "legacy", "", "legacy-data/works/manifest"},
		{"s3://openalex/legacy-data/works", "legacy", "", "legacy-data/works/manifest"},
		{"s3://openalex/data/parquet/works/", "parquet", "", "data/parquet/manifest.json"},
		{"s3://openalex/data/jsonl/works/", "", "s3://openalex/elsewhere/manifest.json", "elsewhere/manifest.json"},
	}
	for _, tc := range tests {
		env := &remote.Env{Source: pipelines.Source{URL: tc.url, Params: map[string]string{"layout": tc.layout, "manifest": tc.manifest}}}
		if got, err := manifestKey(env); err != nil || got != tc.want {
			t.Errorf("%s %s: %q, %v; want %q", tc.url, tc.layout, got, err, tc.want)
		}
	}
	env := &remote.Env{Source: pipelines.Source{URL: "s3://openalex/data/works/", Params: map[string]string{"layout": "csv"}}}
	if _, err := manifestKey(env); err == nil {
		t.Error("an unknown layout was accepted")
	}
}

// TestParquetGate: of a Parquet part, exactly the works one of whose
// locations carries a published licence are written, whole, as JSON Lines
// the OpenAlex reader reads; the others are counted as rejected.
func TestParquetGate(t *testing.T) {
	lines, err := fake.OpenAlexLines(fixtures.Dir(t), 0, 30)
	if err != nil {
		t.Fatal(err)
	}
	pq, err := fake.ParquetWorks(lines)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "part_0000.parquet"), filepath.Join(dir, "part_0000.parquet"+parquetSuffix)
	if err := os.WriteFile(src, pq, 0o644); err != nil {
		t.Fatal(err)
	}
	families := []licence.Family{licence.CC0, licence.PDM, licence.CCBY, licence.CCBYSA}
	stats := &remote.Stats{}
	if err := gateParquet(src, dst, families, stats); err != nil {
		t.Fatal(err)
	}
	// Expected: decided from the JSON Lines, location by location.
	want := map[string]bool{}
	total := 0
	for _, l := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		var w struct {
			ID        string `json:"id"`
			Locations []struct {
				License *string `json:"license"`
			} `json:"locations"`
			Primary, Best *struct {
				License *string `json:"license"`
			}
		}
		if err := json.Unmarshal([]byte(l), &w); err != nil {
			t.Fatal(err)
		}
		total++
		for _, loc := range w.Locations {
			if loc.License == nil {
				continue
			}
			if tm, ok := licence.Parse(licence.Evidence{Kind: licence.KindOpenAlex, Value: *loc.License}); ok && tm.Accepted() && slices.Contains(families, tm.Family) {
				want[w.ID] = true
			}
		}
	}
	f, err := os.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var sink collect
	if err := oareader.Read(context.Background(), zr, dst, &sink); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, d := range sink.docs {
		got["https://openalex.org/"+d.OpenAlex] = true
	}
	if len(want) == 0 || len(want) == total || !maps.Equal(got, want) {
		t.Errorf("kept %d works %v, want %d %v (of %d)", len(got), got, len(want), want, total)
	}
	if n := stats.Rejected["licence:no-published-location"]; n != int64(total-len(want)) {
		t.Errorf("rejected %d, want %d", n, total-len(want))
	}
}

type collect struct{ docs []*ingest.Document }

func (c *collect) Document(d *ingest.Document) error { c.docs = append(c.docs, d); return nil }
func (c *collect) Problem(ingest.Problem)            {}
func (c *collect) Delete(ingest.Deletion) error      { return nil }
