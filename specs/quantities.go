package specs

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openshelf/openshelf/specs/units"
)

// Quantity is a named quantity: the phrases that introduce it in text and
// the dimension its values must have.
type Quantity struct {
	Name    string
	Phrases []string
	Dim     units.Dim
}

// Quantities is the table of named quantities, most specific first: a
// phrase that contains another ("melting temperature" ⊃ "temperature")
// must come before it.
var Quantities = []Quantity{
	{"thermal_conductivity", []string{"thermal conductivity", "thermal conductivities"}, units.ThermalConductivity},
	{"specific_heat", []string{"specific heat", "heat capacity"}, units.HeatCapacity},
	{"band_gap", []string{"band gap", "bandgap", "band-gap", "optical gap"}, units.Energy},
	{"activation_energy", []string{"activation energy", "activation energies"}, units.MolarEnergy},
	{"melting_point", []string{"melting point", "melting temperature", "melts at"}, units.Temperature},
	{"boiling_point", []string{"boiling point", "boils at"}, units.Temperature},
	{"glass_transition_temperature", []string{"glass transition temperature", "glass transition", "tg of"}, units.Temperature},
	{"firing_temperature", []string{"firing temperature", "fired at", "burned at", "sintering temperature", "sintered at", "calcined at", "calcination temperature"}, units.Temperature},
	{"curie_temperature", []string{"curie temperature"}, units.Temperature},
	{"incubation_temperature", []string{"incubated at", "incubation at", "grown at", "cultured at", "stored at", "kept at", "maintained at"}, units.Temperature},
	{"temperature", []string{"temperature", "temperatures", "heated to", "heated at", "cooled to"}, units.Temperature},
	{"flexural_strength", []string{"flexural strength", "flexural rupture", "rupture stress", "modulus of rupture", "flexural stress", "bending strength", "ruptura à flexão"}, units.Pressure},
	{"tensile_strength", []string{"tensile strength", "ultimate strength"}, units.Pressure},
	{"compressive_strength", []string{"compressive strength", "compression strength"}, units.Pressure},
	{"yield_strength", []string{"yield strength", "yield stress"}, units.Pressure},
	{"elastic_modulus", []string{"young's modulus", "young’s modulus", "elastic modulus", "modulus of elasticity", "young modulus", "módulo de elasticidade"}, units.Pressure},
	{"hardness", []string{"hardness", "microhardness"}, units.Pressure},
	{"pressure", []string{"pressure", "pressures", "pressão"}, units.Pressure},
	{"density", []string{"bulk density", "density", "densities"}, units.Density},
	{"porosity", []string{"porosity", "apparent porosity"}, units.Dimensionless},
	{"water_absorption", []string{"water absorption"}, units.Dimensionless},
	{"linear_shrinkage", []string{"linear shrinkage", "shrinkage"}, units.Dimensionless},
	{"efficiency", []string{"conversion efficiency", "efficiency"}, units.Dimensionless},
	{"electrical_conductivity", []string{"electrical conductivity", "ionic conductivity", "conductivity"}, units.Conductivity},
	{"resistivity", []string{"resistivity"}, units.Resistivity},
	{"wavelength", []string{"wavelength", "excitation", "emission", "excited at", "absorbance at", "absorption at", "measured at", "read at", "od"}, units.Length},
	{"particle_size", []string{"particle size", "grain size", "crystallite size", "particle diameter", "pore size", "mean size"}, units.Length},
	{"thickness", []string{"thickness", "thick"}, units.Length},
	{"diameter", []string{"diameter", "radius", "width"}, units.Length},
	{"length", []string{"length", "long", "height", "depth", "distance"}, units.Length},
	{"dose", []string{"dose", "doses", "dosage", "dosed", "administered", "injected"}, units.Dose},
	{"concentration", []string{"concentration", "concentrations", "containing", "supplemented with", "buffer", "solution"}, units.Concentration},
	{"mass_concentration", []string{"concentration", "concentrations", "containing", "supplemented with", "solution"}, units.Density},
	{"molecular_weight", []string{"molecular weight", "molecular mass", "molar mass"}, units.Mass},
	{"mass", []string{"body weight", "weight", "weighing", "mass"}, units.Mass},
	{"volume", []string{"volume", "aliquot", "aliquots"}, units.Volume},
	{"frequency", []string{"frequency", "frequencies", "sampling rate", "resonance"}, units.Frequency},
	{"voltage", []string{"voltage", "potential", "bias"}, units.Voltage},
	{"current", []string{"current"}, units.Current},
	{"power", []string{"power", "output"}, units.Power},
	{"energy", []string{"energy", "energies"}, units.Energy},
	{"viscosity", []string{"viscosity"}, units.Viscosity},
	{"velocity", []string{"velocity", "speed", "flow rate"}, units.Velocity},
	{"half_life", []string{"half-life", "half life", "half-lives"}, units.Time},
	{"duration", []string{"duration", "incubated for", "period of", "exposure time", "reaction time"}, units.Time},
}

