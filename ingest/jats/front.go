package jats

import (
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/openshelf/openshelf/ingest"
)

// elems iterates over the element children of n.
func (t *tree) elems(n int32) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		if n == none {
			return
		}
		for c := t.nodes[n].first; c != none; c = t.nodes[c].next {
			if t.nodes[c].local != "" && !yield(c) {
				return
			}
		}
	}
}

// readFront fills the document from <front>: journal, ids, title, authors,
// date, abstract, keywords, subjects, retraction links and licence
// evidence.
func (p *parser) readFront(a *article, root int32) {
	t := &p.front
	doc := a.doc
	if jm := t.child(root, "journal-meta"); jm != none {
		jt := t.child(t.child(jm, "journal-title-group"), "journal-title")
		if jt == none {
			jt = t.child(jm, "journal-title") // NLM 2.x
		}
		doc.Venue = t.text(jt, skipInTitle)
		doc.Publisher = t.text(t.child(t.child(jm, "publisher"), "publisher-name"), nil)
	}
	p.frontEvidence(a, t, root, "front")
	am := t.child(root, "article-meta")
	if am == none {
		return
	}
	for c := range t.elems(am) {
		switch t.nodes[c].local {
		case "article-id":
			v := t.text(c, nil)
			switch strings.ToLower(t.attr(c, "pub-id-type")) {
			case "pmc", "pmcid":
				if doc.PMCID == "" {
					doc.PMCID = ingest.NormalisePMCID(v)
				}
			case "pmid":
				if doc.PMID == "" {
					doc.PMID = ingest.NormalisePMID(v)
				}
			case "doi":
				if doc.DOI == "" {
					doc.DOI = ingest.NormaliseDOI(v)
				}
			}
		case "title-group":
			if doc.Title == "" {
				doc.Title = t.text(t.child(c, "article-title"), skipInTitle)
			}
		case "related-article":
			// PMC marks a retracted work with "retraction-forward",
			// pointing to its notice: the work is removed. A notice
			// points back with "retracted-article" (or
			// "partial-retraction"): the notice is a document in its own
			// right, judged by its own licence (issue 13).
			switch strings.ToLower(t.attr(c, "related-article-type")) {
			case "retraction-forward":
				doc.Retracted = true
			case "retracted-article", "partial-retraction":
				if doc.Type == "" || doc.Type == "article" || doc.Type == "research-article" {
					doc.Type = "retraction"
				}
			}
		}
	}
	switch doc.Type {
	case "article":
		// bioRxiv and medRxiv label every preprint plain "article".
		if v := strings.ToLower(doc.Venue); v == "biorxiv" || v == "medrxiv" {
			doc.Type = "preprint"
		}
	}
	doc.Authors = p.authors(am)
	doc.Date, doc.Year = pubDate(t, am)
	doc.Abstract = abstract(t, am)
	doc.Keywords = keywords(t, am)
	doc.Subjects = subjects(t, am)
}

// frontEvidence appends the licence evidence of every article-meta (a
// malformed or hostile file may carry several) and front-stub directly
// under root, named by path.
func (p *parser) frontEvidence(a *article, t *tree, root int32, path string) {
	var nm, ns int
	for c := range t.elems(root) {
		switch t.nodes[c].local {
		case "article-meta":
			nm++
			a.evidence = licenceEvidence(a.evidence, t, c, indexed(path+"/article-meta", nm))
		case "front-stub":
			ns++
			a.evidence = licenceEvidence(a.evidence, t, c, indexed(path+"/front-stub", ns))
		}
	}
}

// skipInAff leaves labels, identifiers and contact details out of
// affiliation text.
func skipInAff(local string) bool {
	switch local {
	case "label", "sup", "institution-id", "email", "fn", "xref", "ext-link", "uri", "phone", "fax":
		return true
	}
	return false
}

// skipInName leaves footnote markers and nested member lists out of names.
func skipInName(local string) bool {
	switch local {
	case "contrib-group", "xref", "fn", "sup", "email", "contrib-id", "aff", "role", "address", "bio":
		return true
	}
	return false
}

