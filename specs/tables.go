package specs

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/specs/units"
)

// Sources of a statement.
const (
	SourceText  = "text"
	SourceTable = "table"
)

// maxCellQuote bounds the row label, column header and caption quoted in
// a table statement.
const maxCellQuote = 120

// Header is a parsed column (or row) header: the quantity it names, and
// the unit its cells are in when it gives one.
type Header struct {
	// Label is the header without its unit ("Thermal conductivity").
	Label string
	// Unit is the unit as written ("W m^-1 K^-1"), "" when the header
	// gives none; U is its parse.
	Unit string
	U    units.Unit
	// Quantity is the quantity named, "" when none can be: with a unit,
	// it has the unit's dimension.
	Quantity string
	// Uncertainty marks a column of standard deviations or errors of the
	// column before it ("SD", "SEM", "± SD").
	Uncertainty bool
}

// ParseHeader parses a table header cell: "Thermal conductivity (W m−1
// K−1)", "Tm (°C)", "Band gap [eV]", "Density, g/cm³", "Temperature in
// °C", "κ (W/mK)", "SD (min)".
func ParseHeader(h string) Header {
	h = squeeze(h)
	label, unit := splitUnit(h)
	hd := Header{Label: label}
	if unit != "" {
		hd.Unit = unit
		hd.U, _ = units.Lookup(unit)
	}
	hd.Uncertainty = isUncertaintyLabel(label)
	if unit != "" && !hd.Uncertainty && !isDifference(label) {
		hd.Quantity, _ = headerQuantity(strings.ToLower(label), unit, hd.U)
	}
	return hd
}

// splitUnit separates a header's unit: the last bracketed group, a unit
// after the last comma or after " in ", or a last word that can only be a
// unit (it holds °, %, /, µ or a digit). The unit must parse.
func splitUnit(h string) (label, unit string) {
	if k := strings.LastIndexAny(h, ")]"); k > 0 && k >= len(h)-3 {
		open := byte('(')
		if h[k] == ']' {
			open = '['
		}
		if o := strings.LastIndexByte(h[:k], open); o == 0 || o > 0 && h[o-1] == ' ' {
			u := strings.TrimSpace(h[o+1 : k])
			if isHeaderUnit(u) {
				return strings.TrimSpace(h[:o] + h[k+1:]), u
			}
		}
	}
	for _, sep := range []string{", ", " in "} {
		if k := lastIndex(h, sep); k > 0 {
			u := strings.TrimSpace(h[k+len(sep):])
			if isHeaderUnit(u) && utf8.RuneCountInString(u) > 1 {
				return strings.TrimSpace(h[:k]), u
			}
		}
	}
	if k := strings.LastIndexByte(h, ' '); k > 0 {
		u := h[k+1:]
		if strings.ContainsAny(u, "°%/µμ0123456789") && isHeaderUnit(u) {
			return h[:k], u
		}
	}
	return h, ""
}

// lastIndex is strings.LastIndex for a short sep, faster on short text:
// it steps back over sep's first byte in place of hashing every byte.
func lastIndex(s, sep string) int {
	for end := len(s); ; {
		k := strings.LastIndexByte(s[:end], sep[0])
		if k < 0 || strings.HasPrefix(s[k:], sep) {
			return k
		}
		end = k
	}
}

func isHeaderUnit(u string) bool {
	if u == "" || notUnits[u] {
		return false
	}
	_, ok := units.Lookup(u)
	return ok
}

// uncertaintyLabels head columns of uncertainties.
var uncertaintyLabels = map[string]bool{
	"sd": true, "s.d": true, "±sd": true, "± sd": true, "std": true, "std. dev": true, "standard deviation": true,
	"se": true, "s.e": true, "sem": true, "s.e.m": true, "±sem": true, "± sem": true, "standard error": true,
	"±": true, "error": true, "uncertainty": true,
}

// isUncertaintyLabel reports whether a header's label, lower-cased and
// trimmed of " .:", is one of uncertaintyLabels.
func isUncertaintyLabel(label string) bool {
	// Lower-casing leaves " .:" alone and makes none, so trimming may
	// come first; it shrinks a character to no less than a third of its
	// bytes (the Kelvin sign is "k"), ASCII not at all. Longer labels are
	// none, without lower-casing them.
	l := strings.Trim(label, " .:")
	if len(l) > 3*maxUncertaintyLabel || len(l) > maxUncertaintyLabel && isASCII(l) {
		return false
	}
	var buf [3 * maxUncertaintyLabel]byte
	return uncertaintyLabels[string(appendLower(buf[:0], l))]
}

