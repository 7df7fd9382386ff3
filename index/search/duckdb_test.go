package search_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/snapshot"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testsnap.Cleanup()
	os.Exit(code)
}

// TestFacetsMatchDuckDB: on the real fixture corpus, the facet counts of
// the whole archive and of a query's results equal a GROUP BY in DuckDB
// over the snapshot's Parquet, and cited_by_count equals citations.parquet
// grouped by cited document.
func TestFacetsMatchDuckDB(t *testing.T) {
	snap, ix, db := fixtureDuckDB(t)
	docs := "read_parquet('" + snap.Path(snapshot.Documents) + "')"
	groupBy := map[string]string{
		search.FacetLicense:  "SELECT license AS v, count(*) FROM %s GROUP BY 1",
		search.FacetTopic:    "SELECT v, count(*) FROM (SELECT DISTINCT id, unnest(topics) AS v FROM %s) GROUP BY 1",
		search.FacetYear:     "SELECT year::VARCHAR AS v, count(*) FROM %s WHERE year <> 0 GROUP BY 1",
		search.FacetFulltext: "SELECT has_fulltext::VARCHAR AS v, count(*) FROM %s GROUP BY 1",
		search.FacetSource: `SELECT v, count(*) FROM (SELECT DISTINCT id, CASE WHEN s LIKE 'jats:%%' THEN 'jats' ELSE s END AS v
			FROM (SELECT id, unnest(sources) AS s FROM %s)) WHERE v IN ('jats', 'pubmed', 'openalex', 'crossref') GROUP BY 1`,
	}
	// The ids of the documents matching "cell" (in any searched field).
	n, err := query.Parse("cell OR cells")
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(context.Background(), search.Request{Query: n, Limit: ix.Len()})
	if err != nil || res.Total == 0 {
		t.Fatalf("cell: %v, %d hits", err, res.Total)
	}
	var ids []string
	ids0 := idsByDoc(t, db, docs)
	for _, h := range res.Hits {
		ids = append(ids, "'"+ids0[h.Doc]+"'")
	}
	for _, tc := range []struct {
		name string
		req  search.Request
		from string
	}{
		{"all", search.Request{}, docs},
		{"cell", search.Request{Query: n}, "(SELECT * FROM " + docs + " WHERE id IN (" + strings.Join(ids, ",") + "))"},
	} {
		tc.req.Facets = []string{search.FacetLicense, search.FacetTopic, search.FacetYear, search.FacetSource, search.FacetFulltext}
		res, err := ix.Search(context.Background(), tc.req)
		if err != nil {
			t.Fatal(err)
		}
		for _, facet := range tc.req.Facets {
			rows, err := db.Query(fmt.Sprintf(groupBy[facet], tc.from))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int64{}
			for rows.Next() {
				var v string
				var c int64
				if err := rows.Scan(&v, &c); err != nil {
					t.Fatal(err)
				}
				want[v] = c
			}
			rows.Close()
			got := map[string]int64{}
			for _, fc := range res.Facets[facet] {
				got[fc.Value] = fc.Count
			}
			if len(got) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: facet %s = %v, GROUP BY says %v", tc.name, facet, got, want)
			}
		}
	}
	// cited_by_count against citations.parquet.
	rows, err := db.Query("SELECT cited_id, count(*) FROM read_parquet('" + snap.Dir + "/citations.parquet') GROUP BY 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := map[string]int32{}
	for rows.Next() {
		var id string
		var c int32
		if err := rows.Scan(&id, &c); err != nil {
			t.Fatal(err)
		}
		want[id] = c
	}
	cited := 0
	for d, id := range ids0 {
		if got := ix.CitedByCount(int32(d)); got != want[id] {
			t.Errorf("%s: cited_by_count %d, citations.parquet %d", id, got, want[id])
		}
		if want[id] > 0 {
			cited++
		}
	}
	t.Logf("%d documents, %d cited inside the archive", len(ids0), cited)
}

// fixtureDuckDB opens the fixture snapshot, its search index and a DuckDB
// database to query its Parquet, all closed when the test ends.
func fixtureDuckDB(t *testing.T) (*snapshot.Snapshot, *search.Index, *sql.DB) {
	t.Helper()
	snap, ix := openIndex(t, testsnap.Fixtures(t))
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return snap, ix, db
}

func idsByDoc(t *testing.T, db *sql.DB, docs string) []string {
	rows, err := db.Query("SELECT id FROM " + docs)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if !slices.IsSorted(ids) {
		t.Fatal("documents.parquet is not in id order")
	}
	return ids
}

// TestTermsParquetDF: the analysts' search/terms.parquet counts a term's
// documents over titles, keywords and authors only (stop words over
// authors only), and every count equals the server's for those fields.
func TestTermsParquetDF(t *testing.T) {
	snap, ix, db := fixtureDuckDB(t)
	rows, err := db.Query("SELECT term, df FROM read_parquet('" + snap.Dir + "/search/terms.parquet') ORDER BY term")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	checked, fewer := 0, 0
	for rows.Next() {
		var term string
		var df int64
		if err := rows.Scan(&term, &df); err != nil {
			t.Fatal(err)
		}
		three := search.Request{Query: &query.Or{Children: []query.Node{&query.Term{Field: query.Title, Word: term},
			&query.Term{Field: query.Keyword, Word: term}, &query.Term{Field: query.Author, Word: term}}}}
		if tokenize.IsStopWord(term) {
			// The table drops stop words from titles and keywords.
			three.Query = &query.Term{Field: query.Author, Word: term}
		}
		res, err := ix.Search(context.Background(), three)
		if err != nil {
			t.Fatalf("%s: %v", term, err)
		}
		// The table has the word pairs of those fields too; the index
		// leaves out the rare ones (search.Writer.DropRarePairs).
		dropped := strings.HasPrefix(term, "\x01") && res.Total == 0 && df < int64(ix.Pairs().MinDF())
		if res.Total != df && !dropped {
			t.Errorf("%q: terms.parquet df %d, the index %d in titles, keywords and authors", term, df, res.Total)
		}
		all, err := ix.Search(context.Background(), search.Request{Query: &query.Term{Word: term}})
		if err != nil {
			t.Fatal(err)
		}
		if all.Total > df {
			fewer++
		}
		checked++
	}
	if checked < 1000 || fewer == 0 {
		t.Errorf("%d terms checked, %d with more documents once abstracts count", checked, fewer)
	}
}