// authors reads the byline: contrib-type="author" contributors of the
// article-meta contrib-groups (group members nested in a <collab> and
// "author non-byline" contributors are not bylined authors).
func (p *parser) authors(am int32) []ingest.Author {
	t := &p.front
	byID := map[string]string{}
	var shared []string // affiliations outside any contrib
	addAff := func(n int32) {
		text := affText(t, n)
		if text == "" {
			return
		}
		if id := t.attr(n, "id"); id != "" {
			if _, dup := byID[id]; !dup {
				byID[id] = text
			}
		}
		shared = appendUnique(shared, text)
	}
	for c := range t.elems(am) {
		switch t.nodes[c].local {
		case "aff", "aff-alternatives":
			addAff(c)
		case "contrib-group":
			for d := range t.elems(c) {
				if l := t.nodes[d].local; l == "aff" || l == "aff-alternatives" {
					addAff(d)
				}
			}
		}
	}
	var out []ingest.Author
	anyAff := false
	for cg := range t.elems(am) {
		if t.nodes[cg].local != "contrib-group" {
			continue
		}
		for c := range t.elems(cg) {
			if t.nodes[c].local != "contrib" {
				continue
			}
			if typ := t.attr(c, "contrib-type"); typ != "" && !strings.EqualFold(typ, "author") {
				continue
			}
			au := contributor(t, c, byID)
			if au.Name == "" {
				continue
			}
			anyAff = anyAff || len(au.Affiliations) > 0
			out = append(out, au)
		}
	}
	// Single-affiliation articles often list the <aff> without any xref:
	// then it belongs to every author.
	if !anyAff && len(shared) > 0 {
		for i := range out {
			out[i].Affiliations = append([]string(nil), shared...)
		}
	}
	return out
}

func contributor(t *tree, c int32, byID map[string]string) ingest.Author {
	var au ingest.Author
	for d := range t.elems(c) {
		switch t.nodes[d].local {
		case "name", "string-name":
			if au.Name == "" {
				setName(t, d, &au)
			}
		case "name-alternatives":
			for e := range t.elems(d) {
				if l := t.nodes[e].local; au.Name == "" && (l == "name" || l == "string-name") {
					setName(t, e, &au)
				}
			}
		case "collab":
			if au.Name == "" {
				au.Name = t.text(d, skipInName)
			}
		case "collab-alternatives":
			if au.Name == "" {
				au.Name = t.text(t.child(d, "collab"), skipInName)
			}
		case "contrib-id":
			if t.attrIs(d, "contrib-id-type", "orcid") && au.ORCID == "" {
				au.ORCID = ingest.NormaliseORCID(t.text(d, nil))
			}
		case "uri", "ext-link":
			if au.ORCID == "" && (t.attrIs(d, "content-type", "orcid") || t.attrIs(d, "ext-link-type", "orcid")) {
				v := t.attr(d, "href")
				if v == "" {
					v = t.text(d, nil)
				}
				au.ORCID = ingest.NormaliseORCID(v)
			}
		case "xref":
			if t.attrIs(d, "ref-type", "aff") {
				for _, id := range strings.Fields(t.attr(d, "rid")) {
					if text, ok := byID[id]; ok {
						au.Affiliations = appendUnique(au.Affiliations, text)
					}
				}
			}
		case "aff", "aff-alternatives":
			if text := affText(t, d); text != "" {
				au.Affiliations = appendUnique(au.Affiliations, text)
			}
		}
	}
	return au
}

// setName fills an author from <name> or <string-name>.
func setName(t *tree, n int32, au *ingest.Author) {
	family := t.text(t.child(n, "surname"), nil)
	given := t.text(t.child(n, "given-names"), nil)
	if family == "" && given == "" {
		au.Name = t.text(n, skipInName)
		return
	}
	au.Family, au.Given = family, given
	switch {
	case given == "":
		au.Name = family
	case family == "":
		au.Name = given
	case t.attrIs(n, "name-style", "eastern"):
		au.Name = family + " " + given
	default:
		au.Name = given + " " + family
	}
	if suffix := t.text(t.child(n, "suffix"), nil); suffix != "" {
		au.Name += " " + suffix
	}
}

// affText is an affiliation as one line, without its label.
func affText(t *tree, n int32) string {
	if t.is(n, "aff-alternatives") {
		n = t.child(n, "aff")
		if n == none {
			return ""
		}
	}
	// SciELO keeps the affiliation as printed beside the parsed parts.
	for c := range t.elems(n) {
		if t.is(c, "institution") && t.attrIs(c, "content-type", "original") {
			return trimList(t.text(c, nil))
		}
	}
	if t.hasOwnText(n) {
		return trimList(t.text(n, skipInAff))
	}
	// Only elements (institution, addr-line, country...): join the parts,
	// which the source writes without separators.
	var parts []string
	affParts(t, n, &parts)
	return strings.Join(parts, ", ")
}

func affParts(t *tree, n int32, parts *[]string) {
	for c := range t.elems(n) {
		if skipInAff(t.nodes[c].local) {
			continue
		}
		if t.hasOwnText(c) || t.nodes[c].first == none {
			if s := trimList(t.text(c, skipInAff)); s != "" {
				*parts = append(*parts, s)
			}
			continue
		}
		affParts(t, c, parts)
	}
}

// trimList trims space and list punctuation from both ends.
func trimList(s string) string { return strings.Trim(s, " ,;") }

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// Publication dates.

type date struct{ y, m, d int }

