package geo

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Fold reduces a name to its search key: decomposed, without combining
// marks, lower case, with punctuation turned into single spaces. So
// "Sant Julià de Lòria", "SANT JULIA DE LORIA" and "sant-julia de loria"
// share one key. A few letters that do not decompose are spelled out the
// way GeoNames' ASCII names do (ß → ss, ø → o, ł → l, đ → d, æ → ae).
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			if rep, ok := foldSpecial[r]; ok {
				b.WriteString(rep)
				continue
			}
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '’' || r == '‘' || r == 'ʻ' || r == 'ʼ' || r == '`':
			// Apostrophes join: "Val-d'Or" and "Val d Or" differ, "dOr" does not matter.
			continue
		default:
			space = true
		}
	}
	return b.String()
}

var foldSpecial = map[rune]string{
	'ß': "ss", 'ø': "o", 'Ø': "o", 'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d",
	'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe", 'ı': "i", 'þ': "th", 'ð': "d",
}
