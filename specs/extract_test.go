package specs

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/jats"
)

// fixtureDir holds the shared JATS full texts, read in place.
const fixtureDir = "/work/shared/fixtures/jats"

type sink struct{ docs []*ingest.Document }

func (s *sink) Document(d *ingest.Document) error { s.docs = append(s.docs, d); return nil }
func (s *sink) Delete(ingest.Deletion) error      { return nil }
func (s *sink) Problem(ingest.Problem)            {}

// extractFile runs the real JATS reader on a fixture and extracts from
// the documents it yields, as the index builder does.
func extractFile(t *testing.T, rel string) []Statement {
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
		out = append(out, Extract(Passages(d.Title, d.Abstract, d.Sections)...)...)
	}
	return out
}

func close(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// TestExtractGolden checks statements read by hand in the fixture full
// texts, with their SI conversions worked out by hand.
func TestExtractGolden(t *testing.T) {
	type want struct {
		quantity         string
		lo, hi, unc      float64
		unit, si         string
		siLo, siHi, siUn float64
		text             string // a part of the sentence
		family           string // "" to skip the check
	}
	golden := map[string][]want{
		"biorxiv/biorxiv-468444.xml": {
			{"temperature", 25, 25, 0, "°C", "K", 298.15, 298.15, 0, "raised on a standard cornmeal diet at 25°C", ""},
			{"incubation_temperature", 18, 18, 0, "°C", "K", 291.15, 291.15, 0, "kept at 18°C until", ""},
			{"temperature", 29, 29, 0, "°C", "K", 302.15, 302.15, 0, "flies were placed at 29°C", "fly"},
			{"frequency", 200, 200, 0, "Hz", "Hz", 200, 200, 0, "z-stack", ""},
		},
		"elife/elife-46472-v3.xml": {
			{"temperature", 21, 21, 2, "°C", "K", 294.15, 294.15, 2, "ambient temperature of 21", "mouse"},
			{"dose", 2, 2, 0, "mg/kg", "1", 2e-6, 2e-6, 0, "injection of saline or 2 mg/kg MA", "mouse"},
			{"dose", 16, 16, 0, "mg/kg", "1", 1.6e-5, 1.6e-5, 0, "at doses of MA up to 16 mg/kg", "mouse"},
			{"mass_concentration", 20, 20, 0, "mg/l", "kg/m³", 0.02, 0.02, 0, "The MA concentration was 20 mg/l", ""},
			{"mass_concentration", 40, 40, 0, "mg/l", "kg/m³", 0.04, 0.04, 0, "The MA concentration was 20 mg/l", ""},
			{"dose_rate", 3.9, 10.4, 0, "mg/kg/day", "Hz", 3.9e-6 / 86400, 10.4e-6 / 86400, 0, "Daily MA use in humans", ""},
			{"mass_concentration", 100, 100, 0, "ng/µl", "kg/m³", 0.1, 0.1, 0, "at concentrations of 100", ""},
			{"volume", 4, 4, 0, "ml", "m³", 4e-6, 4e-6, 0, "by as much as 4 ml", ""},
		},
		"pmc/1471-2180-11-174.nxml": {
			{"frequency", 0.35, 0.35, 0.01, "h-1", "Hz", 0.35 / 3600, 0.35 / 3600, 0.01 / 3600, "MLTs", ""},
			{"temperature", 42, 42, 0, "°C", "K", 315.15, 315.15, 0, "raised to 42°C for 15 min", ""},
			{"temperature", 30, 42, 0, "°C", "K", 303.15, 315.15, 0, "Under these conditions", ""},
		},
		"pmc/PMC5828200.nxml": {
			{"diameter", 5140, 5140, 178, "nm", "m", 5.14e-6, 5.14e-6, 1.78e-7, "average diameter of un-nanosized curcuminoid", ""},
			{"diameter", 59, 59, 1, "nm", "m", 5.9e-8, 5.9e-8, 1e-9, "average diameter of un-nanosized curcuminoid", ""},
			{"dose", 0.2, 0.2, 0, "g/kg", "1", 2e-4, 2e-4, 0, "gavaged with low dose (0.2 g/kg)", "mouse"},
			{"dose_rate", 37.5, 37.5, 0, "mg/kg/day", "Hz", 37.5e-6 / 86400, 37.5e-6 / 86400, 0, "average amount of CSP consumption", ""},
			{"mass_concentration", 0.75, 0.75, 0, "mg/mL", "kg/m³", 0.75, 0.75, 0, "Drinking water with 0.75 mg/mL CSP", ""},
			{"molecular_weight", 180, 180, 0, "kDa", "kg", 180e3 * 1.66053906660e-27, 180e3 * 1.66053906660e-27, 0, ">180 kDa", ""},
			{"concentration", 0.5, 0.5, 0, "M", "mol/m³", 500, 500, 0, "0.5 M guanidine", ""},
			{"concentration", 100, 100, 0, "μM", "mol/m³", 0.1, 0.1, 0, "supernatant of 100 μM", ""},
			{"incubation_temperature", 37, 37, 0, "°C", "K", 310.15, 310.15, 0, "Cell lines were grown at 37°C", ""},
		},
		"pmc/PMC7417471.nxml": {
			{"thermal_conductivity", 5000, 5000, 0, "W/mK", "W/(m·K)", 5000, 5000, 0, "5000", "carbon"},
			{"elastic_modulus", 1, 1, 0, "TPa", "Pa", 1e12, 1e12, 0, "TPa", ""},
			{"thermal_conductivity", 0.226, 0.689, 0, "W/mK", "W/(m·K)", 0.226, 0.689, 0, "15 wt% TRG", ""},
			{"temperature", 600, 600, 0, "°C", "K", 873.15, 873.15, 0, "annealed at 600 °C", "carbon"},
			{"voltage", 15, 15, 0, "kV", "V", 15000, 15000, 0, "electrospinning", ""},
			{"voltage", 0, 0.9, 0, "V", "V", 0, 0.9, 0, "cyclic voltammetry", ""},
		},
		"plos/journal.pone.0052690.xml": {
			{"density", 1.35, 1.35, 0, "g/cm3", "kg/m³", 1350, 1350, 0, "Guinier", ""},
			{"concentration", 150, 150, 0, "mM", "mol/m³", 150, 150, 0, "150 mM NaCl", "salt"},
			{"energy", 11, 11, 0, "keV", "J", 11e3 * 1.602176634e-19, 11e3 * 1.602176634e-19, 0, "SAXS experiments", ""},
			{"diameter", 18, 18, 0, "nm", "m", 1.8e-8, 1.8e-8, 0, "super-helix", ""},
		},
		"scielo/ceramica-QMyWZTMgngWRCDtVJfJH9Cn.xml": {
			{"flexural_strength", 7.2, 7.2, 4.1, "MPa", "Pa", 7.2e6, 7.2e6, 4.1e6, "7,2±4,1 MPa", ""},
			{"elastic_modulus", 10.7, 10.7, 5.3, "GPa", "Pa", 1.07e10, 1.07e10, 5.3e9, "7,2±4,1 MPa", ""},
			{"temperature", 100, 100, 5, "°C", "K", 373.15, 373.15, 5, "secagem", ""},
			{"pressure", 5, 5, 0, "MPa", "Pa", 5e6, 5e6, 0, "prensagem", ""},
		},
	}
	n := 0
	for file, wants := range golden {
		got := extractFile(t, file)
		for _, w := range wants {
			n++
			found := false
			for _, s := range got {
				if s.Quantity != w.quantity || s.Unit != w.unit || !close(s.Min, w.lo) || !close(s.Max, w.hi) ||
					!strings.Contains(s.Text, w.text) {
					continue
				}
				found = true
				if !close(s.Uncertainty, w.unc) || s.SIUnit != w.si || !close(s.SIMin, w.siLo) || !close(s.SIMax, w.siHi) ||
					!close(s.SIUncertainty, w.siUn) {
					t.Errorf("%s: %s %g..%g %s: got SI %g..%g ±%g %s (± %g), want %g..%g ±%g %s (± %g)", file, w.quantity,
						w.lo, w.hi, w.unit, s.SIMin, s.SIMax, s.SIUncertainty, s.SIUnit, s.Uncertainty, w.siLo, w.siHi, w.siUn, w.si, w.unc)
				}
				if (w.lo == w.hi) != (s.Value != nil) {
					t.Errorf("%s: %s %g..%g: Value %v, want it set for a point only", file, w.quantity, w.lo, w.hi, s.Value)
				}
				if w.family != "" && s.Family != w.family {
					t.Errorf("%s: %s %g %s: family %q, want %q (subject %q)", file, w.quantity, w.lo, w.unit, s.Family, w.family, s.Subject)
				}
				break
			}
			if !found {
				t.Errorf("%s: no %s %g..%g %s in a sentence containing %q", file, w.quantity, w.lo, w.hi, w.unit, w.text)
			}
		}
	}
	if n < 30 {
		t.Fatalf("only %d golden statements", n)
	}
}

// TestExtractRejects: numbers that are not specifications.
func TestExtractRejects(t *testing.T) {
	for _, text := range []string{
		"We studied 25 mice in 2019.",
		"COVID-19 patients (n = 120) were enrolled.",
		"See Fig. 3 and Table 2 for 5 A and 3 B.",
		"The drug was given as described in ref. 12.",
		"Version 1.2.3 of the software was used.",
		"About 20% of patients responded.",
		"Mice were housed 5 per cage.",
	} {
		if got := Extract(Passage{"abstract", text}); len(got) != 0 {
			t.Errorf("Extract(%q) = %+v, want nothing", text, got)
		}
	}
}

// TestExtractForms covers the written forms one by one (sentences written
// for this test in the style of the literature).
func TestExtractForms(t *testing.T) {
	for _, tc := range []struct {
		text, quantity, unit string
		lo, hi, unc          float64
		siLo, siHi           float64
		family               string
	}{
		{"The thermal conductivity of the AlSi10Mg alloy was 150 W/mK.", "thermal_conductivity", "W/mK", 150, 150, 0, 150, 150, "alloy"},
		{"Its thermal conductivity reaches 1.2 W m^-1 K^-1 at room temperature.", "thermal_conductivity", "W m^-1 K^-1", 1.2, 1.2, 0, 1.2, 1.2, ""},
		{"The thermal conductivity is 2.3 W m⁻¹ K⁻¹.", "thermal_conductivity", "W m^-1 K^-1", 2.3, 2.3, 0, 2.3, 2.3, ""},
		{"The perovskite layer has a band gap of 1.1–1.5 eV.", "band_gap", "eV", 1.1, 1.5, 0, 1.1 * 1.602176634e-19, 1.5 * 1.602176634e-19, "semiconductor"},
		{"The melting point of the solder is 183 ± 2 °C.", "melting_point", "°C", 183, 183, 2, 456.15, 456.15, ""},
		{"Firing temperature between 860 and 1020 °C was used for the tiles.", "firing_temperature", "°C", 860, 1020, 0, 1133.15, 1293.15, "ceramic"},
		{"The porosity ranged from 20% to 40% in the bricks.", "porosity", "%", 20, 40, 0, 0.2, 0.4, "ceramic"},
		{"A Young's modulus of 2.5 × 10^3 MPa was measured for the polymer.", "elastic_modulus", "MPa", 2500, 2500, 0, 2.5e9, 2.5e9, "polymer"},
		{"The sample density was 1,250 kg/m3.", "density", "kg/m3", 1250, 1250, 0, 1250, 1250, ""},
		{"The samples were heated to -20 °C.", "temperature", "°C", -20, -20, 0, 253.15, 253.15, ""},
		{"The activation energy is 45 kJ/mol.", "activation_energy", "kJ/mol", 45, 45, 0, 45000, 45000, ""},
		{"A tensile strength of 0,45 GPa was reported.", "tensile_strength", "GPa", 0.45, 0.45, 0, 4.5e8, 4.5e8, ""},
	} {
		got := Extract(Passage{"abstract", tc.text})
		if len(got) != 1 {
			t.Errorf("Extract(%q) = %d statements %+v, want 1", tc.text, len(got), got)
			continue
		}
		s := got[0]
		if s.Quantity != tc.quantity || s.Unit != tc.unit || !close(s.Min, tc.lo) || !close(s.Max, tc.hi) ||
			!close(s.Uncertainty, tc.unc) || !close(s.SIMin, tc.siLo) || !close(s.SIMax, tc.siHi) || s.Family != tc.family {
			t.Errorf("Extract(%q) = %s %g..%g ±%g %q SI %g..%g family %q; want %s %g..%g ±%g %q SI %g..%g family %q",
				tc.text, s.Quantity, s.Min, s.Max, s.Uncertainty, s.Unit, s.SIMin, s.SIMax, s.Family,
				tc.quantity, tc.lo, tc.hi, tc.unc, tc.unit, tc.siLo, tc.siHi, tc.family)
		}
	}
}

// TestMaxLengths keeps each bound the length of the longest word of its
// set, which the look-ups rely on to skip longer words unhashed:
// maxAbbreviation for sentences, maxUncertaintyLabel for
// isUncertaintyLabel.
func TestMaxLengths(t *testing.T) {
	for _, tc := range []struct {
		name  string
		words map[string]bool
		max   int
	}{
		{"maxAbbreviation", abbreviations, maxAbbreviation},
		{"maxUncertaintyLabel", uncertaintyLabels, maxUncertaintyLabel},
	} {
		longest := 0
		for w := range tc.words {
			longest = max(longest, len(w))
		}
		if longest != tc.max {
			t.Errorf("the longest word has %d bytes, %s is %d", longest, tc.name, tc.max)
		}
	}
}

// TestAbbreviationShapes checks that the shape filter of abbreviations
// lets through every abbreviation, in any case.
func TestAbbreviationShapes(t *testing.T) {
	for a := range abbreviations {
		for _, v := range []string{a, strings.ToUpper(a), strings.ToUpper(a[:1]) + a[1:]} {
			if !isAbbreviation(v) {
				t.Errorf("isAbbreviation(%q) = false", v)
			}
		}
	}
	for _, w := range []string{"", "cells", "Mice", "2", "\u212av"} {
		if isAbbreviation(w) {
			t.Errorf("isAbbreviation(%q) = true", w)
		}
	}
}

func TestSentences(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"One. Two! Three? 4 is a digit.", []string{"One.", "Two!", "Three?", "4 is a digit."}},
		{"See Fig. 2 and Smith et al. 2019. Then J. Smith came. e.g. Not split", []string{"See Fig. 2 and Smith et al. 2019.", "Then J. Smith came. e.g. Not split"}},
		{"No stop.here or here.  (Brackets) open. [1] too?", []string{"No stop.here or here.", "(Brackets) open.", "[1] too?"}},
		{"Wow!? Yes. ", []string{"Wow!?", "Yes."}},
		{"", nil},
		{"...", []string{"..."}},
	} {
		if got := appendSentences(nil, tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("appendSentences(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestWordScans checks the eight-bytes-at-a-time scans of nextDigit,
// asciiPrefix and normaliseText against their byte-at-a-time meaning, with
// the byte that matters at every offset (and for nextDigit, another digit
// at the end).
func TestWordScans(t *testing.T) {
	for n := range 24 {
		for at := range n {
			for _, c := range []byte{'0', '9', '/', ':', '\n', '\t', 0x7f, 0x1f, 0x80, 0xff} {
				b := []byte(strings.Repeat("a", n))
				b[at] = c
				s := string(b)
				if got, want := hasDigit(s), c >= '0' && c <= '9'; got != want {
					t.Errorf("hasDigit(%q) = %v", s, got)
				}
				if got, want := asciiPrefix(s), at; c < utf8.RuneSelf && got != n || c >= utf8.RuneSelf && got != want {
					t.Errorf("asciiPrefix(%q) = %d", s, got)
				}
				for from := range n + 1 {
					want := len(s)
					if c >= '0' && c <= '9' && at >= from {
						want = at
					}
					if got := nextDigit(s, from); got != want {
						t.Errorf("nextDigit(%q, %d) = %d, want %d", s, from, got, want)
					}
					if at < n-1 && from <= n-1 {
						two := s[:n-1] + "7"
						if want == len(s) {
							want = n - 1
						}
						if got := nextDigit(two, from); got != want {
							t.Errorf("nextDigit(%q, %d) = %d, want %d", two, from, got, want)
						}
					}
				}
				want := s
				if c == '\n' || c == '\t' {
					want = strings.Replace(s, string(c), " ", 1)
				}
				if got := normaliseText(s); got != want {
					t.Errorf("normaliseText(%q) = %q, want %q", s, got, want)
				}
			}
			s := strings.Repeat("a", at) + "−" + strings.Repeat("b", n-at)
			if got, want := normaliseText(s), strings.Repeat("a", at)+"-"+strings.Repeat("b", n-at); got != want {
				t.Errorf("normaliseText(%q) = %q, want %q", s, got, want)
			}
		}
	}
}

// TestMaybeFamilyWord checks that the shape filter of family words lets
// through every family word and first word of a pair, in any case.
func TestMaybeFamilyWord(t *testing.T) {
	for w := range familyWords {
		k, _, _ := strings.Cut(w, " ")
		for _, v := range []string{k, strings.ToUpper(k), strings.ToUpper(k[:1]) + k[1:]} {
			if !maybeFamilyWord(v) {
				t.Errorf("maybeFamilyWord(%q) = false", v)
			}
		}
	}
	for _, w := range []string{"", "the", "Temperature", strings.Repeat("x", maxShaped+1)} {
		if maybeFamilyWord(w) {
			t.Errorf("maybeFamilyWord(%q) = true", w)
		}
	}
	if !maybeFamilyWord("\u212aelvin") {
		t.Error("maybeFamilyWord of a non-ASCII word = false, want true (lower-casing may change it)")
	}
}