func (d date) precision() int {
	switch {
	case d.d > 0:
		return 3
	case d.m > 0:
		return 2
	}
	return 1
}

func (d date) String() string {
	switch d.precision() {
	case 3:
		return fmt.Sprintf("%04d-%02d-%02d", d.y, d.m, d.d)
	case 2:
		return fmt.Sprintf("%04d-%02d", d.y, d.m)
	}
	return fmt.Sprintf("%04d", d.y)
}

func (d date) before(o date) bool {
	if d.y != o.y {
		return d.y < o.y
	}
	if d.m != o.m {
		return d.m < o.m
	}
	return d.d < o.d
}

// Date classes, best first.
const (
	dateElectronic = iota // epub, epub-ppub, electronic pub/publication
	datePrint             // ppub, pub without format
	dateCollection        // the issue
	dateOther
	dateRelease // pmc-release: when PMC made it public, often after an embargo
	dateIgnored
)

// pubDate picks the publication date: the most precise one, preferring
// electronic over print over issue dates and, among equals, the earliest.
// A pmc-release date counts only when nothing else is given.
func pubDate(t *tree, am int32) (string, int) {
	var best date
	bestClass, found := 0, false
	for c := range t.elems(am) {
		if !t.is(c, "pub-date") {
			continue
		}
		d, ok := parseDate(t, c)
		if !ok {
			continue
		}
		cls := dateClass(t, c)
		if cls == dateIgnored {
			continue
		}
		if !found || better(d, cls, best, bestClass) {
			best, bestClass, found = d, cls, true
		}
	}
	if !found {
		return "", 0
	}
	return best.String(), best.y
}

func better(d date, cls int, best date, bestCls int) bool {
	if (cls == dateRelease) != (bestCls == dateRelease) {
		return bestCls == dateRelease
	}
	if d.precision() != best.precision() {
		return d.precision() > best.precision()
	}
	if cls != bestCls {
		return cls < bestCls
	}
	return d.before(best)
}

func dateClass(t *tree, n int32) int {
	typ := strings.ToLower(t.attr(n, "pub-type"))
	if typ == "" {
		typ = strings.ToLower(t.attr(n, "date-type"))
	}
	format := strings.ToLower(t.attr(n, "publication-format"))
	switch typ {
	case "epub", "epub-ppub", "epreprint", "preprint":
		return dateElectronic
	case "ppub":
		return datePrint
	case "collection":
		return dateCollection
	case "pmc-release":
		return dateRelease
	case "", "pub", "publication":
		switch format {
		case "electronic":
			return dateElectronic
		case "print":
			return datePrint
		}
		return datePrint
	case "received", "accepted", "rev-recd", "rev-request", "corrected", "retracted",
		"nihms-submitted", "manuscript", "updated":
		return dateIgnored
	}
	return dateOther
}

func parseDate(t *tree, n int32) (date, bool) {
	var d date
	d.y = atoi(t.text(t.child(n, "year"), nil))
	d.m = month(t.text(t.child(n, "month"), nil))
	d.d = atoi(t.text(t.child(n, "day"), nil))
	if d.y == 0 {
		if iso := t.attr(n, "iso-8601-date"); iso != "" {
			parts := strings.SplitN(iso, "-", 3)
			d.y = atoi(parts[0])
			if len(parts) > 1 {
				d.m = atoi(parts[1])
			}
			if len(parts) > 2 {
				d.d = atoi(parts[2])
			}
		}
	}
	if d.y < 1000 || d.y > 2999 {
		return date{}, false
	}
	if d.m < 1 || d.m > 12 {
		d.m, d.d = 0, 0
	}
	if d.d > 0 {
		if tm := time.Date(d.y, time.Month(d.m), d.d, 0, 0, 0, 0, time.UTC); tm.Day() != d.d {
			d.d = 0
		}
	} else {
		d.d = 0
	}
	return d, true
}

func atoi(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

var months = map[string]int{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}

func month(s string) int {
	if n := atoi(s); n > 0 {
		return n
	}
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) >= 3 {
		return months[s[:3]]
	}
	return 0
}

// abstract returns the main abstract as plain text, paragraphs separated by
// a blank line: the first <abstract> without an abstract-type, else the
// first that is not graphical (or a table-of-contents blurb).
func abstract(t *tree, am int32) string {
	chosen, fallback := none, none
	for c := range t.elems(am) {
		if !t.is(c, "abstract") {
			continue
		}
		switch typ := strings.ToLower(t.attr(c, "abstract-type")); typ {
		case "":
			chosen = c
		case "graphical", "toc":
		default:
			if fallback == none {
				fallback = c
			}
		}
		if chosen != none {
			break
		}
	}
	if chosen == none {
		chosen = fallback
	}
	if chosen == none {
		return ""
	}
	var paras []string
	abstractParas(t, chosen, &paras)
	return strings.Join(paras, "\n\n")
}

