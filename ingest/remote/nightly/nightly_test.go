package nightly

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/openshelf/openshelf/ingest/remote/download"
	"github.com/openshelf/openshelf/internal/fixtures"
	fake "github.com/openshelf/openshelf/internal/upstreamfake"
	"github.com/openshelf/openshelf/pipelines"
	"github.com/openshelf/openshelf/pipelines/run"
	"github.com/openshelf/openshelf/snapshot"
)

// harness is a fake upstream, a pipeline pointed at it and a data dir.
type harness struct {
	t    *testing.T
	srv  *fake.Server
	fix  string
	data string
	p    *pipelines.Pipeline
	// fresh rebuilds every night from the whole mirror.
	fresh bool
	// sleeps records every wait the download clients asked for.
	mu     sync.Mutex
	sleeps []time.Duration
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, srv: fake.New(), fix: fixtures.Dir(t), data: filepath.Join(t.TempDir(), "data")}
	t.Cleanup(h.srv.Close)
	path, err := h.srv.WritePipeline(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if h.p, err = pipelines.Load(path); err != nil {
		t.Fatal(err)
	}
	return h
}

// run runs one night at now (RFC 3339).
func (h *harness) run(now string) (*Summary, error) {
	h.t.Helper()
	at, err := time.Parse(time.RFC3339, now)
	if err != nil {
		h.t.Fatal(err)
	}
	cfg := Config{
		Run: run.Config{DataDir: h.data, Pipeline: h.p, Now: at, Workers: 2, Fresh: h.fresh,
			Logger: slog.New(slog.NewTextHandler(h.t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))},
		// No real waiting: the schedule is recorded instead.
		Download: download.Config{Retries: 6, BaseBackoff: time.Second, MaxBackoff: time.Minute,
			Sleep: func(ctx context.Context, d time.Duration) error {
				h.mu.Lock()
				h.sleeps = append(h.sleeps, d)
				h.mu.Unlock()
				return ctx.Err()
			}},
	}
	return Run(context.Background(), cfg)
}

// doc is the part of a documents.parquet row the tests look at: every
// column but the licence receipts, whose read_at is when each record was
// read (a record kept from an earlier night keeps its time).
type doc struct {
	ID          string   `parquet:"id"`
	Aliases     []string `parquet:"aliases,list"`
	DOI         string   `parquet:"doi"`
	PMID        string   `parquet:"pmid"`
	PMCID       string   `parquet:"pmcid"`
	OpenAlex    string   `parquet:"openalex"`
	Title       string   `parquet:"title"`
	Venue       string   `parquet:"venue"`
	Year        int32    `parquet:"year"`
	Date        string   `parquet:"date"`
	Type        string   `parquet:"type"`
	Abstract    string   `parquet:"abstract"`
	Keywords    []string `parquet:"keywords,list"`
	Subjects    []string `parquet:"subjects,list"`
	Topics      []string `parquet:"topics,list"`
	License     string   `parquet:"license"`
	LicenseURL  string   `parquet:"license_url"`
	Attribution string   `parquet:"attribution"`
	Copyright   string   `parquet:"copyright_notice"`
	NSections   int32    `parquet:"n_sections"`
	NReferences int32    `parquet:"n_references"`
	Sources     []string `parquet:"sources,list"`
	Origin      string   `parquet:"origin"`
}

