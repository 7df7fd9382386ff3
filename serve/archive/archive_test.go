package archive

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
)

func accept(ev []licence.Evidence, _ time.Time) licence.Decision {
	return licence.Decision{Accepted: true, Family: licence.CCBY, Version: "4.0",
		URL: "https://creativecommons.org/licenses/by/4.0/", Evidence: ev}
}

// buildSynthetic publishes n documents into dir; run distinguishes builds.
func buildSynthetic(t testing.TB, dir string, n int, run time.Time) {
	t.Helper()
	feed := func(ctx context.Context, sink ingest.Sink) error {
		for i := 0; i < n; i++ {
			d := &ingest.Document{PMCID: fmt.Sprint(1000 + i), DOI: fmt.Sprintf("10.1/x.%d", i),
				Title: fmt.Sprintf("Zebrafish neural circuits %d", i), Authors: []ingest.Author{{Name: "Ada Lövelace"}},
				Year: 2000 + i%20, Keywords: []string{"synapse"}, Topics: []string{[]string{"neuroscience", "genetics"}[i%2]},
				Sections: []ingest.Section{
					{Title: "Intro", Paragraphs: []string{"p1"}, Children: []ingest.Section{
						{Title: "Sub", Paragraphs: []string{"p2"}, Children: []ingest.Section{{Title: "Deep"}}},
						{Title: "Sub2"}}},
					{Title: "Methods", Paragraphs: []string{"p3"}}},
				References: []ingest.Reference{{Title: "cited", Authors: []string{"Smith J"}, DOI: "10.9/c"}},
				Sources:    []string{"jats:pmc"}}
			d.Licence = accept([]licence.Evidence{{Kind: licence.KindJATSHref, Source: licence.SourcePMC,
				Value: "https://creativecommons.org/licenses/by/4.0/"}}, run)
			d.AssignIDs()
			if err := sink.Document(d); err != nil {
				return err
			}
		}
		return nil
	}
	_, err := index.Build(context.Background(), index.Config{DataDir: dir, Decide: accept, Now: run, Fresh: true,
		Topics: []index.Topic{{Slug: "neuroscience", Name: "Neuroscience"}, {Slug: "genetics", Name: "Genetics"}}}, feed)
	if err != nil {
		t.Fatal(err)
	}
}

func TestQueries(t *testing.T) {
	dir := t.TempDir()
	buildSynthetic(t, dir, 30, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ctx := context.Background()
	st, err := OpenStore(ctx, StoreConfig{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g, err := st.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer g.release()

	items, total, _, err := g.catalogPage(ctx, "genetics", 5, 10, "")
	if err != nil || total != 15 || len(items) != 5 || items[0].ID != "pmc-1021" {
		t.Fatalf("catalog page: %v %d %+v", err, total, items)
	}
	if _, _, _, err := g.catalogPage(ctx, "nope", 5, 0, ""); err == nil {
		t.Fatal("unknown topic accepted")
	}

	// Accent- and case-folded: "LOVELACE" finds "Lövelace".
	hits, total, err := g.searchPage(ctx, "zebrafish LOVELACE", search.Filters{}, 3, 0)
	if err != nil || total != 30 || len(hits) != 3 {
		t.Fatalf("search: %v %d %v", err, total, hits)
	}
	if hits, total, _ := g.searchPage(ctx, "zebrafish 17", search.Filters{}, 10, 0); total != 1 || len(hits) != 1 {
		t.Fatalf("search for one document: %d %v", total, hits)
	}
	if _, total, _ := g.searchPage(ctx, "zebrafish unicorn", search.Filters{}, 10, 0); total != 0 {
		t.Fatalf("a missing word matched %d", total)
	}
	from, to := 2005, 2006
	if _, total, _ := g.searchPage(ctx, "", search.Filters{YearFrom: &from, YearTo: &to}, 10, 0); total != 4 {
		t.Fatalf("year filter: %d", total)
	}

	id, err := g.resolve(ctx, "doi-"+ingest.DOIID("10.1/x.1")[4:])
	if err != nil || id != "pmc-1001" {
		t.Fatalf("alias: %q %v", id, err)
	}
	ft, err := g.fulltext(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	// The nesting survives the flat table: Intro{Sub{Deep}, Sub2}, Methods.
	if len(ft.Sections) != 2 || ft.Sections[0].Title != "Intro" || len(ft.Sections[0].Children) != 2 ||
		ft.Sections[0].Children[0].Children[0].Title != "Deep" || ft.Sections[0].Children[1].Title != "Sub2" ||
		ft.Sections[1].Title != "Methods" || ft.License != "CC-BY" || ft.Attribution == "" {
		t.Fatalf("fulltext tree: %+v", ft)
	}
	refs, err := g.references(ctx, id)
	if err != nil || len(refs.References) != 1 || refs.References[0].Authors[0] != "Smith J" || refs.LicenseURL == "" {
		t.Fatalf("references: %v %+v", err, refs)
	}
}

// TestGenerationClosedWhenIdle: after a switch, the old generation stays
// usable by a request holding it and closes when that request ends.
func TestGenerationClosedWhenIdle(t *testing.T) {
	dir := t.TempDir()
	buildSynthetic(t, dir, 4, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ctx := context.Background()
	st, err := OpenStore(ctx, StoreConfig{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	old, _ := st.acquire()
	buildSynthetic(t, dir, 6, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	if err := st.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if err := old.db.PingContext(ctx); err != nil {
		t.Fatalf("old generation closed while in use: %v", err)
	}
	old.release()
	if err := old.db.PingContext(ctx); err == nil {
		t.Fatal("old generation still open after its last request")
	}
	info, _ := st.Info()
	if info.Documents != 6 {
		t.Fatalf("serving %+v", info)
	}
}
