package index

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/snapshot"
)

var testNow = time.Date(2026, 11, 22, 3, 15, 0, 0, time.UTC)

// testDecide stands in for licence.Decide, so that these tests do not depend
// on the licence rules: the evidence value is the verdict.
func testDecide(ev []licence.Evidence, now time.Time) licence.Decision {
	fam := map[string]licence.Family{"cc-by": licence.CCBY, "cc-by-sa": licence.CCBYSA, "cc0": licence.CC0, "pdm": licence.PDM}
	var best licence.Decision
	for _, e := range ev {
		if strings.Contains(e.Value, "nc") {
			return licence.Decision{Reason: licence.NonCommercial, Detail: "NC seen", Evidence: ev}
		}
		if f, ok := fam[e.Value]; ok && !best.Accepted {
			best = licence.Decision{Accepted: true, Family: f, Version: "4.0", URL: "https://creativecommons.org/x/" + e.Value, Evidence: ev}
		}
	}
	if !best.Accepted {
		return licence.Decision{Reason: licence.Missing, Evidence: ev}
	}
	return best
}

// synth makes a synthetic document. lic is an evidence value understood by
// testDecide ("cc-by", "cc-by-nc", "" for none).
func synth(i int, lic string, topics ...string) *ingest.Document {
	d := &ingest.Document{
		PMCID:    fmt.Sprint(1000 + i),
		DOI:      fmt.Sprintf("10.1234/test.%d", i),
		PMID:     fmt.Sprint(5000 + i),
		Title:    fmt.Sprintf("Neural circuits of zebrafish behaviour number%d", i),
		Authors:  []ingest.Author{{Name: "Ada Lovelace", Given: "Ada", Family: "Lovelace", Affiliations: []string{"Analytical Engines Ltd"}}, {Given: "Émile", Family: "Durkheim"}},
		Venue:    "Journal of Tests",
		Year:     2000 + i%25,
		Date:     fmt.Sprintf("%d-05-07", 2000+i%25),
		Type:     "research-article",
		Language: "en",
		Abstract: fmt.Sprintf("Abstract of document %d about synapses.", i),
		Keywords: []string{"zebrafish", "Synapse"},
		Subjects: []string{"Neuroscience"},
		Topics:   topics,
		Sections: []ingest.Section{
			{Title: "Introduction", Paragraphs: []string{"First paragraph.", "Second paragraph."},
				Children: []ingest.Section{{Title: "Background", Paragraphs: []string{"Nested."}}}},
			{Title: "Methods", Paragraphs: []string{"We did things."}},
		},
		References: []ingest.Reference{{Label: "1", Authors: []string{"Smith J"}, Title: "A cited work", Year: "1999", DOI: "10.9/cited"},
			{Raw: "Unparsed citation text"}},
		Sources: []string{"jats:pmc"},
		Origin:  fmt.Sprintf("pmc/doc%d.nxml", i),
		Updated: testNow.Add(-time.Duration(i) * time.Hour),
	}
	if len(topics) == 0 {
		d.Topics = []string{"neuroscience"}
	}
	if lic != "" {
		d.Licence.Evidence = []licence.Evidence{{Kind: licence.KindJATSHref, Source: licence.SourcePMC, Value: lic}}
	}
	d.Licence = testDecide(d.Licence.Evidence, testNow)
	d.AssignIDs()
	return d
}

func feedDocs(docs ...*ingest.Document) Feed {
	return func(ctx context.Context, sink ingest.Sink) error {
		for _, d := range docs {
			if err := sink.Document(d); err != nil {
				return err
			}
		}
		return nil
	}
}

func testConfig(dataDir string) Config {
	return Config{DataDir: dataDir, Now: testNow, Decide: testDecide,
		Topics: []Topic{{Slug: "neuroscience", Name: "Neuroscience"}, {Slug: "genetics", Name: "Genetics"},
			{Slug: "ecology", Name: "Ecology", Parent: "biology"}, {Slug: "biology", Name: "Biology"}}}
}

func build(t testing.TB, cfg Config, feed Feed) *snapshot.Manifest {
	t.Helper()
	m, err := Build(context.Background(), cfg, feed)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return m
}

func duck(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// tbl returns a table of s for a DuckDB FROM clause: the quoted path of
// its file, or for a per-document table of a segmented snapshot the
// analysts' query of its live rows (snapshot.LiveSQL).
func tbl(s *snapshot.Snapshot, name string) string {
	if s.Segmented() && snapshot.PerDocument[name] {
		return "(" + snapshot.LiveSQL(s.Dir, name) + " ORDER BY id)"
	}
	return "'" + strings.ReplaceAll(s.Path(name), "'", "''") + "'"
}

func queryStrings(t testing.TB, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func queryInt(t testing.TB, db *sql.DB, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func open(t testing.TB, dataDir string) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func snapshotDirs(t testing.TB, dataDir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dataDir, snapshot.SnapshotsDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range m {
		out = append(out, filepath.Base(p))
	}
	return out
}
