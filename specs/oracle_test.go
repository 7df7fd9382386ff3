package specs

// The extraction as it was before its scans were sped up, kept as the
// oracle of TestExtractOracle, TestExtractOracleGenerated and
// FuzzExtractOracle: the same statements, in the same order, from any text
// and table. These are the earlier versions of the functions that changed
// and of those calling them, each f renamed oldF; the rest is shared.

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/specs/units"
)

func oldExtractDocument(d *ingest.Document) []Statement {
	out := oldExtract(Passages(d.Title, d.Abstract, d.Sections)...)
	for i := range d.Tables {
		out = append(out, oldExtractTable(&d.Tables[i])...)
	}
	return out
}

func oldExtract(passages ...Passage) []Statement {
	var out []Statement
	uc := make(unitCache)
	for _, p := range passages {
		if !hasDigit(p.Text) {
			continue
		}
		text := normaliseText(p.Text)
		for _, sent := range oldSentences(text) {
			out = oldExtractSentence(out, sent, p.Where, uc)
		}
	}
	return out
}

func oldSentences(text string) []string {
	var out []string
	var buf [3 * maxAbbreviation]byte
	start := 0

	dot, bang, ques := -1, -1, -1
	next := func(c byte, from int) int {
		if k := strings.IndexByte(text[from:], c); k >= 0 {
			return from + k
		}
		return len(text)
	}
	for i := 0; ; i++ {
		if dot < i {
			dot = next('.', i)
		}
		if bang < i {
			bang = next('!', i)
		}
		if ques < i {
			ques = next('?', i)
		}
		if i = min(dot, bang, ques); i >= len(text) {
			break
		}
		c := text[i]
		if i+1 < len(text) && text[i+1] != ' ' {
			continue
		}
		j := i + 1
		for j < len(text) && text[j] == ' ' {
			j++
		}
		if j < len(text) {
			r, _ := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsUpper(r) && !unicode.IsDigit(r) && r != '(' && r != '[' {
				continue
			}
		}
		if c == '.' {
			k := i
			for k > start && text[k-1] != ' ' && text[k-1] != '(' {
				k--
			}

			abbr := i-k <= len(buf) && abbreviations[string(oldAppendLower(buf[:0], text[k:i]))]
			if abbr || (i-k == 1 && unicode.IsUpper(rune(text[k]))) {
				continue
			}
		}
		if s := strings.TrimSpace(text[start : i+1]); s != "" {
			out = append(out, s)
		}
		start = j
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

func oldSplitWords(s string) []word {
	var out []word
	start := -1
	for i, r := range s {
		var in bool
		if r < utf8.RuneSelf {
			in = wordByte[r]
		} else {
			in = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, word{trimWord(s[start:i]), start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, word{trimWord(s[start:]), start, len(s)})
	}
	return out
}

func oldExtractSentence(out []Statement, sent, where string, uc unitCache) []Statement {
	var (
		words []word
		hits  []familyHit
		lower string
	)
	for i := 0; i < len(sent); {

		d := nextDigit(sent, i)
		if d == len(sent) {
			break
		}
		if d > i && sent[d-1] == '-' {
			d--
		}
		i = d
		m, ok := oldScanAt(sent, i, uc)
		if !ok {
			i++
			for i < len(sent) && sent[i] >= '0' && sent[i] <= '9' {
				i++
			}
			continue
		}
		i = m.end
		if lower == "" {
			lower = strings.ToLower(sent)
		}
		q := oldNameQuantity(lower, m)
		if q == "" {
			continue
		}
		if words == nil {
			words = oldSplitWords(sent)
			hits = oldFamilyHits(words)
		}
		st := Statement{Quantity: q, Min: m.lo, Max: m.hi, Uncertainty: m.unc, Unit: m.unit, SIUnit: m.u.SI(),
			SIMin: m.u.ToSI(m.lo), SIMax: m.u.ToSI(m.hi), SIUncertainty: m.u.ToSIDelta(m.unc),
			Text: clip(sent, m.start, m.end), Where: where, Source: SourceText}
		if !m.isRange {
			v, sv := m.lo, st.SIMin
			st.Value, st.SIValue = &v, &sv
		}
		if q == "concentration" || q == "mass_concentration" {
			st.Subject, st.Family, st.FamilyKind = solute(words, m.end)
		} else if subj, f := nearestFamily(words, hits, m.start); f != nil {
			st.Subject, st.Family, st.FamilyKind = subj, f.name, f.kind
		}
		out = append(out, st)
	}
	return out
}

func oldNameQuantity(lower string, m match) string {

	if perMass(m.unit) {
		switch m.u.Dim {
		case units.Dimensionless:
			return "dose"
		case units.Frequency:
			return "dose_rate"
		}
	}
	best, bestEnd := "", -1
	from := max(0, m.start-window)
	seg := lower[from:m.start]
	cands := phrasesByDim[m.u.Dim]
	if m.u.Dim == units.Dimensionless && strings.Contains(m.unit, "/") {
		cands = nil
	}
	for _, p := range cands {
		for off := 0; ; {
			k := strings.Index(seg[off:], p.text)
			if k < 0 {
				break
			}
			s, e := from+off+k, from+off+k+len(p.text)
			off += k + len(p.text)
			if !boundary(lower, s, e) {
				continue
			}
			if e > bestEnd || (e == bestEnd && len(p.text) > 0 && best == "") {
				best, bestEnd = p.q.Name, e
			}
		}
	}
	if best != "" {
		return best
	}
	if utf8.RuneCountInString(m.unit) < 2 {
		return ""
	}
	return byDim[m.u.Dim]
}

func oldScanAt(s string, i int, uc unitCache) (match, bool) {
	neg := false
	j := i
	if s[j] == '-' {

		if i > 0 && s[i-1] != ' ' && s[i-1] != '(' {
			return match{}, false
		}
		neg, j = true, j+1
	}
	if j >= len(s) || s[j] < '0' || s[j] > '9' {
		return match{}, false
	}
	if !neg && i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == ',' || r == '-' || r == '/' || r == '_' || r == '^' {
			return match{}, false
		}
	}
	v, k, ok := oldNumber(s, j)
	if !ok {
		return match{}, false
	}
	if neg {
		v = -v
	}
	m := match{start: i, lo: v, hi: v}

	u1, u1end, hasU1 := oldReadUnit(s, k, uc)
	if hasU1 {
		k = u1end
	}
	if c := connector(s, k, i); c > 0 {
		if v2, k2, ok := oldNumber(s, c); ok && v2 >= v {
			u2, u2end, hasU2 := oldReadUnit(s, k2, uc)
			if hasU2 && (!hasU1 || u1.u.Compatible(u2.u)) {
				m.hi, m.isRange, m.end, m.unit, m.u = v2, true, u2end, u2.sym, u2.u
				if hasU1 && u1.u != u2.u {
					m.lo = u2.u.FromSI(u1.u.ToSI(v))
				}
				return m, true
			}
		}
	}
	if !hasU1 {
		if unc, k2, ok := oldPlusMinus(s, k); ok {
			if u, end, ok := oldReadUnit(s, k2, uc); ok {
				m.unc, m.end, m.unit, m.u = unc, end, u.sym, u.u
				return m, true
			}
		}
		return match{}, false
	}
	m.end, m.unit, m.u = k, u1.sym, u1.u
	return m, true
}

func oldNumber(s string, i int) (float64, int, bool) {
	j := i
	var b []byte
	seenDot := false
	for j < len(s) {
		c := s[j]
		switch {
		case c >= '0' && c <= '9':
			if b != nil {
				b = append(b, c)
			}
			j++
			continue
		case (c == '.' || c == ',') && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9':
			n := 0
			for j+1+n < len(s) && s[j+1+n] >= '0' && s[j+1+n] <= '9' {
				n++
			}
			if c == ',' && b == nil {
				b = []byte(s[i:j])
			}
			if c == ',' && n == 3 && !seenDot {
				j++
				continue
			}
			if seenDot {
				return 0, 0, false
			}
			seenDot = true
			if b != nil {
				b = append(b, '.')
			}
			j++
			continue
		}
		break
	}
	text := s[i:j]
	if b != nil {
		text = string(b)
	}
	if text == "" {
		return 0, 0, false
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return 0, 0, false
	}

	k := skipSpaces(s, j, 1)
	for _, times := range []string{"×", "x", "·", "*"} {
		if strings.HasPrefix(s[k:], times) {
			t := skipSpaces(s, k+len(times), 1)
			if strings.HasPrefix(s[t:], "10") {
				t += 2
				if t < len(s) && s[t] == '^' {
					t++
				}
				if e, end, ok := integer(s, t); ok {
					return v * math.Pow(10, float64(e)), end, true
				}
			}
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		if e, end, ok := integer(s, j+1); ok && (end >= len(s) || !unicode.IsLetter(rune(s[end]))) {
			return v * math.Pow(10, float64(e)), end, true
		}
	}
	return v, j, true
}

func oldPlusMinus(s string, k int) (float64, int, bool) {
	t := skipSpaces(s, k, 1)
	for _, pm := range []string{"±", "+/-", "+-"} {
		if strings.HasPrefix(s[t:], pm) {
			n := skipSpaces(s, t+len(pm), 1)
			if v, end, ok := oldNumber(s, n); ok {
				return v, end, true
			}
		}
	}
	return 0, 0, false
}

func oldUnitChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("°%/·^-().µμΩÅ", r)
}

func oldReadUnit(s string, k int, uc unitCache) (parsedUnit, int, bool) {
	t := skipSpaces(s, k, 1)
	tok, end := oldToken(s, t)
	if tok == "" {
		return parsedUnit{}, 0, false
	}
	if tok == "°" {
		if nt, ne := oldToken(s, skipSpaces(s, end, 1)); nt == "C" || nt == "F" || strings.HasPrefix(nt, "C") && len(nt) == 1 {
			tok, end = "°"+nt, ne
		}
	}
	for {
		nt, ne := oldToken(s, skipSpaces(s, end, 1))
		if !exponentSymbol(nt) || !(strings.ContainsAny(tok, "^-") || exponentSymbol(nt)) {
			break
		}
		if _, ok := units.Lookup(tok + " " + nt); !ok {
			break
		}
		tok, end = tok+" "+nt, ne
	}

	for tok != "" {
		last, w := utf8.DecodeLastRuneInString(tok)
		if strings.ContainsRune(".,;:-/", last) || last == ')' && strings.Count(tok, "(") < strings.Count(tok, ")") {
			tok, end = tok[:len(tok)-w], end-w
			continue
		}
		break
	}
	for tok != "" {
		if notUnits[tok] {
			return parsedUnit{}, 0, false
		}
		if u, ok := uc.lookup(tok); ok && tok != "" {
			if strings.Count(tok, "(") != strings.Count(tok, ")") {
				return parsedUnit{}, 0, false
			}
			return parsedUnit{tok, u}, end, true
		}
		last, w := utf8.DecodeLastRuneInString(tok)
		if !strings.ContainsRune(".,;:)]-/", last) {
			return parsedUnit{}, 0, false
		}
		tok, end = tok[:len(tok)-w], end-w
	}
	return parsedUnit{}, 0, false
}

func oldToken(s string, i int) (string, int) {
	j := i
	for j < len(s) {
		r, w := utf8.DecodeRuneInString(s[j:])
		if !oldUnitChar(r) {
			break
		}
		j += w
	}

	if j > i {
		r, _ := utf8.DecodeRuneInString(s[i:])
		if !(unicode.IsLetter(r) || r == '°' || r == '%' || r == 'µ' || r == 'μ' || r == 'Ω' || r == 'Å' || r == '(') {
			return "", i
		}
		if r == '(' && !strings.Contains(s[i:j], ")") {
			return "", i
		}
	}
	return s[i:j], j
}

func oldParseHeader(h string) Header {
	h = strings.Join(strings.Fields(normaliseText(h)), " ")
	label, unit := splitUnit(h)
	hd := Header{Label: label}
	if unit != "" {
		hd.Unit = unit
		hd.U, _ = units.Lookup(unit)
	}
	hd.Uncertainty = uncertaintyLabels[strings.Trim(strings.ToLower(label), " .:")]
	if unit != "" && !hd.Uncertainty && !isDifference(label) {
		hd.Quantity, _ = oldHeaderQuantity(strings.ToLower(label), unit, hd.U)
	}
	return hd
}

func oldHeaderQuantity(label, unit string, u units.Unit) (q string, named bool) {
	if perMass(unit) {
		switch u.Dim {
		case units.Dimensionless:
			return "dose", true
		case units.Frequency:
			return "dose_rate", true
		}
	}
	if q := oldNameQuantity(label+" ", match{start: len(label), unit: unit, u: u}); q != "" && phraseNamed(label, q) {
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

func oldNotDataRow(label string) bool {
	l := strings.ToLower(label)
	for _, p := range []string{"ratio", "fold", "p value", "p-value", "p =", "p<", "p <", "change", "difference", "significance"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return l == "p"
}

func oldExtractTable(tb *ingest.Table) []Statement {
	if len(tb.Rows) == 0 {
		return nil
	}
	width := len(tb.Rows[0])
	cols := make([]Header, width)
	colText := make([]string, width)
	for j := range cols {
		cols[j], colText[j] = oldColumnHeader(tb, j)
	}
	label := tb.Label
	if label == "" {
		label = "Table"
	}
	caption := clipRunes(strings.Join(strings.Fields(normaliseText(tb.Caption)), " "), maxCellQuote)
	where := "table: " + label

	first := 1
	if cols[0].Quantity != "" && cols[0].Unit != "" {
		first = 0
	}
	var out []Statement
	for _, row := range tb.Rows {
		if len(row) != width || width < 2 {
			continue
		}
		rowLabel := strings.Join(strings.Fields(normaliseText(row[0])), " ")
		if oldNotDataRow(rowLabel) {
			continue
		}
		var (
			rowHeader *Header
			rowNames  bool
		)
		for j := first; j < width; j++ {
			hd, subject, column := cols[j], rowLabel, colText[j]
			if hd.Uncertainty || row[j] == "" || j > 1 && row[j] == row[j-1] && colText[j] == colText[j-1] {
				continue
			}
			st, ok := oldReadCell(row[j], &hd)
			if !ok && hd.Unit == "" {

				if rowHeader == nil {
					rh := oldParseHeader(rowLabel)
					rowHeader = &rh
					rowNames = rh.Quantity != "" || rh.Unit == "" && oldNamesQuantity(rh.Label)
				}
				if rowNames {
					hd, subject = *rowHeader, colText[j]
					st, ok = oldReadCell(row[j], &hd)
				}
			}
			if !ok {
				continue
			}
			if j+1 < width && cols[j+1].Uncertainty && st.Uncertainty == 0 {
				oldAddUncertainty(&st, row[j+1], &hd, &cols[j+1])
			}
			st.Source, st.Table, st.Row, st.Column = SourceTable, label, clipRunes(rowLabel, maxCellQuote), clipRunes(column, maxCellQuote)
			st.Where = where
			st.Text = oldTableQuote(label, caption, st.Row, st.Column, row[j])
			st.Subject, st.Family, st.FamilyKind = oldTableSubject(subject, colText[0], caption)
			out = append(out, st)
		}
	}
	return out
}

func oldColumnHeader(tb *ingest.Table, j int) (Header, string) {
	text := strings.Join(strings.Fields(normaliseText(tb.ColumnHeader(j))), " ")
	var (
		labels []string
		unit   Header
		named  bool
	)
	prev := ""
	for _, row := range tb.Header {
		if j >= len(row) || row[j] == "" || row[j] == prev {
			continue
		}
		prev = row[j]
		h := oldParseHeader(row[j])
		labels = append(labels, h.Label)
		if h.Unit != "" || h.Uncertainty {
			unit = h
			_, named = oldHeaderQuantity(strings.ToLower(h.Label), h.Unit, h.U)
		}
	}
	hd := Header{Label: strings.Join(labels, " "), Unit: unit.Unit, U: unit.U, Uncertainty: unit.Uncertainty}
	switch {
	case hd.Unit == "" || hd.Uncertainty || isDifference(hd.Label):
	case named:
		hd.Quantity = unit.Quantity
	default:

		hd.Quantity, _ = oldHeaderQuantity(strings.ToLower(hd.Label), hd.Unit, hd.U)
	}
	return hd, text
}

func oldNamesQuantity(label string) bool {
	l := strings.ToLower(label)
	for _, p := range phrases {
		if k := strings.Index(l, p.text); k >= 0 && boundary(l, k, k+len(p.text)) {
			return true
		}
	}
	return false
}

func oldReadCell(cell string, hd *Header) (Statement, bool) {
	c := strings.TrimSpace(strings.Join(strings.Fields(normaliseText(cell)), " "))
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
		m, ok = oldBareValue(c)
		m.unit, m.u = hd.Unit, hd.U
	} else {
		m, ok = oldScanAt(c, 0, nil)
		if ok && onlyMarks(c[m.end:]) {
			q = oldNameQuantity(strings.ToLower(hd.Label)+" ", match{start: len(hd.Label), unit: m.unit, u: m.u})
			if q == "" && hd.Label != "" && utf8.RuneCountInString(m.unit) > 1 {

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

func oldBareValue(c string) (match, bool) {
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
	v, k, ok := oldNumber(c, i)
	if !ok {
		return match{}, false
	}
	if neg {
		v = -v
	}
	m := match{lo: v, hi: v}
	if unc, k2, ok := oldPlusMinus(c, k); ok {
		m.unc, k = unc, k2
	} else if n := cellRange(c, k); n > 0 {
		if v2, k2, ok := oldNumber(c, n); ok && v2 >= v {
			m.hi, m.isRange, k = v2, true, k2
		}
	}
	return m, onlyMarks(c[k:])
}

func oldAddUncertainty(st *Statement, cell string, valueHd, uncHd *Header) {
	m, ok := oldBareValue(strings.TrimSpace(normaliseText(cell)))
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

func oldTableQuote(label, caption, row, column, cell string) string {
	var b strings.Builder
	b.WriteString(label)
	if caption != "" {
		b.WriteString(" (" + caption + ")")
	}
	if row != "" {
		b.WriteString(`, row "` + row + `"`)
	}
	b.WriteString(`, column "` + column + `": `)
	b.WriteString(clipRunes(strings.Join(strings.Fields(normaliseText(cell)), " "), maxCellQuote))
	return b.String()
}

func oldTableSubject(subject, firstHeader, caption string) (string, string, string) {
	if isNumeric(subject) {
		subject = ""
	}
	for _, s := range []string{subject, firstHeader, caption} {
		if s == "" {
			continue
		}
		words := oldSplitWords(s)
		if name, f := oldFindFamily(words, len(s)); f != nil {
			if subject == "" {
				subject = name
			}
			return clipRunes(subject, maxCellQuote), f.name, f.kind
		}
	}
	return clipRunes(subject, maxCellQuote), "", ""
}

func oldFindFamily(words []word, pos int) (subject string, f *family) {
	return nearestFamily(words, oldFamilyHits(words), pos)
}

func oldFamilyHits(words []word) []familyHit {
	var hits []familyHit
	var buf [64]byte
	for i, w := range words {
		key := oldAppendLower(buf[:0], w.text)
		n := len(key)
		var (
			fam *family
			ok  bool
		)
		if i+1 < len(words) {
			key = oldAppendLower(append(key, ' '), words[i+1].text)
			fam, ok = familyWords[string(key)]
		}
		if !ok {
			fam, ok = familyWords[string(key[:n])]
		}
		if ok {
			hits = append(hits, familyHit{i, fam})
		}
	}
	return hits
}

func oldAppendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return append(dst, strings.ToLower(s)...)
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// phrasesByDim holds the phrases of each dimension, in the order of
// phrases.
var phrasesByDim = func() map[units.Dim][]phrase {
	out := make(map[units.Dim][]phrase)
	for _, p := range phrases {
		out[p.q.Dim] = append(out[p.q.Dim], p)
	}
	return out
}()
