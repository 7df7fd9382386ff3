package specs

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/specs/units"
)

// Passage is a piece of a document's text and where it is: "title",
// "abstract", or "section: <title>".
type Passage struct {
	Where string
	Text  string
}

// Statement is one specification statement.
type Statement struct {
	Quantity string `json:"quantity"`
	// Value is the value of a point statement; nil for a range.
	Value *float64 `json:"value,omitempty"`
	// Min and Max bound the statement: both equal Value for a point.
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// Uncertainty is the ± as written, 0 when none was given.
	Uncertainty float64 `json:"uncertainty,omitempty"`
	// Unit is the unit as written (superscripts spelled ^-1).
	Unit string `json:"unit"`
	// SIUnit names the coherent SI unit; the SI fields are in it.
	SIUnit        string   `json:"si_unit"`
	SIValue       *float64 `json:"si_value,omitempty"`
	SIMin         float64  `json:"si_min"`
	SIMax         float64  `json:"si_max"`
	SIUncertainty float64  `json:"si_uncertainty,omitempty"`
	// Subject is the phrase naming what was measured ("AlSi10Mg alloy",
	// "mice"); Family its normalised family ("alloy", "mouse") and
	// FamilyKind material, compound, device or organism. All three are ""
	// when the sentence names no known family.
	Subject    string `json:"subject"`
	Family     string `json:"family"`
	FamilyKind string `json:"family_kind"`
	// Text is the sentence the statement came from, Where its passage.
	// For a table cell, Text quotes the table, row, column and cell
	// ('Table 2 (caption), row "Cu", column "κ (W/mK)": 398') and Where is
	// "table: Table 2".
	Text  string `json:"text"`
	Where string `json:"where"`
	// Source is "text" (a sentence of the title, abstract or body) or
	// "table" (a table cell). For a table cell, Table is the table's label
	// ("Table 2"), Row the row's label (its first cell) and Column the
	// column's header cells joined by " / ".
	Source string `json:"source"`
	Table  string `json:"table,omitempty"`
	Row    string `json:"row,omitempty"`
	Column string `json:"column,omitempty"`
}

// IsRange reports whether the statement is a range.
func (s *Statement) IsRange() bool { return s.Value == nil }

// maxSentence bounds the sentences kept as evidence; longer ones are cut
// around the number.
const maxSentence = 600

// ExtractDocument returns the statements of a document: its title,
// abstract and full text in reading order, then its tables.
func ExtractDocument(d *ingest.Document) []Statement {
	out := Extract(Passages(d.Title, d.Abstract, d.Sections)...)
	for i := range d.Tables {
		out = append(out, ExtractTable(&d.Tables[i])...)
	}
	return out
}

// Extract returns the statements of the passages, in text order.
func Extract(passages ...Passage) []Statement {
	var out []Statement
	sc := scratch{uc: make(unitCache)}
	for _, p := range passages {
		if !hasDigit(p.Text) {
			continue // no number, no statement
		}
		text := normaliseText(p.Text)
		sc.sents = appendSentences(sc.sents[:0], text)
		for _, sent := range sc.sents {
			out = extractSentence(out, sent, p.Where, &sc)
		}
	}
	return out
}

// scratch is what the sentences of one Extract reuse: the unit cache, and
// the slices of sentences, words and family words, refilled in place.
type scratch struct {
	uc    unitCache
	sents []string
	words []word
	hits  []familyHit
}

