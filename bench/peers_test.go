package bench

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/internal/needs"
	"github.com/openshelf/openshelf/snapshot"
)

func TestRender(t *testing.T) {
	for _, tt := range []struct {
		node     query.Node
		ours, pg string
	}{
		{word("heart"), "heart", "heart"},
		{and(word("heart"), word("failure")), "heart failure", "(heart & failure)"},
		{phrase("heart", "failure"), `"heart failure"`, "(heart <-> failure)"},
		{or(word("a1"), word("b2")), "a1 OR b2", "(a1 | b2)"},
		{and(word("cell"), not(word("mouse"))), "cell -mouse", "(cell & !mouse)"},
		{and(or(word("a1"), word("b2")), word("cell")), "(a1 OR b2) cell", "((a1 | b2) & cell)"},
		{scoped(query.Title, "heart"), "title:heart", "heart:A"},
		{scoped(query.Author, "smith"), "author:smith", "smith:C"},
		{&query.Term{Word: "cardi", Prefix: true}, "cardi*", "cardi:*"},
		{and(&query.Term{Word: "cardi", Prefix: true}, word("cell")), "cardi* cell", "(cardi:* & cell)"},
		{&query.Phrase{Field: query.Abstract, Words: []string{"a", "b"}}, `abstract:"a b"`, "(a:D <-> b:D)"},
	} {
		if got := render(tt.node); got != tt.ours {
			t.Errorf("render = %q, want %q", got, tt.ours)
		}
		if got := tsquery(tt.node); got != tt.pg {
			t.Errorf("tsquery(%s) = %q, want %q", tt.ours, got, tt.pg)
		}
	}
	q := squery{node: word("x"), facets: true, sort: "-year"}
	if got := q.params(10, "c1"); got != "limit=10&q=x&facets=license,topic,year&sort=-year&cursor=c1" {
		t.Errorf("params = %q", got)
	}
}

// smallCorpus builds (once per test) a few hundred documents with a small
// vocabulary under a directory the postgres user can reach.
func smallCorpus(t *testing.T, n int) (*Config, *corpusInfo) {
	t.Helper()
	return smallCorpusOf(t, n, 1)
}

