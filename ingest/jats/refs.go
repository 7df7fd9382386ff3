package jats

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openshelf/openshelf/ingest"
)

// reference reads one <ref>. Structured fields come from the
// element-citation (or the NLM citation/nlm-citation) when there is one,
// else from the mixed-citation; Raw is the flattened mixed-citation when
// there is one (it keeps the publisher's punctuation), else the flattened
// structured citation. SciELO puts both kinds in one ref.
func reference(t *tree, ref int32) (ingest.Reference, bool) {
	var r ingest.Reference
	structured, mixed := none, none
	findCitations(t, ref, &structured, &mixed)
	r.Label = trimLabel(t.text(t.child(ref, "label"), nil))
	src := structured
	if src == none {
		src = mixed
	}
	if src == none {
		// A bare ref holding only text.
		r.Raw = t.text(ref, func(l string) bool { return l == "label" })
		return r, r.Raw != ""
	}
	citationFields(t, src, &r)
	if mixed != none {
		r.Raw = t.text(mixed, skipInCitation)
	} else {
		r.Raw = t.text(src, skipInCitation)
	}
	if r.DOI == "" {
		r.DOI = doiInText(r.Raw)
	}
	ok := r.Raw != "" || r.Title != "" || r.Source != "" || len(r.Authors) > 0
	return r, ok
}

// findCitations sets structured and mixed, when none, to the first
// structured and mixed citation of n, in citation-alternatives too.
func findCitations(t *tree, n int32, structured, mixed *int32) {
	for c := range t.elems(n) {
		switch t.nodes[c].local {
		case "element-citation", "nlm-citation", "citation":
			if *structured == none {
				*structured = c
			}
		case "mixed-citation":
			if *mixed == none {
				*mixed = c
			}
		case "citation-alternatives":
			findCitations(t, c, structured, mixed)
		}
	}
}

// skipInCitation leaves non-text alternatives out of citations; comments
// ("Accessed 3 May 2019") stay.
func skipInCitation(local string) bool {
	switch local {
	case "annotation", "tex-math", "inline-graphic":
		return true
	}
	return false
}

func citationFields(t *tree, c int32, r *ingest.Reference) {
	var fpage, lpage string
	for d := range t.elems(c) {
		switch t.nodes[d].local {
		case "person-group":
			if typ, ok := t.attrBytes(d, "person-group-type"); ok && len(typ) > 0 && !t.attrIs(d, "person-group-type", "author") {
				continue
			}
			if r.Authors == nil { // room for the group's names at once
				n := 0
				for range t.elems(d) {
					n++
				}
				if n > 0 {
					r.Authors = make([]string, 0, n)
				}
			}
			for e := range t.elems(d) {
				if s := citationName(t, e); s != "" {
					r.Authors = append(r.Authors, s)
				}
			}
			if len(r.Authors) == 0 {
				r.Authors = nil
			}
		case "name", "string-name", "collab":
			// NLM 2.x citations put names straight into the citation.
			if s := citationName(t, d); s != "" {
				r.Authors = append(r.Authors, s)
			}
		case "article-title":
			if r.Title == "" {
				r.Title = t.text(d, skipInTitle)
			}
		case "chapter-title", "data-title", "part-title":
			if r.Title == "" {
				r.Title = t.text(d, skipInTitle)
			}
		case "source":
			if r.Source == "" {
				r.Source = t.text(d, skipInTitle)
			}
		case "year":
			if r.Year == "" {
				r.Year = t.text(d, nil)
			}
		case "date":
			if r.Year == "" {
				r.Year = t.text(t.child(d, "year"), nil)
			}
		case "volume":
			if r.Volume == "" {
				r.Volume = t.text(d, nil)
			}
		case "issue":
			if r.Issue == "" {
				r.Issue = t.text(d, nil)
			}
		case "fpage":
			if fpage == "" {
				fpage = t.text(d, nil)
			}
		case "lpage":
			if lpage == "" {
				lpage = t.text(d, nil)
			}
		case "page-range", "elocation-id":
			if r.Pages == "" {
				r.Pages = t.text(d, nil)
			}
		case "pub-id":
			switch {
			case r.DOI == "" && t.attrIs(d, "pub-id-type", "doi"):
				r.DOI = ingest.NormaliseDOI(t.text(d, nil))
			case r.PMID == "" && t.attrIs(d, "pub-id-type", "pmid"):
				r.PMID = ingest.NormalisePMID(t.text(d, nil))
			}
		case "ext-link", "uri":
			if r.DOI == "" && t.attrIs(d, "ext-link-type", "doi") {
				v := t.attr(d, "href")
				if v == "" {
					v = t.text(d, nil)
				}
				r.DOI = ingest.NormaliseDOI(v)
			}
		}
	}
	switch {
	case fpage != "" && lpage != "" && lpage != fpage:
		r.Pages = fpage + "-" + lpage
	case fpage != "":
		r.Pages = fpage
	}
}

// citationName formats a reference author as "Surname GN", building the
// string in the tree's scratch buffers: a reference list holds thousands
// of names.
func citationName(t *tree, n int32) string {
	switch t.nodes[n].local {
	case "name", "string-name":
		b := t.appendText(t.nb[:0], t.child(n, "surname"), nil)
		g := t.appendText(t.gb[:0], t.child(n, "given-names"), nil)
		switch {
		case len(b) == 0 && len(g) == 0:
			return t.text(n, skipInName)
		case len(b) == 0:
			b = append(b, g...)
		case len(g) > 0:
			b = appendInitials(append(b, ' '), g)
		}
		t.nb, t.gb = b, g
		return validString(b)
	case "collab":
		return t.text(n, skipInName)
	}
	return ""
}

// initials reduces given names to initials: "Timothy M" and "T. M." are
// "TM"; names already written as capitals ("KM", "RVS") stay.
func initials(given string) string { return string(appendInitials(nil, []byte(given))) }

func appendInitials(dst, given []byte) []byte {
	hasLower := false
	for i := 0; i < len(given); {
		r, size := utf8.DecodeRune(given[i:])
		if unicode.IsLower(r) {
			hasLower = true
			break
		}
		i += size
	}
	start := true
	for i := 0; i < len(given); {
		r, size := utf8.DecodeRune(given[i:])
		i += size
		if !unicode.IsLetter(r) {
			start = r == ' ' || r == '.' || r == '-' || r == '\u2010'
			continue
		}
		if !hasLower || start {
			dst = utf8.AppendRune(dst, unicode.ToUpper(r))
		}
		start = false
	}
	return dst
}

// trimLabel turns "[12]" or "12." into "12".
func trimLabel(s string) string { return strings.Trim(s, " []().") }

// doiInText finds a DOI written out in a citation ("doi: 10.36660/abc.2020",
// "https://doi.org/10...").
func doiInText(s string) string {
	i := strings.Index(s, "10.")
	for i >= 0 {
		rest := s[i:]
		// 10.NNNN/...: registrant code of at least four digits.
		j := 3
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j-3 >= 4 && j < len(rest) && rest[j] == '/' && (i == 0 || !isDOIChar(s[i-1])) {
			end := j + 1
			for end < len(rest) {
				r, size := utf8.DecodeRuneInString(rest[end:])
				if r == ' ' || r == '\t' || r == '\n' || r == '"' || r == '<' || r == '>' || r >= 0x80 {
					break
				}
				end += size
			}
			doi := strings.TrimRight(rest[:end], ".,;:)]")
			if n := ingest.NormaliseDOI(doi); n != "" && len(doi) > j+1 {
				return n
			}
		}
		k := strings.Index(rest[1:], "10.")
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return ""
}

func isDOIChar(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