// normaliseText maps spaces and dashes to their plain forms, spells
// "º" as "°" and "℃" as "°C", and spells superscripts with a caret:
// "10⁻³" → "10^-3", "m⁻¹" → "m^-1". Unchanged stretches are copied in
// bulk; text needing no change is returned as is.
func normaliseText(s string) string {
	var b strings.Builder
	last := 0 // s[last:i] is pending, unchanged
	inSup := false
	for i := 0; i < len(s); {
		c := s[i]
		if plainByte[c] {
			i++
			for i+8 <= len(s) && !hasControlOrHigh(load8(s, i)) {
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
		if sc, ok := superscriptASCII(r); ok {
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

// plainByte marks the ASCII bytes normaliseText leaves as they are: all
// but newlines, tabs and carriage returns.
var plainByte = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = c != '\n' && c != '\t' && c != '\r'
	}
	return t
}()

func hasDigit(s string) bool { return nextDigit(s, 0) < len(s) }

// nextDigit returns the index of the first ASCII digit of s at or after
// i, or len(s), looking at eight bytes at a time.
func nextDigit(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		// XOR maps '0'...'9', and only them, to bytes below 10.
		if m := lessMask(load8(s, i)^(0x30*lowBytes), 10); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(s) && s[i]-'0' > 9 {
		i++
	}
	return i
}

// lowBytes has 1 in every byte.
const lowBytes = 0x0101010101010101

// load8 reads the eight bytes of s at i as a little-endian word. Slicing
// first checks the bounds once: with s[i+7] as the hint the compiler still
// checked each of the eight bytes.
func load8(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// hasLess reports whether a byte of x is below n, for n <= 128.
func hasLess(x uint64, n uint64) bool { return lessMask(x, n) != 0 }

// lessMask sets the high bit of bytes of x below n, for n <= 128, and
// maybe of bytes above the first such byte (a borrow runs up from it);
// its lowest set bit marks the first byte below n exactly.
func lessMask(x uint64, n uint64) uint64 {
	return (x - n*lowBytes) &^ x & (0x80 * lowBytes)
}

// hasControlOrHigh reports whether a byte of x is below 0x20 or above
// 0x7f: any byte normaliseText may change is one.
func hasControlOrHigh(x uint64) bool {
	return x&(0x80*lowBytes) != 0 || hasLess(x, 0x20)
}

// superscriptASCII maps a superscript character to its ASCII form.
func superscriptASCII(r rune) (byte, bool) {
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

// abbreviations end with a period that does not end a sentence.
var abbreviations = map[string]bool{
	"fig": true, "figs": true, "al": true, "e.g": true, "i.e": true, "vs": true, "approx": true, "ca": true,
	"no": true, "ref": true, "refs": true, "eq": true, "eqs": true, "sp": true, "spp": true, "dr": true,
	"st": true, "vol": true, "wt": true, "at": true, "resp": true, "cf": true, "mr": true, "ms": true,
}

// maxAbbreviation is the length of the longest abbreviation.
const maxAbbreviation = 6

// isAbbreviation reports whether w, lower-cased, is an abbreviation.
func isAbbreviation(w string) bool {
	// Lower-casing shrinks a character to no less than a third of its
	// bytes (the Kelvin sign is "k"): longer words are no abbreviation.
	// Most words before a period are not, and their shape says so
	// without lower-casing and hashing them.
	if len(w) > 3*maxAbbreviation || !abbreviationShapes.mayHold(w) {
		return false
	}
	var buf [3 * maxAbbreviation]byte // w lower-cased, without allocating
	return abbreviations[string(appendLower(buf[:0], w))]
}

// abbreviationShapes holds the shapes of the abbreviations.
var abbreviationShapes = func() (t shapes) {
	for a := range abbreviations {
		t.add(a)
	}
	return t
}()

// appendSentences appends the sentences of text to out: it splits text at
// ., ! or ? followed by a space and an upper-case letter, a digit or the
// end, except after an abbreviation.
func appendSentences(out []string, text string) []string {
	start := 0
	// The next '.', '!' and '?' at or after i (len(text) for none), each
	// found by IndexByte: a byte at a time, the search was most of the
	// cost of splitting.
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
			if isAbbreviation(text[k:i]) || (i-k == 1 && unicode.IsUpper(rune(text[k]))) {
				continue // "Fig. 2", "et al. 2019", "J. Smith"
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

// word is a word of a sentence with its byte offsets.
type word struct {
	text       string
	start, end int
}

func splitWords(s string) []word { return appendWords(nil, s) }

// appendWords appends the words of s to out. It steps over the ASCII
// between words and inside them in tight loops, a rune at a time only
// where it is not ASCII.
func appendWords(out []word, s string) []word {
	for i := 0; i < len(s); {
		for i < len(s) && s[i] < utf8.RuneSelf && !wordByte[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		if in, w := wordRune(s, i); !in {
			i += w
			continue
		}
		start := i
		for i < len(s) {
			if c := s[i]; c < utf8.RuneSelf {
				if !wordByte[c] {
					break
				}
				i++
				continue
			}
			in, w := wordRune(s, i)
			if !in {
				break
			}
			i += w
		}
		out = append(out, word{trimWord(s[start:i]), start, i})
	}
	return out
}

// wordRune reports whether the rune at s[i] belongs to a word, and its
// width.
func wordRune(s string, i int) (bool, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return wordByte[c], 1
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r), w
}

// wordByte marks the ASCII bytes of words: letters, digits, hyphens and
// apostrophes.
var wordByte = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) || c == '-' || c == '\''
	}
	return t
}()

// trimWord is strings.Trim(w, "-'") without building the cut set.
func trimWord(w string) string {
	for len(w) > 0 && (w[0] == '-' || w[0] == '\'') {
		w = w[1:]
	}
	for len(w) > 0 && (w[len(w)-1] == '-' || w[len(w)-1] == '\'') {
		w = w[:len(w)-1]
	}
	return w
}

// match is a number-with-unit found in a sentence.
type match struct {
	start, end int
	lo, hi     float64
	isRange    bool
	unc        float64
	unit       string
	u          units.Unit
}

func extractSentence(out []Statement, sent, where string, sc *scratch) []Statement {
	var (
		split bool // sc.words and sc.hits are this sentence's
		ascii = -1 // the length of sent's ASCII prefix, once needed
		lower string
	)
	for i := 0; i < len(sent); {
		// Numbers start with an ASCII digit or sign, never inside a
		// multi-byte rune: skip to the next digit, or to the sign right
		// before it (scanAt fails at a sign without a digit after it).
		d := nextDigit(sent, i)
		if d == len(sent) {
			break
		}
		if d > i && sent[d-1] == '-' {
			d--
		}
		i = d
		m, ok := scanAt(sent, i, sc.uc)
		if !ok {
			i++
			for i < len(sent) && sent[i] >= '0' && sent[i] <= '9' {
				i++ // the rest of a number that is not a statement
			}
			continue
		}
		i = m.end
		if ascii < 0 {
			ascii = asciiPrefix(sent)
		}
		var q string
		if ascii >= min(len(sent), m.start+utf8.UTFMax) {
			q = nameQuantity(sent, true, m) // no need to lower-case it all
		} else {
			if lower == "" {
				lower = toLower(sent)
			}
			q = nameQuantity(lower, false, m)
		}
		if q == "" {
			continue
		}
		if !split {
			sc.words = appendWords(sc.words[:0], sent)
			sc.hits = appendFamilyHits(sc.hits[:0], sc.words)
			split = true
		}
		words, hits := sc.words, sc.hits
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

// toLower is strings.ToLower, faster on text that is mostly ASCII with
// some other characters (appendLower).
func toLower(s string) string {
	if isASCII(s) {
		return strings.ToLower(s) // its own fast path, no copy without upper case
	}
	return string(appendLower(make([]byte, 0, len(s)+utf8.UTFMax), s))
}

// clip keeps a long sentence's part around the match.
func clip(s string, start, end int) string {
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

// window is how far before the number a quantity phrase may end.
const window = 90

// nameQuantity names the quantity of a match: the nearest phrase ending
// before it within the window whose dimension matches the unit, else the
// unit's own quantity for units that rarely measure anything else. lower
// is the text lower-cased; with fold, it is the text itself, lower-cased
// here a byte at a time, which is the same where the text is ASCII up to
// UTFMax bytes past the match's start (all that is read of it).
func nameQuantity(lower string, fold bool, m match) string {
	// Mass per body mass is a dose, per day a dose rate, whatever the
	// sentence says.
	if perMass(m.unit) {
		switch m.u.Dim {
		case units.Dimensionless:
			return "dose"
		case units.Frequency:
			return "dose_rate"
		}
	}
	best, bestEnd, bestRank := "", -1, 0
	from := max(0, m.start-window)
	var idx *[256][]startPhrase
	if ix := phraseStarts[m.u.Dim]; ix != nil {
		idx = &ix.lower
		if fold {
			idx = &ix.folded
		}
	}
	if m.u.Dim == units.Dimensionless && strings.Contains(m.unit, "/") {
		idx = nil // a ratio like mg/kg is a dose (above), never a porosity
	}
	// A phrase starts a word: look only where a word may start and at the
	// phrases beginning with that byte, in place of searching the window
	// for every phrase. It finds what the search finds: a phrase overlaps
	// itself only where its copy cannot start a word ("dosedosed").
	// Lower-casing may shorten the text (the Kelvin sign is "k"): the
	// window ends at its end at the latest.
	end := min(m.start, len(lower))
	// Case does not change whether a byte is a letter or digit: boundary
	// and asciiAlnum read folded text as they would lower-cased text.
	if idx == nil {
		end = from // no phrase to look for
	}
	prevAlnum := from > 0 && from < end && asciiAlnum[lower[from-1]]
	for s := from; s < end; s++ {
		// Phrases start with an ASCII letter: only where a letter or
		// digit follows another byte may one start.
		alnum := asciiAlnum[lower[s]]
		start := alnum && !prevAlnum
		prevAlnum = alnum
		if !start {
			continue
		}
		for _, c := range idx[lower[s]] {
			e := s + len(c.text)
			if e > end || !equalLower(lower[s:e], c.text, fold) || !boundary(lower, s, e) {
				continue
			}
			// The last-ending phrase wins; at one end, the first in the
			// order of phrases.
			if e > bestEnd || e == bestEnd && c.rank < bestRank {
				best, bestEnd, bestRank = c.q.Name, e, c.rank
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

// equalLower reports whether s equals the lower-case t, lower-casing the
// ASCII of s with fold.
func equalLower(s, t string, fold bool) bool {
	if !fold || len(s) != len(t) {
		return s == t
	}
	for i := 0; i < len(s); i++ {
		if asciiLower[s[i]] != t[i] {
			return false
		}
	}
	return true
}

// asciiLower maps ASCII upper-case letters to lower case and other bytes
// to themselves.
var asciiLower = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
		if 'A' <= c && c <= 'Z' {
			t[c] += 'a' - 'A'
		}
	}
	return t
}()

// asciiPrefix returns the length of the ASCII prefix of s, looking at
// eight bytes at a time.
func asciiPrefix(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if m := load8(s, i) & (0x80 * lowBytes); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	return i
}

func perMass(unit string) bool {
	return strings.Contains(unit, "g/kg") || strings.Contains(unit, "g/g") || strings.Contains(unit, "g kg")
}

func boundary(s string, start, end int) bool {
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

// scanAt reads a number-with-unit starting at i: a value, a value ± an
// uncertainty, or a range ("860 and 1020 °C", "1.1–1.5 eV", "20% to
// 40%"), followed by a unit.
func scanAt(s string, i int, uc unitCache) (match, bool) {
	neg := false
	j := i
	if s[j] == '-' {
		// A sign only after a space or an opening bracket: "-20 °C", not
		// "COVID-19".
		if i > 0 && s[i-1] != ' ' && s[i-1] != '(' {
			return match{}, false
		}
		neg, j = true, j+1
	}
	if j >= len(s) || s[j] < '0' || s[j] > '9' {
		return match{}, false
	}
	if !neg && i > 0 && !mayPrecedeNumber(s[:i]) {
		return match{}, false
	}
	num, ok := scanNumber(s, j)
	if !ok {
		return match{}, false
	}
	k := num.end
	// unit before a range connector: "20% to 40%", "860 °C to 1020 °C"
	u1, u1end, hasU1 := readUnit(s, k, uc)
	if hasU1 {
		k = u1end
	}
	c := connector(s, k, i)
	if !hasU1 && c == 0 && !startsPlusMinus(s, k) {
		return match{}, false // most numbers: no unit, range or ±, no parsing
	}
	v, ok := num.value()
	if !ok {
		return match{}, false
	}
	if neg {
		v = -v
	}
	m := match{start: i, lo: v, hi: v}
	if c > 0 {
		if v2, k2, ok := number(s, c); ok && v2 >= v {
			u2, u2end, hasU2 := readUnit(s, k2, uc)
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
		if unc, k2, ok := plusMinus(s, k); ok {
			if u, end, ok := readUnit(s, k2, uc); ok {
				m.unc, m.end, m.unit, m.u = unc, end, u.sym, u.u
				return m, true
			}
		}
		return match{}, false
	}
	m.end, m.unit, m.u = k, u1.sym, u1.u
	return m, true
}

// mayPrecedeNumber reports whether a number may start after s: not after
// a letter, a digit or a part of another token ("H2", "v1.2", "10/20").
func mayPrecedeNumber(s string) bool {
	if c := s[len(s)-1]; c < utf8.RuneSelf {
		return !numberGlue[c]
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// numberGlue marks the ASCII bytes after which no number starts.
var numberGlue = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) || strings.ContainsRune(".,-/_^", rune(c))
	}
	return t
}()

// number parses digits with "." or "," groups and an optional "×10^n" or
// "e-n". A comma followed by exactly three digits is a thousands separator
// ("1,000"); otherwise it is a decimal comma ("0,3").
func number(s string, i int) (float64, int, bool) {
	n, ok := scanNumber(s, i)
	if !ok {
		return 0, 0, false
	}
	v, ok := n.value()
	return v, n.end, ok
}

// numeral is a number scanned but not yet parsed: parsing costs more than
// scanning, and most numbers of a text have no unit and are dropped.
type numeral struct {
	text   string // digits and at most one '.'
	exp    int    // the power of ten written after it, if hasExp
	hasExp bool
	end    int
}

// value parses the number; it fails where strconv.ParseFloat does (out
// of range).
func (n numeral) value() (float64, bool) {
	v, err := strconv.ParseFloat(n.text, 64)
	if err != nil {
		return 0, false
	}
	if n.hasExp {
		v *= math.Pow(10, float64(n.exp))
	}
	return v, true
}

// scanNumber is number without parsing the value.
func scanNumber(s string, i int) (numeral, bool) {
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
				continue // thousands separator
			}
			if seenDot {
				return numeral{}, false // "1.2.3": a version or a date, not a value
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
	text := s[i:j] // digits and at most one '.', as written
	if b != nil {
		text = string(b)
	}
	if text == "" {
		return numeral{}, false
	}
	// ×10^n, x 10-3, · 10^5, e-3
	if k := skipSpaces(s, j, 1); k < len(s) && timesFirst[s[k]] { // most numbers: no sign
		for _, times := range timesSigns {
			if !strings.HasPrefix(s[k:], times) {
				continue
			}
			t := skipSpaces(s, k+len(times), 1)
			if strings.HasPrefix(s[t:], "10") {
				t += 2
				if t < len(s) && s[t] == '^' {
					t++
				}
				if e, end, ok := integer(s, t); ok {
					return numeral{text, e, true, end}, true
				}
			}
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		if e, end, ok := integer(s, j+1); ok && (end >= len(s) || !unicode.IsLetter(rune(s[end]))) {
			return numeral{text, e, true, end}, true
		}
	}
	return numeral{text: text, end: j}, true
}

// timesSigns multiply a number by a power of ten: 2.5×10^-3.
var timesSigns = []string{"×", "x", "·", "*"}

// timesFirst marks the first bytes of timesSigns.
var timesFirst = func() (t [256]bool) {
	for _, c := range timesSigns {
		t[c[0]] = true
	}
	return t
}()

func integer(s string, i int) (int, int, bool) {
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

func skipSpaces(s string, i, maxN int) int {
	for n := 0; i < len(s) && s[i] == ' ' && n < maxN; n++ {
		i++
	}
	return i
}

// connector returns where the second number of a range starts, or 0.
// "and" makes a range only after "between" ("between 860 and 1020 °C").
func connector(s string, k, start int) int {
	t := skipSpaces(s, k, 1)
	if t >= len(s) || !connectorByte[s[t]] {
		return 0 // most numbers: no connector to look at
	}
	for _, c := range connectors {
		if !strings.HasPrefix(s[t:], c) {
			continue
		}
		if c == "and " && !strings.HasSuffix(strings.ToLower(strings.TrimRight(s[max(0, start-9):start], " ")), "between") {
			return 0
		}
		if c == "-" && t != k {
			return 0 // "5 -3": not a range
		}
		n := skipSpaces(s, t+len(c), 1)
		if n < len(s) && s[n] >= '0' && s[n] <= '9' {
			return n
		}
	}
	return 0
}

// startsPlusMinus reports whether a ± may follow at k (then plusMinus
// reads it).
func startsPlusMinus(s string, k int) bool {
	t := skipSpaces(s, k, 1)
	return t < len(s) && (s[t] == "±"[0] || s[t] == '+')
}

// connectors join the numbers of a range.
var connectors = []string{"–", "—", "-", "~", "to ", "and "}

// connectorByte marks the first bytes of connectors.
var connectorByte = func() (t [256]bool) {
	for _, c := range connectors {
		t[c[0]] = true
	}
	return t
}()

func plusMinus(s string, k int) (float64, int, bool) {
	if !startsPlusMinus(s, k) {
		return 0, 0, false // most numbers: no sign to look at
	}
	t := skipSpaces(s, k, 1)
	for _, pm := range []string{"±", "+/-", "+-"} {
		if strings.HasPrefix(s[t:], pm) {
			n := skipSpaces(s, t+len(pm), 1)
			if v, end, ok := number(s, n); ok {
				return v, end, true
			}
		}
	}
	return 0, 0, false
}

type parsedUnit struct {
	sym string
	u   units.Unit
}

// notUnits are English words (and abbreviations) that the table would
// read as a unit: "5 as", "10 am", "3 pm".
var notUnits = map[string]bool{
	"as": true, "am": true, "pm": true, "Pm": true, "PM": true, "AM": true, "Am": true, "dam": true, "ha": true,
	"hm": true, "da": true, "Ms": true, "PS": true, "Ts": true, "Gs": true, "ks": true, "cs": true, "ns": true,
	"Es": true, "min.": true, "mol.": true, "ml.": true, "cd": true, "Pa.": true, "Ts.": true, "t": true, "P": true,
	"l": true, "d": true,
}

// maxNotUnit is the length of the longest of notUnits: longer tokens
// need no look-up there.
var maxNotUnit = func() (n int) {
	for w := range notUnits {
		n = max(n, len(w))
	}
	return n
}()

func asciiLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// unitChars may appear inside a unit token.
func unitChar(r rune) bool {
	if r < utf8.RuneSelf {
		return unitByte[r]
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("°%/·^-().µμΩÅ", r)
}

// unitByte is unitChar for ASCII.
var unitByte = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) || strings.ContainsRune("°%/·^-().µμΩÅ", rune(c))
	}
	return t
}()

// unitCache remembers the answers of units.Lookup for the passages of one
// Extract: a text repeats its units, and the tokens after its other
// numbers. Words of letters alone it leaves to units.Lookup (lookup). A
// nil cache remembers nothing.
type unitCache map[string]unitAnswer

type unitAnswer struct {
	u  units.Unit
	ok bool
}

// isWord reports whether s is made of ASCII letters alone.
func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// maxUnitCache bounds a cache: hostile text may hold endless new words.
const maxUnitCache = 4096

func (c unitCache) lookup(tok string) (units.Unit, bool) {
	if c == nil || isWord(tok) {
		// units.Lookup answers a word from a table, as fast as the
		// cache would, and most words after numbers are new to it.
		return units.Lookup(tok)
	}
	if a, ok := c[tok]; ok {
		return a.u, a.ok
	}
	u, ok := units.Lookup(tok)
	if len(c) < maxUnitCache {
		c[tok] = unitAnswer{u, ok}
	}
	return u, ok
}

// readUnit reads the unit right after a number (one optional space): a
// token, extended by following tokens that are symbols with exponents
// ("W m^-1 K^-1") and by "C" after a lone "°".
func readUnit(s string, k int, uc unitCache) (parsedUnit, int, bool) {
	t := skipSpaces(s, k, 1)
	tok, end := token(s, t)
	if tok == "" {
		return parsedUnit{}, 0, false
	}
	if tok == "°" {
		if nt, ne := token(s, skipSpaces(s, end, 1)); nt == "C" || nt == "F" || strings.HasPrefix(nt, "C") && len(nt) == 1 {
			tok, end = "°"+nt, ne
		}
	}
	for {
		t := skipSpaces(s, end, 1)
		if t >= len(s) || !asciiLetter(s[t]) {
			break // most units: no symbol with an exponent after them
		}
		nt, ne := token(s, t)
		if !exponentSymbol(nt) || !(strings.ContainsAny(tok, "^-") || exponentSymbol(nt)) {
			break
		}
		if _, ok := units.Lookup(tok + " " + nt); !ok {
			break
		}
		tok, end = tok+" "+nt, ne
	}
	// Trim trailing punctuation that is not part of the unit: a unit
	// never ends with ".", ",", ";" or ":", nor with an unmatched ")".
	for tok != "" {
		last, w := utf8.DecodeLastRuneInString(tok)
		if strings.ContainsRune(".,;:-/", last) || last == ')' && strings.Count(tok, "(") < strings.Count(tok, ")") {
			tok, end = tok[:len(tok)-w], end-w
			continue
		}
		break
	}
	for tok != "" {
		if len(tok) <= maxNotUnit && notUnits[tok] {
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

// token reads unit characters from i up to a space.
func token(s string, i int) (string, int) {
	// A unit never starts with a digit or punctuation: most words after
	// numbers are rejected before they are read.
	if i >= len(s) || !unitStart(s[i:]) {
		return "", i
	}
	j := i
	for j < len(s) {
		if c := s[j]; c < utf8.RuneSelf {
			if !unitByte[c] {
				break
			}
			j++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[j:])
		if !unitChar(r) {
			break
		}
		j += w
	}
	if s[i] == '(' && !strings.Contains(s[i:j], ")") {
		return "", i
	}
	return s[i:j], j
}

// unitStart reports whether a unit may start s: a letter or one of
// "°%µμΩÅ(" (each of them a unitChar).
func unitStart(s string) bool {
	if c := s[0]; c < utf8.RuneSelf {
		return asciiLetter(c) || c == '%' || c == '('
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || r == '°' || r == 'µ' || r == 'μ' || r == 'Ω' || r == 'Å'
}

// exponentSymbol reports whether tok is a symbol with an exponent, "m^-1",
// "K-1", "s^2".
func exponentSymbol(tok string) bool {
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
