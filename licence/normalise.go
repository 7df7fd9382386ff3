package licence

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// words appends to dst a normalised form of s for phrase matching: ASCII
// letters lower-cased, common Latin accented letters folded to ASCII
// ("Não" -> "nao"), apostrophes dropped ("author's" -> "authors"), a '.'
// kept only between two digits ("4.0"), and every other run of characters
// (spaces, hyphens, punctuation, slashes) collapsed to one space. The result
// starts and ends with a space, so a phrase is matched on word boundaries by
// searching for " phrase ".
//
// This is the normalisation sources.md section 6 asks for ("collapse
// spaces/hyphens for text"): "CC BY-NC-ND", "cc-by-nc-nd" and
// "creativecommons.org/licenses/by-nc-nd/" all contain " by nc ".
func words(dst []byte, s string) []byte {
	dst = append(dst, ' ')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				dst = append(dst, c)
			case 'A' <= c && c <= 'Z':
				dst = append(dst, c+'a'-'A')
			case c == '\'':
				// dropped: "author's" reads "authors"
			case c == '.' && i >= 2 && isDigit(s[i-2]) && i < len(s) && isDigit(s[i]):
				dst = append(dst, '.')
			default:
				dst = space(dst)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\u2019' || r == '\u2018': // typographic apostrophes
		case foldLatin(r) != 0:
			dst = append(dst, foldLatin(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		default:
			dst = space(dst)
		}
	}
	return space(dst)
}

func space(dst []byte) []byte {
	if len(dst) > 0 && dst[len(dst)-1] == ' ' {
		return dst
	}
	return append(dst, ' ')
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// foldLatin maps the accented letters of the languages seen in the fixtures
// (Portuguese, Spanish, French, German) to ASCII; 0 means "no folding".
func foldLatin(r rune) byte {
	switch r {
	case 'á', 'à', 'â', 'ã', 'ä', 'Á', 'À', 'Â', 'Ã', 'Ä':
		return 'a'
	case 'é', 'è', 'ê', 'ë', 'É', 'È', 'Ê', 'Ë':
		return 'e'
	case 'í', 'ì', 'î', 'ï', 'Í', 'Ì', 'Î', 'Ï':
		return 'i'
	case 'ó', 'ò', 'ô', 'õ', 'ö', 'Ó', 'Ò', 'Ô', 'Õ', 'Ö':
		return 'o'
	case 'ú', 'ù', 'û', 'ü', 'Ú', 'Ù', 'Û', 'Ü':
		return 'u'
	case 'ç', 'Ç':
		return 'c'
	case 'ñ', 'Ñ':
		return 'n'
	}
	return 0
}

// contains reports whether the normalised text w contains phrase, which is
// written in normalised form (lower case, single spaces, leading and
// trailing spaces where a word boundary is required). Meant for literal
// phrases, whose []byte conversion the compiler keeps off the heap.
func contains(w []byte, phrase string) bool { return bytes.Contains(w, []byte(phrase)) }

// phrases is a list of normalised phrases, kept as bytes so that matching
// (bytes.Index, vectorised) allocates nothing.
type phrases [][]byte

func newPhrases(s ...string) phrases {
	p := make(phrases, len(s))
	for i, x := range s {
		p[i] = []byte(x)
	}
	return p
}

// gated is a phrase list behind a cheaper prefilter: every phrase contains
// at least one gate (checked by a test), so when no gate occurs in the text
// no phrase can, and the long list is skipped. Licence texts are scanned
// once per document on millions of documents.
type gated struct{ gates, list phrases }

func gate(gates []string, list ...string) gated {
	return gated{newPhrases(gates...), newPhrases(list...)}
}

func (g gated) in(w []byte) bool { return g.gates.in(w) && g.list.in(w) }

// in reports whether w contains one of the phrases.
func (p phrases) in(w []byte) bool {
	for _, x := range p {
		if bytes.Contains(w, x) {
			return true
		}
	}
	return false
}

// blank overwrites every occurrence of phrase in w with spaces (keeping its
// boundary spaces), so that an allowed wording ("commercial and
// non-commercial use") cannot trigger a marker inside it.
func blank(w, phrase []byte) {
	for {
		i := bytes.Index(w, phrase)
		if i < 0 {
			return
		}
		for j := i + 1; j < i+len(phrase)-1; j++ {
			w[j] = ' '
		}
		w = w[i+len(phrase)-1:]
	}
}

// indexFold returns the index of the ASCII lower-case needle in s at or
// after from, ignoring ASCII case, or -1.
func indexFold(s, needle string, from int) int {
	n := len(needle)
	for i := from; i+n <= len(s); i++ {
		j := 0
		for ; j < n; j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[j] {
				break
			}
		}
		if j == n {
			return i
		}
	}
	return -1
}