// maxUncertaintyLabel is the length of the longest of uncertaintyLabels
// ("standard deviation").
const maxUncertaintyLabel = 18

// symbols are quantity symbols used as headers ("Tm (°C)", "Eg (eV)"):
// each with its candidate quantities, told apart by the unit's dimension.
var symbols = map[string][]string{
	"tm": {"melting_point"}, "t_m": {"melting_point"}, "mp": {"melting_point"}, "m.p": {"melting_point"},
	"tg": {"glass_transition_temperature"}, "t_g": {"glass_transition_temperature"},
	"tc": {"curie_temperature"}, "bp": {"boiling_point"}, "b.p": {"boiling_point"},
	"eg": {"band_gap"}, "e_g": {"band_gap"},
	"ea": {"activation_energy"},
	"κ":  {"thermal_conductivity"}, "k": {"thermal_conductivity"}, "λ": {"thermal_conductivity", "wavelength"},
	"ρ": {"density", "resistivity"}, "ϱ": {"density", "resistivity"}, "σ": {"electrical_conductivity", "tensile_strength"},
	"e": {"elastic_modulus", "energy"}, "ys": {"yield_strength"}, "uts": {"tensile_strength"},
	"cp": {"specific_heat"}, "c_p": {"specific_heat"}, "η": {"viscosity", "efficiency"},
	"hv": {"hardness"}, "t": {"temperature", "duration", "thickness"}, "d": {"diameter", "density"},
	"mw": {"molecular_weight"}, "m_w": {"molecular_weight"}, "mn": {"molecular_weight"},
	"t1/2": {"half_life"}, "t½": {"half_life"},
}

// headerByDim names the quantity of a header from its unit alone: the
// text's choices, plus dimensions whose bare numbers are too ambiguous in
// prose but not under a header that gives the unit.
var headerByDim = func() map[units.Dim]string {
	m := map[units.Dim]string{units.Time: "duration", units.Length: "length", units.Mass: "mass", units.Volume: "volume"}
	for d, n := range byDim {
		m[d] = n
	}
	return m
}()

// headerQuantity names the quantity of a header label (lower case) with
// a unit: a quantity phrase of matching dimension (the last one wins), a
// symbol, else the unit's dimension; named reports that the label, not
// the unit alone, named it. A one-letter unit ("s", "K", "m") needs a
// phrase or a symbol: "Time (s)" is too vague to guess.
func headerQuantity(label, unit string, u units.Unit) (q string, named bool) {
	if perMass(unit) {
		switch u.Dim {
		case units.Dimensionless:
			return "dose", true
		case units.Frequency:
			return "dose_rate", true
		}
	}
	if q := nameQuantity(label+" ", false, match{start: len(label), unit: unit, u: u}); q != "" && phraseNamed(label, q) {
		return q, true
	}
	if q := symbolQuantity(label, u.Dim); q != "" {
		return q, true
	}
	if utf8.RuneCountInString(unit) < 2 {
		return "", false
	}
	return headerByDim[u.Dim], false
}

// phraseNamed reports whether q was named by a phrase of the label rather
// than by nameQuantity's fallback to the unit.
func phraseNamed(label, q string) bool {
	for _, p := range phrases {
		if p.q.Name == q && strings.Contains(label, p.text) {
			return true
		}
	}
	return false
}

// isDifference reports whether a header heads differences ("ΔT (°C)",
// "Change in mass (g)"): they are not values of the quantity, and a
// temperature difference must not be converted as a temperature.
func isDifference(label string) bool {
	l := strings.ToLower(label)
	if strings.HasPrefix(l, "δ") || strings.HasPrefix(l, "delta") {
		return true
	}
	for _, w := range []string{"difference", "change", "increase", "decrease", "reduction", "loss", "gain"} {
		if k := strings.Index(l, w); k >= 0 && boundary(l, k, k+len(w)) {
			return true
		}
	}
	return false
}

// symbolQuantity looks up the label's first word as a symbol; subscripts
// were flattened ("T<sub>m</sub>" → "Tm").
func symbolQuantity(label string, d units.Dim) string {
	w := label
	if k := strings.IndexAny(w, " ,;:"); k >= 0 {
		w = w[:k]
	}
	w = strings.TrimRight(w, ".")
	cands := symbols[w]
	if cands == nil {
		// A Greek symbol with a subscript: "ρap", "κ_L", "σy".
		if r, n := utf8.DecodeRuneInString(w); r >= 'α' && r <= 'ω' || r == 'ϱ' {
			cands = symbols[w[:n]]
		}
	}
	for _, q := range cands {
		if qd, ok := QuantityDim(q); ok && qd == d {
			return q
		}
	}
	return ""
}

