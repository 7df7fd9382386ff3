// Package clean holds the string clean-ups the source readers share:
// white space, inline markup and entities, duplicate lists.
package clean

import (
	"html"
	"strings"
	"unicode"
)

// Collapse trims s and folds every run of white space into one space.
func Collapse(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Dedupe drops empty strings and repeats from list, keeping first
// occurrences in order.
func Dedupe(list []string) []string {
	if len(list) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(list))
	out := list[:0]
	for _, s := range list {
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// StripTags removes inline HTML/XML tags (<i>, <sup>, <jats:p>...) and
// decodes character entities, as titles and abstracts carry both.
func StripTags(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] == '<' {
			if j := strings.IndexByte(s[i+1:], '>'); j >= 0 && looksLikeTag(s[i+1:i+1+j]) {
				i += j + 2
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return html.UnescapeString(b.String())
}

// looksLikeTag reports whether the text between < and > is a tag rather
// than a comparison ("p < 0.05 and q > 1").
func looksLikeTag(s string) bool {
	if s == "" || len(s) > 256 || strings.IndexByte(s, '<') >= 0 {
		return false
	}
	c := s[0]
	if c == '/' || c == '!' || c == '?' {
		if len(s) == 1 {
			return false
		}
		c = s[1]
	}
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// blockEnd marks the end of a block of a JATS abstract with a NUL byte,
// which cannot occur in JSON-decoded text we keep (it is removed first).
var blockEnd = strings.NewReplacer(
	"\x00", "",
	"</jats:p>", "\x00", "</p>", "\x00",
	"</jats:title>", "\x00", "</title>", "\x00",
	"</jats:sec>", "\x00", "</sec>", "\x00",
	"<jats:break/>", "\x00", "<br/>", "\x00", "<br>", "\x00",
)

// JATSAbstract flattens a JATS-flavoured abstract ("<jats:p>...</jats:p>")
// to plain text, one paragraph or heading per line. A leading "Abstract"
// heading is dropped: it names the element, not its content.
func JATSAbstract(s string) string {
	if s == "" {
		return ""
	}
	var lines []string
	for _, block := range strings.Split(StripTags(blockEnd.Replace(s)), "\x00") {
		if block = Collapse(block); block != "" {
			lines = append(lines, block)
		}
	}
	if len(lines) > 0 && strings.EqualFold(strings.TrimRight(lines[0], ":."), "abstract") {
		lines = lines[1:]
	}
	return strings.Join(lines, "\n")
}
