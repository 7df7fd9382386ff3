package units

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in     string
		si     string
		factor float64
		offset float64
	}{
		{"W/mK", "W/(m·K)", 1, 0},
		{"W/(m·K)", "W/(m·K)", 1, 0},
		{"W m⁻¹ K⁻¹", "W/(m·K)", 1, 0},
		{"W m-1 K-1", "W/(m·K)", 1, 0},
		{"W·m^-1·K^-1", "W/(m·K)", 1, 0},
		{"mW/(cm·K)", "W/(m·K)", 0.1, 0},
		{"°C", "K", 1, 273.15},
		{"ºC", "K", 1, 273.15},
		{"℃", "K", 1, 273.15},
		{"K", "K", 1, 0},
		{"mK", "K", 1e-3, 0},
		{"°F", "K", 5.0 / 9, 273.15 - 32*5.0/9},
		{"eV", "J", 1.602176634e-19, 0},
		{"meV", "J", 1.602176634e-22, 0},
		{"MPa", "Pa", 1e6, 0},
		{"GPa", "Pa", 1e9, 0},
		{"kPa", "Pa", 1e3, 0},
		{"mmHg", "Pa", 133.322387415, 0},
		{"mM", "mol/m³", 1, 0},
		{"µM", "mol/m³", 1e-3, 0},
		{"μM", "mol/m³", 1e-3, 0},
		{"nM", "mol/m³", 1e-6, 0},
		{"mg/kg", "1", 1e-6, 0},
		{"mg/L", "kg/m³", 1e-3, 0},
		{"mg/mL", "kg/m³", 1, 0},
		{"g/cm3", "kg/m³", 1000, 0},
		{"g/cm³", "kg/m³", 1000, 0},
		{"kDa", "kg", 1.66053906660e-24, 0},
		{"nm", "m", 1e-9, 0},
		{"µm", "m", 1e-6, 0},
		{"Å", "m", 1e-10, 0},
		{"mm", "m", 1e-3, 0},
		{"cm", "m", 1e-2, 0},
		{"min", "s", 60, 0},
		{"ms", "s", 1e-3, 0},
		{"h", "s", 3600, 0},
		{"MHz", "Hz", 1e6, 0},
		{"%", "1", 0.01, 0},
		{"wt%", "1", 0.01, 0},
		{"ppm", "1", 1e-6, 0},
		{"mL", "m³", 1e-6, 0},
		{"kJ/mol", "J/mol", 1e3, 0},
		{"kcal/mol", "J/mol", 4184, 0},
		{"J/(g·K)", "J/(kg·K)", 1e3, 0},
		{"S/cm", "S/m", 100, 0},
		{"Ω·cm", "Ω·m", 1e-2, 0},
		{"m/s", "m/s", 1, 0},
		{"m s-1", "m/s", 1, 0},
		{"mPa·s", "Pa·s", 1e-3, 0},
		{"cd", "cd", 1, 0},
		{"Pa", "Pa", 1, 0},
		{"mg/kg/day", "Hz", 1e-6 / 86400, 0}, // a dose rate: per second
	} {
		u, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if u.SI() != tc.si || !near(u.Factor, tc.factor) || !near(u.Offset, tc.offset) {
			t.Errorf("Parse(%q) = %s ×%g +%g, want %s ×%g +%g", tc.in, u.SI(), u.Factor, u.Offset, tc.si, tc.factor, tc.offset)
		}
	}
}

func TestParseUnknown(t *testing.T) {
	for _, in := range []string{"mice", "foo", "W/(m", "°C2", "xyz/s", "Kg"} {
		if u, err := Parse(in); !errors.Is(err, ErrUnknownUnit) {
			t.Errorf("Parse(%q) = %+v, %v; want ErrUnknownUnit", in, u, err)
		}
	}
}

