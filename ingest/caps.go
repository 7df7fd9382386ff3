package ingest

import "strconv"

// Caps of the fields a published document serves (data/README.md, "Caps").
// A document over one is not published: the index lists it in rejects
// with reason [ReasonTooLarge] and a detail naming the field, so a hostile
// 20 MB title never reaches the catalog, the search index or the paid
// answers. Readers bound their input separately (records, fields, arrays,
// nesting, decompression).
const (
	CapTitle         = 4 << 10   // bytes
	CapAbstract      = 256 << 10 // bytes
	CapShortField    = 1 << 10   // venue, publisher, date, type, language, one keyword, subject or author name
	CapAuthors       = 10_000    // authors per document
	CapAffiliation   = 4 << 10   // bytes of one affiliation
	CapAffiliations  = 100       // affiliations per author
	CapList          = 1_000     // keywords, subjects, topics, aliases, sources
	CapSections      = 50_000    // sections, nested ones included
	CapParagraph     = 1 << 20   // bytes of one paragraph
	CapText          = 64 << 20  // bytes of all section titles and paragraphs
	CapReferences    = 50_000    // references per document
	CapReferenceText = 16 << 10  // bytes of one reference field
	CapEvidence      = 1_000     // pieces of licence evidence
	CapEvidenceValue = 64 << 10  // bytes of one piece of licence evidence
)

// ReasonTooLarge is the rejection reason of a record over a cap.
const ReasonTooLarge = "record_too_large"

// Oversize returns a description of the first field of d over its cap
// ("title: 20971520 bytes, over the cap of 4096 bytes"), or "" when every
// field is within its cap. It runs on every document, so it compares
// lengths first and spells a field's path only for the field it reports.
func (d *Document) Oversize() string {
	over := func(field string, n, cap int, unit string) string {
		return field + ": " + strconv.Itoa(n) + " " + unit + ", over the cap of " + strconv.Itoa(cap) + " " + unit
	}
	bytesOver := func(field, s string, cap int) string {
		if len(s) > cap {
			return over(field, len(s), cap, "bytes")
		}
		return ""
	}
	// list checks a list of strings; its entries' paths are field[i].
	list := func(field func() string, ss []string, n, each int) string {
		if len(ss) > n {
			return over(field(), len(ss), n, "entries")
		}
		for i, s := range ss {
			if len(s) > each {
				return over(field()+"["+strconv.Itoa(i)+"]", len(s), each, "bytes")
			}
		}
		return ""
	}
	for _, c := range []struct {
		field, s string
		cap      int
	}{
		{"title", d.Title, CapTitle}, {"abstract", d.Abstract, CapAbstract},
		{"venue", d.Venue, CapShortField}, {"publisher", d.Publisher, CapShortField},
		{"date", d.Date, CapShortField}, {"type", d.Type, CapShortField}, {"language", d.Language, CapShortField},
		{"doi", d.DOI, CapShortField}, {"pmid", d.PMID, CapShortField}, {"pmcid", d.PMCID, CapShortField},
		{"openalex", d.OpenAlex, CapShortField}, {"origin", d.Origin, CapAffiliation},
	} {
		if r := bytesOver(c.field, c.s, c.cap); r != "" {
			return r
		}
	}
	for _, l := range []struct {
		field string
		ss    []string
	}{{"keywords", d.Keywords}, {"subjects", d.Subjects}, {"topics", d.Topics}, {"aliases", d.Aliases}, {"sources", d.Sources}} {
		if r := list(func() string { return l.field }, l.ss, CapList, CapShortField); r != "" {
			return r
		}
	}
	if len(d.Authors) > CapAuthors {
		return over("authors", len(d.Authors), CapAuthors, "entries")
	}
	for i := range d.Authors {
		a := &d.Authors[i]
		f := func() string { return "authors[" + strconv.Itoa(i) + "]" }
		for _, c := range []struct{ name, s string }{{"name", a.Name}, {"given", a.Given}, {"family", a.Family}, {"orcid", a.ORCID}} {
			if len(c.s) > CapShortField {
				return over(f()+"."+c.name, len(c.s), CapShortField, "bytes")
			}
		}
		if r := list(func() string { return f() + ".affiliations" }, a.Affiliations, CapAffiliations, CapAffiliation); r != "" {
			return r
		}
	}
	if len(d.Licence.Evidence) > CapEvidence {
		return over("licence.evidence", len(d.Licence.Evidence), CapEvidence, "entries")
	}
	for i := range d.Licence.Evidence {
		e := &d.Licence.Evidence[i]
		if len(e.Value) > CapEvidenceValue {
			return over("licence.evidence["+strconv.Itoa(i)+"].value", len(e.Value), CapEvidenceValue, "bytes")
		}
	}
	if len(d.References) > CapReferences {
		return over("references", len(d.References), CapReferences, "entries")
	}
	for i := range d.References {
		r := &d.References[i]
		f := func() string { return "references[" + strconv.Itoa(i) + "]" }
		for _, c := range []struct{ name, s string }{{"raw", r.Raw}, {"title", r.Title}, {"source", r.Source}, {"label", r.Label},
			{"year", r.Year}, {"volume", r.Volume}, {"issue", r.Issue}, {"pages", r.Pages}, {"doi", r.DOI}, {"pmid", r.PMID}} {
			if len(c.s) > CapReferenceText {
				return over(f()+"."+c.name, len(c.s), CapReferenceText, "bytes")
			}
		}
		if s := list(func() string { return f() + ".authors" }, r.Authors, CapList, CapShortField); s != "" {
			return s
		}
	}
	var sections, text int
	// walk checks sections; path spells the path of ss, built only to
	// report.
	var walk func(ss []Section, path func() string) string
	walk = func(ss []Section, path func() string) string {
		for i := range ss {
			s := &ss[i]
			sections++
			f := func() string { return path() + "[" + strconv.Itoa(i) + "]" }
			if sections > CapSections {
				return over("sections", sections, CapSections, "entries")
			}
			if len(s.Title) > CapTitle {
				return over(f()+".title", len(s.Title), CapTitle, "bytes")
			}
			text += len(s.Title)
			for j, p := range s.Paragraphs {
				if len(p) > CapParagraph {
					return over(f()+".paragraphs["+strconv.Itoa(j)+"]", len(p), CapParagraph, "bytes")
				}
				text += len(p)
			}
			if text > CapText {
				return over("sections (text)", text, CapText, "bytes")
			}
			if len(s.Children) > 0 {
				if r := walk(s.Children, func() string { return f() + ".children" }); r != "" {
					return r
				}
			}
		}
		return ""
	}
	return walk(d.Sections, func() string { return "sections" })
}
