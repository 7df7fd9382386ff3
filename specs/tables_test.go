package specs

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/jats"
)

func TestParseHeader(t *testing.T) {
	tests := []struct {
		in, label, unit, quantity string
		uncertainty               bool
	}{
		{"Thermal conductivity (W m−1 K−1)", "Thermal conductivity", "W m-1 K-1", "thermal_conductivity", false},
		{"Thermal conductivity (W m⁻¹ K⁻¹)", "Thermal conductivity", "W m^-1 K^-1", "thermal_conductivity", false},
		{"κ (W/mK)", "κ", "W/mK", "thermal_conductivity", false},
		{"Tm (°C)", "Tm", "°C", "melting_point", false},
		{"Tg (K)", "Tg", "K", "glass_transition_temperature", false},
		{"Band gap [eV]", "Band gap", "eV", "band_gap", false},
		{"Eg (eV)", "Eg", "eV", "band_gap", false},
		{"Density, g/cm3", "Density", "g/cm3", "density", false},
		{"ρ (g cm−3)", "ρ", "g cm-3", "density", false},
		{"ϱap (g/cm3)", "ϱap", "g/cm3", "density", false},
		{"ρ (Ω cm)", "ρ", "Ω cm", "resistivity", false},
		{"Temperature in °C", "Temperature", "°C", "temperature", false},
		{"Firing temperature °C", "Firing temperature", "°C", "firing_temperature", false},
		{"Tensile strength (MPa)", "Tensile strength", "MPa", "tensile_strength", false},
		{"E (GPa)", "E", "GPa", "elastic_modulus", false},
		{"Dosage (g/kg)", "Dosage", "g/kg", "dose", false},
		{"Cmax (μg/ml)", "Cmax", "μg/ml", "mass_concentration", false},
		{"MLT (min)", "MLT", "min", "duration", false},
		{"Km (mM)", "Km", "mM", "concentration", false},
		{"Wavelength (Å)", "Wavelength", "Å", "wavelength", false},
		{"Thickness (nm)", "Thickness", "nm", "thickness", false},
		{"Time (s)", "Time", "s", "", false},      // one-letter unit, no phrase: not named
		{"Sample(s)", "Sample(s)", "", "", false}, // "s" after a word is not a unit
		{"SD (min)", "SD", "min", "", true},
		{"SEM", "SEM", "", "", true},
		{"ΔT (°C)", "ΔT", "°C", "", false}, // a difference, not a temperature
		{"Weight loss (%)", "Weight loss", "%", "", false},
		{"Seroprevalence (%)", "Seroprevalence", "%", "", false},
		{"Porosity (%)", "Porosity", "%", "porosity", false},
		{"AUC (μg/ml∙min)", "AUC (μg/ml∙min)", "", "", false}, // unit does not parse
		{"Strain", "Strain", "", "", false},
		{"Mean (P)", "Mean (P)", "", "", false},
	}
	for _, tt := range tests {
		h := ParseHeader(tt.in)
		if h.Label != tt.label || h.Unit != tt.unit || h.Quantity != tt.quantity || h.Uncertainty != tt.uncertainty {
			t.Errorf("ParseHeader(%q) = label %q unit %q quantity %q unc %v; want %q %q %q %v", tt.in,
				h.Label, h.Unit, h.Quantity, h.Uncertainty, tt.label, tt.unit, tt.quantity, tt.uncertainty)
		}
	}
}

func TestReadCell(t *testing.T) {
	hd := ParseHeader("Band gap (eV)")
	noUnit := ParseHeader("Storage time")
	tests := []struct {
		cell        string
		hd          *Header
		ok          bool
		lo, hi, unc float64
		rng         bool
	}{
		{"1.42", &hd, true, 1.42, 1.42, 0, false},
		{"1.1–1.5", &hd, true, 1.1, 1.5, 0, true},
		{"1.1 - 1.5", &hd, true, 1.1, 1.5, 0, true},
		{"1.1 to 1.5", &hd, true, 1.1, 1.5, 0, true},
		{"1.42 ± 0.05", &hd, true, 1.42, 1.42, 0.05, false},
		{"1.42±0.05a", &hd, true, 1.42, 1.42, 0.05, false},
		{"1.42*", &hd, true, 1.42, 1.42, 0, false},
		{"−0.5", &hd, true, -0.5, -0.5, 0, false},
		{"1,5", &hd, true, 1.5, 1.5, 0, false},
		{"-", &hd, false, 0, 0, 0, false},
		{"n.d.", &hd, false, 0, 0, 0, false},
		{"1.42 (0.05)", &hd, false, 0, 0, 0, false}, // SD or CI or n: unknown
		{"1.42 eV", &hd, false, 0, 0, 0, false},     // the header gives the unit
		{"14 days", &noUnit, true, 14, 14, 0, false},
		{"3 h", &noUnit, false, 0, 0, 0, false}, // one-letter unit under an unnamed quantity
		{"14", &noUnit, false, 0, 0, 0, false},
	}
	for _, tt := range tests {
		st, ok := readCell(tt.cell, tt.hd)
		if ok != tt.ok {
			t.Errorf("readCell(%q) ok = %v, want %v (%+v)", tt.cell, ok, tt.ok, st)
			continue
		}
		if ok && (st.Min != tt.lo || st.Max != tt.hi || st.Uncertainty != tt.unc || st.IsRange() != tt.rng) {
			t.Errorf("readCell(%q) = %v..%v ±%v range %v", tt.cell, st.Min, st.Max, st.Uncertainty, st.IsRange())
		}
	}
}