// docs reads the published documents of the current snapshot.
func docs(t *testing.T, data string) map[string]*doc {
	t.Helper()
	s, err := snapshot.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Segmented() {
		return docRows(t, data, s.Path(snapshot.Documents), nil)
	}
	// A delta night: the segments' live rows (data/README.md, "Two layouts").
	type deletion struct {
		Segment string `parquet:"segment"`
		ID      string `parquet:"id"`
	}
	dels, err := parquet.ReadFile[deletion](filepath.Join(s.Dir, snapshot.DeletionsTable+".parquet"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*doc{}
	for _, g := range s.Manifest.Segments {
		gone := map[string]bool{}
		for _, d := range dels {
			if d.Segment == g.ID {
				gone[d.ID] = true
			}
		}
		maps.Copy(out, docRows(t, data, filepath.Join(s.SegmentDir(g.ID), snapshot.Documents+".parquet"), gone))
	}
	return out
}

// docRows reads the rows of a documents.parquet but those gone, with
// their origins relative to the data directory.
func docRows(t *testing.T, data, path string, gone map[string]bool) map[string]*doc {
	t.Helper()
	rows, err := parquet.ReadFile[doc](path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*doc{}
	for i := range rows {
		rows[i].Origin = strings.TrimPrefix(rows[i].Origin, data)
		if !gone[rows[i].ID] {
			out[rows[i].ID] = &rows[i]
		}
	}
	return out
}

func source(t *testing.T, s *Summary, name string) *SourceSummary {
	t.Helper()
	for _, src := range s.Sources {
		if src.Name == name {
			return src
		}
	}
	t.Fatalf("no source %s in the summary", name)
	return nil
}

// TestNights is the main end-to-end test: a first run, then a second run
// that fetches only the delta, applies a PubMed DeleteCitation to an
// enrichment and resolves an OpenAlex merge.
func TestNights(t *testing.T) {
	h := newHarness(t)
	srv := h.srv
	if err := srv.Night1(h.fix); err != nil {
		t.Fatal(err)
	}
	sum, err := h.run(fake.Night1Now)
	if err != nil {
		t.Fatalf("night 1: %v", err)
	}
	if !sum.OK || sum.Snapshot == "" || sum.Ingest == nil {
		t.Fatalf("night 1 summary: %+v", sum)
	}
	pmc := source(t, sum, "pmc-oa")
	if pmc.Fetched != 2 || pmc.Rejected["licence:CC BY-NC"] != 1 || pmc.Rejected["not-open-access"] != 1 || pmc.Files != 1 {
		t.Errorf("night 1 pmc-oa: fetched %d, rejected %v, mirror %d", pmc.Fetched, pmc.Rejected, pmc.Files)
	}
	// Gated before anything else: the rejected articles' XML is never asked for.
	for _, p := range []string{"/pmc/PMC3574550.1/PMC3574550.1.xml", "/pmc/PMC1790863.1/PMC1790863.1.xml"} {
		if n := srv.Hits(p); n != 0 {
			t.Errorf("%s fetched %d times, want 0 (its licence gate failed)", p, n)
		}
	}
	// Paged from the configured start (the fake serves it only); the
	// summary says where the next night starts: the run's day minus 48 h.
	if cr := source(t, sum, "crossref-works"); cr.Fetched != 2 || cr.Cursor != "2026-11-22" {
		t.Errorf("night 1 crossref: fetched %d pages, next start %s (want 2026-11-22)", cr.Fetched, cr.Cursor)
	}
	// OpenAlex: the 2026 layout's works part, never the other entities the
	// combined manifest lists.
	if srv.Hits(fake.OpenAlexNight1Part) != 1 || srv.HitsPrefix("/openalex/data/jsonl/authors/") != 0 || srv.Hits("/openalex/data/jsonl/manifest.json") != 1 {
		t.Errorf("night 1 openalex: part fetched %d times, authors %d, combined manifest %d",
			srv.Hits(fake.OpenAlexNight1Part), srv.HitsPrefix("/openalex/data/jsonl/authors/"), srv.Hits("/openalex/data/jsonl/manifest.json"))
	}
	if b := source(t, sum, "pubmed-baseline"); b.Fetched != 1 || b.Cursor != "pubmed26n0001.xml.gz" {
		t.Errorf("night 1 pubmed baseline: fetched %d, cursor %s", b.Fetched, b.Cursor)
	}
	d1 := docs(t, h.data)
	art := d1["pmc-"+strings.TrimPrefix(fake.EnrichedPMCID, "PMC")]
	if art == nil {
		t.Fatalf("night 1: %s not published; have %d documents", fake.EnrichedPMCID, len(d1))
	}
	if !slices.Contains(art.Sources, "pubmed") || !slices.Contains(art.Subjects, fake.EnrichedSubject) {
		t.Errorf("night 1: %s not enriched by PubMed: sources %v, subjects %v", art.ID, art.Sources, art.Subjects)
	}
	old, survivor, err := fake.MergePair(h.fix)
	if err != nil {
		t.Fatal(err)
	}
	manifestHasSources(t, h.data)

	// Night 2.
	metaHits := srv.Hits("/pmc/metadata/PMC6398430.1.json")
	pm1 := srv.Hits("/pubmed/updatefiles/pubmed26n1001.xml.gz")
	oa1 := srv.Hits(fake.OpenAlexNight1Part)
	if err := srv.Night2(h.fix); err != nil {
		t.Fatal(err)
	}
	sum2, err := h.run(fake.Night2Now)
	if err != nil {
		t.Fatalf("night 2: %v", err)
	}
	if sum2.Snapshot == sum.Snapshot {
		t.Fatal("night 2 published nothing new")
	}
	// Only the delta is fetched.
	if srv.Hits("/pmc/metadata/PMC6398430.1.json") != metaHits ||
		srv.Hits("/pubmed/updatefiles/pubmed26n1001.xml.gz") != pm1 ||
		srv.Hits(fake.OpenAlexNight1Part) != oa1 {
		t.Error("night 2 fetched files of night 1 again")
	}
	// The mirror is two shards: night 1's and the one of night 2's articles.
	if p := source(t, sum2, "pmc-oa"); p.Fetched != 2 || p.Files != 2 {
		t.Errorf("night 2 pmc-oa: fetched %d (want the new version and the new article), mirror %d shards (want 2)", p.Fetched, p.Files)
	}
	if p := source(t, sum2, "pubmed-updates"); p.Fetched != 1 || p.Cursor != "pubmed26n1002.xml.gz" {
		t.Errorf("night 2 pubmed: fetched %d, cursor %s", p.Fetched, p.Cursor)
	}
	if o := source(t, sum2, "openalex-works"); o.Fetched != 2 || o.Cursor != "2026-02-01" { // the part and the merged-id list
		t.Errorf("night 2 openalex: fetched %d, cursor %s", o.Fetched, o.Cursor)
	}
	// The fake answers the delta from 2026-11-22 (night 1 minus 48 h) only.
	if c := source(t, sum2, "crossref-works"); c.Fetched != 1 || c.Cursor != "2026-11-23" {
		t.Errorf("night 2 crossref: fetched %d pages (want 1, from 2026-11-22), next start %s (want 2026-11-23)", c.Fetched, c.Cursor)
	}
	d2 := docs(t, h.data)
	// DeleteCitation removed the enrichment (the baseline's record and the
	// update file's), not the article.
	art = d2[art.ID]
	if art == nil {
		t.Fatalf("night 2: the PubMed deletion removed %s itself", fake.EnrichedPMCID)
	}
	if slices.Contains(art.Sources, "pubmed") || slices.Contains(art.Subjects, fake.EnrichedSubject) {
		t.Errorf("night 2: %s still carries the deleted PubMed record: sources %v, subjects %v", art.ID, art.Sources, art.Subjects)
	}
	if d2["pmc-7417471"] == nil {
		t.Error("night 2: the new PMC article is not published")
	}
	// The merge: no document for the old work, its id an alias of the survivor.
	oldID := "oa-w" + strings.ToLower(strings.TrimPrefix(old, "W"))
	var surv *doc
	for _, d := range d2 {
		if strings.EqualFold(d.OpenAlex, old) || d.ID == oldID {
			t.Errorf("night 2: merged-away work %s still published as %s", old, d.ID)
		}
		if strings.EqualFold(d.OpenAlex, survivor) {
			surv = d
		}
	}
	if surv == nil {
		t.Fatalf("night 2: survivor %s not published", survivor)
	}
	if !slices.Contains(surv.Aliases, oldID) {
		t.Errorf("night 2: survivor %s aliases %v lack %s", surv.ID, surv.Aliases, oldID)
	}
	metrics, err := os.ReadFile(filepath.Join(h.data, StateDir, "nightly.prom"))
	if err != nil || !strings.Contains(string(metrics), "openshelf_nightly_last_run_success 1") ||
		!strings.Contains(string(metrics), `openshelf_nightly_source_fetched_files{source="pubmed-updates"} 1`) {
		t.Errorf("metrics file: %v\n%s", err, metrics)
	}

	// Night 3: nothing new upstream. Nothing is fetched but the listings,
	// and no new snapshot pushes a real one out of the history.
	sum3, err := h.run("2026-11-26T03:30:00Z")
	if err != nil {
		t.Fatalf("night 3: %v", err)
	}
	if !sum3.OK || !sum3.Unchanged || sum3.Snapshot != sum2.Snapshot || sum3.Ingest != nil {
		t.Errorf("night 3: ok %v, unchanged %v, snapshot %s (night 2: %s)", sum3.OK, sum3.Unchanged, sum3.Snapshot, sum2.Snapshot)
	}
	for _, src := range sum3.Sources {
		if src.Fetched != 0 {
			t.Errorf("night 3: %s fetched %d files", src.Name, src.Fetched)
		}
	}
	if c := source(t, sum3, "crossref-works"); c.Cursor != "2026-11-24" || h.srv.HitsPrefix("/crossref/") == 0 {
		t.Errorf("night 3: crossref next start %s, want 2026-11-24 (the cursor moves on even without news)", c.Cursor)
	}

	var text strings.Builder
	sum.WriteText(&text)
	if !strings.Contains(text.String(), "pmc-oa") || !strings.Contains(text.String(), "rejected before download: licence:CC BY-NC 1, not-open-access 1") {
		t.Errorf("night 1 summary text:\n%s", text.String())
	}
}

// TestDeltaNightsEqualFullRebuilds runs the nights of TestNights twice on
// the same upstream: as the job runs them (the second night a delta build
// of the files it fetched and of the works whose records changed or left)
// and rebuilding each night from the whole mirror (-fresh). The published
// documents must be the same.
func TestDeltaNightsEqualFullRebuilds(t *testing.T) {
	h := newHarness(t)
	full := &harness{t: t, srv: h.srv, fix: h.fix, data: filepath.Join(t.TempDir(), "data"), p: h.p, fresh: true}
	for night, n := range []struct {
		at    string
		setup func(string) error
	}{{fake.Night1Now, h.srv.Night1}, {fake.Night2Now, h.srv.Night2}} {
		if err := n.setup(h.fix); err != nil {
			t.Fatal(err)
		}
		for _, hh := range []*harness{h, full} {
			if _, err := hh.run(n.at); err != nil {
				t.Fatalf("night %d: %v", night+1, err)
			}
		}
		cur, err := snapshot.Open(h.data)
		if err != nil {
			t.Fatal(err)
		}
		if night == 1 && !cur.Segmented() {
			t.Fatal("night 2 was not a delta build")
		}
		got, want := docs(t, h.data), docs(t, full.data)
		if len(got) != len(want) {
			t.Errorf("night %d: %d documents, the full rebuild has %d", night+1, len(got), len(want))
		}
		for id, w := range want {
			if g := got[id]; g == nil || !reflect.DeepEqual(g, w) {
				t.Errorf("night %d: %s is %+v, the full rebuild's %+v", night+1, id, g, w)
			}
		}
	}
}

// TestNightsParquet: the OpenAlex source on the 2026 layout's Parquet
// copy: the first night publishes the works whose locations carry a
// published licence, the second night's new partition and merged ids are
// applied as with the JSON Lines copy.
func TestNightsParquet(t *testing.T) {
	h := newHarness(t)
	srv := h.srv
	text := srv.Pipeline()
	for old, repl := range map[string]string{
		`url = "s3://openalex/data/jsonl/works/"`: `url = "s3://openalex/data/parquet/works/"`,
		`layout = "jsonl"`:                        `layout = "parquet"`,
		`include = ["updated_date=*/part_*.gz"]` + "\n" + `[source.params]` + "\n" + `https_mirror = "` + srv.URL + `/openalex/"`: `include = ["updated_date=*/part_*.parquet"]` + "\n" + `[source.params]` + "\n" + `https_mirror = "` + srv.URL + `/openalex/"`,
	} {
		if !strings.Contains(text, old) {
			t.Fatalf("the test pipeline has no %q", old)
		}
		text = strings.Replace(text, old, repl, 1)
	}
	path := filepath.Join(t.TempDir(), "parquet.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	if h.p, err = pipelines.Load(path); err != nil {
		t.Fatal(err)
	}
	first, err := fake.OpenAlexLines(h.fix, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Night1(h.fix); err != nil {
		t.Fatal(err)
	}
	if err := srv.PublishOpenAlexParquet([]fake.OpenAlexPart{{Date: "2026-01-10", Lines: first}}); err != nil {
		t.Fatal(err)
	}
	sum, err := h.run(fake.Night1Now)
	if err != nil {
		t.Fatal(err)
	}
	oa := source(t, sum, "openalex-works")
	if oa.Fetched != 1 || srv.HitsPrefix("/openalex/data/jsonl/works/") != 0 {
		t.Errorf("night 1: fetched %d Parquet parts, %d JSON Lines requests", oa.Fetched, srv.HitsPrefix("/openalex/data/jsonl/works/"))
	}
	rejected := oa.Rejected["licence:no-published-location"]
	if rejected == 0 || rejected == 10 {
		t.Errorf("night 1: %d of 10 works rejected before decoding; want some, not all", rejected)
	}
	old, survivor, err := fake.MergePair(h.fix)
	if err != nil {
		t.Fatal(err)
	}
	published := func() map[string]*doc {
		out := map[string]*doc{}
		for _, d := range docs(t, h.data) {
			if d.OpenAlex != "" {
				out[strings.ToUpper(d.OpenAlex)] = d
			}
		}
		return out
	}
	if p := published(); p[old] == nil || p[survivor] == nil {
		t.Fatalf("night 1: %s and %s not both published from the Parquet copy", old, survivor)
	}
	more, err := fake.OpenAlexLines(h.fix, 10, 15)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Night2(h.fix); err != nil {
		t.Fatal(err)
	}
	if err := srv.PublishOpenAlexParquet([]fake.OpenAlexPart{{Date: "2026-01-10", Lines: first}, {Date: "2026-02-01", Lines: more}}); err != nil {
		t.Fatal(err)
	}
	sum2, err := h.run(fake.Night2Now)
	if err != nil {
		t.Fatal(err)
	}
	if o := source(t, sum2, "openalex-works"); o.Fetched != 2 || o.Cursor != "2026-02-01" {
		t.Errorf("night 2: fetched %d (want the new part and the merged-id list), cursor %s", o.Fetched, o.Cursor)
	}
	p := published()
	if p[old] != nil || p[survivor] == nil || !slices.Contains(p[survivor].Aliases, "oa-w"+strings.ToLower(strings.TrimPrefix(old, "W"))) {
		t.Errorf("night 2: merged-away %s published %v; survivor %v", old, p[old] != nil, p[survivor])
	}
}

// TestRetractionLeavesSnapshot: an article retracted upstream is gone
// from the next snapshot although its copy stays in a shard of the mirror
// until compaction.
func TestRetractionLeavesSnapshot(t *testing.T) {
	h := newHarness(t)
	if err := h.srv.Night1(h.fix); err != nil {
		t.Fatal(err)
	}
	if _, err := h.run(fake.Night1Now); err != nil {
		t.Fatal(err)
	}
	pmcSources := func(d *doc) []string {
		if d == nil {
			return nil
		}
		return d.Sources
	}
	before := pmcSources(docs(t, h.data)["pmc-6398430"])
	if !slices.Contains(before, "jats:pmc") {
		t.Fatalf("night 1: pmc-6398430 not published from the PMC JATS (sources %v)", before)
	}
	arts, err := fake.Night1PMC(h.fix)
	if err != nil {
		t.Fatal(err)
	}
	arts[1].Retracted = true // PMC6398430
	h.srv.PublishPMC("2026-11-24T01-00Z", arts)
	sum, err := h.run(fake.Night2Now)
	if err != nil {
		t.Fatal(err)
	}
	if p := source(t, sum, "pmc-oa"); p.Removed != 1 || p.Rejected["retracted"] != 1 || p.Files != 1 {
		t.Errorf("pmc-oa: removed %d, rejected %v, mirror %d shards", p.Removed, p.Rejected, p.Files)
	}
	if after := pmcSources(docs(t, h.data)["pmc-6398430"]); slices.Contains(after, "jats:pmc") {
		t.Errorf("night 2: the retracted article is still published from its PMC JATS (sources %v)", after)
	}
}

func manifestHasSources(t *testing.T, data string) {
	t.Helper()
	s, err := snapshot.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Nightly struct {
			Sources []SourceSummary `json:"sources"`
		} `json:"nightly"`
	}
	if err := json.Unmarshal(b, &m); err != nil || len(m.Nightly.Sources) != 5 {
		t.Errorf("manifest.json has no per-source summary (%v):\n%.2000s", err, b)
	}
}

// TestCorruptDownload: a file that never matches its checksum fails its
// source after the retries; nothing is published and the previous snapshot
// stays current.
func TestCorruptDownload(t *testing.T) {
	h := newHarness(t)
	if err := h.srv.Night1(h.fix); err != nil {
		t.Fatal(err)
	}
	if _, err := h.run(fake.Night1Now); err != nil {
		t.Fatal(err)
	}
	good, err := snapshot.Current(h.data)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.srv.Night2(h.fix); err != nil {
		t.Fatal(err)
	}
	bad := "/pmc/PMC7417471.1/PMC7417471.1.xml"
	h.srv.Corrupt(bad, -1)
	sum, err := h.run(fake.Night2Now)
	if !errors.Is(err, ErrSourceFailed) {
		t.Fatalf("err = %v, want ErrSourceFailed", err)
	}
	p := source(t, sum, "pmc-oa")
	if p.OK || p.Corrupt != 7 || !strings.Contains(p.Error, "checksum mismatch") {
		t.Errorf("pmc-oa: ok %v, corrupt %d (want 7: every attempt), error %q", p.OK, p.Corrupt, p.Error)
	}
	if cur, _ := snapshot.Current(h.data); cur != good {
		t.Errorf("current is %s after a failed run, want %s", cur, good)
	}
	if _, err := os.Stat(filepath.Join(h.data, StateDir, "pmc-oa-inventory", "xml", "PMC7417471.1.xml")); err == nil {
		t.Error("the corrupt file was kept in the mirror")
	}
	metrics, _ := os.ReadFile(filepath.Join(h.data, StateDir, "nightly.prom"))
	if !strings.Contains(string(metrics), "openshelf_nightly_last_run_success 0") ||
		!strings.Contains(string(metrics), "openshelf_nightly_last_success_timestamp_seconds ") ||
		!strings.Contains(string(metrics), `openshelf_nightly_source_success{source="pmc-oa"} 0`) {
		t.Errorf("metrics after a failure:\n%s", metrics)
	}
	// Once the server sends the right bytes, the next run publishes.
	h.srv.Corrupt(bad, 0)
	if sum, err := h.run(fake.Night2Now); err != nil || !sum.OK {
		t.Fatalf("after the fix: %v", err)
	}
}

// TestTooManyRequests: a 429 storm on the Crossref API is ridden out with
// growing, jittered waits, one request at a time.
func TestTooManyRequests(t *testing.T) {
	h := newHarness(t)
	if err := h.srv.Night1(h.fix); err != nil {
		t.Fatal(err)
	}
	h.srv.Headers.Set("X-Rate-Limit-Limit", "50")
	h.srv.Headers.Set("X-Rate-Limit-Interval", "1s")
	h.srv.TooMany("/crossref/works", 5)
	sum, err := h.run(fake.Night1Now)
	if err != nil {
		t.Fatal(err)
	}
	c := source(t, sum, "crossref-works")
	if c.Retries != 5 || c.Fetched != 2 {
		t.Errorf("crossref: %d retries, %d pages; want 5 and 2", c.Retries, c.Fetched)
	}
	// 5 refused + 3 pages (the last one empty): no request beyond the retries.
	if n := h.srv.HitsPrefix("/crossref/"); n != 8 {
		t.Errorf("crossref received %d requests, want 8", n)
	}
	if p := h.srv.Peak("/crossref/"); p != 1 {
		t.Errorf("%d requests at once to crossref, want 1", p)
	}
	// Backoff waits are at least half of 1s, 2s, 4s, 8s, 16s in turn.
	var backoff []time.Duration
	h.mu.Lock()
	for _, d := range h.sleeps {
		if d >= 400*time.Millisecond { // pacing waits (1s/50) are shorter
			backoff = append(backoff, d)
		}
	}
	h.mu.Unlock()
	if len(backoff) != 5 {
		t.Fatalf("backoff waits %v, want 5", backoff)
	}
	for i, d := range backoff {
		if min := (time.Second << i) / 2; d < min || d > time.Second<<i {
			t.Errorf("wait %d = %s, want between %s and %s", i+1, d, min, time.Second<<i)
		}
	}
}

// TestLocked: a second run while one holds the lock is refused.
func TestLocked(t *testing.T) {
	h := newHarness(t)
	dir := filepath.Join(h.data, StateDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := lock(filepath.Join(dir, "nightly.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	_, err = h.run(fake.Night1Now)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("err = %v, want ErrLocked naming the holder", err)
	}
	if h.srv.HitsPrefix("/") != 0 {
		t.Error("the refused run contacted the upstreams")
	}
}
