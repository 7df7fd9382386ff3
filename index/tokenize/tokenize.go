package tokenize

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxTokenBytes is the longest token kept, in bytes of its folded form.
const MaxTokenBytes = 64

// Tokens returns the folded tokens of s in order, duplicates included.
func Tokens(s string) []string { return Append(nil, s) }

// Append appends the folded tokens of s to dst and returns the extended
// slice. It allocates only for the token strings themselves when s is ASCII.
//
// It reads s once, run by run, a run being what lies between ASCII
// characters other than letters and digits. Such a character separates
// tokens in both paths, and NFKD never moves or combines anything across
// it (ASCII characters are starters without decompositions), so the runs
// are independent: a run of ASCII is one token (appendWord), and only the
// runs with other characters go to appendRun. The tokens are those
// appendUnicode gives for all of s.
//
// The ASCII runs with upper-case letters ("The", "DNA") are lower-cased
// back to back into one buffer and their tokens share one string: a string
// each was most of the allocations of tokenising.
func Append(dst []string, s string) []string {
	var (
		lowArr [64]byte // small: the arrays are zeroed on every call
		atArr  [8]lowered
	)
	low, at := lowArr[:0], atArr[:0]
	for i := skipSeps(s, 0); i < len(s); {
		j, class := scanRun(s, i)
		switch w := s[i:j]; {
		case class&classOther != 0:
			dst = appendRun(dst, w)
		case class&classUpper == 0:
			dst = appendWord(dst, w, false)
		case keepWord(w):
			at = append(at, lowered{len(dst), len(low)})
			for k := 0; k < len(w); k++ {
				low = append(low, w[k]|byteClass[w[k]]&classUpper<<4) // 'A' | 0x20 is 'a'
			}
			dst = append(dst, "") // set below
		}
		i = skipSeps(s, j)
	}
	if len(at) > 0 {
		ls := string(low)
		for k, a := range at {
			end := len(ls)
			if k+1 < len(at) {
				end = at[k+1].start
			}
			dst[a.i] = ls[a.start:end]
		}
	}
	return dst
}

// skipSeps returns the index of the first byte of s at or after i that is
// not a separator (classSep), or len(s).
//
// It and scanRun are loops of their own, not inlined into Append: there,
// with Append's slices live around them, the compiler kept their counters
// on the stack, and every byte waited for a store and a load.
//
//go:noinline
func skipSeps(s string, i int) int {
	for i < len(s) && byteClass[s[i]] == classSep {
		i++
	}
	return i
}

// scanRun returns the end of the run of bytes other than separators that
// starts at i, and the union of their classes.
//
//go:noinline
func scanRun(s string, i int) (int, uint8) {
	class := uint8(0)
	for ; i < len(s); i++ {
		c := byteClass[s[i]]
		if c == classSep {
			break
		}
		class |= c
	}
	return i, class
}

// lowered is a token of Append lower-cased into its buffer: its index in
// dst and where it starts in the buffer.
type lowered struct{ i, start int }

// Byte classes of Append: an ASCII separator, a lower-case ASCII letter or
// digit, an upper-case ASCII letter, any byte of a character beyond ASCII.
const (
	classSep   = 0
	classLower = 1
	classUpper = 2
	classOther = 4
)

var byteClass = func() (t [256]uint8) {
	for c := range t {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = classLower
		case 'A' <= c && c <= 'Z':
			t[c] = classUpper
		case c >= utf8.RuneSelf:
			t[c] = classOther
		}
	}
	return t
}()

// appendWord appends w, a run of ASCII letters and digits, as a token:
// lower-cased, unless it is too long or a single letter.
func appendWord(dst []string, w string, upper bool) []string {
	if !keepWord(w) {
		return dst
	}
	if upper {
		w = strings.ToLower(w)
	}
	return append(dst, w)
}

// keepWord reports whether an ASCII word is a token: not too long, and
// not a single letter.
func keepWord(w string) bool {
	return len(w) <= MaxTokenBytes && (len(w) != 1 || (w[0] >= '0' && w[0] <= '9'))
}

