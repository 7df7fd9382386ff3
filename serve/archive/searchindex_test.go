package archive

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/catalog"
	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/snapshot"
)

// The search (package index/search) replaced a DuckDB SQL query over the
// snapshot's search tables (title, keywords and authors). Since the search
// also reads abstracts (issue #21), that query is kept here as a lower
// bound: every document it finds, the search finds too, under the same
// filters. The ranking itself is checked against a brute-force evaluator
// in package index/search.

// oracleTables loads the search tables into the generation's DuckDB, as
// the server did before the search moved to Go.
func oracleTables(t testing.TB, ctx context.Context, g *generation) {
	t.Helper()
	p := func(name string) string { return quote(g.snap.Path(name)) }
	for _, q := range []string{
		"CREATE TABLE IF NOT EXISTS terms AS SELECT term_id, term, df FROM read_parquet(" + p("search/terms") + ")",
		"CREATE TABLE IF NOT EXISTS postings AS SELECT term_id, doc, field, tf FROM read_parquet(" + p("search/postings") + ") ORDER BY term_id, doc",
		"CREATE TABLE IF NOT EXISTS sdocs AS SELECT doc, id, len_title, len_keywords, len_authors, year, license, topics, has_fulltext FROM read_parquet(" + p("search/docs") + ") ORDER BY doc",
		"CREATE TABLE IF NOT EXISTS sfields AS SELECT field, name, avg_len, weight FROM read_parquet(" + p("search/fields") + ")",
	} {
		if _, err := g.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
}

func where(f search.Filters, alias string) (string, []any) {
	var conds []string
	var args []any
	if f.Topic != "" {
		conds, args = append(conds, "list_contains("+alias+".topics, ?)"), append(args, f.Topic)
	}
	if f.YearFrom != nil || f.YearTo != nil {
		conds = append(conds, alias+".year <> 0") // undated never matches a year filter
	}
	if f.YearFrom != nil {
		conds, args = append(conds, alias+".year >= ?"), append(args, *f.YearFrom)
	}
	if f.YearTo != nil {
		conds, args = append(conds, alias+".year <= ?"), append(args, *f.YearTo)
	}
	if f.License != "" {
		conds, args = append(conds, alias+".license = ?"), append(args, f.License)
	}
	if f.Fulltext {
		conds = append(conds, alias+".has_fulltext")
	}
	if len(conds) == 0 {
		return "TRUE", nil
	}
	return strings.Join(conds, " AND "), args
}

// oracleSearch is the former SQL implementation of searchPage.
func oracleSearch(ctx context.Context, g *generation, q string, f search.Filters, limit, offset int) ([]search.Hit, int64, error) {
	terms := tokenize.Query(q)
	where, args := where(f, "d")
	if len(terms) == 0 {
		if strings.TrimSpace(q) != "" {
			return nil, 0, nil
		}
		rows, err := g.db.QueryContext(ctx, "SELECT doc, 0.0, count(*) OVER () FROM sdocs d WHERE "+where+
			" ORDER BY doc LIMIT ? OFFSET ?", append(args, limit, offset)...)
		if err != nil {
			return nil, 0, err
		}
		return scanOracle(rows)
	}
	var ndocs int64
	if err := g.db.QueryRowContext(ctx, "SELECT count(*) FROM sdocs").Scan(&ndocs); err != nil {
		return nil, 0, err
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(terms)), ",")
	targs := make([]any, len(terms))
	for i, t := range terms {
		targs[i] = t
	}
	rows, err := g.db.QueryContext(ctx, "SELECT term_id, df FROM terms WHERE term IN ("+marks+")", targs...)
	if err != nil {
		return nil, 0, err
	}
	type qterm struct {
		id  int32
		df  int64
		idf float64
	}
	var qt []qterm
	for rows.Next() {
		var t qterm
		if err := rows.Scan(&t.id, &t.df); err != nil {
			rows.Close()
			return nil, 0, err
		}
		n := float64(ndocs)
		t.idf = math.Log(1 + (n-float64(t.df)+0.5)/(float64(t.df)+0.5))
		qt = append(qt, t)
	}
	rows.Close()
	if len(qt) < len(terms) {
		return nil, 0, nil
	}
	sort.Slice(qt, func(i, j int) bool { return qt[i].df < qt[j].df })
	var values []string
	for _, t := range qt {
		values = append(values, "("+strconv.Itoa(int(t.id))+", "+strconv.FormatFloat(t.idf, 'g', 17, 64)+")")
	}
	fstr := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	query := `WITH q(term_id, idf) AS (VALUES ` + strings.Join(values, ", ") + `),
		m AS (SELECT p.doc FROM postings p JOIN q USING (term_id)
			GROUP BY p.doc HAVING count(DISTINCT p.term_id) = ` + strconv.Itoa(len(qt)) + `),
		w AS (SELECT p.doc, q.idf,
				sum(f.weight * p.tf / (1 - ` + fstr(search.B) + ` + ` + fstr(search.B) + ` *
					(CASE p.field WHEN 0 THEN d.len_title WHEN 1 THEN d.len_keywords ELSE d.len_authors END)
					/ greatest(f.avg_len, 1e-9))) AS wtf
			FROM postings p JOIN q USING (term_id) JOIN m ON m.doc = p.doc
				JOIN sdocs d ON d.doc = p.doc JOIN sfields f ON f.field = p.field
			WHERE ` + where + `
			GROUP BY p.doc, p.term_id, q.idf),
		s AS (SELECT doc, sum(idf * wtf / (` + fstr(search.K1) + ` + wtf)) AS score FROM w GROUP BY doc)
		SELECT doc, score, count(*) OVER () FROM s ORDER BY score DESC, doc LIMIT ? OFFSET ?`
	rows, err = g.db.QueryContext(ctx, query, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	return scanOracle(rows)
}

func scanOracle(rows interface {
	Next() bool
	Scan(...any) error
	Close() error
	Err() error
}) ([]search.Hit, int64, error) {
	defer rows.Close()
	var hits []search.Hit
	var total int64
	for rows.Next() {
		var h search.Hit
		if err := rows.Scan(&h.Doc, &h.Score, &total); err != nil {
			return nil, 0, err
		}
		hits = append(hits, h)
	}
	return hits, total, rows.Err()
}

var corpusVocabulary = sync.OnceValues(func() (*corpus.Vocabulary, error) {
	dir, err := fixtures.Find()
	if err != nil {
		return nil, err
	}
	// A small vocabulary: documents share words, so multi-word queries
	// have many hits and scores tie often.
	return corpus.ReadVocabulary(context.Background(), corpus.VocabularyConfig{Words: 3000, Family: 400, Given: 200, Keywords: 500}, dir)
})

// generatedStore publishes n generated documents and opens them.
func generatedStore(t *testing.T, n int) (*Store, *corpus.Generator) {
	t.Helper()
	v, err := corpusVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	topics := []string{"neuroscience", "genetics", "ecology", "oncology", "physics"}
	gen, err := corpus.New(v, corpus.Config{Seed: 3, Topics: topics})
	if err != nil {
		t.Fatal(err)
	}
	var its []index.Topic
	for _, s := range topics {
		its = append(its, index.Topic{Slug: s, Name: s})
	}
	dir := t.TempDir()
	if _, err := corpus.Build(context.Background(), corpus.BuildConfig{DataDir: dir, N: n, Generator: gen, Topics: its,
		Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(context.Background(), StoreConfig{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, gen
}

// compareWithOracle runs queries × filter sets × pages against both.
func compareWithOracle(t *testing.T, st *Store, queries []string, topics []string, minHits int) {
	t.Helper()
	ctx := context.Background()
	g, err := st.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer g.release()
	oracleTables(t, ctx, g)
	y1, y2 := 2015, 2020
	fsets := []search.Filters{{}, {YearFrom: &y1, YearTo: &y2}, {YearTo: &y2}, {License: "CC0"}, {Fulltext: true},
		{License: "CC-BY-SA", Fulltext: false}}
	for _, tp := range topics {
		fsets = append(fsets, search.Filters{Topic: tp, YearFrom: &y1, License: "CC-BY"})
	}
	compared, nonEmpty := 0, 0
	for _, q := range queries {
		for fi, f := range fsets {
			got, gotTotal, err := g.searchPage(ctx, q, f, 1<<20, 0)
			if err != nil {
				t.Fatalf("search %q: %v", q, err)
			}
			want, wantTotal, err := oracleSearch(ctx, g, q, f, 1<<20, 0)
			if err != nil {
				t.Fatalf("oracle %q: %v", q, err)
			}
			if gotTotal < wantTotal || int64(len(got)) != gotTotal {
				t.Errorf("search %q filters #%d: total %d (%d hits), the former search found %d", q, fi, gotTotal, len(got), wantTotal)
			}
			found := map[int32]bool{}
			for _, h := range got {
				found[h.Doc] = true
			}
			for _, h := range want {
				if !found[h.Doc] {
					t.Errorf("search %q filters #%d: doc %d, found by the former search, is missing", q, fi, h.Doc)
					break
				}
			}
			if strings.TrimSpace(q) == "" && gotTotal != wantTotal {
				t.Errorf("listing filters #%d: %d documents, want %d", fi, gotTotal, wantTotal)
			}
			compared++
			if len(want) > 0 {
				nonEmpty++
			}
		}
		if t.Failed() {
			return
		}
	}
	if nonEmpty < compared/10 || nonEmpty < minHits {
		t.Errorf("only %d of %d comparisons had hits: the test compares too little", nonEmpty, compared)
	}
}

// TestSearchMatchesSQLOracle compares on a generated corpus with shared
// vocabulary: common and rare words, author names, one to four words.
func TestSearchMatchesSQLOracle(t *testing.T) {
	st, gen := generatedStore(t, 2500)
	rng := rand.New(rand.NewPCG(1, 1))
	queries := []string{"", "   ", "--", "zzqxjv", "the", "The Of", "unknownword cell"}
	for len(queries) < 40 {
		d := gen.Doc(rng.IntN(2500))
		words := strings.Fields(d.Title + " " + d.Authors[0].Name + " " + strings.Join(d.Keywords, " "))
		rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
		queries = append(queries, strings.Join(words[:min(len(words), 1+len(queries)%4)], " "))
	}
	compareWithOracle(t, st, queries, []string{"neuroscience"}, 100)
}

// TestSearchMatchesSQLOracleFixtures compares on the real fixture corpus.
func TestSearchMatchesSQLOracleFixtures(t *testing.T) {
	st, err := OpenStore(context.Background(), StoreConfig{DataDir: testsnap.Fixtures(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g, _ := st.acquire()
	titles, _, _, err := g.catalogPage(context.Background(), "", 25, 0, "")
	g.release()
	if err != nil {
		t.Fatal(err)
	}
	queries := []string{"", "cell", "Müller", "genome sequencing", "la", "de"}
	for i, e := range titles {
		w := strings.Fields(e.Title)
		queries = append(queries, strings.Join(w[:min(len(w), 1+i%3)], " "))
		if len(e.Authors) > 0 {
			queries = append(queries, e.Authors[0])
		}
	}
	compareWithOracle(t, st, queries, []string{"genetics-genomics"}, 100)
}

// TestSearchLargeTermFrequencies: frequencies too large for the packed
// bits score exactly, as do the ordinary ones beside them.
func TestSearchLargeTermFrequencies(t *testing.T) {
	dir := t.TempDir()
	rep := func(w string, n int) string { return strings.TrimSpace(strings.Repeat(w+" ", n)) }
	feed := func(ctx context.Context, sink ingest.Sink) error {
		for i, tc := range []struct {
			title   string
			kws     []string
			authors int
		}{
			{rep("echo", 40), []string{rep("echo", 3)}, 70},
			{"echo chamber " + rep("wang", 31), []string{rep("echo", 40)}, 1},
			{"echo once", nil, 63},
			{"wang echo", []string{"echo"}, 2},
		} {
			d := &ingest.Document{PMCID: fmt.Sprint(100 + i), Title: tc.title, Keywords: tc.kws, Year: 2020,
				Topics: []string{"physics"}, Sources: []string{"jats:pmc"}}
			for a := 0; a < tc.authors; a++ {
				d.Authors = append(d.Authors, ingest.Author{Name: "Wei Wang"})
			}
			d.Licence = accept([]licence.Evidence{{Kind: licence.KindJATSHref, Value: "https://creativecommons.org/licenses/by/4.0/"}}, time.Time{})
			d.AssignIDs()
			if err := sink.Document(d); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := index.Build(context.Background(), index.Config{DataDir: dir, Decide: accept, Fresh: true,
		Topics: []index.Topic{{Slug: "physics", Name: "Physics"}}}, feed); err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(context.Background(), StoreConfig{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	compareWithOracle(t, st, []string{"echo", "wang", "wei", "echo wang", "chamber wang wei", "once"}, []string{"physics"}, 10)
}

func TestMain(m *testing.M) {
	code := m.Run()
	testsnap.Cleanup()
	os.Exit(code)
}

// TestCatalogStoreMatchesDocuments: every entry decoded from the packed
// catalog equals the row of documents.parquet (as the former DuckDB
// catalog table served it), and every alias resolves like the former
// alias table.
func TestCatalogStoreMatchesDocuments(t *testing.T) {
	for name, dir := range map[string]func(*testing.T) string{
		"fixtures":  func(t *testing.T) string { return testsnap.Fixtures(t) },
		"generated": func(t *testing.T) string { st, _ := generatedStore(t, 9000); return st.dataDir },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, err := OpenStore(ctx, StoreConfig{DataDir: dir(t)})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			g, _ := st.acquire()
			defer g.release()
			rows, err := g.db.QueryContext(ctx, `SELECT s.doc, d.id, d.title, [a.name FOR a IN d.authors], d.year, d.venue,
				d.topics, d.license, d.license_url, d.has_fulltext, d.has_references
				FROM documents d JOIN read_parquet(`+quote(g.snap.Path("search/docs"))+`) s USING (id) ORDER BY s.doc`)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for rows.Next() {
				var (
					doc            int32
					e              Entry
					year           sql.NullInt32
					authors, topic []any
				)
				if err := rows.Scan(&doc, &e.ID, &e.Title, &authors, &year, &e.Venue, &topic, &e.License, &e.LicenseURL,
					&e.HasFulltext, &e.HasReferences); err != nil {
					t.Fatal(err)
				}
				e.Year, e.Authors, e.Topics = int(year.Int32), strings_(authors), strings_(topic)
				e.Prices = pricesFor(e)
				got, err := g.entries(ctx, []int32{doc})
				if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], e) {
					t.Fatalf("doc %d: %v\n got %+v\nwant %+v", doc, err, got, e)
				}
				n++
			}
			rows.Close()
			if n == 0 || n != g.catalog.Len() {
				t.Fatalf("compared %d of %d entries", n, g.catalog.Len())
			}
			if got, _ := g.entries(ctx, []int32{-1, int32(n), 0}); len(got) != 1 {
				t.Errorf("out-of-range docs not skipped: %d entries", len(got))
			}

			rows, err = g.db.QueryContext(ctx, "SELECT alias, id FROM aliases")
			if err != nil {
				t.Fatal(err)
			}
			aliases := 0
			for rows.Next() {
				var alias, id string
				if err := rows.Scan(&alias, &id); err != nil {
					t.Fatal(err)
				}
				if got, err := g.resolve(ctx, alias); err != nil || got != id {
					t.Fatalf("resolve(%s) = %q, %v; want %s", alias, got, err, id)
				}
				aliases++
			}
			rows.Close()
			if aliases < n {
				t.Fatalf("only %d aliases for %d documents", aliases, n)
			}
			for _, missing := range []string{"pmc-0", "doi-00000000000000000000", "", "zzz"} {
				if _, err := g.resolve(ctx, missing); !errors.Is(err, apierr.ErrNotFound) {
					t.Errorf("resolve(%q): %v, want not found", missing, err)
				}
			}
		})
	}
}

// TestPreEncodedBodies: /api/stats and /api/topics, encoded once per
// generation, give the bytes encoding the values gives, for each base URL.
func TestPreEncodedBodies(t *testing.T) {
	ctx := context.Background()
	st, err := OpenStore(ctx, StoreConfig{DataDir: testsnap.Fixtures(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g, _ := st.acquire()
	defer g.release()
	for _, base := range []string{"https://a.example", "http://b.example:8080", "https://a.example"} {
		endpoints := map[string]*registry.Endpoint{}
		for _, e := range (&Service{Store: st, BaseURL: base}).Endpoints() {
			endpoints[e.Name] = e
		}
		want := map[string]any{"stats": g.stats}
		tl := TopicList{Snapshot: g.snap.ID}
		for _, tp := range g.topics {
			tp.BundlePrice, tp.BundleURL = PriceBundle, base+"/api/topic/"+tp.Slug+"/content"
			tl.Topics = append(tl.Topics, tp)
		}
		want["topics"] = tl
		for name, v := range want {
			for range 2 {
				res, err := endpoints[name].Handle(ctx, endpoints[name].NewInput())
				if err != nil {
					t.Fatal(err)
				}
				got, err1 := json.Marshal(res.Value)
				exp, err2 := json.Marshal(v)
				if err1 != nil || err2 != nil || !bytes.Equal(got, exp) {
					t.Fatalf("%s at %s:\n got %s\nwant %s", name, base, got, exp)
				}
			}
		}
	}
}

// TestCatalogConverted: a snapshot written before catalog/catalog.bin
// existed gets its catalog converted from the Parquet tables, and lists
// and resolves exactly what the built file does.
func TestCatalogConverted(t *testing.T) {
	dir := t.TempDir()
	buildSynthetic(t, dir, 40, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	snap, err := snapshot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	built, err := openCatalog(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	defer built.Close()
	if err := os.Rename(filepath.Join(snap.Dir, filepath.FromSlash(catalog.File)), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	conv, err := openCatalog(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	defer conv.Close()
	if built.Len() != 40 || conv.Len() != built.Len() {
		t.Fatalf("documents: built %d, converted %d", built.Len(), conv.Len())
	}
	var names []string
	type aliasRow struct {
		Alias string `parquet:"alias"`
	}
	err = snapshot.ReadParquet(snap.Path(snapshot.Aliases), func(rows []aliasRow) error {
		for _, r := range rows {
			names = append(names, r.Alias)
		}
		return nil
	})
	if err != nil || len(names) <= built.Len() {
		t.Fatalf("aliases.parquet: %d rows, %v", len(names), err)
	}
	for d := range int32(built.Len()) {
		a, err1 := built.Record(d)
		b, err2 := conv.Record(d)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("doc %d: built %+v (%v), converted %+v (%v)", d, a, err1, b, err2)
		}
	}
	for _, n := range append(names, "pmc-0", "doi-10.9/none") {
		if a, b := built.Lookup(n), conv.Lookup(n); a != b {
			t.Errorf("Lookup(%q): built %d, converted %d", n, a, b)
		}
	}
}