// smallCorpusOf is smallCorpus built as segs segments (Config.Segments).
func smallCorpusOf(t *testing.T, n, segs int) (*Config, *corpusInfo) {
	t.Helper()
	dir := t.TempDir()
	// t.TempDir's directories are 0700; PostgreSQL runs as another user.
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	cfg := &Config{Dir: dir, N: n, Seed: 7, Fixtures: fixtures.Dir(t), Server: []string{"unused"}, Segments: segs,
		Vocabulary: corpus.VocabularyConfig{Words: 20_000, Family: 5_000, Given: 2_000, Keywords: 3_000},
		Logger:     slog.New(slog.DiscardHandler)}
	if err := cfg.defaults(); err != nil {
		t.Fatal(err)
	}
	c, err := ensureCorpus(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, c
}

// TestPeers runs the real PostgreSQL and the real Lucene harness on a
// small corpus and checks that they answer the same questions: the same
// totals per query class, the same facet counts as DuckDB's GROUP BY over
// the Parquet, deep pages that continue each other, and known items found.
func TestPeers(t *testing.T) {
	needs.Heavy(t, "PostgreSQL and Lucene")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t0 := time.Now()
	cfg, c := smallCorpus(t, 400)
	t.Logf("corpus %s", time.Since(t0))
	cfg.Concurrency, cfg.StatsConcurrency = 2, 2
	pg, err := startPostgres(ctx, cfg, c)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.stop()
	pgCancels(ctx, t, pg)
	lc, err := startLucene(ctx, cfg, c)
	if err != nil {
		t.Fatal(err)
	}
	defer lc.stop()
	t.Logf("peers up %s", time.Since(t0))
	if lc.bytes == 0 || lc.memory().RSS == 0 {
		t.Errorf("Lucene index %d bytes, RSS %d", lc.bytes, lc.memory().RSS)
	}
	systems := []system{pgSystem(pg.base), luceneSystem(lc.base)}

	rng := rand.New(rand.NewPCG(1, 2))
	st := sampleTerms(c.sampleDocs(400, rng), c.n)
	qs := makeQueryList(st, 8*len(classOrder), rng, func() *ingest.Document { return c.gen.Doc(rng.IntN(c.n)) })
	seen := map[string]int{}
	for _, q := range qs {
		seen[q.class]++
	}
	for _, cl := range classOrder {
		if seen[cl] == 0 {
			t.Errorf("no query of class %s", cl)
		}
	}

	t1 := time.Now()
	defer func() { t.Logf("queries took %s", time.Since(t1)) }()
	for _, a := range compareByClass(ctx, systems, qs, 8, time.Minute)["Lucene"] {
		if a.Failed > 0 {
			t.Errorf("%s: %d refused: %s", a.Class, a.Failed, a.Example)
		}
		// The tokenisers differ on a few real tokens (PostgreSQL's parser
		// keeps hyphenated compounds whole besides their parts), so allow
		// a small share of differences.
		if a.Equal*10 < a.Compared*8 {
			t.Errorf("%s: totals equal for %d of %d (%s)", a.Class, a.Equal, a.Compared, a.Example)
		}
	}

	fc, err := duckFacets(ctx, c.snap, systems, qs, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range systems {
		if fc.Queries == 0 || fc.Equal[s.name] < fc.Queries-1 {
			t.Errorf("%s: facet counts equal DuckDB's for %d of %d: %s", s.name, fc.Equal[s.name], fc.Queries, fc.Example[s.name])
		}
	}

	// Deep pages: three pages by cursor are the first thirty hits.
	common := squery{node: word(st.mostFrequent(1)[0])}
	client := &http.Client{Timeout: time.Minute}
	for _, s := range systems {
		d := deepPages(ctx, s, []squery{common}, 3, 10, time.Minute)
		if d.Pages != 3 || d.Failures != 0 {
			t.Errorf("%s deep: %+v", s.name, d)
		}
		all, err := get(ctx, client, s.base+s.searchPath(common, 30, ""))
		if err != nil {
			t.Fatal(err)
		}
		var paged []string
		cursor := ""
		for p := 0; p < 3; p++ {
			a, err := get(ctx, client, s.base+s.searchPath(common, 10, cursor))
			if err != nil {
				t.Fatal(err)
			}
			paged, cursor = append(paged, a.ids()...), a.cursor()
		}
		if !slices.Equal(paged, all.ids()) {
			t.Errorf("%s: pages by cursor %v, first 30 %v", s.name, paged, all.ids())
		}
	}

	probes := makeKnownItems(20, rng, func() (int, *ingest.Document) {
		i := rng.IntN(c.n)
		return i, c.gen.Doc(i)
	})
	for i, s := range systems {
		q := knownItems(ctx, s, probes)
		// PostgreSQL's parser indexes a hyphenated compound ("a-b") at
		// its own position before its parts, so a phrase written with
		// spaces does not match across one: its phrase recall is lower,
		// a real difference, not the bench's.
		phraseMin := []int{6, 9}[i]
		if q.Failures > 0 || q.PhraseAt10*10 < q.Probes*phraseMin || q.WordsAt10*10 < q.Probes*8 {
			t.Errorf("%s known items: %+v", s.name, q)
		}
	}
}

// pgCancels: a query whose request is given up stops in the server too
// (pgx sends a cancel request when a query's context ends), instead of
// running on and taking the CPU from the system measured next: the
// comparisons and known-item probes give up PostgreSQL's queries at
// their time budgets.
func pgCancels(ctx context.Context, t *testing.T, pg *pgSide) {
	t.Helper()
	conn, err := pg.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	watch, err := pg.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(context.Background())
	// running waits until n sleeps run (within 10 s).
	running := func(n int) {
		t.Helper()
		for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
			var got int
			if err := watch.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND state = 'active'").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got == n {
				return
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("%d sleeps run after %s, want %d", got, time.Since(start).Round(time.Second), n)
			}
		}
	}
	qctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := conn.Exec(qctx, "SELECT pg_sleep(60)")
		done <- err
	}()
	running(1)
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a given-up query of 60 s succeeded")
	}
	running(0)
}