// byDim names a quantity from the unit alone, for units that rarely
// measure anything else.
var byDim = map[units.Dim]string{
	units.Temperature:         "temperature",
	units.Pressure:            "pressure",
	units.ThermalConductivity: "thermal_conductivity",
	units.HeatCapacity:        "specific_heat",
	units.Energy:              "energy",
	units.Power:               "power",
	units.Voltage:             "voltage",
	units.Concentration:       "concentration",
	units.Density:             "mass_concentration",
	units.Frequency:           "frequency",
	units.MolarMass:           "molar_mass",
	units.MolarEnergy:         "molar_energy",
	units.Conductivity:        "electrical_conductivity",
	units.Resistivity:         "resistivity",
	units.Viscosity:           "viscosity",
}

// QuantityDim returns the dimension of a named quantity.
func QuantityDim(name string) (units.Dim, bool) {
	for _, q := range Quantities {
		if q.Name == name {
			return q.Dim, true
		}
	}
	for d, n := range byDim {
		if n == name {
			return d, true
		}
	}
	return units.Dim{}, false
}

// phraseIndex lists every phrase with its quantity, longest first, so the
// most specific phrase wins at one position.
type phrase struct {
	text string
	q    *Quantity
}

var phrases = func() []phrase {
	var out []phrase
	for i := range Quantities {
		for _, p := range Quantities[i].Phrases {
			if c := p[0] | 0x20; c < 'a' || c > 'z' || len(p) < 2 {
				panic("specs: a phrase must start with an ASCII letter (nameQuantity) and have two bytes (namesQuantity): " + p)
			}
			out = append(out, phrase{p, &Quantities[i]})
		}
	}
	return out
}()

// startPhrase is a phrase of a dimension with its rank in the order of
// phrases.
type startPhrase struct {
	phrase
	rank int
}

// phraseIndex indexes phrases by their first byte, each list in the order
// of phrases. folded lists them under the upper-case ASCII letter too,
// for text read without lower-casing it (nameQuantity's fold).
type phraseIndex struct {
	lower, folded [256][]startPhrase
}

// phraseStarts indexes the phrases of each dimension: a match looks only
// at those of its unit's dimension starting with the byte at hand.
var phraseStarts = func() map[units.Dim]*phraseIndex {
	out := make(map[units.Dim]*phraseIndex)
	for _, p := range phrases {
		idx := out[p.q.Dim]
		if idx == nil {
			idx = new(phraseIndex)
			out[p.q.Dim] = idx
		}
		rank := 0
		for _, l := range idx.lower {
			rank += len(l)
		}
		idx.lower[p.text[0]] = append(idx.lower[p.text[0]], startPhrase{p, rank})
	}
	for _, idx := range out {
		for c := range idx.folded {
			idx.folded[c] = idx.lower[asciiLower[c]]
		}
	}
	return out
}()

// maxPhrases bounds the number of phrases, for sets of them as bits.
const maxPhrases = 256

// phrasesByStart indexes all phrases by their first byte, each with its
// rank in phrases.
var phrasesByStart = func() (idx [256][]startPhrase) {
	if len(phrases) > maxPhrases {
		panic("specs: more phrases than maxPhrases")
	}
	for i, p := range phrases {
		idx[p.text[0]] = append(idx[p.text[0]], startPhrase{p, i})
	}
	return idx
}()

// asciiAlnum marks the ASCII letters and digits.
var asciiAlnum = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))
	}
	return t
}()

// NormaliseQuantity turns a user's quantity ("Thermal conductivity",
// "band-gap") into the table's name, or "" when unknown.
func NormaliseQuantity(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer("_", " ", "-", " ").Replace(s)
	s = strings.Join(strings.Fields(s), " ")
	for _, q := range Quantities {
		if strings.ReplaceAll(q.Name, "_", " ") == s {
			return q.Name
		}
	}
	for _, n := range byDim {
		if strings.ReplaceAll(n, "_", " ") == s {
			return n
		}
	}
	for _, p := range phrases {
		if p.text == s && len(s) > 3 {
			return p.q.Name
		}
	}
	return ""
}
