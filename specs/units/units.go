package units

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Errors of Parse and Convert; test with errors.Is.
var (
	// ErrUnknownUnit means a symbol is not in the table.
	ErrUnknownUnit = errors.New("units: unknown unit")
	// ErrIncompatible means two units measure different dimensions.
	ErrIncompatible = errors.New("units: incompatible units")
)

// Dim is a dimension as exponents of the SI base quantities, in the order
// length (m), mass (kg), time (s), current (A), temperature (K), amount
// (mol), luminous intensity (cd).
type Dim [7]int8

// Unit is a parsed unit: SI value = value·Factor + Offset.
type Unit struct {
	// Symbol is the unit as written (trimmed).
	Symbol string
	Dim    Dim
	Factor float64
	// Offset is non-zero for °C and °F only.
	Offset float64
}

// ToSI converts an absolute value to the coherent SI unit of u's dimension.
func (u Unit) ToSI(v float64) float64 { return v*u.Factor + u.Offset }

// FromSI converts an SI value back to u.
func (u Unit) FromSI(v float64) float64 { return (v - u.Offset) / u.Factor }

// ToSIDelta converts a difference (an uncertainty, a range width): no
// offset.
func (u Unit) ToSIDelta(v float64) float64 { return v * u.Factor }

// SI is the name of the coherent SI unit of u's dimension ("W/(m·K)",
// "Pa", "mol/m³"...).
func (u Unit) SI() string { return u.Dim.SIName() }

// Compatible reports whether u and v measure the same dimension.
func (u Unit) Compatible(v Unit) bool { return u.Dim == v.Dim }

// Convert converts an absolute value from one unit to another.
func Convert(v float64, from, to string) (float64, error) {
	f, err := Parse(from)
	if err != nil {
		return 0, err
	}
	t, err := Parse(to)
	if err != nil {
		return 0, err
	}
	if !f.Compatible(t) {
		return 0, fmt.Errorf("%w: %s (%s) and %s (%s)", ErrIncompatible, from, f.SI(), to, t.SI())
	}
	return t.FromSI(f.ToSI(v)), nil
}

// Dimensions of the table.
var (
	Dimensionless = Dim{}
	Length        = Dim{1}
	Mass          = Dim{0, 1}
	Time          = Dim{0, 0, 1}
	Current       = Dim{0, 0, 0, 1}
	Temperature   = Dim{0, 0, 0, 0, 1}
	Amount        = Dim{0, 0, 0, 0, 0, 1}
	Luminous      = Dim{0, 0, 0, 0, 0, 0, 1}

	Area                = Dim{2}
	Volume              = Dim{3}
	Frequency           = Dim{0, 0, -1}
	Velocity            = Dim{1, 0, -1}
	Force               = Dim{1, 1, -2}
	Pressure            = Dim{-1, 1, -2}
	Energy              = Dim{2, 1, -2}
	Power               = Dim{2, 1, -3}
	Charge              = Dim{0, 0, 1, 1}
	Voltage             = Dim{2, 1, -3, -1}
	Resistance          = Dim{2, 1, -3, -2}
	Conductance         = Dim{-2, -1, 3, 2}
	ThermalConductivity = Dim{1, 1, -3, 0, -1}
	HeatCapacity        = Dim{2, 0, -2, 0, -1} // specific: J/(kg·K)
	Concentration       = Dim{-3, 0, 0, 0, 0, 1}
	Density             = Dim{-3, 1} // also mass concentration (mg/L)
	MolarMass           = Dim{0, 1, 0, 0, 0, -1}
	MolarEnergy         = Dim{2, 1, -2, 0, 0, -1}
	Viscosity           = Dim{-1, 1, -1}
	Conductivity        = Dim{-3, -1, 3, 2}
	Resistivity         = Dim{3, 1, -3, -2}
	Dose                = Dim{} // mg/kg: mass per mass, dimensionless
)

// siNames are the readable names of the coherent SI units of common
// dimensions; others are spelled from the base units.
var siNames = map[Dim]string{
	Dimensionless: "1", Length: "m", Mass: "kg", Time: "s", Current: "A", Temperature: "K", Amount: "mol",
	Luminous: "cd", Area: "m²", Volume: "m³", Frequency: "Hz", Velocity: "m/s", Force: "N", Pressure: "Pa",
	Energy: "J", Power: "W", Charge: "C", Voltage: "V", Resistance: "Ω", Conductance: "S",
	ThermalConductivity: "W/(m·K)", HeatCapacity: "J/(kg·K)", Concentration: "mol/m³", Density: "kg/m³",
	MolarMass: "kg/mol", MolarEnergy: "J/mol", Viscosity: "Pa·s", Conductivity: "S/m", Resistivity: "Ω·m",
}

