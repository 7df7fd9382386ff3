package snapshot

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// TestLiveSQL writes the documents table of three segments (the second
// revises a document of the first, the third deletes one) and their
// deletion table with DuckDB, and reads the live rows with LiveSQL.
func TestLiveSQL(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Segment ids look like numbers on purpose: the partition column
	// must stay a string.
	segs := map[string]string{
		"0001": "('pmc-1', 'one'), ('pmc-2', 'two'), ('pmc-3', 'three')",
		"0002": "('pmc-2', 'two, revised'), ('pmc-4', 'four')",
		"0003": "('pmc-5', 'five')",
	}
	for seg, rows := range segs {
		d := filepath.Join(dir, SegmentsDir, "segment="+seg)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		exec("COPY (SELECT * FROM (VALUES " + rows + ") v(id, title)) TO '" + filepath.Join(d, Documents+".parquet") + "' (FORMAT parquet)")
	}
	exec("COPY (SELECT * FROM (VALUES ('0001', 'pmc-2'), ('0001', 'pmc-3')) v(segment, id)) TO '" +
		filepath.Join(dir, DeletionsTable+".parquet") + "' (FORMAT parquet)")

	rows, err := db.Query("SELECT id, title FROM (" + LiveSQL(dir, Documents) + ") ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id, title string
		if err := rows.Scan(&id, &title); err != nil {
			t.Fatal(err)
		}
		got = append(got, id+" "+title)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"pmc-1 one", "pmc-2 two, revised", "pmc-4 four", "pmc-5 five"}
	if !slices.Equal(got, want) {
		t.Errorf("live rows %q, want %q", got, want)
	}
}