// TestExtractTableShapes checks table layouts written for the test (in
// the shape the JATS reader gives: spans expanded, markers dropped).
func TestExtractTableShapes(t *testing.T) {
	tb := ingest.Table{Label: "Table 2", Caption: "Thermal properties of the alloys",
		Header: [][]string{{"Alloy", "κ (W/mK)", "SD", "Tm (°C)", "ΔT (°C)", "Ratio"}},
		Rows: [][]string{
			{"AlSi10Mg alloy", "150", "4", "570–590", "20", "1.2"},
			{"Cu", "398 ± 3", "", "1085", "", ""},
			{"Ratio (Cu/Al)", "2.65", "", "", "", ""},
		}}
	sts := ExtractTable(&tb)
	want := []struct {
		row, quantity         string
		siLo, siHi, siUnc     float64
		subject, family, text string
	}{
		{"AlSi10Mg alloy", "thermal_conductivity", 150, 150, 4, "AlSi10Mg alloy", "alloy",
			`Table 2 (Thermal properties of the alloys), row "AlSi10Mg alloy", column "κ (W/mK)": 150`},
		{"AlSi10Mg alloy", "melting_point", 843.15, 863.15, 0, "AlSi10Mg alloy", "alloy", ""},
		{"Cu", "thermal_conductivity", 398, 398, 3, "Cu", "alloy", ""}, // family from the caption
		{"Cu", "melting_point", 1358.15, 1358.15, 0, "Cu", "alloy", ""},
	}
	if len(sts) != len(want) {
		t.Fatalf("%d statements, want %d: %+v", len(sts), len(want), sts)
	}
	for i, w := range want {
		s := sts[i]
		if s.Row != w.row || s.Quantity != w.quantity || !close(s.SIMin, w.siLo) || !close(s.SIMax, w.siHi) ||
			!close(s.SIUncertainty, w.siUnc) || s.Subject != w.subject || s.Family != w.family ||
			s.Source != SourceTable || s.Table != "Table 2" || s.Where != "table: Table 2" || w.text != "" && s.Text != w.text {
			t.Errorf("statement %d = %+v, want %+v", i, s, w)
		}
	}

	// The quantity above, the unit below (two header rows, a colspan).
	tb = ingest.Table{Label: "Table 3",
		Header: [][]string{{"Sample", "Thermal conductivity", "Thermal conductivity", "Density"}, {"Sample", "(W m⁻¹ K⁻¹)", "SD", "[g cm−3]"}},
		Rows:   [][]string{{"Al2O3 ceramic", "30.1", "0.4", "3.95"}}}
	sts = ExtractTable(&tb)
	if len(sts) != 2 || sts[0].Quantity != "thermal_conductivity" || sts[0].SIUncertainty != 0.4 ||
		sts[0].Column != "Thermal conductivity / (W m^-1 K^-1)" || sts[0].Family != "ceramic" ||
		sts[1].Quantity != "density" || !close(sts[1].SIMin, 3950) || sts[1].Unit != "g cm-3" {
		t.Errorf("stacked headers: %+v", sts)
	}

	// A quantity down the first column is read too.
	tb = ingest.Table{Label: "Table 4", Header: [][]string{{"T (K)", "κ (W/mK)"}}, Rows: [][]string{{"300", "398"}, {"600", "383"}}}
	sts = ExtractTable(&tb)
	if len(sts) != 4 || sts[0].Quantity != "temperature" || sts[0].SIMin != 300 || sts[3].Quantity != "thermal_conductivity" ||
		sts[3].SIMin != 383 || sts[3].Row != "600" || sts[3].Subject != "" {
		t.Errorf("quantity in the first column: %+v", sts)
	}

	// Transposed: quantities in the first column, subjects across.
	tb = ingest.Table{Label: "Table 1", Header: [][]string{{"Property", "GaAs", "Si"}},
		Rows: [][]string{{"Band gap (eV)", "1.42", "1.12"}, {"Thermal conductivity", "55 W/mK", "150 W m−1 K−1"}, {"Supplier", "A", "B"}}}
	sts = ExtractTable(&tb)
	if len(sts) != 4 {
		t.Fatalf("transposed: %d statements: %+v", len(sts), sts)
	}
	if s := sts[0]; s.Quantity != "band_gap" || s.Subject != "GaAs" || s.Family != "semiconductor" || s.Column != "GaAs" {
		t.Errorf("transposed band gap %+v", s)
	}
	if s := sts[1]; s.Quantity != "band_gap" || s.Subject != "Si" || s.Family != "" || s.Column != "Si" ||
		!close(s.SIMin, 1.12*1.602176634e-19) {
		t.Errorf("transposed band gap %+v", s)
	}
	if s := sts[3]; s.Quantity != "thermal_conductivity" || s.Unit != "W m-1 K-1" || s.SIMin != 150 {
		t.Errorf("transposed conductivity %+v", s)
	}
}