var baseSymbols = [7]string{"m", "kg", "s", "A", "K", "mol", "cd"}

// SIName names the coherent SI unit of d.
func (d Dim) SIName() string {
	if n, ok := siNames[d]; ok {
		return n
	}
	var parts []string
	for i, e := range d {
		switch {
		case e == 1:
			parts = append(parts, baseSymbols[i])
		case e != 0:
			parts = append(parts, baseSymbols[i]+"^"+strconv.Itoa(int(e)))
		}
	}
	return strings.Join(parts, "·")
}

func (d Dim) add(o Dim, sign int8) Dim {
	for i := range d {
		d[i] += sign * o[i]
	}
	return d
}

func (d Dim) scale(n int8) Dim {
	for i := range d {
		d[i] *= n
	}
	return d
}

type entry struct {
	dim            Dim
	factor, offset float64
	// prefixable: SI prefixes may be put in front of the symbol.
	prefixable bool
}

// table is the documented list of unit symbols. Factors are exact where the
// SI defines them (eV, Da, atm, cal as the thermochemical calorie).
var table = map[string]entry{
	"m":    {Length, 1, 0, true},
	"g":    {Mass, 1e-3, 0, true},
	"s":    {Time, 1, 0, true},
	"A":    {Current, 1, 0, true},
	"K":    {Temperature, 1, 0, true},
	"mol":  {Amount, 1, 0, true},
	"cd":   {Luminous, 1, 0, false},
	"L":    {Volume, 1e-3, 0, true},
	"l":    {Volume, 1e-3, 0, true},
	"Hz":   {Frequency, 1, 0, true},
	"N":    {Force, 1, 0, true},
	"Pa":   {Pressure, 1, 0, true},
	"J":    {Energy, 1, 0, true},
	"W":    {Power, 1, 0, true},
	"C":    {Charge, 1, 0, true},
	"V":    {Voltage, 1, 0, true},
	"Ω":    {Resistance, 1, 0, true},
	"ohm":  {Resistance, 1, 0, true},
	"S":    {Conductance, 1, 0, true},
	"M":    {Concentration, 1000, 0, true}, // molar: mol/L
	"Da":   {Mass, 1.66053906660e-27, 0, true},
	"eV":   {Energy, 1.602176634e-19, 0, true},
	"cal":  {Energy, 4.184, 0, true},
	"bar":  {Pressure, 1e5, 0, true},
	"atm":  {Pressure, 101325, 0, false},
	"Torr": {Pressure, 101325.0 / 760, 0, false},
	"mmHg": {Pressure, 133.322387415, 0, false},
	"psi":  {Pressure, 6894.757293168, 0, false},
	"min":  {Time, 60, 0, false},
	"h":    {Time, 3600, 0, false},
	"d":    {Time, 86400, 0, false},
	"Å":    {Length, 1e-10, 0, false},
	"°C":   {Temperature, 1, 273.15, false},
	"°F":   {Temperature, 5.0 / 9, 273.15 - 32*5.0/9, false},
	"%":    {Dimensionless, 0.01, 0, false},
	"ppm":  {Dimensionless, 1e-6, 0, false},
	"ppb":  {Dimensionless, 1e-9, 0, false},
	"P":    {Viscosity, 0.1, 0, false}, // poise, used as cP
	"cP":   {Viscosity, 1e-3, 0, false},
	"t":    {Mass, 1000, 0, false},
}

// prefixes are the SI prefixes; "u" and the two micro signs all mean 1e-6.
var prefixes = map[string]float64{
	"Q": 1e30, "R": 1e27, "Y": 1e24, "Z": 1e21, "E": 1e18, "P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6,
	"k": 1e3, "h": 1e2, "da": 1e1, "d": 1e-1, "c": 1e-2, "m": 1e-3, "µ": 1e-6, "μ": 1e-6, "u": 1e-6,
	"n": 1e-9, "p": 1e-12, "f": 1e-15, "a": 1e-18, "z": 1e-21, "y": 1e-24, "r": 1e-27, "q": 1e-30,
}

