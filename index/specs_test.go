package index

import (
	"path/filepath"
	"testing"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/specs"
)

// TestSpecsTable: statements of published documents land in specs.parquet
// with the document's rights, read back with DuckDB as analysts do.
func TestSpecsTable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	d1 := synth(1, "cc-by", "neuroscience")
	d1.Abstract = "The thermal conductivity of the alloy was 210 W/mK. Larvae were raised at 28 °C."
	d2 := synth(2, "cc-by-nc", "neuroscience") // rejected: never in specs
	d2.Abstract = "The band gap is 1.4 eV."
	d3 := synth(3, "cc-by-sa", "genetics")
	d3.Sections = []ingest.Section{{Title: "Methods", Paragraphs: []string{"Samples were stored at -80 °C."}}}
	m := build(t, testConfig(dir), feedDocs(d1, d2, d3))
	found := false
	for _, f := range m.Files {
		found = found || f.Name == specs.TableFile
	}
	if !found {
		t.Fatalf("manifest files %+v lack %s", m.Files, specs.TableFile)
	}
	s := open(t, dir)
	db := duck(t)
	path := "'" + filepath.Join(s.Dir, specs.TableFile) + "'"
	got := queryStrings(t, db, `SELECT id || ' ' || quantity || ' ' || CAST(si_min AS VARCHAR) || ' ' || si_unit || ' ' ||
		family || ' ' || "where" || ' ' || license FROM `+path+` ORDER BY id, ordinal`)
	want := []string{
		"pmc-1001 thermal_conductivity 210.0 W/(m·K) alloy abstract CC-BY",
		"pmc-1001 temperature 301.15 K zebrafish abstract CC-BY",
		"pmc-1003 incubation_temperature 193.14999999999998 K  section: Methods CC-BY-SA",
	}
	if len(got) != len(want) {
		t.Fatalf("specs rows %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %q, want %q", i, got[i], want[i])
		}
	}
}