func skipInAbstract(local string) bool {
	switch local {
	case "fig", "table-wrap", "graphic", "media", "supplementary-material", "tex-math",
		"annotation", "object-id", "inline-graphic", "fn", "disp-formula":
		return true
	}
	return false
}

func abstractParas(t *tree, n int32, paras *[]string) {
	if t.hasOwnText(n) {
		// An abstract written as bare text.
		if s := t.text(n, func(l string) bool { return l == "title" || l == "label" || skipInAbstract(l) }); s != "" {
			*paras = append(*paras, s)
		}
		return
	}
	for c := range t.elems(n) {
		switch l := t.nodes[c].local; {
		case l == "title" || l == "label" || skipInAbstract(l):
		case l == "sec":
			// Structured abstract: "Background: ..." per section.
			title := t.text(t.child(c, "title"), skipInTitle)
			start := len(*paras)
			abstractParas(t, c, paras)
			if title != "" && len(*paras) > start {
				sep := ": "
				if strings.HasSuffix(title, ":") || strings.HasSuffix(title, ".") {
					sep = " "
				}
				(*paras)[start] = title + sep + (*paras)[start]
			}
		default:
			if s := t.text(c, skipInAbstract); s != "" {
				*paras = append(*paras, s)
			}
		}
	}
}

// keywords returns every kwd of every kwd-group (all languages and group
// types), deduplicated without regard to case.
func keywords(t *tree, am int32) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		k := strings.ToLower(s)
		if s != "" && !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	for g := range t.elems(am) {
		if !t.is(g, "kwd-group") {
			continue
		}
		for k := range t.elems(g) {
			switch t.nodes[k].local {
			case "kwd", "compound-kwd":
				add(t.text(k, nil))
			case "nested-kwd":
				for kk := range t.elems(k) {
					if t.is(kk, "kwd") {
						add(t.text(kk, nil))
					}
				}
			}
		}
	}
	return out
}

// subjects returns the article-categories subjects that name a topic.
// Groups that only say what kind of article this is (eLife display
// channels, author-type) are left out, and so are heading values that are
// genre labels ("Research Article", "Carta ao Editor"): publishers use the
// "heading" type for both, eLife for its subject areas.
func subjects(t *tree, am int32) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(g int32)
	walk = func(g int32) {
		switch strings.ToLower(t.attr(g, "subj-group-type")) {
		case "display-channel", "author-type", "article-type", "toc-heading":
			return
		}
		for c := range t.elems(g) {
			switch t.nodes[c].local {
			case "subject":
				s := t.text(c, nil)
				k := strings.ToLower(s)
				if s != "" && !genre[k] && !seen[k] {
					seen[k] = true
					out = append(out, s)
				}
			case "subj-group":
				walk(c)
			}
		}
	}
	for g := range t.elems(t.child(am, "article-categories")) {
		if t.is(g, "subj-group") {
			walk(g)
		}
	}
	return out
}

// genre lists subject values that are article genres, not topics (lower
// case), as seen in PMC, PLOS, eLife, bioRxiv, F1000 and SciELO files.
var genre = map[string]bool{
	"article": true, "articles": true, "research article": true, "research articles": true,
	"research": true, "research paper": true, "research papers": true, "original article": true,
	"original articles": true, "original research": true, "original paper": true,
	"scientific articles": true, "regular article": true, "review": true, "reviews": true,
	"review article": true, "review articles": true, "mini review": true, "minireview": true,
	"systematic review": true, "editorial": true, "editorials": true, "commentary": true,
	"perspective": true, "perspectives": true, "opinion": true, "opinion article": true,
	"letter": true, "letters": true, "letter to the editor": true, "correspondence": true,
	"correspondence and other communications": true, "correction": true, "corrections": true,
	"erratum": true, "errata": true, "retraction": true, "retraction notice": true,
	"expression of concern": true, "brief report": true, "brief communication": true,
	"short communication": true, "short report": true, "rapid communication": true,
	"case report": true, "case reports": true, "research note": true, "technical note": true,
	"method": true, "methods": true, "methods article": true, "book review": true, "news": true,
	"insight": true, "feature": true, "feature article": true, "synopsis": true,
	"new results": true, "confirmatory results": true, "contradictory results": true,
	"primer": true, "essay": true, "addendum": true, "obituary": true, "interview": true,
	"carta ao editor": true, "carta al editor": true, "cartas": true, "artigo original": true,
	"artigos originais": true, "artículo original": true, "artículos originales": true,
	"artigo de revisão": true, "artículo de revisión": true, "comunicação breve": true,
	"comunicación breve": true, "editorial/editorial": true, "resenha": true, "reseña": true,
}