// aliases are whole spellings with a fixed meaning, checked first.
var aliases = map[string]string{
	"W/mK":   "W/(m·K)",
	"W/m K":  "W/(m·K)",
	"W/m.K":  "W/(m·K)",
	"W/m·K":  "W/(m·K)",
	"J/gK":   "J/(g·K)",
	"J/kgK":  "J/(kg·K)",
	"J/g K":  "J/(g·K)",
	"J/kg K": "J/(kg·K)",
	"S/cm":   "S/cm",
	"ºC":     "°C",
	"° C":    "°C",
	"º C":    "°C",
	"℃":      "°C",
	"degC":   "°C",
	"oC":     "°C",
	"°K":     "K",
	"sec":    "s",
	"hr":     "h",
	"hrs":    "h",
	"days":   "d",
	"day":    "d",
	"mins":   "min",
	"wt%":    "%",
	"wt.%":   "%",
	"vol%":   "%",
	"at%":    "%",
	"at.%":   "%",
}

// Parse parses a unit as written. The empty string is dimensionless with
// factor 1.
func Parse(s string) (Unit, error) {
	u, ok := Lookup(s)
	if !ok {
		return Unit{}, fmt.Errorf("%w: %q", ErrUnknownUnit, s)
	}
	return u, nil
}

// Lookup is Parse without an error value, for scanners that try many
// candidate tokens.
func Lookup(s string) (Unit, bool) {
	if isWord(s) {
		return lookupWord(s)
	}
	return lookupParsed(s)
}

// lookupParsed is Lookup parsing s.
func lookupParsed(s string) (Unit, bool) {
	sym := strings.TrimSpace(s)
	u := Unit{Symbol: sym, Factor: 1}
	if a, ok := aliases[sym]; ok {
		sym = a
	}
	sym = normalise(sym)
	if sym == "" || sym == "1" {
		return u, true
	}
	dim, factor, offset, err := parseProduct(sym)
	if err != nil {
		return Unit{}, false
	}
	u.Dim, u.Factor, u.Offset = dim, factor, offset
	return u, true
}

// MustParse is Parse for the package's own constants and tests.
func MustParse(s string) Unit {
	u, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

var superscripts = strings.NewReplacer("⁻", "-", "⁰", "0", "¹", "1", "²", "2", "³", "3", "⁴", "4", "⁵", "5",
	"⁶", "6", "⁷", "7", "⁸", "8", "⁹", "9", "−", "-", "⋅", "·", "×", "·", "*", "·", "ºC", "°C", "º", "°")

func normalise(s string) string {
	if isPlain(s) {
		return s
	}
	s = superscripts.Replace(s)
	// "° C" → "°C"
	s = strings.ReplaceAll(s, "° C", "°C")
	s = strings.ReplaceAll(s, "° F", "°F")
	return s
}

// isPlain: ASCII letters, digits and / ^ - ( ) . and space only, which
// normalise leaves alone.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == '*' {
			return false
		}
	}
	return !strings.Contains(s, "° ")
}

// parseProduct parses factors joined by "·", " " or "/"; a "/" inverts the
// next factor (or parenthesised group), as "W/(m·K)" and "mg/kg/day" are
// read in practice.
func parseProduct(s string) (Dim, float64, float64, error) {
	var (
		dim     Dim
		factor  = 1.0
		offset  float64
		nfactor int
		invert  bool
	)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '·' || r == ' ' || r == '.':
			i += w
			continue
		case r == '/':
			invert = true
			i += w
			continue
		}
		var (
			d      Dim
			f, off float64
			n      int
			err    error
		)
		if r == '(' {
			j := strings.IndexByte(s[i:], ')')
			if j < 0 {
				return Dim{}, 0, 0, ErrUnknownUnit
			}
			d, f, off, err = parseProduct(s[i+1 : i+j])
			n = j + 1
			if err == nil && off != 0 {
				err = ErrUnknownUnit
			}
			if e, m := exponent(s[i+n:]); m > 0 {
				d, f, n = d.scale(int8(e)), math.Pow(f, float64(e)), n+m
			}
		} else {
			d, f, off, n, err = parseFactor(s[i:])
		}
		if err != nil {
			return Dim{}, 0, 0, err
		}
		if invert {
			d, f = d.scale(-1), 1/f
			invert = false
		}
		dim = dim.add(d, 1)
		factor *= f
		offset = off
		nfactor++
		i += n
	}
	if nfactor != 1 {
		// An offset (°C) makes sense only for a lone temperature unit.
		offset = 0
	}
	return dim, factor, offset, nil
}