func TestConvert(t *testing.T) {
	for _, tc := range []struct {
		v        float64
		from, to string
		want     float64
	}{
		{25, "°C", "K", 298.15},
		{0, "K", "°C", -273.15},
		{212, "°F", "°C", 100},
		{600, "°C", "°F", 1112},
		{1.1, "eV", "meV", 1100},
		{1, "eV", "J", 1.602176634e-19},
		{200, "W/mK", "W m⁻¹ K⁻¹", 200},
		{2, "W/(cm·K)", "W/mK", 200},
		{11.4, "MPa", "Pa", 11.4e6},
		{1, "atm", "kPa", 101.325},
		{150, "mM", "M", 0.15},
		{1, "h", "min", 60},
		{5140, "nm", "µm", 5.14},
		{40, "%", "1", 0.4},
	} {
		got, err := Convert(tc.v, tc.from, tc.to)
		if err != nil || !near(got, tc.want) {
			t.Errorf("Convert(%g, %q, %q) = %g, %v; want %g", tc.v, tc.from, tc.to, got, err, tc.want)
		}
	}
}

func TestConvertIncompatible(t *testing.T) {
	for _, tc := range [][2]string{{"W/mK", "K"}, {"eV", "nm"}, {"°C", "Pa"}, {"mM", "mg/L"}, {"%", "m"}} {
		if _, err := Convert(1, tc[0], tc[1]); !errors.Is(err, ErrIncompatible) {
			t.Errorf("Convert(1, %q, %q): %v, want ErrIncompatible", tc[0], tc[1], err)
		}
	}
}

func TestDeltaHasNoOffset(t *testing.T) {
	u := MustParse("°C")
	if got := u.ToSIDelta(2); got != 2 {
		t.Errorf("±2 °C = %g K, want 2", got)
	}
}

// TestLookupMaxSymbol checks that lookup's cut-off by length rejects no
// symbol its tables hold: every symbol, alias and prefixed symbol is found.
func TestLookupMaxSymbol(t *testing.T) {
	var syms []string
	for k, e := range table {
		syms = append(syms, k)
		if e.prefixable {
			for p := range prefixes {
				syms = append(syms, p+k)
			}
		}
	}
	for k := range aliases {
		if _, ok := table[aliases[k]]; ok {
			syms = append(syms, k)
		}
	}
	for _, s := range syms {
		if _, _, _, ok := lookup(s); !ok {
			t.Errorf("lookup(%q) found nothing", s)
		}
	}
}

// TestLookupWord checks Lookup's table of words against parsing them:
// every word of up to three letters, and the symbols, aliases and
// prefixed symbols with one letter added, dropped or case-flipped.
func TestLookupWord(t *testing.T) {
	letters := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	words := []string{""}
	for n, prev := 0, []string{""}; n < 3; n++ {
		var next []string
		for _, w := range prev {
			for _, c := range letters {
				next = append(next, w+string(c))
			}
		}
		words, prev = append(words, next...), next
	}
	var syms []string
	for k := range table {
		syms = append(syms, k)
		for p := range prefixes {
			syms = append(syms, p+k)
		}
	}
	for k := range aliases {
		syms = append(syms, k)
	}
	for _, s := range syms {
		words = append(words, s, s[1:], s[:len(s)-1], strings.ToUpper(s), strings.ToLower(s), s+"s", "x"+s)
	}
	for _, w := range words {
		checkLookupWord(t, w)
	}
}

func checkLookupWord(t *testing.T, w string) {
	t.Helper()
	gu, gok := Lookup(w)
	wu, wok := lookupParsed(w)
	if fmt.Sprint(gu, gok) != fmt.Sprint(wu, wok) { // as text: a factor may be NaN
		t.Fatalf("Lookup(%q) = %+v, %v; parsed %+v, %v", w, gu, gok, wu, wok)
	}
}

// FuzzLookupWord compares Lookup with parsing on any text.
func FuzzLookupWord(f *testing.F) {
	for _, s := range []string{"mM", "kDa", "days", "patients", "W/mK", "µm", ""} {
		f.Add(s)
	}
	f.Fuzz(checkLookupWord)
}