// TestExtractTableGolden checks statements read by hand from the tables
// of fixture articles, through the real JATS reader, with their SI values
// worked out by hand.
func TestExtractTableGolden(t *testing.T) {
	type want struct {
		table, row, column string // column: a part of the header
		quantity           string
		value              float64 // as written
		unit               string
		si, siUnc          float64
		subject, family    string
	}
	golden := map[string][]want{
		"pmc/PMC5828200.nxml": {
			// 0.2 g/kg = 0.2·10⁻³ kg/kg
			{"Table 1", "C", "Dosage", "dose", 0.2, "g/kg", 0.0002, 0, "C", ""},
			// 0.47 µg/ml = 0.47·10⁻⁹ kg / 10⁻⁶ m³ = 4.7·10⁻⁴ kg/m³
			{"Table 1", "C", "Cmax", "mass_concentration", 0.47, "μg/ml", 4.7e-4, 3.3e-4, "C", ""},
			// 45 ± 11 min = 2700 ± 660 s
			{"Table 1", "C", "Tmax", "duration", 45, "min", 2700, 660, "C", ""},
			{"Table 1", "CSP", "Cmax", "mass_concentration", 5.96, "μg/ml", 5.96e-3, 7.2e-4, "CSP", ""},
		},
		"pmc/1471-2180-11-174.nxml": {
			// the SD column gives the uncertainty: 45.7 ± 2.92 min
			{"Table 1", "IN61", "MLT", "duration", 45.7, "min", 2742, 175.2, "IN61", "bacteria"},
			{"Table 1", "IN56 (WT)", "MLT", "duration", 65.1, "min", 3906, 194.4, "IN56 (WT)", "bacteria"},
			{"Table 1", "IN65", "MLT", "duration", 83.8, "min", 5028, 417, "IN65", "bacteria"},
		},
		"f1000/f1000research-8-1394-v1.xml": {
			// −18 °C = 255.15 K
			{"Table 1", "Negative control", "Temperature", "temperature", -18, "°C", 255.15, 0, "Negative control", ""},
			// 14 days = 14·86400 s; the cell gives the unit
			{"Table 1", "Negative control", "Storage", "duration", 14, "days", 1209600, 0, "Negative control", ""},
			// 1000 µg/L = 10⁻⁶ kg / 10⁻³ m³ = 10⁻³ kg/m³
			{"Table 1", "Negative control", "CDB concentration", "mass_concentration", 1000, "µg/L", 1e-3, 0, "Negative control", ""},
		},
		"scielo/rbef-2021-0153.xml": {
			// decimal comma: 1,6 mg/mL = 1.6 kg/m³
			{"Tabela 3", "1", "glicose", "mass_concentration", 1.6, "mg/mL", 1.6, 0, "", ""},
			{"Tabela 3", "1", "Frequência", "frequency", 10006837.3, "Hz", 10006837.3, 0, "", ""},
			// 3 mm = 0.003 m, unit in the cell
			{"Tabela 1", "Placas de acrílico", "Dimensões", "length", 3, "mm", 0.003, 0, "Placas de acrílico", ""},
		},
		"scielo/ceramica-QMyWZTMgngWRCDtVJfJH9Cn.xml": {
			// apparent density 1.74 ± 0.03 g/cm³ = 1740 ± 30 kg/m³, fired at 860 °C
			{"Table V", "20%", "TS=860 °C / ϱap", "density", 1.74, "g/cm3", 1740, 30, "20%", ""},
		},
		"pmc/pone.0046493.nxml": {
			// Km 0.18 mM = 0.18 mol/m³
			{"Table 3", "LipC", "Km", "concentration", 0.18, "mM", 0.18, 0, "LipC", "protein"},
			// 13.1 µM = 0.0131 mol/m³
			{"Table 3", "LipI", "THL / Apparent Ki", "concentration", 13.1, "µM", 0.0131, 0, "LipI", "protein"},
		},
		"elife/elife-00666.xml": {
			// transposed: the row names the quantity; 0.9794 Å = 9.794·10⁻¹¹ m
			{"Table 3", "Wavelength (Å)", "", "wavelength", 0.9794, "Å", 9.794e-11, 0, "", ""},
		},
	}
	n := 0
	for rel, wants := range golden {
		sts := extractTables(t, rel)
		for _, w := range wants {
			n++
			var got *Statement
			for i := range sts {
				s := &sts[i]
				if s.Table == w.table && s.Row == w.row && strings.Contains(s.Column, w.column) && s.Quantity == w.quantity {
					got = s
					break
				}
			}
			if got == nil {
				t.Errorf("%s: no %s statement in %s row %q column %q", rel, w.quantity, w.table, w.row, w.column)
				continue
			}
			if got.Value == nil || !close(*got.Value, w.value) || got.Unit != w.unit || !close(got.SIMin, w.si) ||
				!close(got.SIMax, w.si) || math.Abs(got.SIUncertainty-w.siUnc) > 1e-9*math.Max(1, w.siUnc) ||
				got.Subject != w.subject || got.Family != w.family || got.Source != SourceTable ||
				!strings.HasPrefix(got.Text, w.table) || got.Where != "table: "+w.table {
				t.Errorf("%s: %s %q: got %+v (value %v), want %+v", rel, w.table, w.row, *got, deref(got.Value), w)
			}
		}
	}
	if n < 15 {
		t.Fatalf("only %d golden statements", n)
	}

	// What must not be a statement: ratio rows, differences, percentages
	// of no named quantity, a unit that does not parse.
	for rel, bad := range map[string]func(*Statement) bool{
		"pmc/PMC5828200.nxml": func(s *Statement) bool {
			return strings.HasPrefix(s.Row, "Ratio") || strings.HasPrefix(s.Column, "AUC")
		},
		"scielo/ceramica-QMyWZTMgngWRCDtVJfJH9Cn.xml": func(s *Statement) bool { return strings.Contains(s.Column, "ΔT") },
		"pmc/pntd.0002065.nxml":                       func(s *Statement) bool { return true },
	} {
		for _, s := range extractTables(t, rel) {
			if bad(&s) {
				t.Errorf("%s: unexpected statement %+v", rel, s)
			}
		}
	}
}

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// extractTables reads a fixture with the real JATS reader and extracts
// from its tables.
func extractTables(t *testing.T, rel string) []Statement {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var s sink
	if err := jats.Read(context.Background(), f, rel, &s); err != nil {
		t.Fatal(err)
	}
	var out []Statement
	for _, d := range s.docs {
		for i := range d.Tables {
			out = append(out, ExtractTable(&d.Tables[i])...)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// FuzzExtractTable checks that no cell or header text panics the
// extractor and that every statement is well formed.
func FuzzExtractTable(f *testing.F) {
	for _, s := range []string{"κ (W/mK)|398 ± 3", "Tm (°C)|570–590", "ρ (g cm−3)|1,5a", "Storage time|14 days", "|−", "SD (min)|2.9"} {
		f.Add(s, "Cu")
	}
	f.Fuzz(func(t *testing.T, headerCell, rowLabel string) {
		h, c, _ := strings.Cut(headerCell, "|")
		tb := ingest.Table{Label: "T", Header: [][]string{{"", h, "SD"}}, Rows: [][]string{{rowLabel, c, c}, {h, c, rowLabel}}}
		for _, s := range ExtractTable(&tb) {
			if s.Quantity == "" || s.Source != SourceTable || s.SIMin > s.SIMax || s.Min > s.Max || math.IsNaN(s.SIMin) {
				t.Fatalf("statement %+v", s)
			}
		}
	})
}

func TestLastIndex(t *testing.T) {
	for _, s := range []string{"", ",", ", ", "a, b, c", "a, b,c", ",,  ,", "Temperature in °C", "in in", " in in ", "x in"} {
		for _, sep := range []string{", ", " in "} {
			if got, want := lastIndex(s, sep), strings.LastIndex(s, sep); got != want {
				t.Errorf("lastIndex(%q, %q) = %d, want %d", s, sep, got, want)
			}
		}
	}
}
