package pubmed

import (
	"encoding/xml"
	"strings"

	"github.com/openshelf/openshelf/ingest/internal/clean"
)

// text is the flattened character data of an element and all its children:
// titles and abstracts carry inline markup (<i>, <sub>, MathML) whose text
// belongs to the sentence around it.
type text string

func (t *text) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	s, err := flatten(d)
	*t = text(s)
	return err
}

// flatten reads up to the end of the element whose start was just consumed
// and returns its text with whitespace collapsed.
func flatten(d *xml.Decoder) (string, error) {
	var b strings.Builder
	for depth := 1; depth > 0; {
		tok, err := d.Token()
		if err != nil {
			return clean.Collapse(b.String()), err
		}
		switch tok := tok.(type) {
		case xml.CharData:
			b.Write(tok)
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return clean.Collapse(b.String()), nil
}

// iso639 maps the ISO 639-2 codes PubMed uses to ISO 639-1 where one exists.
var iso639 = map[string]string{
	"afr": "af", "alb": "sq", "ara": "ar", "arm": "hy", "aze": "az", "baq": "eu", "bel": "be",
	"ben": "bn", "bos": "bs", "bul": "bg", "cat": "ca", "chi": "zh", "cze": "cs", "dan": "da",
	"dut": "nl", "eng": "en", "epo": "eo", "est": "et", "fin": "fi", "fre": "fr", "geo": "ka",
	"ger": "de", "gla": "gd", "gle": "ga", "glg": "gl", "gre": "el", "heb": "he", "hin": "hi",
	"hrv": "hr", "hun": "hu", "ice": "is", "ind": "id", "ita": "it", "jpn": "ja", "kin": "rw",
	"kor": "ko", "lat": "la", "lav": "lv", "lit": "lt", "mac": "mk", "mal": "ml", "mao": "mi",
	"may": "ms", "mlt": "mt", "nor": "no", "per": "fa", "pol": "pl", "por": "pt", "pus": "ps",
	"rum": "ro", "rus": "ru", "san": "sa", "slo": "sk", "slv": "sl", "spa": "es", "srp": "sr",
	"swe": "sv", "tha": "th", "tur": "tr", "ukr": "uk", "urd": "ur", "vie": "vi", "wel": "cy",
	// ISO 639-2/T spellings, in case a record uses them.
	"ces": "cs", "deu": "de", "ell": "el", "fas": "fa", "fra": "fr", "isl": "is", "nld": "nl",
	"ron": "ro", "slk": "sk", "zho": "zh", "cym": "cy", "eus": "eu", "hye": "hy", "kat": "ka",
	"mkd": "mk", "msa": "ms", "sqi": "sq",
}

// language maps a PubMed language code to ISO 639-1, keeping codes without
// a two-letter form and dropping "und" (undetermined) and "mul" (multiple).
func language(code string) string {
	code = strings.ToLower(strings.TrimSpace(code))
	switch code {
	case "", "und", "mul":
		return ""
	}
	if two, ok := iso639[code]; ok {
		return two
	}
	return code
}

// months maps PubMed month spellings (names, abbreviations) to numbers.
var months = map[string]int{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}

// month parses "05", "5", "May" or "May-Jun" into 1..12, or 0.
func month(s string) int {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0
	}
	if n := atoi(s); n >= 1 && n <= 12 {
		return n
	}
	if len(s) >= 3 {
		return months[strings.ToLower(s[:3])]
	}
	return 0
}

// atoi parses a short run of ASCII digits; anything else gives -1.
func atoi(s string) int {
	if s == "" || len(s) > 9 {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}
