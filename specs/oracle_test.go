package specs

// The extraction as it was before its scans were sped up, kept as the
// oracle of TestExtractOracle and FuzzExtractOracle: the same statements,
// in the same order, from any text and table. Generated from the earlier
// sources with every function f renamed oldF.

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
		if !oldHasDigit(p.Text) {
			continue
		}
		text := oldNormaliseText(p.Text)
		for _, sent := range oldSentences(text) {
			out = oldExtractSentence(out, sent, p.Where, uc)
		}
	}
	return out
}

func oldNormaliseText(s string) string {
	var b strings.Builder
	last := 0
	inSup := false
	for i := 0; i < len(s); {
		c := s[i]
		if plainByte[c] {
			i++
			for i+8 <= len(s) && !oldHasControlOrHigh(oldLoad8(s, i)) {
				i += 8
			}
			for ; i < len(s) && plainByte[s[i]]; i++ {
			}
			inSup = false
			continue
		}
		r, w := rune(c), 1
		if c >= 0x80 {
			r, w = utf8.DecodeRuneInString(s[i:])
		}
		var repl string
		if sc, ok := oldSuperscriptASCII(r); ok {
			if inSup {
				repl = string(sc)
			} else {
				repl = "^" + string(sc)
			}
			inSup = true
		} else {
			inSup = false
			switch r {
			case '\u00a0', '\u2009', '\u202f', '\u2002', '\u2003', '\u200a', '\n', '\t', '\r':
				repl = " "
			case '−':
				repl = "-"
			case '‒':
				repl = "–"
			case 'º':
				repl = "°"
			case '℃':
				repl = "°C"
			default:
				i += w
				continue
			}
		}
		if b.Cap() == 0 {
			b.Grow(len(s) + 8)
		}
		b.WriteString(s[last:i])
		b.WriteString(repl)
		i += w
		last = i
	}
	if b.Cap() == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func oldHasDigit(s string) bool { return oldNextDigit(s, 0) < len(s) }

func oldNextDigit(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {

		if oldHasLess(oldLoad8(s, i)^(0x30*lowBytes), 10) {
			break
		}
	}
	for i < len(s) && s[i]-'0' > 9 {
		i++
	}
	return i
}

func oldLoad8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

func oldHasLess(x uint64, n uint64) bool {
	return (x-n*lowBytes)&^x&(0x80*lowBytes) != 0
}

func oldHasControlOrHigh(x uint64) bool {
	return x&(0x80*lowBytes) != 0 || oldHasLess(x, 0x20)
}

func oldSuperscriptASCII(r rune) (byte, bool) {
	switch r {
	case '⁻':
		return '-', true
	case '⁰':
		return '0', true
	case '¹':
		return '1', true
	case '²':
		return '2', true
	case '³':
		return '3', true
	}
	if r >= '⁴' && r <= '⁹' {
		return byte('4' + r - '⁴'), true
	}
	return 0, false
}

func oldSentences(text string) []string {
	var out []string
	var buf [3 * maxAbbreviation]byte // a word lower-cased, without allocating
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
			out = append(out, word{oldTrimWord(s[start:i]), start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, word{oldTrimWord(s[start:]), start, len(s)})
	}
	return out
}

func oldTrimWord(w string) string {
	for len(w) > 0 && (w[0] == '-' || w[0] == '\'') {
		w = w[1:]
	}
	for len(w) > 0 && (w[len(w)-1] == '-' || w[len(w)-1] == '\'') {
		w = w[:len(w)-1]
	}
	return w
}

func oldExtractSentence(out []Statement, sent, where string, uc unitCache) []Statement {
	var (
		words []word
		hits  []familyHit
		lower string
	)
	for i := 0; i < len(sent); {

		d := oldNextDigit(sent, i)
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
			Text: oldClip(sent, m.start, m.end), Where: where, Source: SourceText}
		if !m.isRange {
			v, sv := m.lo, st.SIMin
			st.Value, st.SIValue = &v, &sv
		}
		if q == "concentration" || q == "mass_concentration" {
			st.Subject, st.Family, st.FamilyKind = oldSolute(words, m.end)
		} else if subj, f := oldNearestFamily(words, hits, m.start); f != nil {
			st.Subject, st.Family, st.FamilyKind = subj, f.name, f.kind
		}
		out = append(out, st)
	}
	return out
}