// appendRun tokenises a run of ASCII letters and digits and other
// characters. Full text is mostly English with a dash, a quote or a
// no-break space between words: those characters (plainSeparator)
// separate tokens as ASCII punctuation does, and NFKD does not move
// anything across them either, so the run is cut at them and only the
// pieces with other characters pay for appendUnicode.
func appendRun(dst []string, s string) []string {
	start, class := 0, uint8(0)
	for i := 0; i < len(s); {
		c := byteClass[s[i]]
		if c != classOther {
			class |= c
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if !plainSeparator(r) {
			class |= c
			i += w
			continue
		}
		dst = appendPiece(dst, s[start:i], class)
		i += w
		start, class = i, 0
	}
	return appendPiece(dst, s[start:], class)
}

// appendPiece appends the tokens of a piece of a run whose bytes are of
// the classes in class.
func appendPiece(dst []string, s string, class uint8) []string {
	switch {
	case s == "":
		return dst
	case class&classOther == 0:
		return appendWord(dst, s, class&classUpper != 0)
	}
	if tok, ok := foldLatin(s); ok {
		if tok == "" {
			return dst
		}
		return appendWord(dst, tok, false)
	}
	return appendUnicode(dst, s)
}

// foldLatin folds a piece whose characters beyond ASCII are all Latin
// letters that fold to ASCII ones (latinFold: "São", "Müller", "Straße"),
// as appendUnicode would, without normalising it: each such letter is
// its base letter and combining marks, which appendUnicode drops, or a
// letter it spells out. It reports false for any other piece, and ""
// for a token too long to keep.
func foldLatin(s string) (string, bool) {
	var buf [MaxTokenBytes + 1]byte
	b := buf[:0]
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
		} else {
			r, w := utf8.DecodeRuneInString(s[i:])
			if r < latinFirst || int(r-latinFirst) >= len(latinFold) || latinFold[r-latinFirst] == "" {
				return "", false
			}
			b = append(b, latinFold[r-latinFirst]...)
			i += w
		}
		if len(b) > MaxTokenBytes {
			return "", true // too long a token: none, as appendUnicode
		}
	}
	return string(b), true
}

// latinFold maps the Latin letters from U+00C0 to U+017F to the ASCII
// letters appendUnicode folds them to, "" for the others. It is derived
// from appendUnicode itself, a letter at a time between two ASCII
// letters.
const latinFirst = 0xC0

var latinFold = func() (t [0x180 - latinFirst]string) {
	for r := rune(latinFirst); r < 0x180; r++ {
		toks := appendUnicode(nil, "q"+string(r)+"q")
		if len(toks) != 1 || len(toks[0]) < 3 || toks[0][0] != 'q' || toks[0][len(toks[0])-1] != 'q' {
			continue
		}
		f := toks[0][1 : len(toks[0])-1]
		if strings.IndexFunc(f, func(c rune) bool { return c < 'a' || c > 'z' }) < 0 {
			t[r-latinFirst] = f
		}
	}
	return t
}()

// plainSeparator reports whether r is one of the common punctuation and
// space characters that appendUnicode treats as separators and that NFKD
// leaves as they are or maps to ASCII punctuation or spaces: starters
// (canonical combining class 0) that neither compose with nor decompose
// into a letter or digit (TestPlainSeparators).
func plainSeparator(r rune) bool {
	switch r {
	case '\u00a0', // no-break space (NFKD: a space)
		'\u00ad',                     // soft hyphen
		'\u00b1', '\u00b7', '\u00d7', // ± · ×
		'\u2002', '\u2003', '\u2009', '\u200a', '\u202f', // spaces (NFKD: a space)
		'\u2010', '\u2013', '\u2014', '\u2212', // hyphen, dashes, minus
		'\u2018', '\u2019', '\u201c', '\u201d', // quotation marks
		'\u2022', '\u2032', '\u2264', '\u2265', // • ′ ≤ ≥
		'\u00b0', '\u2026', '\u2192', '\u223c', '\u2248', // ° … → ∼ ≈ (NFKD of …: three periods)
		'\u200b', '\u2062': // zero width space, invisible times
		return true
	}
	return false
}

// Terms returns the tokens of s without stop words: what the indexer stores
// for titles and keywords.
func Terms(s string) []string { return RemoveStopWords(Tokens(s)) }