// notDataRow names rows that restate other rows (ratios, p values,
// differences in percent): their cells are not values of the column's
// quantity.
func notDataRow(label string) bool {
	if !isASCII(label) {
		l := strings.ToLower(label)
		return slices.ContainsFunc(notDataPrefixes, func(p string) bool { return strings.HasPrefix(l, p) }) || l == "p"
	}
	// ASCII: compare without lower-casing the label.
	for _, p := range notDataPrefixes {
		if len(label) >= len(p) && strings.EqualFold(label[:len(p)], p) {
			return true
		}
	}
	return strings.EqualFold(label, "p")
}

var notDataPrefixes = []string{"ratio", "fold", "p value", "p-value", "p =", "p<", "p <", "change", "difference", "significance"}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// ExtractTable returns the statements of a table's cells, row by row. A
// column whose header names a quantity and gives its unit reads its cells
// as values, ranges ("1.1–1.5") or values ± uncertainties; a header that
// names a quantity without a unit reads cells with their own units ("14
// days"). A column of SDs or SEMs gives the uncertainty of the column
// before it. The row's first cell is the subject (and is read as a
// value only when its column's header names a quantity with a unit); when a column's header
// names no quantity but the row's first cell does (a transposed table),
// the roles swap.
func ExtractTable(tb *ingest.Table) []Statement {
	if len(tb.Rows) == 0 {
		return nil
	}
	width := len(tb.Rows[0])
	cols := make([]Header, width)
	colText := make([]string, width)
	for j := range cols {
		cols[j], colText[j] = columnHeader(tb, j)
	}
	label := tb.Label
	if label == "" {
		label = "Table"
	}
	caption := clipRunes(squeeze(tb.Caption), maxCellQuote)
	where := "table: " + label
	// The first column is the rows' labels, unless its header names a
	// quantity with its unit ("T (K)" down the side): then it is read too.
	first := 1
	if cols[0].Quantity != "" && cols[0].Unit != "" {
		first = 0
	}
	var (
		out []Statement
		// The subject of the last cell: a row's cells share their row's.
		lastSubject                    string
		lastSubj, lastFam, lastFamKind string
		haveSubject                    bool
	)
	for _, row := range tb.Rows {
		if len(row) != width || width < 2 {
			continue
		}
		rowLabel := squeeze(row[0])
		if notDataRow(rowLabel) {
			continue
		}
		var (
			rowHeader *Header // the row label parsed as a header, once needed
			rowNames  bool    // it names a quantity
		)
		for j := first; j < width; j++ {
			hd, subject, column := cols[j], rowLabel, colText[j]
			if hd.Uncertainty || row[j] == "" || j > 1 && row[j] == row[j-1] && colText[j] == colText[j-1] {
				continue // an uncertainty column, an empty cell or a colspan repeat
			}
			c := cellText(row[j])
			if !hasDigit(c) {
				continue // no number: no statement under any header
			}
			st, ok := readCellText(c, &hd)
			if !ok && hd.Unit == "" {
				// Transposed: the row's label names the quantity.
				if rowHeader == nil {
					rh := ParseHeader(rowLabel)
					rowHeader = &rh
					rowNames = rh.Quantity != "" || rh.Unit == "" && namesQuantity(rh.Label)
				}
				if rowNames {
					hd, subject = *rowHeader, colText[j]
					st, ok = readCellText(c, &hd)
				}
			}
			if !ok {
				continue
			}
			if j+1 < width && cols[j+1].Uncertainty && st.Uncertainty == 0 {
				addUncertainty(&st, row[j+1], &hd, &cols[j+1])
			}
			st.Source, st.Table, st.Row, st.Column = SourceTable, label, clipRunes(rowLabel, maxCellQuote), clipRunes(column, maxCellQuote)
			st.Where = where
			st.Text = tableQuote(label, caption, st.Row, st.Column, row[j])
			if !haveSubject || subject != lastSubject {
				lastSubj, lastFam, lastFamKind = tableSubject(subject, colText[0], caption)
				lastSubject, haveSubject = subject, true
			}
			st.Subject, st.Family, st.FamilyKind = lastSubj, lastFam, lastFamKind
			out = append(out, st)
		}
	}
	return out
}

