package licence

import "strings"

// AttributionInput is the bibliographic data an attribution line needs. It
// is a plain struct so that licence does not depend on the ingest model.
type AttributionInput struct {
	Authors []string // display names in byline order; group authors as one name
	Title   string
	Venue   string // journal, preprint server or book title
	Year    string
	DOI     string // bare ("10.7554/eLife.00005") or as a URL; preferred link
	URL     string // landing page, used when there is no DOI
	// Changes says what was changed (CC BY 4.0 asks adaptations to say so),
	// e.g. "converted from JATS XML to plain text". Empty: nothing said.
	Changes string
	// MaxAuthors is how many authors are named before "et al."; 0 means 3.
	MaxAuthors int
}

const defaultMaxAuthors = 3

// Attribution returns the credit line a published document must carry
// (title, author, source, licence - the TASL form Creative Commons
// recommends), e.g.
//
//	Ciferri C, Pasqualato S, Screpanti E, et al. "Implications for
//	kinetochore-microtubule attachment from the structure of an engineered
//	Ndc80 complex." eLife (2012). https://doi.org/10.7554/eLife.00005.
//	Licensed under Creative Commons Attribution 3.0 Unported
//	(https://creativecommons.org/licenses/by/3.0/).
//
// It returns "" for a decision that is not accepted: such a document must
// not be published at all.
func Attribution(meta AttributionInput, d Decision) string {
	if !d.Accepted {
		return ""
	}
	var b strings.Builder
	sentence := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
		if !endsSentence(s) {
			b.WriteByte('.')
		}
	}
	sentence(authorList(meta.Authors, meta.MaxAuthors))
	if t := strings.TrimSpace(collapseSpace(meta.Title)); t != "" {
		if !endsSentence(t) {
			t += "."
		}
		sentence(`"` + t + `"`)
	}
	venue := strings.TrimSpace(collapseSpace(meta.Venue))
	year := strings.TrimSpace(meta.Year)
	switch {
	case venue != "" && year != "":
		sentence(venue + " (" + year + ")")
	case venue != "":
		sentence(venue)
	case year != "":
		sentence("(" + year + ")")
	}
	if link := doiLink(meta.DOI); link != "" {
		sentence(link)
	} else if u := strings.TrimSpace(meta.URL); u != "" {
		sentence(u)
	}
	sentence(licenceSentence(d))
	if c := strings.TrimSpace(meta.Changes); c != "" {
		sentence("Changes: " + c)
	}
	return b.String()
}

// licenceSentence states the licence of an accepted decision.
func licenceSentence(d Decision) string {
	url := d.URL
	if url == "" {
		url = CanonicalURL(d.Family, d.Version, d.Port)
	}
	switch d.Family {
	case CC0:
		return "Dedicated to the public domain under " + Name(CC0, "", "") + " (" + url + ")"
	case PDM:
		return "Free of known copyright restrictions, marked with the " + Name(PDM, "", "") + " (" + url + ")"
	}
	return "Licensed under " + Name(d.Family, d.Version, d.Port) + " (" + url + ")"
}

// endsSentence reports whether s already ends with sentence punctuation, so
// that no second full stop is added ("Why?." would look wrong).
func endsSentence(s string) bool {
	s = strings.TrimSuffix(s, `"`) // a quoted title that ends in punctuation
	if s == "" {
		return false
	}
	switch s[len(s)-1] {
	case '.', '?', '!':
		return true
	}
	return false
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// authorList names the first limit authors and adds "et al." for the rest.
func authorList(authors []string, limit int) string {
	if limit <= 0 {
		limit = defaultMaxAuthors
	}
	names := make([]string, 0, min(len(authors), limit))
	more := false
	for _, a := range authors {
		a = strings.TrimSpace(collapseSpace(a))
		if a == "" {
			continue
		}
		if len(names) == limit {
			more = true
			break
		}
		names = append(names, a)
	}
	s := strings.Join(names, ", ")
	if more {
		s += ", et al."
	}
	return s
}

// doiLink turns a DOI in any common spelling into its https://doi.org/ link.
func doiLink(doi string) string {
	d := strings.TrimSpace(doi)
	lower := strings.ToLower(d)
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi.org/", "doi:"} {
		if strings.HasPrefix(lower, p) {
			d = strings.TrimSpace(d[len(p):])
			break
		}
	}
	if !strings.HasPrefix(d, "10.") {
		return ""
	}
	return "https://doi.org/" + d
}

// CopyrightNotice returns the copyright line to show with a document. A
// holder that is already a full statement from the source ("© 2014, Bowman
// et al", "Copyright © 2008 van der Meulen et al; licensee BioMed Central
// Ltd.") is kept as it is; a bare holder gets "© year holder"; no holder
// gives "© year The Authors". CC0 and PDM works carry no copyright, whatever
// the source says, and get a public-domain line instead.
func CopyrightNotice(holder, year string, d Decision) string {
	if d.Accepted {
		switch d.Family {
		case CC0:
			return "No copyright: dedicated to the public domain (" + Name(CC0, "", "") + ")."
		case PDM:
			return "No known copyright: marked as public domain (" + Name(PDM, "", "") + ")."
		}
	}
	h := strings.TrimSpace(collapseSpace(holder))
	y := strings.TrimSpace(year)
	lower := strings.ToLower(h)
	if strings.HasPrefix(h, "©") || strings.HasPrefix(lower, "copyright") || strings.HasPrefix(lower, "(c)") {
		return h
	}
	if h == "" {
		h = "The Authors"
	}
	if y == "" {
		return "© " + h
	}
	return "© " + y + " " + h
}

// ShareAlikeNotice returns the share-alike obligation for CC BY-SA
// documents (sources.md 7.10), to be shipped with every output that contains
// one; it is "" for every other decision.
func ShareAlikeNotice(d Decision) string {
	if !d.Accepted || d.Family != CCBYSA {
		return ""
	}
	url := d.URL
	if url == "" {
		url = CanonicalURL(d.Family, d.Version, d.Port)
	}
	same := "the same licence"
	if d.Version != "" {
		same = ShortName(d.Family, d.Version, d.Port) + " or a later version or compatible licence"
	}
	return "This work is licensed under " + Name(d.Family, d.Version, d.Port) + " (" + url + "). " +
		"Adaptations must be shared under " + same + ", with credit to the original authors and source."
}