// TestCorpusCacheAndReindex: -reindex rebuilds the index of the cached
// corpus under a new snapshot and keeps the cache; a reindex stopped
// after publishing, before the stamp was written, does not make the next
// run rebuild the corpus.
func TestCorpusCacheAndReindex(t *testing.T) {
	cfg, c := smallCorpus(t, 120)
	built := c.snapshotID
	c.buildTime = c.buildTime.Truncate(time.Millisecond) // as the stamp keeps it
	cfg.Reindex = true
	c2, err := ensureCorpus(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c2.snapshotID == built || c2.reindexTime <= 0 || c2.indexBytes <= 0 || c2.buildTime != c.buildTime {
		t.Fatalf("reindex: snapshot %s (built %s), reindex %v, index %d bytes, build %v (was %v)",
			c2.snapshotID, built, c2.reindexTime, c2.indexBytes, c2.buildTime, c.buildTime)
	}

	// As if a reindex had been stopped between publishing and the stamp.
	m, err := index.Reindex(context.Background(), index.ReindexConfig{DataDir: c.dataDir, Keep: 1})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Reindex = false
	c3, err := ensureCorpus(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c3.snapshotID != m.ID || c3.buildTime != c.buildTime {
		t.Fatalf("after an unrecorded reindex: snapshot %s, want %s (rebuilt? build %v, was %v)",
			c3.snapshotID, m.ID, c3.buildTime, c.buildTime)
	}
	b, err := os.ReadFile(filepath.Join(cfg.Dir, "corpus.json"))
	if err != nil || !strings.Contains(string(b), m.ID) {
		t.Errorf("stamp %s, %v; want it to name %s", b, err, m.ID)
	}
}

// TestSegmentedCorpus checks that a corpus built as segments gives the
// peers the same documents as one built whole (the Lucene export and
// the PostgreSQL load read every segment's rows), that DuckDB's facet
// recount reads them all, and that the cache tells the two apart.
func TestSegmentedCorpus(t *testing.T) {
	ctx := context.Background()
	const n = 300
	_, whole := smallCorpus(t, n)
	cfg, segd := smallCorpusOf(t, n, 3)
	if got := len(segd.snap.Manifest.Segments); got != 3 {
		t.Fatalf("%d segments, want 3", got)
	}
	var want, got bytes.Buffer
	if err := exportTSV(ctx, whole.snap, &want); err != nil {
		t.Fatal(err)
	}
	if err := exportTSV(ctx, segd.snap, &got); err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Count(got.Bytes(), []byte("\n")); lines != n || !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("the segments' export (%d lines) differs from the whole corpus's", lines)
	}
	files, err := documentFiles(segd.snap)
	if err != nil {
		t.Fatal(err)
	}
	rows := &docRows{files: files}
	defer rows.close()
	var ids []string
	for {
		d, err := rows.next()
		if err != nil {
			t.Fatal(err)
		}
		if d == nil {
			break
		}
		ids = append(ids, d.ID)
	}
	if len(ids) != n || !slices.IsSorted(ids) || ids[0] != corpus.ID(0) || ids[n-1] != corpus.ID(n-1) {
		t.Errorf("the rows of the segments: %d ids, sorted %t", len(ids), slices.IsSorted(ids))
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var count int
	if err := db.QueryRow("SELECT count(*) FROM " + segd.snap.TableSQL(snapshot.Documents)).Scan(&count); err != nil || count != n {
		t.Errorf("DuckDB counts %d documents (%v), want %d", count, err, n)
	}
	// Cached as segments: reused as such, rebuilt whole when asked.
	again, err := ensureCorpus(ctx, cfg)
	if err != nil || again.snapshotID != segd.snapshotID {
		t.Fatalf("segments again: snapshot %s (%v), want the cached %s", again.snapshotID, err, segd.snapshotID)
	}
	cfg.Segments = 1
	one, err := ensureCorpus(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if one.snapshotID == segd.snapshotID || one.snap.Segmented() {
		t.Errorf("one segment asked: snapshot %s, segmented %t", one.snapshotID, one.snap.Segmented())
	}
}
