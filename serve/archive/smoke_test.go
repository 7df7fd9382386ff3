package archive

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
)

func synthDecide(ev []licence.Evidence, now time.Time) licence.Decision {
	if len(ev) == 0 {
		return licence.Decision{Reason: licence.Missing}
	}
	return licence.Decision{Accepted: true, Family: licence.CCBY, Version: "4.0", URL: "https://creativecommons.org/licenses/by/4.0/", Evidence: ev}
}

func buildSynthetic(t testing.TB, dir string, n int) {
	t.Helper()
	feed := func(ctx context.Context, sink ingest.Sink) error {
		for i := 0; i < n; i++ {
			d := &ingest.Document{PMCID: fmt.Sprint(1000 + i), DOI: fmt.Sprintf("10.1/x.%d", i),
				Title: fmt.Sprintf("Zebrafish neural circuits %d", i), Authors: []ingest.Author{{Name: "Ada Lövelace"}},
				Year: 2000 + i%20, Keywords: []string{"synapse"}, Topics: []string{[]string{"neuroscience", "genetics"}[i%2]},
				Sections:   []ingest.Section{{Title: "Intro", Paragraphs: []string{"p"}, Children: []ingest.Section{{Title: "Sub"}}}},
				References: []ingest.Reference{{Title: "cited"}}, Sources: []string{"jats:pmc"}}
			d.Licence.Evidence = []licence.Evidence{{Kind: licence.KindJATSHref, Source: licence.SourcePMC, Value: "https://creativecommons.org/licenses/by/4.0/"}}
			d.Licence = synthDecide(d.Licence.Evidence, time.Time{})
			d.AssignIDs()
			if err := sink.Document(d); err != nil {
				return err
			}
		}
		return nil
	}
	_, err := index.Build(context.Background(), index.Config{DataDir: dir, Decide: synthDecide,
		Topics: []index.Topic{{Slug: "neuroscience", Name: "Neuroscience"}, {Slug: "genetics", Name: "Genetics"}}}, feed)
	if err != nil {
		t.Fatal(err)
	}
}

func TestSmoke(t *testing.T) {
	dir := t.TempDir()
	buildSynthetic(t, dir, 30)
	ctx := context.Background()
	st, err := OpenStore(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g, _ := st.acquire()
	defer g.release()
	items, total, err := g.catalogPage(ctx, &prices{}, "genetics", 5, 10)
	t.Logf("catalog %d %v %+v", total, err, items)
	hits, total, err := g.searchPage(ctx, "zebrafish lovelace", filters{}, 3, 0)
	t.Logf("search %d %v %+v", total, err, hits)
	id, err := g.resolve(ctx, "pmc-1001")
	d, err := g.document(ctx, id)
	t.Logf("doc %v %+v", err, d)
	ft, err := g.fulltext(ctx, id)
	t.Logf("ft %v %+v", err, ft)
	rf, err := g.references(ctx, id)
	t.Logf("refs %v %+v", err, rf)
	t.Logf("stats %+v topics %+v", g.stats, g.topics)
}

func TestSmokeRejects(t *testing.T) {
	dir := t.TempDir()
	buildSynthetic(t, dir, 3)
	db, _ := sql.Open("duckdb", "")
	rows, err := db.Query("SELECT reason, detail FROM read_parquet('" + dir + "/current/rejects.parquet')")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var a, b string
		rows.Scan(&a, &b)
		t.Log(a, b)
	}
}