// Query returns the distinct terms of a search query in order of first
// appearance. Stop words are removed unless the query has nothing else, so
// that a query "The The" still finds the band's name in an author field.
func Query(s string) []string {
	toks := Tokens(s)
	seen := make(map[string]bool, len(toks))
	out := toks[:0]
	for _, t := range toks {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if kept := RemoveStopWords(append([]string(nil), out...)); len(kept) > 0 {
		return kept
	}
	return out
}

// RemoveStopWords filters toks in place and returns the shortened slice.
func RemoveStopWords(toks []string) []string {
	out := toks[:0]
	for _, t := range toks {
		if !IsStopWord(t) {
			out = append(out, t)
		}
	}
	return out
}

// IsStopWord reports whether the folded token t is one of the English
// function words removed from titles and keywords.
func IsStopWord(t string) bool {
	if len(t) < 2 || len(t) > maxStopWord {
		return false // most tokens: no need to look further
	}
	k := stopKey(t)
	for i := k * stopMul >> (64 - stopBits); ; i = (i + 1) & (1<<stopBits - 1) {
		switch stopTable[i] {
		case k:
			return true
		case 0:
			return false
		}
	}
}

// The indexer asks IsStopWord for every token: stopTable is an open
// addressing table of the stop words packed in an integer (stopKey), a
// multiplication and a probe or two where a map hashes the string.
const (
	stopBits = 7
	stopMul  = 0x9e3779b97f4a7c15
)

// stopKey packs a token of at most 7 bytes, its length in the top byte.
func stopKey(t string) uint64 {
	k := uint64(len(t)) << 56
	for i := 0; i < len(t); i++ {
		k |= uint64(t[i]) << (8 * i)
	}
	return k
}

var stopTable = func() (t [1 << stopBits]uint64) {
	for w := range stopWords {
		k := stopKey(w)
		i := k * stopMul >> (64 - stopBits)
		for t[i] != 0 {
			i = (i + 1) & (1<<stopBits - 1)
		}
		t[i] = k
	}
	return t
}()

// maxStopWord is the length of the longest stop word.
const maxStopWord = 5

// StopWords returns the stop words, sorted.
func StopWords() []string {
	out := make([]string, 0, len(stopWords))
	for w := range stopWords {
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

// stopWords is deliberately short: only words that carry no meaning in a
// title. Negations ("not", "no", "without") are kept: they change meaning.
var stopWords = map[string]struct{}{
	"an": {}, "and": {}, "are": {}, "as": {}, "at": {}, "be": {}, "by": {},
	"for": {}, "from": {}, "has": {}, "have": {}, "in": {}, "into": {}, "is": {},
	"it": {}, "its": {}, "of": {}, "on": {}, "or": {}, "that": {}, "the": {},
	"their": {}, "this": {}, "to": {}, "was": {}, "were": {}, "with": {},
	"which": {}, "we": {}, "our": {}, "than": {}, "these": {}, "those": {},
}

// unigram reports whether r is a letter of a script written without
// spaces, whose characters are indexed one by one. (The Han script also has
// symbols, such as the CJK radicals, which are separators like any symbol.)
func unigram(r rune) bool {
	return r >= 0x2E80 && unicode.IsLetter(r) && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// spelled maps letters without a canonical decomposition to their usual
// Latin transliteration, after lower-casing.
var spelled = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d",
	'þ': "th", 'ı': "i", 'ς': "σ",
}

func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mc, unicode.Me)
}

func appendUnicode(dst []string, s string) []string {
	s = norm.NFKD.String(s)
	var b strings.Builder
	ascii, runes, keep1 := true, 0, false
	flush := func() {
		if b.Len() == 0 {
			return
		}
		tok := b.String()
		b.Reset()
		if !ascii {
			// Recompose what NFKD split and is still there (Hangul
			// syllables, spacing marks) so terms read naturally.
			tok = norm.NFC.String(tok)
		}
		if len(tok) > MaxTokenBytes || (runes == 1 && !keep1) {
			return
		}
		dst = append(dst, tok)
	}
	add := func(r rune) {
		if b.Len() == 0 {
			ascii, runes, keep1 = true, 0, unicode.IsDigit(r)
		}
		if r >= utf8.RuneSelf {
			ascii = false
		}
		runes++
		b.WriteRune(r)
	}
	for _, r := range s {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		r = unicode.ToLower(r)
		if sp, ok := spelled[r]; ok {
			for _, x := range sp {
				add(x)
			}
			continue
		}
		switch {
		case unigram(r):
			flush()
			add(r)
			keep1 = true
			flush()
		case wordRune(r):
			add(r)
		default:
			flush()
		}
	}
	flush()
	return dst
}
