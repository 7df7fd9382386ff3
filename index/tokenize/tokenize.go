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
func Append(dst []string, s string) []string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return appendMixed(dst, s)
		}
	}
	return appendASCII(dst, s)
}

// asciiWord reports whether the ASCII byte c is a letter or a digit.
func asciiWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// appendMixed tokenises a text that is not all ASCII (most full text: a
// dash or a quote in a paragraph of English) run by run, a run being what
// lies between ASCII characters other than letters and digits. Such a
// character separates tokens in both paths, and NFKD never moves or
// combines anything across it (ASCII characters are starters without
// decompositions), so the runs are independent: a run of ASCII goes the
// fast way, and only the runs with other characters pay for
// appendUnicode. The tokens are those appendUnicode gives for all of s.
func appendMixed(dst []string, s string) []string {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf && !asciiWord(c) {
			i++
			continue
		}
		j, ascii := i, true
		for ; j < len(s); j++ {
			c := s[j]
			if c >= utf8.RuneSelf {
				ascii = false
			} else if !asciiWord(c) {
				break
			}
		}
		if ascii {
			dst = appendASCII(dst, s[i:j])
		} else {
			dst = appendUnicode(dst, s[i:j])
		}
		i = j
	}
	return dst
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
		return false // most tokens: no need to hash them
	}
	_, ok := stopWords[t]
	return ok
}

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

func appendASCII(dst []string, s string) []string {
	start, upper := -1, false
	for i := 0; i <= len(s); i++ {
		var c byte // the zero byte at len(s) ends the last run
		if i < len(s) {
			c = s[i]
		}
		lowerOrDigit := 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
		isUpper := 'A' <= c && c <= 'Z'
		if lowerOrDigit || isUpper {
			if start < 0 {
				start, upper = i, false
			}
			upper = upper || isUpper
			continue
		}
		if start < 0 {
			continue
		}
		tok := s[start:i]
		start = -1
		if len(tok) > MaxTokenBytes || (len(tok) == 1 && (tok[0] < '0' || tok[0] > '9')) {
			continue
		}
		if upper {
			tok = strings.ToLower(tok)
		}
		dst = append(dst, tok)
	}
	return dst
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
