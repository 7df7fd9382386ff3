package jats

import (
	"strings"
	"time"

	"github.com/openshelf/openshelf/licence"
)

// licenceEvidence collects what the main article's front/article-meta says
// about its licence, in document order:
//
//   - per <license>: license-type (KindJATSLicenseType), xlink:href
//     (KindJATSHref), each ali:license_ref with its start_date (KindJATSALI),
//     then for each license-p (or <p>, NLM 2.x) the URLs it links or spells
//     out and its text (KindJATSLicenseP); Lang is the license's xml:lang;
//   - ali:license_ref placed directly in <permissions>;
//   - copyright-statement text (KindJATSCopyright), also when it sits bare
//     in article-meta without <permissions> (NLM 2.x, PLoS ONE 2007).
//
// Permissions of figures, tables, supplementary material and sub-articles
// never reach this function: it reads article-meta only. Source is filled
// in later, once the article's ids are known.
func licenceEvidence(t *tree, am int32) []licence.Evidence {
	var ev []licence.Evidence
	add := func(e licence.Evidence) {
		if e.Value == "" {
			return
		}
		for _, x := range ev {
			if x.Kind == e.Kind && x.Value == e.Value && x.Lang == e.Lang && x.Start.Equal(e.Start) {
				return
			}
		}
		ev = append(ev, e)
	}
	for c := range t.elems(am) {
		switch t.nodes[c].local {
		case "permissions":
			for d := range t.elems(c) {
				switch t.nodes[d].local {
				case "license":
					licenseEvidence(t, d, add)
				case "license_ref":
					add(aliEvidence(t, d, ""))
				case "copyright-statement":
					add(licence.Evidence{Kind: licence.KindJATSCopyright, Value: t.text(d, nil)})
				}
			}
		case "copyright-statement":
			add(licence.Evidence{Kind: licence.KindJATSCopyright, Value: t.text(c, nil)})
		}
	}
	return ev
}

func licenseEvidence(t *tree, l int32, add func(licence.Evidence)) {
	lang := t.lang(l)
	if v := t.attr(l, "license-type"); v != "" {
		add(licence.Evidence{Kind: licence.KindJATSLicenseType, Value: v, Lang: lang})
	}
	if v := t.attr(l, "href"); v != "" {
		add(licence.Evidence{Kind: licence.KindJATSHref, Value: v, Lang: lang})
	}
	for c := range t.elems(l) {
		switch t.nodes[c].local {
		case "license_ref":
			add(aliEvidence(t, c, lang))
		case "license-p", "p":
			for _, u := range linkedURLs(t, c, nil) {
				add(licence.Evidence{Kind: licence.KindJATSLicenseP, Value: u, Lang: lang})
			}
			text := t.text(c, nil)
			for _, u := range bareURLs(text) {
				add(licence.Evidence{Kind: licence.KindJATSLicenseP, Value: u, Lang: lang})
			}
			add(licence.Evidence{Kind: licence.KindJATSLicenseP, Value: text, Lang: lang})
		}
	}
}

func aliEvidence(t *tree, n int32, lang string) licence.Evidence {
	e := licence.Evidence{Kind: licence.KindJATSALI, Value: t.text(n, nil), Lang: lang}
	if sd := t.attr(n, "start_date"); sd != "" {
		e.Start = parseStart(sd)
	}
	return e
}

// parseStart reads an ali start_date (2019-05-01, or a full timestamp). An
// unreadable date stays zero; the value itself is still evidence.
func parseStart(s string) time.Time {
	for _, layout := range []string{"2006-01-02", time.RFC3339, "2006-01-02T15:04:05", "2006-01", "2006"} {
		if tm, err := time.Parse(layout, s); err == nil {
			return tm
		}
	}
	return time.Time{}
}

// linkedURLs appends the xlink:href of every descendant of n (ext-link,
// uri...) and the text of <uri> elements without one.
func linkedURLs(t *tree, n int32, out []string) []string {
	for c := range t.elems(n) {
		if v := t.attr(c, "href"); v != "" {
			out = appendUnique(out, v)
		} else if t.is(c, "uri") {
			if v := t.text(c, nil); v != "" {
				out = appendUnique(out, v)
			}
		}
		out = linkedURLs(t, c, out)
	}
	return out
}

// bareURLs finds URLs spelled out in text: http(s)://, www. and
// scheme-less creativecommons.org/ links. Trailing punctuation is not part
// of a URL.
func bareURLs(text string) []string {
	var out []string
	lower := strings.ToLower(text)
	i := 0
	for i < len(lower) {
		j := -1
		for _, p := range []string{"http://", "https://", "www.", "creativecommons.org/"} {
			if k := strings.Index(lower[i:], p); k >= 0 && (j < 0 || i+k < j) {
				j = i + k
			}
		}
		if j < 0 {
			break
		}
		end := j
		for end < len(text) && !strings.ContainsRune(" \t\n\"'<>()[]{}", rune(text[end])) && text[end] < 0x80 {
			end++
		}
		u := strings.TrimRight(text[j:end], ".,;:!?")
		if len(u) > len("www.") {
			out = appendUnique(out, u)
		}
		i = max(end, j+1)
	}
	return out
}