func oldClip(s string, start, end int) string {
	if len(s) <= maxSentence {
		return s
	}
	a := max(0, start-maxSentence/2)
	b := min(len(s), a+maxSentence)
	for a > 0 && !utf8.RuneStart(s[a]) {
		a--
	}
	for b < len(s) && !utf8.RuneStart(s[b]) {
		b++
	}
	return "…" + s[a:b] + "…"
}

func oldNameQuantity(lower string, m match) string {

	if oldPerMass(m.unit) {
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
			if !oldBoundary(lower, s, e) {
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

func oldPerMass(unit string) bool {
	return strings.Contains(unit, "g/kg") || strings.Contains(unit, "g/g") || strings.Contains(unit, "g kg")
}

func oldBoundary(s string, start, end int) bool {
	if start > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:start])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	if end < len(s) {
		r, _ := utf8.DecodeRuneInString(s[end:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
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
	if c := oldConnector(s, k, i); c > 0 {
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
	var b []byte // the number with a comma, rewritten; nil without one
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

	k := oldSkipSpaces(s, j, 1)
	for _, times := range []string{"×", "x", "·", "*"} {
		if strings.HasPrefix(s[k:], times) {
			t := oldSkipSpaces(s, k+len(times), 1)
			if strings.HasPrefix(s[t:], "10") {
				t += 2
				if t < len(s) && s[t] == '^' {
					t++
				}
				if e, end, ok := oldInteger(s, t); ok {
					return v * math.Pow(10, float64(e)), end, true
				}
			}
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		if e, end, ok := oldInteger(s, j+1); ok && (end >= len(s) || !unicode.IsLetter(rune(s[end]))) {
			return v * math.Pow(10, float64(e)), end, true
		}
	}
	return v, j, true
}

func oldInteger(s string, i int) (int, int, bool) {
	j := i
	if j < len(s) && (s[j] == '-' || s[j] == '+') {
		j++
	}
	k := j
	for k < len(s) && s[k] >= '0' && s[k] <= '9' && k-j < 3 {
		k++
	}
	if k == j {
		return 0, 0, false
	}
	n, err := strconv.Atoi(s[i:k])
	return n, k, err == nil
}

func oldSkipSpaces(s string, i, maxN int) int {
	for n := 0; i < len(s) && s[i] == ' ' && n < maxN; n++ {
		i++
	}
	return i
}

func oldConnector(s string, k, start int) int {
	t := oldSkipSpaces(s, k, 1)
	for _, c := range []string{"–", "—", "-", "~", "to ", "and "} {
		if !strings.HasPrefix(s[t:], c) {
			continue
		}
		if c == "and " && !strings.HasSuffix(strings.ToLower(strings.TrimRight(s[max(0, start-9):start], " ")), "between") {
			return 0
		}
		if c == "-" && t != k {
			return 0
		}
		n := oldSkipSpaces(s, t+len(c), 1)
		if n < len(s) && s[n] >= '0' && s[n] <= '9' {
			return n
		}
	}
	return 0
}

func oldPlusMinus(s string, k int) (float64, int, bool) {
	t := oldSkipSpaces(s, k, 1)
	for _, pm := range []string{"±", "+/-", "+-"} {
		if strings.HasPrefix(s[t:], pm) {
			n := oldSkipSpaces(s, t+len(pm), 1)
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
	t := oldSkipSpaces(s, k, 1)
	tok, end := oldToken(s, t)
	if tok == "" {
		return parsedUnit{}, 0, false
	}
	if tok == "°" {
		if nt, ne := oldToken(s, oldSkipSpaces(s, end, 1)); nt == "C" || nt == "F" || strings.HasPrefix(nt, "C") && len(nt) == 1 {
			tok, end = "°"+nt, ne
		}
	}
	for {
		nt, ne := oldToken(s, oldSkipSpaces(s, end, 1))
		if !oldExponentSymbol(nt) || !(strings.ContainsAny(tok, "^-") || oldExponentSymbol(nt)) {
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

func oldExponentSymbol(tok string) bool {
	tok = strings.TrimRight(tok, ".,;:")
	i := 0
	for i < len(tok) && (tok[i] >= 'a' && tok[i] <= 'z' || tok[i] >= 'A' && tok[i] <= 'Z') {
		i++
	}
	if i == 0 || i > 3 || i == len(tok) {
		return false
	}
	rest := strings.TrimPrefix(tok[i:], "^")
	rest = strings.TrimPrefix(rest, "-")
	if rest == "" {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func oldParseHeader(h string) Header {
	h = strings.Join(strings.Fields(oldNormaliseText(h)), " ")
	label, unit := oldSplitUnit(h)
	hd := Header{Label: label}
	if unit != "" {
		hd.Unit = unit
		hd.U, _ = units.Lookup(unit)
	}
	hd.Uncertainty = uncertaintyLabels[strings.Trim(strings.ToLower(label), " .:")]
	if unit != "" && !hd.Uncertainty && !oldIsDifference(label) {
		hd.Quantity, _ = oldHeaderQuantity(strings.ToLower(label), unit, hd.U)
	}
	return hd
}

func oldSplitUnit(h string) (label, unit string) {
	if k := strings.LastIndexAny(h, ")]"); k > 0 && k >= len(h)-3 {
		open := map[byte]byte{')': '(', ']': '['}[h[k]]
		if o := strings.LastIndexByte(h[:k], open); o == 0 || o > 0 && h[o-1] == ' ' {
			u := strings.TrimSpace(h[o+1 : k])
			if oldIsHeaderUnit(u) {
				return strings.TrimSpace(h[:o] + h[k+1:]), u
			}
		}
	}
	for _, sep := range []string{", ", " in "} {
		if k := strings.LastIndex(h, sep); k > 0 {
			u := strings.TrimSpace(h[k+len(sep):])
			if oldIsHeaderUnit(u) && utf8.RuneCountInString(u) > 1 {
				return strings.TrimSpace(h[:k]), u
			}
		}
	}
	if k := strings.LastIndexByte(h, ' '); k > 0 {
		u := h[k+1:]
		if strings.ContainsAny(u, "°%/µμ0123456789") && oldIsHeaderUnit(u) {
			return h[:k], u
		}
	}
	return h, ""
}

func oldIsHeaderUnit(u string) bool {
	if u == "" || notUnits[u] {
		return false
	}
	_, ok := units.Lookup(u)
	return ok
}

func oldHeaderQuantity(label, unit string, u units.Unit) (q string, named bool) {
	if oldPerMass(unit) {
		switch u.Dim {
		case units.Dimensionless:
			return "dose", true
		case units.Frequency:
			return "dose_rate", true
		}
	}
	if q := oldNameQuantity(label+" ", match{start: len(label), unit: unit, u: u}); q != "" && oldPhraseNamed(label, q) {
		return q, true
	}
	if q := oldSymbolQuantity(label, u.Dim); q != "" {
		return q, true
	}
	if utf8.RuneCountInString(unit) < 2 {
		return "", false
	}
	return headerByDim[u.Dim], false
}

func oldPhraseNamed(label, q string) bool {
	for _, p := range phrases {
		if p.q.Name == q && strings.Contains(label, p.text) {
			return true
		}
	}
	return false
}

func oldIsDifference(label string) bool {
	l := strings.ToLower(label)
	if strings.HasPrefix(l, "δ") || strings.HasPrefix(l, "delta") {
		return true
	}
	for _, w := range []string{"difference", "change", "increase", "decrease", "reduction", "loss", "gain"} {
		if k := strings.Index(l, w); k >= 0 && oldBoundary(l, k, k+len(w)) {
			return true
		}
	}
	return false
}

func oldSymbolQuantity(label string, d units.Dim) string {
	w := label
	if k := strings.IndexAny(w, " ,;:"); k >= 0 {
		w = w[:k]
	}
	w = strings.TrimRight(w, ".")
	cands := symbols[w]
	if cands == nil {

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
	caption := oldClipRunes(strings.Join(strings.Fields(oldNormaliseText(tb.Caption)), " "), maxCellQuote)
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
		rowLabel := strings.Join(strings.Fields(oldNormaliseText(row[0])), " ")
		if oldNotDataRow(rowLabel) {
			continue
		}
		var (
			rowHeader *Header // the row label parsed as a header, once needed
			rowNames  bool    // it names a quantity
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
			st.Source, st.Table, st.Row, st.Column = SourceTable, label, oldClipRunes(rowLabel, maxCellQuote), oldClipRunes(column, maxCellQuote)
			st.Where = where
			st.Text = oldTableQuote(label, caption, st.Row, st.Column, row[j])
			st.Subject, st.Family, st.FamilyKind = oldTableSubject(subject, colText[0], caption)
			out = append(out, st)
		}
	}
	return out
}

func oldColumnHeader(tb *ingest.Table, j int) (Header, string) {
	text := strings.Join(strings.Fields(oldNormaliseText(tb.ColumnHeader(j))), " ")
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
		h := oldParseHeader(row[j])
		labels = append(labels, h.Label)
		if h.Unit != "" || h.Uncertainty {
			unit = h
			_, named = oldHeaderQuantity(strings.ToLower(h.Label), h.Unit, h.U)
		}
	}
	hd := Header{Label: strings.Join(labels, " "), Unit: unit.Unit, U: unit.U, Uncertainty: unit.Uncertainty}
	switch {
	case hd.Unit == "" || hd.Uncertainty || oldIsDifference(hd.Label):
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
		if k := strings.Index(l, p.text); k >= 0 && oldBoundary(l, k, k+len(p.text)) {
			return true
		}
	}
	return false
}

func oldReadCell(cell string, hd *Header) (Statement, bool) {
	c := strings.TrimSpace(strings.Join(strings.Fields(oldNormaliseText(cell)), " "))
	if c == "" || !oldHasDigit(c) {
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
		if ok && oldOnlyMarks(c[m.end:]) {
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
	} else if n := oldCellRange(c, k); n > 0 {
		if v2, k2, ok := oldNumber(c, n); ok && v2 >= v {
			m.hi, m.isRange, k = v2, true, k2
		}
	}
	return m, oldOnlyMarks(c[k:])
}

func oldCellRange(c string, k int) int {
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

func oldOnlyMarks(s string) bool {
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

func oldAddUncertainty(st *Statement, cell string, valueHd, uncHd *Header) {
	m, ok := oldBareValue(strings.TrimSpace(oldNormaliseText(cell)))
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
	b.WriteString(oldClipRunes(strings.Join(strings.Fields(oldNormaliseText(cell)), " "), maxCellQuote))
	return b.String()
}

func oldTableSubject(subject, firstHeader, caption string) (string, string, string) {
	if oldIsNumeric(subject) {
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
			return oldClipRunes(subject, maxCellQuote), f.name, f.kind
		}
	}
	return oldClipRunes(subject, maxCellQuote), "", ""
}

func oldIsNumeric(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) && !unicode.IsSpace(r) && !strings.ContainsRune(".,-–", r) {
			return false
		}
	}
	return true
}

func oldClipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func oldNormaliseFamily(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if f, ok := familyWords[s]; ok {
		return f.name
	}
	for _, f := range families {
		if f.name == s {
			return s
		}
	}
	return s
}

func oldFindFamily(words []word, pos int) (subject string, f *family) {
	return oldNearestFamily(words, oldFamilyHits(words), pos)
}

func oldFamilyHits(words []word) []familyHit {
	var hits []familyHit
	var buf [64]byte // the keys, without allocating for each word
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

func oldNearestFamily(words []word, hits []familyHit, pos int) (subject string, f *family) {
	best := -1
	for _, h := range hits {
		w := &words[h.i]
		d := pos - w.end
		if w.start > pos {
			d = (w.start - pos) * 2
		}
		if best < 0 || d < best {
			best, subject, f = d, oldSubjectPhrase(words, h.i), h.f
		}
	}
	return subject, f
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

func oldSubjectPhrase(words []word, i int) string {
	start := i
	for start > 0 && i-start < 2 {
		p := strings.ToLower(words[start-1].text)
		if stopWords[p] || !oldIsWordish(words[start-1].text) {
			break
		}
		start--
	}
	parts := make([]string, 0, i-start+1)
	for _, w := range words[start : i+1] {
		parts = append(parts, w.text)
	}
	return strings.Join(parts, " ")
}

func oldIsWordish(s string) bool {
	for _, r := range s {
		if !(r == '-' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r > 127) {
			return false
		}
	}
	return s != ""
}

func oldSolute(words []word, end int) (subject, family, kind string) {
	for i, w := range words {
		if w.start < end {
			continue
		}
		lw := strings.ToLower(w.text)
		if stopWords[lw] || w.text == "" {
			return "", "", ""
		}
		if i > 0 && words[i-1].end > end {
			return "", "", ""
		}
		if f, ok := familyWords[lw]; ok {
			return w.text, f.name, f.kind
		}
		return w.text, "", KindCompound
	}
	return "", "", ""
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
