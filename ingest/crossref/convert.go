package crossref

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openshelf/openshelf/ingest/internal/clean"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
)

func convert(w *work, origin string, now time.Time) *ingest.Document {
	doc := &ingest.Document{
		DOI:       repairDOI(w.DOI),
		Publisher: clean.Collapse(clean.StripTags(w.Publisher)),
		Language:  strings.ToLower(strings.TrimSpace(w.Language)),
		Abstract:  clean.JATSAbstract(w.Abstract),
		Updated:   w.Indexed.instant(),
		Sources:   []string{Source},
		Origin:    origin,
	}
	if len(w.Title) > 0 {
		doc.Title = clean.Collapse(clean.StripTags(w.Title[0]))
	}
	if len(w.ContainerTitle) > 0 {
		doc.Venue = clean.Collapse(clean.StripTags(w.ContainerTitle[0]))
	}
	issued := w.Issued
	for _, d := range []dateField{w.Published, w.PublishedOnline, w.PublishedPrint} {
		if y, _, _ := issued.parts(); y != 0 {
			break
		}
		issued = d
	}
	doc.Date, doc.Year = issued.iso()
	doc.Authors = authors(w.Author)
	for _, s := range w.Subject {
		doc.Subjects = append(doc.Subjects, clean.Collapse(s))
	}
	doc.Subjects = clean.Dedupe(doc.Subjects)
	doc.References = references(w.Reference)

	doc.Type = docType(w.Type, w.Subtype)
	for _, u := range w.UpdateTo {
		switch updateKind(u.Type) {
		case "retraction":
			// A notice is a document in its own right, judged by its
			// own licence (issue 13); only the retracted work goes.
			doc.Type = "retraction"
		case "correction":
			if doc.Type != "retraction" {
				doc.Type = "correction"
			}
		}
	}
	for _, u := range w.UpdatedBy {
		if updateKind(u.Type) == "retraction" {
			doc.Retracted = true
		}
	}
	doc.Licence = licence.Decide(evidence(w.License, issued), now)
	return doc
}

// repairDOI normalises a DOI, cutting away junk before an embedded resolver
// URL ("10.5424/http://dx.doi.org/10.5424/sjar/..." is 10.5424/sjar/...).
func repairDOI(s string) string {
	doi := ingest.NormaliseDOI(s)
	if i := strings.LastIndex(doi, "doi.org/10."); i > 0 {
		if fixed := ingest.NormaliseDOI(doi[i+len("doi.org/"):]); fixed != "" {
			return fixed
		}
	}
	return doi
}

// docType maps Crossref work types onto the document vocabulary shared with
// the other readers; types without an equivalent are kept as they are.
func docType(t, subtype string) string {
	switch t = strings.ToLower(strings.TrimSpace(t)); t {
	case "journal-article":
		return "research-article"
	case "posted-content":
		if s := strings.ToLower(strings.TrimSpace(subtype)); s != "" && s != "preprint" {
			return s
		}
		return "preprint"
	case "proceedings-article":
		return "conference-paper"
	}
	return t
}

// updateKind classifies a Crossref update type (update-to, updated-by).
func updateKind(t string) string {
	switch strings.ToLower(strings.ReplaceAll(strings.TrimSpace(t), "-", "_")) {
	case "retraction", "partial_retraction", "withdrawal", "removal":
		return "retraction"
	case "correction", "erratum", "corrigendum":
		return "correction"
	}
	return ""
}

func authors(list []author) []ingest.Author {
	var out []ingest.Author
	for _, a := range list {
		au := ingest.Author{Given: clean.Collapse(a.Given), Family: clean.Collapse(a.Family), ORCID: ingest.NormaliseORCID(a.ORCID)}
		au.Name = clean.Collapse(au.Given + " " + au.Family)
		if au.Name == "" {
			au.Name = clean.Collapse(a.Name) // an organisation or consortium
		}
		if au.Name == "" {
			continue
		}
		for _, aff := range a.Affiliation {
			au.Affiliations = append(au.Affiliations, clean.Collapse(aff.Name))
		}
		au.Affiliations = clean.Dedupe(au.Affiliations)
		out = append(out, au)
	}
	return out
}

func references(list []reference) []ingest.Reference {
	var out []ingest.Reference
	for _, r := range list {
		ref := ingest.Reference{
			Label:  clean.Collapse(r.Key),
			DOI:    ingest.NormaliseDOI(r.DOI),
			Title:  clean.Collapse(clean.StripTags(r.ArticleTitle)),
			Source: clean.Collapse(clean.StripTags(r.JournalTitle)),
			Year:   clean.Collapse(string(r.Year)),
			Volume: clean.Collapse(string(r.Volume)),
			Issue:  clean.Collapse(string(r.Issue)),
			Pages:  clean.Collapse(string(r.FirstPage)),
			Raw:    clean.Collapse(clean.StripTags(r.Unstructured)),
		}
		if ref.Source == "" {
			ref.Source = clean.Collapse(clean.StripTags(r.VolumeTitle))
		}
		if ref.Source == "" {
			ref.Source = clean.Collapse(clean.StripTags(r.SeriesTitle))
		}
		if a := clean.Collapse(r.Author); a != "" {
			ref.Authors = []string{a}
		}
		if ref.DOI+ref.Title+ref.Source+ref.Year+ref.Volume+ref.Pages+ref.Raw == "" && len(ref.Authors) == 0 {
			continue // only a key
		}
		out = append(out, ref)
	}
	return out
}

// evidence turns license[] into licence evidence (see the package
// documentation for Start).
func evidence(list []license, issued dateField) []licence.Evidence {
	var ev []licence.Evidence
	for i, l := range list {
		url := strings.TrimSpace(l.URL)
		if url == "" {
			continue
		}
		e := licence.Evidence{
			Kind:           licence.KindCrossref,
			Source:         licence.SourceCrossref,
			Value:          url,
			ContentVersion: strings.ToLower(strings.TrimSpace(l.ContentVersion)),
			Start:          l.Start.instant(),
			Path:           "license[" + strconv.Itoa(i) + "].URL",
		}
		if l.Delay.set {
			e.DelayDays = l.Delay.n
			if e.Start.IsZero() {
				if pub := issued.instant(); !pub.IsZero() {
					e.Start = pub.AddDate(0, 0, l.Delay.n)
				}
			}
		}
		// A repeated entry is recorded once, at its first path.
		if !slices.ContainsFunc(ev, func(x licence.Evidence) bool { x.Path = e.Path; return x == e }) {
			ev = append(ev, e)
		}
	}
	return ev
}
