package specs

import (
	"errors"
	"math"
	"testing"

	"github.com/openshelf/openshelf/specs/units"
)

func TestParseQuery(t *testing.T) {
	inf := math.Inf(1)
	eV := 1.602176634e-19
	for _, tc := range []struct {
		q, text  string
		quantity string
		op       string
		lo, hi   float64
		loStrict bool
		hiStrict bool
		si       string
	}{
		{"thermal conductivity > 200 W/mK", "", "thermal_conductivity", ">", 200, inf, true, false, "W/(m·K)"},
		{"alloys with thermal conductivity above 200 W/mK", "alloys", "thermal_conductivity", ">", 200, inf, true, false, "W/(m·K)"},
		{"thermal conductivity >= 2 W/(cm·K)", "", "thermal_conductivity", ">=", 200, inf, false, false, "W/(m·K)"},
		{"band gap 1.1–1.5 eV", "", "band_gap", "between", 1.1 * eV, 1.5 * eV, false, false, "J"},
		{"perovskite band gap between 1.1 and 1.5 eV", "perovskite", "band_gap", "between", 1.1 * eV, 1.5 * eV, false, false, "J"},
		{"band gap from 1100 to 1500 meV", "", "band_gap", "between", 1.1 * eV, 1.5 * eV, false, false, "J"},
		{"melting point below 600 °C", "", "melting_point", "<", math.Inf(-1), 873.15, false, true, "K"},
		{"solder melting point < 600 °C", "solder", "melting_point", "<", math.Inf(-1), 873.15, false, true, "K"},
		{"melting point at most 1112 °F", "", "melting_point", "<=", math.Inf(-1), 873.15, false, false, "K"},
		{"tensile strength at least 0.5 GPa", "", "tensile_strength", ">=", 5e8, inf, false, false, "Pa"},
		{"tensile_strength >= 500 MPa steel", "steel", "tensile_strength", ">=", 5e8, inf, false, false, "Pa"},
		{"flexural strength of about 10 MPa", "", "flexural_strength", "≈", 9.5e6, 10.5e6, false, false, "Pa"},
		{"band gap 1.3 eV", "", "band_gap", "≈", 1.3 * eV * 0.95, 1.3 * eV * 1.05, false, false, "J"},
		{"ceramic tiles fired at 1020 °C", "ceramic tiles", "firing_temperature", "≈", 1293.15 - 51, 1293.15 + 51, false, false, "K"},
		{"above 300 K", "", "", ">", 300, inf, true, false, "K"},
		{"NaCl concentration under 150 mM", "NaCl", "concentration", "<", math.Inf(-1), 150, false, true, "mol/m³"},
		{"density > 2.5 g/cm3", "", "density", ">", 2500, inf, true, false, "kg/m³"},
	} {
		got, err := ParseQuery(tc.q)
		if err != nil {
			t.Errorf("ParseQuery(%q): %v", tc.q, err)
			continue
		}
		if len(got.Constraints) != 1 {
			t.Errorf("ParseQuery(%q) = %+v, want one constraint", tc.q, got)
			continue
		}
		c := got.Constraints[0]
		if got.Text != tc.text || c.Quantity != tc.quantity || c.Op != tc.op || !close(c.Lo, tc.lo) || !close(c.Hi, tc.hi) ||
			c.LoStrict != tc.loStrict || c.HiStrict != tc.hiStrict || c.SIUnit != tc.si {
			t.Errorf("ParseQuery(%q) = text %q %s %s [%g, %g] strict %v/%v %s; want text %q %s %s [%g, %g] strict %v/%v %s",
				tc.q, got.Text, c.Quantity, c.Op, c.Lo, c.Hi, c.LoStrict, c.HiStrict, c.SIUnit,
				tc.text, tc.quantity, tc.op, tc.lo, tc.hi, tc.loStrict, tc.hiStrict, tc.si)
		}
	}
}