// parseFactor reads one symbol with an optional prefix and exponent and
// returns how many bytes it used.
func parseFactor(s string) (Dim, float64, float64, int, error) {
	n := 0
	for n < len(s) {
		r, w := utf8.DecodeRuneInString(s[n:])
		if !(unicode.IsLetter(r) || r == '°' || r == '%' || r == 'Ω' || r == 'Å' || r == 'µ') {
			break
		}
		n += w
	}
	if n == 0 {
		return Dim{}, 0, 0, 0, ErrUnknownUnit
	}
	sym := s[:n]
	e, m := exponent(s[n:])
	d, f, off, ok := lookup(sym)
	if !ok {
		return Dim{}, 0, 0, 0, ErrUnknownUnit
	}
	if m > 0 {
		if off != 0 {
			return Dim{}, 0, 0, 0, ErrUnknownUnit
		}
		d, f = d.scale(int8(e)), math.Pow(f, float64(e))
	}
	return d, f, off, n + m, nil
}

func lookup(sym string) (Dim, float64, float64, bool) {
	if len(sym) > maxSymbol {
		return Dim{}, 0, 0, false // a word ("patients"), no symbol
	}
	if e, ok := table[sym]; ok {
		return e.dim, e.factor, e.offset, true
	}
	if a, ok := aliases[sym]; ok {
		if e, ok := table[a]; ok {
			return e.dim, e.factor, e.offset, true
		}
	}
	for _, pl := range []int{2, 1} { // "da" before "d"
		if len(sym) <= pl {
			continue
		}
		// Prefixes are ASCII except the micro signs (2 bytes in UTF-8).
		p, rest := sym[:pl], sym[pl:]
		if r, w := utf8.DecodeRuneInString(sym); r == 'µ' || r == 'μ' {
			if pl != 1 {
				continue
			}
			p, rest = sym[:w], sym[w:]
		}
		pf, ok := prefixes[p]
		if !ok {
			continue
		}
		if e, ok := table[rest]; ok && e.prefixable {
			return e.dim, e.factor * pf, 0, true
		}
	}
	return Dim{}, 0, 0, false
}

// isWord reports whether s is made of ASCII letters alone ("mM", "and").
func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// wordUnits holds Lookup's answer for every word (isWord) that is a unit:
// a scanner looks up the word after each number, and most of those words
// ("patients", "and") are none. Parsed, a word is one factor without an
// exponent, so it is a unit only as a symbol, an alias or a prefix and a
// symbol; those are all parsed here, once.
var wordUnits = func() map[string]Unit {
	var cands []string
	for k, e := range table {
		cands = append(cands, k)
		if e.prefixable {
			for p := range prefixes {
				cands = append(cands, p+k)
			}
		}
	}
	for k := range aliases {
		cands = append(cands, k)
	}
	m := make(map[string]Unit)
	for _, c := range cands {
		if u, ok := lookupParsed(c); ok && isWord(c) {
			m[c] = u
		}
	}
	return m
}()

// lookupWord is Lookup for a word (isWord).
func lookupWord(s string) (Unit, bool) {
	if len(s) > maxSymbol {
		return Unit{}, false // no hashing for most words
	}
	u, ok := wordUnits[s]
	return u, ok
}

// maxSymbol is the length of the longest symbol lookup can find: in the
// table, among the aliases, or a prefix and a prefixable symbol.
var maxSymbol = func() int {
	n, maxPrefix, maxPrefixable := 0, 0, 0
	for k, e := range table {
		n = max(n, len(k))
		if e.prefixable {
			maxPrefixable = max(maxPrefixable, len(k))
		}
	}
	for k := range aliases {
		n = max(n, len(k))
	}
	for k := range prefixes {
		maxPrefix = max(maxPrefix, len(k))
	}
	return max(n, maxPrefix+maxPrefixable)
}()

// exponent reads "2", "-1", "^2", "^-1" after a symbol.
func exponent(s string) (int, int) {
	i := 0
	if strings.HasPrefix(s, "^") {
		i++
	}
	j := i
	if j < len(s) && (s[j] == '-' || s[j] == '+') {
		j++
	}
	k := j
	for k < len(s) && s[k] >= '0' && s[k] <= '9' && k-j < 2 {
		k++
	}
	if k == j {
		return 0, 0
	}
	e, err := strconv.Atoi(s[i:k])
	if err != nil || e == 0 {
		return 0, 0
	}
	return e, k
}