// columnHeader parses column j's header cells: the unit of the lowest
// cell that gives one, the quantity named anywhere in the cells (the
// lowest wins).
func columnHeader(tb *ingest.Table, j int) (Header, string) {
	text := squeeze(tb.ColumnHeader(j))
	var (
		labels []string
		unit   Header
		named  bool // the unit's own cell names the quantity
	)
	prev := ""
	for _, row := range tb.Header {
		if j >= len(row) || row[j] == "" || row[j] == prev {
			continue
		}
		prev = row[j]
		h := ParseHeader(row[j])
		labels = append(labels, h.Label)
		if h.Unit != "" || h.Uncertainty {
			unit = h
			_, named = headerQuantity(strings.ToLower(h.Label), h.Unit, h.U)
		}
	}
	hd := Header{Label: strings.Join(labels, " "), Unit: unit.Unit, U: unit.U, Uncertainty: unit.Uncertainty}
	switch {
	case hd.Unit == "" || hd.Uncertainty || isDifference(hd.Label):
	case named:
		hd.Quantity = unit.Quantity
	default:
		// "Thermal conductivity" spanning "(W/mK)" below it.
		hd.Quantity, _ = headerQuantity(strings.ToLower(hd.Label), hd.Unit, hd.U)
	}
	return hd, text
}

// namesQuantity reports whether a unitless header names a quantity by a
// phrase or a symbol, so that cells giving their own unit can be read.
func namesQuantity(label string) bool {
	l := strings.ToLower(label)
	// Each phrase counts at its first occurrence only: scan l once,
	// trying at each byte the phrases starting with it, and decide each
	// phrase where it first occurs.
	var seen [(maxPhrases + 63) / 64]uint64
	for s := 0; s < len(l); s++ {
		for _, c := range phrasesByStart[l[s]] {
			// Phrases have two bytes at least: most fail at the second.
			e := s + len(c.text)
			if e > len(l) || l[s+1] != c.text[1] || seen[c.rank/64]&(1<<(c.rank%64)) != 0 || l[s:e] != c.text {
				continue
			}
			if boundary(l, s, e) {
				return true
			}
			seen[c.rank/64] |= 1 << (c.rank % 64)
		}
	}
	return false
}

// readCell reads a cell under a header: with the header's unit, a bare
// value, range or value ± uncertainty; without, a value with its own unit
// whose dimension the header's quantity phrase (or the unit alone) names.
// Anything else in the cell but footnote marks makes it no statement.
func readCell(cell string, hd *Header) (Statement, bool) {
	return readCellText(cellText(cell), hd)
}

// cellText is a cell's text as readCell reads it.
func cellText(cell string) string { return strings.TrimSpace(squeeze(cell)) }

// readCellText is readCell on the cell's text (cellText).
func readCellText(c string, hd *Header) (Statement, bool) {
	if c == "" || !hasDigit(c) {
		return Statement{}, false
	}
	var (
		m  match
		ok bool
		q  = hd.Quantity
	)
	if hd.Unit != "" {
		if q == "" {
			return Statement{}, false
		}
		m, ok = bareValue(c)
		m.unit, m.u = hd.Unit, hd.U
	} else {
		m, ok = scanAt(c, 0, nil)
		if ok && onlyMarks(c[m.end:]) {
			q = nameQuantity(strings.ToLower(hd.Label)+" ", false, match{start: len(hd.Label), unit: m.unit, u: m.u})
			if q == "" && hd.Label != "" && utf8.RuneCountInString(m.unit) > 1 {
				// A labelled column of values with units: "Storage
				// time" over "14 days".
				q = headerByDim[m.u.Dim]
			}
		} else {
			ok = false
		}
	}
	if !ok || q == "" {
		return Statement{}, false
	}
	st := Statement{Quantity: q, Min: m.lo, Max: m.hi, Uncertainty: m.unc, Unit: m.unit, SIUnit: m.u.SI(),
		SIMin: m.u.ToSI(m.lo), SIMax: m.u.ToSI(m.hi), SIUncertainty: m.u.ToSIDelta(m.unc)}
	if !m.isRange {
		v, sv := m.lo, st.SIMin
		st.Value, st.SIValue = &v, &sv
	}
	return st, true
}

// bareValue reads a cell that is a number, a range or a number ± an
// uncertainty, with nothing after it but footnote marks.
func bareValue(c string) (match, bool) {
	if c == "" {
		return match{}, false
	}
	i, neg := 0, false
	if c[0] == '-' || c[0] == '+' {
		neg, i = c[0] == '-', 1
	}
	if i >= len(c) || c[i] < '0' || c[i] > '9' {
		return match{}, false
	}
	v, k, ok := number(c, i)
	if !ok {
		return match{}, false
	}
	if neg {
		v = -v
	}
	m := match{lo: v, hi: v}
	if unc, k2, ok := plusMinus(c, k); ok {
		m.unc, k = unc, k2
	} else if n := cellRange(c, k); n > 0 {
		if v2, k2, ok := number(c, n); ok && v2 >= v {
			m.hi, m.isRange, k = v2, true, k2
		}
	}
	return m, onlyMarks(c[k:])
}

