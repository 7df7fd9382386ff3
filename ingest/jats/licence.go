package jats

import (
	"strconv"
	"strings"
	"time"

	"github.com/openshelf/openshelf/licence"
)

// licenceEvidence appends what one article-meta or front-stub (node am of
// t, reached by path prefix, e.g. "front/article-meta[2]") says about the
// licence, in document order:
//
//   - per <license>: license-type (KindJATSLicenseType), xlink:href
//     (KindJATSHref), each ali:license_ref with its start_date (KindJATSALI),
//     then for each license-p (or <p>, NLM 2.x) the URLs it links or spells
//     out and its text (KindJATSLicenseP); Lang is the license's xml:lang;
//   - ali:license_ref placed directly in <permissions>;
//   - copyright-statement text (KindJATSCopyright), also when it sits bare
//     in article-meta without <permissions> (NLM 2.x, PLoS ONE 2007).
//
// Every article-meta, front-stub and sub-article of an article is read (a
// second article-meta must not hide a non-commercial licence; a
// sub-article's evidence keeps its "sub-article[n]" path, which tells the
// licence package it is not the article's); permissions of figures,
// tables and supplementary material never reach this function. Source is
// filled in later, once the article's ids are known.
func licenceEvidence(ev []licence.Evidence, t *tree, am int32, prefix string) []licence.Evidence {
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
	var np, nc int
	for c := range t.elems(am) {
		switch t.nodes[c].local {
		case "permissions":
			np++
			pp := indexed(prefix+"/permissions", np)
			var nl, nr, ncs int
			for d := range t.elems(c) {
				switch t.nodes[d].local {
				case "license":
					nl++
					licenseEvidence(t, d, indexed(pp+"/license", nl), add)
				case "license_ref":
					nr++
					add(aliEvidence(t, d, "", indexed(pp+"/ali:license_ref", nr)))
				case "copyright-statement":
					ncs++
					add(licence.Evidence{Kind: licence.KindJATSCopyright, Value: t.text(d, nil),
						Path: indexed(pp+"/copyright-statement", ncs)})
				}
			}
		case "copyright-statement":
			nc++
			add(licence.Evidence{Kind: licence.KindJATSCopyright, Value: t.text(c, nil),
				Path: indexed(prefix+"/copyright-statement", nc)})
		}
	}
	return ev
}

// indexed appends a 1-based position to a path element: "license[2]".
func indexed(path string, n int) string {
	return path + "[" + strconv.Itoa(n) + "]"
}

func licenseEvidence(t *tree, l int32, path string, add func(licence.Evidence)) {
	lang := t.lang(l)
	if v := t.attr(l, "license-type"); v != "" {
		add(licence.Evidence{Kind: licence.KindJATSLicenseType, Value: v, Lang: lang, Path: path + "/@license-type"})
	}
	if v := t.attr(l, "href"); v != "" {
		add(licence.Evidence{Kind: licence.KindJATSHref, Value: v, Lang: lang, Path: path + "/@xlink:href"})
	}
	var nr, np int
	for c := range t.elems(l) {
		switch local := t.nodes[c].local; local {
		case "license_ref":
			nr++
			add(aliEvidence(t, c, lang, indexed(path+"/ali:license_ref", nr)))
		case "license-p", "p":
			np++
			pp := indexed(path+"/"+local, np)
			for _, u := range linkedURLs(t, c, nil) {
				add(licence.Evidence{Kind: licence.KindJATSLicenseP, Value: u, Lang: lang, Path: pp + "//@xlink:href"})
			}
			text := t.text(c, nil)
			for _, u := range bareURLs(text) {
				add(licence.Evidence{Kind: licence.KindJATSLicenseP, Value: u, Lang: lang, Path: pp + " (URL in text)"})
			}
			add(licence.Evidence{Kind: licence.KindJATSLicenseP, Value: text, Lang: lang, Path: pp})
		}
	}
}

func aliEvidence(t *tree, n int32, lang, path string) licence.Evidence {
	e := licence.Evidence{Kind: licence.KindJATSALI, Value: t.text(n, nil), Lang: lang, Path: path}
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
