package pmcoa

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/remote"
	"github.com/openshelf/openshelf/ingest/remote/download"
	fake "github.com/openshelf/openshelf/internal/upstreamfake"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/pipelines"
)

// TestGate: the metadata decides before any XML is fetched.
func TestGate(t *testing.T) {
	env := &remote.Env{Source: pipelines.Source{Params: map[string]string{}},
		Families: []licence.Family{licence.CC0, licence.PDM, licence.CCBY, licence.CCBYSA}}
	narrow := &remote.Env{Source: pipelines.Source{}, Families: []licence.Family{licence.CC0}}
	code := func(s string) *string { return &s }
	tests := []struct {
		name string
		env  *remote.Env
		m    Metadata
		want string
	}{
		{"CC BY", env, Metadata{IsPMCOpenAccess: true, LicenseCode: code("CC BY")}, ""},
		{"CC0", env, Metadata{IsPMCOpenAccess: true, LicenseCode: code("CC0")}, ""},
		{"author manuscript", env, Metadata{IsPMCOpenAccess: false, LicenseCode: code("TDM")}, "not-open-access"},
		{"TDM claiming OA", env, Metadata{IsPMCOpenAccess: true, LicenseCode: code("TDM")}, "licence:TDM"},
		{"non-commercial", env, Metadata{IsPMCOpenAccess: true, LicenseCode: code("CC BY-NC-ND")}, "licence:CC BY-NC-ND"},
		{"no licence", env, Metadata{IsPMCOpenAccess: true}, "licence:none"},
		{"retracted", env, Metadata{IsPMCOpenAccess: true, IsRetracted: true, LicenseCode: code("CC BY")}, "retracted"},
		{"narrowed by the pipeline", narrow, Metadata{IsPMCOpenAccess: true, LicenseCode: code("CC BY")}, "licence:excluded-CC-BY"},
	}
	for _, tc := range tests {
		if got := gate(tc.env, &tc.m); got != tc.want {
			t.Errorf("%s: gate = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// harness fetches the fake bucket into one mirror, committing each run.
type harness struct {
	t   *testing.T
	srv *fake.Server
	dir string
	now time.Time
	// shard is params.shard_articles.
	shard string
}

func newHarness(t *testing.T) *harness {
	srv := fake.New()
	t.Cleanup(srv.Close)
	return &harness{t: t, srv: srv, dir: t.TempDir(), now: time.Date(2026, 11, 24, 3, 30, 0, 0, time.UTC), shard: "2"}
}

func (h *harness) fetch() (*remote.Result, *remote.Stats, error) {
	h.t.Helper()
	h.now = h.now.Add(24 * time.Hour)
	res, stats, err := h.fetchUncommitted()
	if err != nil {
		return nil, stats, err
	}
	if err := remote.SaveJSON(filepath.Join(h.dir, remote.StateFile), res.State); err != nil {
		h.t.Fatal(err)
	}
	res.Cleanup()
	return res, stats, nil
}

// fetchUncommitted runs the night of h.now without committing it, as a
// run killed before its commit leaves it.
func (h *harness) fetchUncommitted() (*remote.Result, *remote.Stats, error) {
	h.t.Helper()
	stats := &remote.Stats{}
	env := &remote.Env{
		Source: pipelines.Source{URL: "s3://pmc-oa-opendata/", Params: map[string]string{
			"https_mirror": h.srv.URL + "/pmc/", "inventory": fake.PMCInventoryPrefix, "shard_articles": h.shard}},
		Dir: h.dir, Client: download.New(download.Config{}), Logger: slog.New(slog.DiscardHandler),
		Families: []licence.Family{licence.CCBY}, Stats: stats, Now: h.now,
	}
	res, err := Adapter{}.Fetch(context.Background(), env)
	return res, stats, err
}

func (h *harness) mustFetch() *remote.Result {
	h.t.Helper()
	res, _, err := h.fetch()
	if err != nil {
		h.t.Fatal(err)
	}
	return res
}

// live returns the content of every shard member the source's filter lets
// through, by member name: what the build reads.
func live(t *testing.T, res *remote.Result) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range res.Files {
		tr, closeFn, err := openShardReader(f)
		if err != nil {
			t.Fatal(err)
		}
		for {
			hd, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if res.Filter(f, &ingest.Document{Origin: f + "!" + hd.Name}) {
				if _, dup := out[hd.Name]; dup {
					t.Errorf("%s live twice", hd.Name)
				}
				out[hd.Name] = string(b)
			}
		}
		closeFn()
	}
	return out
}

func pmcArticle(id string, v int, lic string) fake.PMCArticle {
	return fake.PMCArticle{PMCID: id, Version: v, LicenseCode: lic, OpenAccess: true, XML: []byte(fmt.Sprintf("<article>%s v%d</article>", id, v))}
}

// TestVersions: versions collapse to the newest; when the newest is
// withdrawn from the inventory, the one still listed takes its place.
func TestVersions(t *testing.T) {
	h := newHarness(t)
	v1, v2 := pmcArticle("PMC1", 1, "CC BY"), pmcArticle("PMC1", 2, "CC BY")
	h.srv.PublishPMC("2026-11-23T01-00Z", []fake.PMCArticle{v1, v2})
	if got := live(t, h.mustFetch()); len(got) != 1 || got["PMC1.2.xml"] != string(v2.XML) {
		t.Errorf("both versions listed: mirror holds %v, want v2 only", got)
	}
	h.srv.Delete("/pmc/metadata/PMC1.2.json")
	h.srv.PublishPMC("2026-11-24T01-00Z", []fake.PMCArticle{v1})
	if got := live(t, h.mustFetch()); len(got) != 1 || got["PMC1.1.xml"] != string(v1.XML) {
		t.Errorf("v2 withdrawn: mirror holds %v, want v1 back", got)
	}
}

// TestRemovals: a retraction, a licence change and a withdrawal take
// articles out of what the build reads at once, and out of the disk when
// their shard is compacted (fewer than half its members live); the rest
// stay where they are.
func TestRemovals(t *testing.T) {
	h := newHarness(t)
	h.shard = "3"
	arts := []fake.PMCArticle{pmcArticle("PMC1", 1, "CC BY"), pmcArticle("PMC2", 1, "CC BY"), pmcArticle("PMC3", 1, "CC BY"), pmcArticle("PMC4", 1, "CC BY")}
	h.srv.PublishPMC("2026-11-23T01-00Z", arts)
	res := h.mustFetch()
	if len(res.Files) != 2 || len(live(t, res)) != 4 {
		t.Fatalf("night 1: %d shards, live %v; want 2 shards (3 and 1 members)", len(res.Files), live(t, res))
	}
	first, last := res.Files[0], res.Files[1]
	retracted := arts[0]
	retracted.Retracted = true
	relicensed := arts[2]
	relicensed.LicenseCode = "CC BY-NC"
	h.srv.PublishPMC("2026-11-24T01-00Z", []fake.PMCArticle{retracted, arts[1], relicensed, arts[3]})
	res, stats, err := h.fetch()
	if err != nil {
		t.Fatal(err)
	}
	got := live(t, res)
	if len(got) != 2 || got["PMC2.1.xml"] != string(arts[1].XML) || got["PMC4.1.xml"] == "" || stats.Removed != 2 || !res.Changed {
		t.Errorf("night 2: live %v, removed %d, changed %v; want PMC2 and PMC4", got, stats.Removed, res.Changed)
	}
	// The first shard kept 1 live member of 3: rewritten into tonight's.
	if _, err := os.Stat(first); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("night 2: the compacted shard is still on disk (%v)", err)
	}
	if len(res.Files) != 2 || res.Files[0] != last {
		t.Errorf("night 2: shards %v, want %s and tonight's", res.Files, last)
	}
	h.srv.Delete("/pmc/metadata/PMC4.1.json")
	h.srv.PublishPMC("2026-11-25T01-00Z", []fake.PMCArticle{retracted, arts[1], relicensed, pmcArticle("PMC5", 1, "CC BY")})
	res = h.mustFetch()
	got = live(t, res)
	if len(got) != 2 || got["PMC2.1.xml"] == "" || got["PMC5.1.xml"] == "" {
		t.Errorf("night 3: live %v, want PMC2 and PMC5", got)
	}
	ents, err := os.ReadDir(filepath.Join(h.dir, shardsDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(res.Files) || len(res.Files) != 2 {
		t.Errorf("night 3: %d shard files on disk, the state names %d, want 2", len(ents), len(res.Files))
	}
}

// TestShrinkRefused: a truncated inventory is refused however small the
// archive, and the mirror stays as it was.
func TestShrinkRefused(t *testing.T) {
	h := newHarness(t)
	arts := []fake.PMCArticle{pmcArticle("PMC1", 1, "CC BY"), pmcArticle("PMC2", 1, "CC BY"), pmcArticle("PMC3", 1, "CC BY")}
	h.srv.PublishPMC("2026-11-23T01-00Z", arts)
	before := live(t, h.mustFetch())
	state, err := os.ReadFile(filepath.Join(h.dir, remote.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	h.srv.PublishPMC("2026-11-24T01-00Z", arts[:1])
	_, _, err = h.fetch()
	if !errors.Is(err, ErrShrunk) || !strings.Contains(err.Error(), "lists 1 metadata keys, the last one applied 3") ||
		!strings.Contains(err.Error(), "at any size") {
		t.Fatalf("err = %v, want ErrShrunk stating the rule", err)
	}
	if after, _ := os.ReadFile(filepath.Join(h.dir, remote.StateFile)); string(after) != string(state) {
		t.Error("the refused inventory changed the checkpoint")
	}
	// Two of three is not half lost: applied.
	h.srv.PublishPMC("2026-11-25T01-00Z", arts[:2])
	if got := live(t, h.mustFetch()); len(got) != 2 || len(before) != 3 {
		t.Errorf("two of three keys: live %v (before %v)", got, before)
	}
}

// TestMigrateJSONCheckpoint: a checkpoint of the former format (every key
// and ETag in state.json, one XML file per article) is read once and
// carried into the keys file and the shards: only the delta is fetched.
func TestMigrateJSONCheckpoint(t *testing.T) {
	h := newHarness(t)
	a1, a2 := pmcArticle("PMC1", 1, "CC BY"), pmcArticle("PMC2", 1, "CC BY")
	h.srv.PublishPMC("2026-11-23T01-00Z", []fake.PMCArticle{a1, a2})
	if err := os.MkdirAll(filepath.Join(h.dir, "xml"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "xml", "PMC1.1.xml"), a1.XML, 0o644); err != nil {
		t.Fatal(err)
	}
	old := map[string]any{
		"inventory": "2026-11-22T01-00Z",
		"etags":     map[string]string{"metadata/PMC1.1.json": fake.MD5(a1.Metadata())},
		"articles":  map[string]any{"PMC1": map[string]any{"version": 1, "file": "PMC1.1.xml"}},
	}
	if err := remote.SaveJSON(filepath.Join(h.dir, remote.StateFile), old); err != nil {
		t.Fatal(err)
	}
	res, stats, err := h.fetch()
	if err != nil {
		t.Fatal(err)
	}
	if stats.Fetched != 1 || stats.Skipped != 1 || h.srv.Hits("/pmc/metadata/PMC1.1.json") != 0 {
		t.Errorf("fetched %d, skipped %d, PMC1 metadata asked %d times; want only PMC2 fetched", stats.Fetched, stats.Skipped, h.srv.Hits("/pmc/metadata/PMC1.1.json"))
	}
	if got := live(t, res); len(got) != 2 || got["PMC1.1.xml"] != string(a1.XML) {
		t.Errorf("live %v", got)
	}
	b, _ := os.ReadFile(filepath.Join(h.dir, remote.StateFile))
	if strings.Contains(string(b), "etags") || strings.Contains(string(b), `"articles"`) || !strings.Contains(string(b), `"articles_file"`) {
		t.Errorf("the new checkpoint still holds a JSON map:\n%s", b)
	}
}

// TestMigrateArticlesMap: a checkpoint whose articles (version and
// shard) are a JSON map in state.json, as the sharded mirror first kept
// them, is read once into an articles file: nothing is fetched or
// repacked again, the next night applies only its delta, and the
// migrated file leaves once the new checkpoint is committed.
func TestMigrateArticlesMap(t *testing.T) {
	h := newHarness(t)
	arts := []fake.PMCArticle{pmcArticle("PMC1", 1, "CC BY"), pmcArticle("PMC12", 1, "CC BY"), pmcArticle("PMC123", 1, "CC BY")}
	h.srv.PublishPMC("2026-11-23T01-00Z", arts)
	first := h.mustFetch()
	var st state
	if _, err := remote.LoadJSON(filepath.Join(h.dir, remote.StateFile), &st); err != nil {
		t.Fatal(err)
	}
	// The former checkpoint: the same articles as a JSON map.
	former := map[string]article{}
	if err := (articleSet{old: filepath.Join(h.dir, st.ArticlesFile)}).each(func(e entry) error { former[e.id] = e.article(); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(former) != 3 {
		t.Fatalf("night 1: %d articles, want 3", len(former))
	}
	os.Remove(filepath.Join(h.dir, st.ArticlesFile))
	os.Remove(filepath.Join(h.dir, st.Live))
	old := map[string]any{"inventory": st.Inventory, "keys": st.Keys, "articles": former, "shards": st.Shards}
	if err := remote.SaveJSON(filepath.Join(h.dir, remote.StateFile), old); err != nil {
		t.Fatal(err)
	}
	before := h.srv.Hits("/pmc/PMC12.1/PMC12.1.xml")
	// Night 2: PMC12 retracted, PMC1234 new.
	retracted := arts[1]
	retracted.Retracted = true
	h.srv.PublishPMC("2026-11-24T01-00Z", []fake.PMCArticle{arts[0], retracted, arts[2], pmcArticle("PMC1234", 1, "CC BY")})
	res, stats, err := h.fetch()
	if err != nil {
		t.Fatal(err)
	}
	got := live(t, res)
	if len(got) != 3 || got["PMC1.1.xml"] == "" || got["PMC123.1.xml"] == "" || got["PMC1234.1.xml"] == "" {
		t.Errorf("night 2: live %v, want PMC1, PMC123 and PMC1234", got)
	}
	if stats.Fetched != 1 || stats.Removed != 1 || h.srv.Hits("/pmc/PMC12.1/PMC12.1.xml") != before {
		t.Errorf("night 2: fetched %d, removed %d; want only PMC1234 fetched and PMC12 removed", stats.Fetched, stats.Removed)
	}
	if !slices.Contains(res.Files, first.Files[0]) {
		t.Errorf("night 2: shards %v, want night 1's %s kept", res.Files, first.Files[0])
	}
	b, _ := os.ReadFile(filepath.Join(h.dir, remote.StateFile))
	if strings.Contains(string(b), `"articles"`) || !strings.Contains(string(b), `"articles_file"`) {
		t.Errorf("the new checkpoint still holds the JSON map:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "articles-migrated.tsv.zst")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the migrated articles file is still on disk after the commit (%v)", err)
	}
}

// TestUncommittedNight: a night killed before its commit leaves the
// committed checkpoint's files (keys, articles, live set, shards) in
// place, so the committed mirror still reads whole; the night run again
// gives the same mirror, and once committed only the files the new
// checkpoint names stay.
func TestUncommittedNight(t *testing.T) {
	h := newHarness(t)
	arts := []fake.PMCArticle{pmcArticle("PMC1", 1, "CC BY"), pmcArticle("PMC2", 1, "CC BY"), pmcArticle("PMC3", 1, "CC BY")}
	h.srv.PublishPMC("2026-11-23T01-00Z", arts)
	committed := h.mustFetch()
	night1 := live(t, committed)
	retracted := arts[0]
	retracted.Retracted = true
	h.srv.PublishPMC("2026-11-24T01-00Z", []fake.PMCArticle{retracted, pmcArticle("PMC2", 2, "CC BY"), arts[2], pmcArticle("PMC4", 1, "CC BY")})
	h.now = h.now.Add(24 * time.Hour)
	killed, _, err := h.fetchUncommitted()
	if err != nil {
		t.Fatal(err)
	}
	// The committed mirror is untouched by the uncommitted night.
	if got := live(t, committed); !maps.Equal(got, night1) {
		t.Errorf("after the uncommitted night the committed mirror reads %v, want %v", got, night1)
	}
	want := live(t, killed)
	if len(want) != 3 || want["PMC2.2.xml"] == "" || want["PMC4.1.xml"] == "" {
		t.Fatalf("night 2: live %v, want PMC2 v2, PMC3, PMC4", want)
	}
	// Run again (same run time, as a resumed run) and commit.
	res, _, err := h.fetchUncommitted()
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.SaveJSON(filepath.Join(h.dir, remote.StateFile), res.State); err != nil {
		t.Fatal(err)
	}
	res.Cleanup()
	if got := live(t, res); !maps.Equal(got, want) {
		t.Errorf("night 2 run again: live %v, want %v", got, want)
	}
	st := res.State.(state)
	named := map[string]bool{st.Keys: true, st.ArticlesFile: true, st.Live: true, remote.StateFile: true, shardsDir: true, "inventory": true}
	ents, err := os.ReadDir(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !named[e.Name()] {
			t.Errorf("%s left in the source directory", e.Name())
		}
	}
	shards, _ := os.ReadDir(filepath.Join(h.dir, shardsDir))
	if len(shards) != len(st.Shards) {
		t.Errorf("%d shard files, the checkpoint names %d", len(shards), len(st.Shards))
	}
}