// cellRange returns where the second number of a range in a cell starts
// ("1.1–1.5", "1.1 - 1.5", "1.1 to 1.5"), or 0. Unlike prose, a spaced
// hyphen in a cell is a range: there is no subtraction in a cell.
func cellRange(c string, k int) int {
	t := k
	for t < len(c) && c[t] == ' ' {
		t++
	}
	for _, sep := range []string{"–", "—", "-", "~", "to "} {
		if strings.HasPrefix(c[t:], sep) {
			n := t + len(sep)
			for n < len(c) && c[n] == ' ' {
				n++
			}
			if n < len(c) && c[n] >= '0' && c[n] <= '9' {
				return n
			}
		}
	}
	return 0
}

// onlyMarks reports whether the rest of a cell is footnote marks: *, †,
// ‡, §, ¶, # or up to two lower-case letters a–h ("398a", "12.1 ab").
func onlyMarks(s string) bool {
	s = strings.TrimSpace(s)
	letters := 0
	for _, r := range s {
		switch {
		case strings.ContainsRune("*†‡§¶# ", r):
		case r >= 'a' && r <= 'h':
			letters++
		default:
			return false
		}
	}
	return letters <= 2
}

// addUncertainty takes the uncertainty of st from the cell of the
// uncertainty column after it, in that column's unit or st's.
func addUncertainty(st *Statement, cell string, valueHd, uncHd *Header) {
	m, ok := bareValue(strings.TrimSpace(normaliseText(cell)))
	if !ok || m.isRange || m.lo < 0 {
		return
	}
	u := valueHd.U
	if uncHd.Unit != "" {
		if !uncHd.U.Compatible(st.unitOf()) {
			return
		}
		u = uncHd.U
	}
	st.SIUncertainty = u.ToSIDelta(m.lo)
	st.Uncertainty = st.SIUncertainty / st.unitOf().ToSIDelta(1)
}

// unitOf parses the statement's unit.
func (s *Statement) unitOf() units.Unit {
	u, _ := units.Lookup(s.Unit)
	return u
}

// tableQuote is the evidence of a table statement: 'Table 2 (caption),
// row "Cu", column "κ (W/mK)": 398'.
func tableQuote(label, caption, row, column, cell string) string {
	var b strings.Builder
	b.WriteString(label)
	if caption != "" {
		b.WriteString(" (" + caption + ")")
	}
	if row != "" {
		b.WriteString(`, row "` + row + `"`)
	}
	b.WriteString(`, column "` + column + `": `)
	b.WriteString(clipRunes(squeeze(cell), maxCellQuote))
	return b.String()
}

// squeeze normalises a cell's text (normaliseText) and collapses its
// runs of white space to one space, trimmed: strings.Join(strings.Fields(
// normaliseText(s)), " "), returning the text as is when it already is.
func squeeze(s string) string {
	s = normaliseText(s)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiSpace[c] && (c != ' ' || i == 0 || i == len(s)-1 || s[i+1] == ' ') {
				return strings.Join(strings.Fields(s), " ")
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return strings.Join(strings.Fields(s), " ")
		}
		i += w
	}
	return s
}

// asciiSpace marks the ASCII white space of unicode.IsSpace.
var asciiSpace = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = unicode.IsSpace(rune(c))
	}
	return t
}()

// tableSubject is the subject of a cell: its row label (or, transposed,
// its column header), with the family named there, else in the first
// column's header or the caption.
func tableSubject(subject, firstHeader, caption string) (string, string, string) {
	if isNumeric(subject) {
		subject = ""
	}
	for _, s := range []string{subject, firstHeader, caption} {
		if s == "" {
			continue
		}
		words := splitWords(s)
		if name, f := findFamily(words, len(s)); f != nil {
			if subject == "" {
				subject = name
			}
			return clipRunes(subject, maxCellQuote), f.name, f.kind
		}
	}
	return clipRunes(subject, maxCellQuote), "", ""
}

func isNumeric(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) && !unicode.IsSpace(r) && !strings.ContainsRune(".,-–", r) {
			return false
		}
	}
	return true
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
