package page

import (
	"bytes"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
)

// metaScanBytes is how far into a page a <meta charset> is looked for.
// HTML says 1024 bytes; real pages put it after kilobytes of scripts.
const metaScanBytes = 64 << 10

// pageCharset picks the encoding of an HTML body: BOM, then the
// Content-Type charset, then a <meta> declaration, then UTF-8 if the whole
// body is valid UTF-8, then windows-1252 (the HTML default).
func pageCharset(body []byte, contentType string) (encoding.Encoding, string) {
	if e, name, certain := charset.DetermineEncoding(body, contentType); certain {
		return e, name
	}
	if label := metaCharset(body[:min(len(body), metaScanBytes)]); label != "" {
		if e, name := charset.Lookup(label); e != nil {
			if strings.HasPrefix(name, "utf-16") {
				// A meta tag read as ASCII cannot be UTF-16; HTML says
				// to take it as UTF-8.
				return encoding.Nop, "utf-8"
			}
			return e, name
		}
	}
	if utf8.Valid(body) {
		return encoding.Nop, "utf-8"
	}
	return charmap.Windows1252, "windows-1252"
}

// metaCharset finds <meta charset> or <meta http-equiv=content-type> in the
// head; "" when there is none.
func metaCharset(b []byte) string {
	z := html.NewTokenizer(bytes.NewReader(b))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "head" {
				return ""
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "body":
				return ""
			case "meta":
				var httpEquiv, content string
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					switch string(k) {
					case "charset":
						return strings.TrimSpace(string(v))
					case "http-equiv":
						httpEquiv = strings.ToLower(string(v))
					case "content":
						content = string(v)
					}
				}
				if httpEquiv == "content-type" {
					if _, params, err := mime.ParseMediaType(content); err == nil && params["charset"] != "" {
						return params["charset"]
					}
				}
			}
		}
	}
}

// Decode returns body as UTF-8 and the name of the charset it was in.
func Decode(body []byte, contentType string) ([]byte, string) {
	e, name := pageCharset(body, contentType)
	out := body
	if e != encoding.Nop {
		if b, err := e.NewDecoder().Bytes(body); err == nil {
			out = b
		}
	}
	return bytes.TrimPrefix(out, []byte("\xef\xbb\xbf")), name
}

// IsHTML reports whether resp is an HTML page: by its media type, or by
// sniffing when the server sends none or a generic one.
func IsHTML(resp *fetch.Response) bool {
	switch mt := resp.MediaType(); mt {
	case "text/html", "application/xhtml+xml":
		return true
	case "", "application/octet-stream", "text/plain", "binary/octet-stream":
		return strings.HasPrefix(http.DetectContentType(resp.Body), "text/html")
	}
	return false
}

// Unsupported is the error for a response of the wrong kind. The
// code matches extract_tables'.
func Unsupported(resp *fetch.Response, tool, wants string) error {
	mt := resp.MediaType()
	if mt == "" {
		mt = "content of unknown type"
	}
	return apierr.New(apierr.ErrInvalidInput, "unsupported_content_type",
		"the URL serves "+mt+"; "+tool+" reads "+wants)
}

// AbsURL resolves ref against base and returns it only if it is an
// http(s) URL; "" otherwise (javascript:, data:, garbage).
func AbsURL(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	u, err := base.Parse(ref)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

// Base is the document's <base href> resolved against the page URL, or
// the page URL.
func Base(page *url.URL, href string) *url.URL {
	if href == "" {
		return page
	}
	u, err := page.Parse(strings.TrimSpace(href))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return page
	}
	return u
}

// blockAtoms end a line in plain text.
var blockAtoms = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Br: true, atom.Li: true, atom.Ul: true, atom.Ol: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Blockquote: true, atom.Pre: true, atom.Table: true, atom.Tr: true, atom.Section: true,
	atom.Article: true, atom.Header: true, atom.Footer: true, atom.Figure: true, atom.Figcaption: true,
	atom.Hr: true, atom.Dd: true, atom.Dt: true, atom.Dl: true,
}

// ToText renders an HTML fragment (a feed summary, say) as plain text:
// entities decoded, scripts and styles dropped, blocks on their own lines,
// runs of spaces collapsed.
func ToText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return CollapseText(s)
	}
	ctx := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(strings.NewReader(s), ctx)
	if err != nil {
		return CollapseText(s)
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Template, atom.Noscript:
				return
			}
		}
		block := n.Type == html.ElementNode && blockAtoms[n.DataAtom]
		if block {
			b.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if block {
			b.WriteByte('\n')
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	return CollapseText(b.String())
}

// CollapseText collapses spaces within lines and blank lines between them.
func CollapseText(s string) string {
	var lines []string
	for line := range strings.SplitSeq(s, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			lines = append(lines, strings.Join(f, " "))
		}
	}
	return strings.Join(lines, "\n")
}

// CountWords counts words the way a reader would: runs of letters and
// digits, with each Han, Hiragana, Katakana or Hangul character a word of
// its own (those scripts do not separate words with spaces).
func CountWords(s string) int {
	n, in := 0, false
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			n++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || (in && (r == '\'' || r == '’' || r == '-')):
			if !in {
				n++
				in = true
			}
		default:
			in = false
		}
	}
	return n
}

// Clip shortens s to at most n runes, reporting whether it cut.
func Clip(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	i := 0
	for j := range s {
		if i == n {
			return strings.TrimSpace(s[:j]) + "…", true
		}
		i++
	}
	return s, false
}

// FirstNonEmpty returns the first of s that is not "".
func FirstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// CutBytes cuts s to at most n bytes on a rune boundary.
func CutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
