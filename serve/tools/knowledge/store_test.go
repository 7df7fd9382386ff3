package knowledge

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/openshelf/openshelf/specs"
)

// oldRow is a specs.parquet row as written before tables were a source:
// no source, table, row or column columns.
type oldRow struct {
	ID       string  `parquet:"id"`
	Ordinal  int32   `parquet:"ordinal"`
	Quantity string  `parquet:"quantity,dict"`
	Min      float64 `parquet:"min"`
	Max      float64 `parquet:"max"`
	Unit     string  `parquet:"unit,dict"`
	SIUnit   string  `parquet:"si_unit,dict"`
	SIMin    float64 `parquet:"si_min"`
	SIMax    float64 `parquet:"si_max"`
	Text     string  `parquet:"text"`
	Where    string  `parquet:"where,dict"`
	Title    string  `parquet:"title,dict"`
}

// TestLoadOldTable checks that a snapshot written before tables were a
// source still loads, its statements reading as from text; and that a
// file that is not Parquet is an error, not a panic.
func TestLoadOldTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), specs.TableFile)
	rows := []oldRow{{ID: "pmc-1", Quantity: "band_gap", Min: 1.1, Max: 1.5, Unit: "eV", SIUnit: "J",
		SIMin: 1.1 * 1.602176634e-19, SIMax: 1.5 * 1.602176634e-19, Text: "a band gap of 1.1–1.5 eV", Where: "abstract", Title: "T"}}
	if err := parquet.WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
	tab, err := loadTableFile(context.Background(), "old", path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.entries) != 1 {
		t.Fatalf("%d entries", len(tab.entries))
	}
	if s := tab.statement(0); s.Source != specs.SourceText || s.Table != "" || s.Quantity != "band_gap" || s.Min != 1.1 || s.Text == "" {
		t.Errorf("old row read as %+v", s)
	}

	if err := os.WriteFile(path, []byte("not parquet at all, but long enough to have a footer PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadTableFile(context.Background(), "bad", path, nil); err == nil {
		t.Error("a damaged table loaded")
	}
}
