package knowledge

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/parquet-go/parquet-go"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/openshelf/openshelf/specs"
)

// The spec-query benchmark: a specs table with 1M documents' worth of
// statements (2 per document on average, 0 to 4, the fixture corpus's
// full texts give more and metadata-only records none), written to
// Parquet like the index does, loaded by the server's loader, and queried
// in memory; DuckDB runs the same queries over the same Parquet file for
// comparison.
//
//	go test -run '^$' -bench SpecQuery -benchtime 200x ./serve/tools/knowledge

const benchDocs = 1_000_000

var (
	benchOnce  sync.Once
	benchTab   *table
	benchPath  string
	benchErr   error
	benchBuild time.Duration
	benchLoad  time.Duration
)

// benchQuantities are the quantities of the synthetic rows, with an SI
// unit, a typical SI value and the spread of a log-normal around it.
var benchQuantities = []struct {
	name, si string
	mid      float64
}{
	{"temperature", "K", 320}, {"incubation_temperature", "K", 300}, {"firing_temperature", "K", 1200},
	{"melting_point", "K", 900}, {"thermal_conductivity", "W/(m·K)", 20}, {"band_gap", "J", 2.4e-19},
	{"concentration", "mol/m³", 10}, {"mass_concentration", "kg/m³", 1}, {"dose", "1", 1e-5},
	{"flexural_strength", "Pa", 5e7}, {"tensile_strength", "Pa", 3e8}, {"elastic_modulus", "Pa", 5e10},
	{"pressure", "Pa", 1e5}, {"density", "kg/m³", 3000}, {"diameter", "m", 1e-6}, {"wavelength", "m", 5e-7},
	{"frequency", "Hz", 1e3}, {"voltage", "V", 10}, {"energy", "J", 1e-18}, {"volume", "m³", 1e-6},
}

var benchFamilies = []string{"", "", "", "alloy", "steel", "ceramic", "polymer", "semiconductor", "mouse", "rat",
	"human", "bacteria", "salt", "buffer", "protein", "carbon", "glass", "composite", "film", "oxide"}

var benchWords = strings.Fields("the of was at and in with a sample measured value reached samples were " +
	"alloy thermal conductivity heated incubated band gap film layer steel polymer composite mice cells " +
	"strength modulus observed mean reported obtained")

func benchSetup(b *testing.B) {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "openshelf-specs-bench-")
		if err != nil {
			benchErr = err
			return
		}
		benchPath = filepath.Join(dir, specs.TableFile)
		start := time.Now()
		if benchErr = writeBenchTable(benchPath); benchErr != nil {
			return
		}
		benchBuild = time.Since(start)
		start = time.Now()
		benchTab, benchErr = loadTableFile(context.Background(), "bench", benchPath, nil)
		benchLoad = time.Since(start)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
}

func writeBenchTable(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := parquet.NewGenericWriter[specs.Row](f, parquet.Compression(&pqzstd.Codec{Level: pqzstd.SpeedFastest}))
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]specs.Row, 0, 4096)
	var text strings.Builder
	for d := range benchDocs {
		id := fmt.Sprintf("pmc-%d", 1_000_000+d)
		title := fmt.Sprintf("Study number %d of materials and organisms", d)
		for o := range rng.IntN(5) {
			q := benchQuantities[rng.IntN(len(benchQuantities))]
			v := q.mid * math.Exp(rng.NormFloat64())
			lo, hi := v, v
			var value *float64
			if rng.IntN(5) == 0 {
				hi = v * (1 + rng.Float64())
			} else {
				value = &v
			}
			text.Reset()
			for range 14 + rng.IntN(12) {
				text.WriteString(benchWords[rng.IntN(len(benchWords))])
				text.WriteByte(' ')
			}
			fam := benchFamilies[rng.IntN(len(benchFamilies))]
			rows = append(rows, specs.Row{ID: id, Ordinal: int32(o), Quantity: q.name, Value: value, Min: lo, Max: hi,
				Unit: q.si, SIUnit: q.si, SIValue: value, SIMin: lo, SIMax: hi, Subject: fam, Family: fam,
				Text: text.String(), Where: "abstract", Title: title, Year: int32(1990 + d%35), License: "CC-BY",
				LicenseURL: "https://creativecommons.org/licenses/by/4.0/", Attribution: "Authors, " + title + ", CC BY 4.0"})
			if len(rows) == cap(rows) {
				if _, err := w.Write(rows); err != nil {
					return err
				}
				rows = rows[:0]
			}
		}
	}
	if _, err := w.Write(rows); err != nil {
		return err
	}
	return w.Close()
}

// benchQueries are query_specs inputs and the same filter in SQL.
var benchQueries = []struct {
	name string
	in   SpecsInput
	sql  string
}{
	{"thermal_conductivity>=200", SpecsInput{Quantity: "thermal_conductivity", Unit: "W/mK", Min: ptr(200)},
		`quantity = 'thermal_conductivity' AND si_max >= 200`},
	{"temperature_500-600C", SpecsInput{Quantity: "temperature", Unit: "°C", Min: ptr(500), Max: ptr(600)},
		`quantity IN ('temperature','incubation_temperature','firing_temperature','melting_point') AND si_max >= 773.15 AND si_min <= 873.15`},
	{"query_alloy_tc>200", SpecsInput{Query: "alloy thermal conductivity > 200 W/mK"},
		`quantity = 'thermal_conductivity' AND si_max > 200 AND (lower(text) LIKE '%alloy%' OR lower(subject) LIKE '%alloy%' OR lower(title) LIKE '%alloy%')`},
	{"band_gap_family", SpecsInput{Quantity: "band_gap", Family: "semiconductor", Unit: "eV", Min: ptr(1.1), Max: ptr(1.5)},
		`quantity = 'band_gap' AND family = 'semiconductor' AND si_max >= 1.1*1.602176634e-19 AND si_min <= 1.5*1.602176634e-19`},
}

func ptr(f float64) *float64 { return &f }

func BenchmarkSpecQuery(b *testing.B) {
	benchSetup(b)
	b.Cleanup(func() { os.RemoveAll(filepath.Dir(benchPath)) })
	b.Logf("table: %d statements of %d documents; Parquet written in %v, loaded in %v",
		len(benchTab.entries), len(benchTab.docs), benchBuild, benchLoad)
	t := &Tools{}
	t.tab.Store(benchTab)
	t.cfg.DataDir = "/nonexistent" // no reload
	for _, q := range benchQueries {
		b.Run("memory/"+q.name, func(b *testing.B) {
			var total int
			for b.Loop() {
				out, err := t.QuerySpecs(context.Background(), &q.in)
				if err != nil {
					b.Fatal(err)
				}
				total = out.Total
			}
			b.ReportMetric(float64(total), "rows")
		})
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, q := range benchQueries {
		b.Run("duckdb/"+q.name, func(b *testing.B) {
			stmt := fmt.Sprintf(`SELECT id, quantity, si_min, si_max, text, title, license, count(*) OVER () AS total
				FROM '%s' WHERE %s ORDER BY quantity, si_min LIMIT 50`, benchPath, q.sql)
			var total int
			for b.Loop() {
				rows, err := db.Query(stmt)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
					var id, qn, text, title, lic string
					var lo, hi float64
					if err := rows.Scan(&id, &qn, &lo, &hi, &text, &title, &lic, &total); err != nil {
						b.Fatal(err)
					}
				}
				rows.Close()
			}
			b.ReportMetric(float64(total), "rows")
		})
	}
}