func TestParseQueryNoConstraint(t *testing.T) {
	for _, q := range []string{"graphene oxide membranes", "COVID-19 vaccines 2021", "5 mice", "top 10 alloys"} {
		got, err := ParseQuery(q)
		if err != nil || len(got.Constraints) != 0 || got.Text != q {
			t.Errorf("ParseQuery(%q) = %+v, %v; want the text unchanged and no constraint", q, got, err)
		}
	}
}

func TestParseQueryTwoConstraints(t *testing.T) {
	got, err := ParseQuery("alloys with thermal conductivity > 200 W/mK and melting point below 600 °C")
	if err != nil || len(got.Constraints) != 2 || got.Text != "alloys" {
		t.Fatalf("got %+v, %v", got, err)
	}
	if got.Constraints[0].Quantity != "thermal_conductivity" || got.Constraints[1].Quantity != "melting_point" {
		t.Errorf("quantities %q, %q", got.Constraints[0].Quantity, got.Constraints[1].Quantity)
	}
}

func TestParseQueryUnitMismatch(t *testing.T) {
	for _, q := range []string{"melting point above 200 W/mK", "thermal conductivity > 300 K", "band gap 1.1-1.5 nm", "tensile strength > 5 mM"} {
		if got, err := ParseQuery(q); !errors.Is(err, ErrUnitMismatch) || !errors.Is(err, units.ErrIncompatible) {
			t.Errorf("ParseQuery(%q) = %+v, %v; want ErrUnitMismatch", q, got, err)
		}
	}
}

func TestConstraintMatches(t *testing.T) {
	q, err := ParseQuery("thermal conductivity > 200 W/mK")
	if err != nil {
		t.Fatal(err)
	}
	c := q.Constraints[0]
	st := Extract(Passage{"abstract", "The thermal conductivity of the alloy was 210 W/mK, and of the steel 2.1 W/(cm·K); the polymer reached 150 W m^-1 K^-1. Its thermal conductivity is 200 W/mK."})
	var got []float64
	for i := range st {
		if c.Matches(&st[i]) {
			got = append(got, st[i].SIMin)
		}
	}
	if len(st) != 4 || len(got) != 2 || got[0] != 210 || got[1] != 210 {
		t.Errorf("statements %d, matches %v; want 210 W/mK and 2.1 W/(cm·K) (strict > excludes 200)", len(st), got)
	}
	// Ranges match when they meet the bounds.
	r, _ := ParseQuery("band gap 1.1–1.5 eV")
	in := Extract(Passage{"abstract", "The band gap is 1.4 eV. Another band gap spans 1.45-2.0 eV. A third band gap is 2.2 eV."})
	n := 0
	for i := range in {
		if r.Constraints[0].Matches(&in[i]) {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d of %d band gaps match 1.1–1.5 eV, want 2", n, len(in))
	}
	// Generic temperature matches specific temperature quantities.
	tq, _ := ParseQuery("temperature above 800 °C")
	fired := Extract(Passage{"abstract", "The tiles were fired at 1020 °C."})
	if len(fired) != 1 || !tq.Constraints[0].Matches(&fired[0]) {
		t.Errorf("temperature above 800 °C does not match %+v", fired)
	}
}

func TestRange(t *testing.T) {
	lo, hi := 1.1, 1.5
	c, err := Range("band_gap", "eV", &lo, &hi)
	if err != nil || !close(c.Lo, 1.1*1.602176634e-19) || !close(c.Hi, 1.5*1.602176634e-19) {
		t.Errorf("Range = %+v, %v", c, err)
	}
	if _, err := Range("band_gap", "nm", &lo, nil); !errors.Is(err, ErrUnitMismatch) {
		t.Errorf("band gap in nm: %v, want ErrUnitMismatch", err)
	}
	if _, err := Range("", "furlong", &lo, nil); !errors.Is(err, units.ErrUnknownUnit) {
		t.Errorf("furlong: %v, want ErrUnknownUnit", err)
	}
}
