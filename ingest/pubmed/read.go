package pubmed

import (
	"bufio"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/openshelf/openshelf/ingest/internal/clean"
	"github.com/openshelf/openshelf/ingest/internal/limit"
	"github.com/openshelf/openshelf/ingest/internal/lines"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
)

// Source is the Document.Sources entry of every record this package reads.
const Source = "pubmed"

// Read streams PubMed XML from r and reports every record to sink: one
// Document per PubmedArticle or PubmedBookArticle, one Deletion per PMID in
// a DeleteCitation block, and a Problem for each record or file it cannot
// read. origin names the input in Problems and Document.Origin.
//
// Malformed content never makes Read fail: it is reported as a Problem and,
// when the XML itself is broken, ends the file. Read returns an error only
// when reading r fails, when sink returns one, or when ctx is done; sink
// errors and ctx errors are returned wrapped, so errors.Is works on them.
func Read(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error {
	in := &lines.ErrReader{R: r}
	src, err := lines.MaybeGunzip(in)
	if err != nil {
		if in.Err != nil {
			return fmt.Errorf("pubmed: reading %s: %w", origin, in.Err)
		}
		sink.Problem(ingest.Problem{Path: origin, Reason: "pubmed: bad gzip stream: " + err.Error()})
		return nil
	}
	// One article (or book article, or DeleteCitation) may take at most
	// limit.RecordBytes of input: the decoder never holds more.
	budget := &limit.Budget{R: src, Max: limit.RecordBytes}
	d := xml.NewDecoder(budget)
	d.Strict = true
	// PubMed uses numeric character references, but hand-made and older
	// files use HTML names (&nbsp;); accept them rather than lose the file.
	d.Entity = xml.HTMLEntity
	d.CharsetReader = charsetReader

	rd := &reader{origin: origin, sink: sink, now: time.Now()}
	inSet := false
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("pubmed: %s: %w", origin, err)
		}
		line, _ := d.InputPos()
		budget.Reset()
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return rd.broken(in, d, err)
		}
		switch tok := tok.(type) {
		case xml.EndElement:
			if tok.Name.Local == "PubmedArticleSet" {
				inSet = false
			}
		case xml.StartElement:
			switch tok.Name.Local {
			case "PubmedArticleSet":
				inSet = true
			case "PubmedArticle":
				var a pubmedArticle
				if err := d.DecodeElement(&a, &tok); err != nil {
					return rd.broken(in, d, err)
				}
				if err := rd.emit(rd.article(&a), line); err != nil {
					return err
				}
			case "PubmedBookArticle":
				var b pubmedBookArticle
				if err := d.DecodeElement(&b, &tok); err != nil {
					return rd.broken(in, d, err)
				}
				if err := rd.emit(rd.book(&b), line); err != nil {
					return err
				}
			case "DeleteCitation":
				var del deleteCitation
				if err := d.DecodeElement(&del, &tok); err != nil {
					return rd.broken(in, d, err)
				}
				if err := rd.deletes(&del, line); err != nil {
					return err
				}
			default:
				if !inSet {
					// A root element PubMed does not have: the file is
					// something else (JATS, HTML...). Say so once and stop.
					sink.Problem(ingest.Problem{Path: origin, Record: "line " + strconv.Itoa(line),
						Reason: fmt.Sprintf("pubmed: not PubMed XML: unexpected element <%s>", tok.Name.Local)})
					return nil
				}
				// Unknown children of the set (future DTD additions).
				if err := d.Skip(); err != nil {
					return rd.broken(in, d, err)
				}
			}
		}
	}
}

type reader struct {
	origin string
	sink   ingest.Sink
	now    time.Time
}

// broken reports a decoding error: an I/O error of the underlying reader is
// returned, anything else (malformed XML, bad gzip data) becomes a Problem
// that ends the file, because XML cannot be resynchronised reliably.
func (rd *reader) broken(in *lines.ErrReader, d *xml.Decoder, err error) error {
	if in.Err != nil {
		return fmt.Errorf("pubmed: reading %s: %w", rd.origin, in.Err)
	}
	line, _ := d.InputPos()
	reason := "pubmed: malformed XML: " + err.Error()
	if errors.Is(err, limit.ErrTooLarge) || errors.Is(err, limit.ErrBomb) {
		// XML cannot be resynchronised: the rest of the file is lost.
		reason = "pubmed: " + err.Error() + "; the rest of the file is not read"
	}
	rd.sink.Problem(ingest.Problem{Path: rd.origin, Record: "line " + strconv.Itoa(line), Reason: reason})
	return nil
}

// emit assigns ids and hands doc to the sink; a record without any id is a
// Problem.
func (rd *reader) emit(doc *ingest.Document, line int) error {
	if !doc.AssignIDs() {
		rd.sink.Problem(ingest.Problem{Path: rd.origin, Record: "line " + strconv.Itoa(line),
			Reason: "pubmed: record has no usable PMID, DOI or PMC id"})
		return nil
	}
	if err := rd.sink.Document(doc); err != nil {
		return fmt.Errorf("pubmed: %s: %s: %w", rd.origin, doc.ID, err)
	}
	return nil
}

func (rd *reader) deletes(del *deleteCitation, line int) error {
	for _, p := range del.PMIDs {
		pmid := ingest.NormalisePMID(p)
		if pmid == "" {
			rd.sink.Problem(ingest.Problem{Path: rd.origin, Record: "line " + strconv.Itoa(line),
				Reason: fmt.Sprintf("pubmed: DeleteCitation with bad PMID %q", strings.TrimSpace(p))})
			continue
		}
		if err := rd.sink.Delete(ingest.Deletion{ID: "pmid-" + pmid, Origin: rd.origin}); err != nil {
			return fmt.Errorf("pubmed: %s: delete pmid-%s: %w", rd.origin, pmid, err)
		}
	}
	return nil
}

func (rd *reader) article(a *pubmedArticle) *ingest.Document {
	c := &a.Citation
	art := &c.Art
	doc := &ingest.Document{
		PMID:    ingest.NormalisePMID(c.PMID),
		Venue:   string(art.Journal.Title),
		Updated: c.Revised.time(),
		Sources: []string{Source},
		Origin:  rd.origin,
	}
	if doc.Venue == "" {
		doc.Venue = string(art.Journal.ISOAbbr)
	}
	// The article's own ids live in PubmedData/ArticleIdList; reference
	// lists carry ArticleIdLists too, which the model keeps apart.
	setIDs(doc, a.Data.IDs)
	if doc.DOI == "" {
		for _, e := range art.ELocationIDs {
			if strings.EqualFold(e.Type, "doi") && !strings.EqualFold(e.Valid, "N") {
				if doi := ingest.NormaliseDOI(e.Value); doi != "" {
					doc.DOI = doi
					break
				}
			}
		}
	}
	doc.Title = title(art.Title, art.VernacularTitle)
	doc.Authors = authors(art.Authors)
	doc.Date, doc.Year = pubDate(art.ArticleDates, art.Journal.PubDate)
	if len(art.Languages) > 0 {
		doc.Language = language(art.Languages[0])
	}
	doc.Abstract = abstractString(art.Abstract)
	if doc.Abstract == "" {
		for _, o := range c.OtherAbstract {
			if doc.Abstract = abstractString(o); doc.Abstract != "" {
				break
			}
		}
	}
	for _, k := range c.Keywords {
		doc.Keywords = append(doc.Keywords, string(k))
	}
	doc.Keywords = clean.Dedupe(doc.Keywords)
	for _, m := range c.Mesh {
		doc.Subjects = append(doc.Subjects, string(m.Descriptor))
	}
	doc.Subjects = clean.Dedupe(doc.Subjects)

	var retracted, notice bool
	doc.Type, retracted, notice = pubType(art.PubTypes)
	for _, cc := range c.Comments {
		switch cc.RefType {
		case "RetractionIn":
			retracted = true
		case "RetractionOf":
			notice = true
		}
	}
	if notice {
		doc.Type = "retraction"
	}
	doc.Retracted = retracted

	doc.References = references(a.Data.References, nil, 0)
	doc.Licence = licence.Decide(evidence(art.Abstract, c.OtherAbstract), rd.now)
	return doc
}

func (rd *reader) book(b *pubmedBookArticle) *ingest.Document {
	bd := &b.Doc
	doc := &ingest.Document{
		PMID:      ingest.NormalisePMID(bd.PMID),
		Publisher: string(bd.Book.Publisher),
		Updated:   bd.Revised.time(),
		Sources:   []string{Source},
		Origin:    rd.origin,
	}
	setIDs(doc, bd.IDs)
	setIDs(doc, b.Data.IDs)
	doc.Title = title(bd.Title, bd.Vern)
	doc.Type = "book-chapter"
	if doc.Title == "" {
		doc.Title = string(bd.Book.Title)
		doc.Type = "book"
	} else {
		doc.Venue = string(bd.Book.Title)
	}
	// Chapter authors first; a whole book may only list its authors (or
	// editors) under Book.
	for _, lists := range [][]authorList{bd.AuthorLists, bd.Book.AuthorLists} {
		for _, l := range lists {
			if l.Type == "" || strings.EqualFold(l.Type, "authors") {
				doc.Authors = append(doc.Authors, authors(l.Authors)...)
			}
		}
		if len(doc.Authors) > 0 {
			break
		}
	}
	doc.Date, doc.Year = pubDate(nil, bd.Book.PubDate)
	if len(bd.Language) > 0 {
		doc.Language = language(bd.Language[0])
	}
	doc.Abstract = abstractString(bd.Abstract)
	for _, k := range bd.Keywords {
		doc.Keywords = append(doc.Keywords, string(k))
	}
	doc.Keywords = clean.Dedupe(doc.Keywords)
	t, retracted, notice := pubType(bd.PubTypes)
	if t != "" && t != "research-article" {
		doc.Type = t
	}
	if notice {
		doc.Type = "retraction"
	}
	doc.Retracted = retracted
	doc.Licence = licence.Decide(evidence(bd.Abstract, nil), rd.now)
	return doc
}

// setIDs fills the DOI and PMC id (and a missing PMID) from an ArticleIdList.
func setIDs(doc *ingest.Document, ids []articleID) {
	for _, id := range ids {
		switch strings.ToLower(id.Type) {
		case "doi":
			if doc.DOI == "" {
				doc.DOI = ingest.NormaliseDOI(id.Value)
			}
		case "pmc":
			if doc.PMCID == "" {
				doc.PMCID = ingest.NormalisePMCID(id.Value)
			}
		case "pubmed":
			if doc.PMID == "" {
				doc.PMID = ingest.NormalisePMID(id.Value)
			}
		}
	}
}

// title prefers ArticleTitle; records of non-English articles without an
// English title say "[Not Available]." and carry the VernacularTitle.
func title(t, vernacular text) string {
	s := string(t)
	if s == "" || strings.EqualFold(s, "[Not Available].") || strings.EqualFold(s, "[Not Available]") {
		return string(vernacular)
	}
	return s
}

func authors(list []author) []ingest.Author {
	var out []ingest.Author
	for _, a := range list {
		// ValidYN="N" marks a misspelt name kept for the record; the
		// corrected spelling is listed separately.
		if strings.EqualFold(a.Valid, "N") {
			continue
		}
		au := ingest.Author{Family: string(a.LastName), Given: string(a.ForeName)}
		if au.Given == "" {
			au.Given = string(a.Initials)
		}
		switch {
		case au.Family != "":
			au.Name = strings.TrimSpace(au.Given + " " + au.Family)
			if a.Suffix != "" {
				au.Name += " " + string(a.Suffix)
			}
		case a.CollectiveName != "":
			au.Name = string(a.CollectiveName)
			au.Given = ""
		default:
			continue
		}
		for _, id := range a.Identifiers {
			if strings.EqualFold(id.Source, "ORCID") {
				if o := ingest.NormaliseORCID(id.Value); o != "" {
					au.ORCID = o
					break
				}
			}
		}
		for _, aff := range a.Affiliations {
			au.Affiliations = append(au.Affiliations, string(aff))
		}
		au.Affiliations = clean.Dedupe(au.Affiliations)
		out = append(out, au)
	}
	return out
}

// pubDate picks the electronic publication date (ArticleDate, exact to
// the day) when present, else the PubDate, else its MedlineDate.
func pubDate(articleDates []date, pub *date) (string, int) {
	for _, d := range articleDates {
		if s, y := d.iso(); s != "" {
			return s, y
		}
	}
	if pub != nil {
		return pub.iso()
	}
	return "", 0
}

// iso renders d as YYYY, YYYY-MM or YYYY-MM-DD, as precise as it is.
func (d *date) iso() (string, int) {
	y := atoi(strings.TrimSpace(d.Year))
	if y < 1000 || y > 9999 {
		return medlineDate(d.MedlineDate)
	}
	m := month(d.Month)
	if m == 0 {
		return strconv.Itoa(y), y
	}
	day := atoi(strings.TrimSpace(d.Day))
	if day < 1 || day > 31 {
		return fmt.Sprintf("%04d-%02d", y, m), y
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, day), y
}

// time is the day d names, at midnight UTC: DateRevised, which tells
// a revised citation in an update file from the one it replaces. It is the
// zero time when d is nil or not a full date.
func (d *date) time() time.Time {
	if d == nil {
		return time.Time{}
	}
	y, m, day := atoi(strings.TrimSpace(d.Year)), month(d.Month), atoi(strings.TrimSpace(d.Day))
	if y < 1000 || y > 9999 || m == 0 || day < 1 || day > 31 {
		return time.Time{}
	}
	return time.Date(y, time.Month(m), day, 0, 0, 0, 0, time.UTC)
}

// medlineDate reads the start of a free-text MedlineDate: "1998 Dec-1999
// Jan" is 1998-12, "2018 May - Jun" 2018-05, "1947-1948" and "1976 Fall"
// just the year.
func medlineDate(s string) (string, int) {
	s = strings.TrimSpace(s)
	i := 0
	for i+4 <= len(s) {
		if y := atoi(s[i : i+4]); y >= 1000 && (i == 0 || !startsWithDigit(s[i-1:])) && !startsWithDigit(s[i+4:]) {
			rest := strings.TrimSpace(s[i+4:])
			if m := month(leadingWord(rest)); m > 0 && !startsWithDigit(rest) {
				return fmt.Sprintf("%04d-%02d", y, m), y
			}
			return strconv.Itoa(y), y
		}
		i++
	}
	return "", 0
}

func leadingWord(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return s[:i]
		}
	}
	return s
}

func startsWithDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// abstractString joins the paragraphs of an abstract, one per line, with
// their labels ("METHODS: ...") when the abstract is structured.
func abstractString(a abstract) string {
	var parts []string
	for _, t := range a.Texts {
		if t.Text == "" {
			continue
		}
		if t.Label != "" && !strings.EqualFold(t.Label, "UNLABELLED") {
			parts = append(parts, t.Label+": "+t.Text)
		} else {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// evidence is all PubMed can say about rights: the publisher's copyright
// statement on the abstract. It never licenses reuse.
func evidence(main abstract, other []abstract) []licence.Evidence {
	var ev []licence.Evidence
	add := func(s text, path string) {
		if s != "" {
			ev = append(ev, licence.Evidence{Kind: licence.KindPubMedCopyright, Source: licence.SourcePubMed, Value: string(s), Path: path})
		}
	}
	add(main.Copyright, "Abstract/CopyrightInformation")
	for i, o := range other {
		add(o.Copyright, "OtherAbstract["+strconv.Itoa(i+1)+"]/CopyrightInformation")
	}
	return ev
}

// pubTypes maps PubMed publication types to document types; the first
// match in this order wins, so a "Review" that is also a "Journal Article"
// is a review.
var pubTypes = []struct{ pubmed, doc string }{
	{"Retraction of Publication", "retraction"},
	{"Published Erratum", "correction"},
	{"Expression of Concern", "expression-of-concern"},
	{"Preprint", "preprint"},
	{"Editorial", "editorial"},
	{"Letter", "letter"},
	{"Comment", "comment"},
	{"News", "news"},
	{"Systematic Review", "review"},
	{"Meta-Analysis", "review"},
	{"Review", "review"},
	{"Practice Guideline", "guideline"},
	{"Guideline", "guideline"},
	{"Case Reports", "case-report"},
	{"Biography", "biography"},
	{"Congress", "conference-paper"},
	{"Journal Article", "research-article"},
}

// pubType returns the document type and whether the record is a retracted
// work or a retraction notice.
func pubType(types []string) (typ string, retracted, notice bool) {
	for _, t := range types {
		switch strings.TrimSpace(t) {
		case "Retracted Publication":
			retracted = true
		case "Retraction of Publication":
			notice = true
		}
	}
	for _, m := range pubTypes {
		for _, t := range types {
			if strings.EqualFold(strings.TrimSpace(t), m.pubmed) {
				return m.doc, retracted, notice
			}
		}
	}
	if len(types) > 0 {
		t := strings.ToLower(clean.Collapse(types[0]))
		return strings.ReplaceAll(t, " ", "-"), retracted, notice
	}
	return "", retracted, notice
}

// references flattens ReferenceList (and nested lists) into raw citations
// with the ids PubMed resolved for them.
func references(lists []referenceList, out []ingest.Reference, depth int) []ingest.Reference {
	if depth > 3 {
		return out
	}
	for _, l := range lists {
		for _, r := range l.References {
			ref := ingest.Reference{Raw: string(r.Citation)}
			for _, id := range r.IDs {
				switch strings.ToLower(id.Type) {
				case "doi":
					if ref.DOI == "" {
						ref.DOI = ingest.NormaliseDOI(id.Value)
					}
				case "pubmed":
					if ref.PMID == "" {
						ref.PMID = ingest.NormalisePMID(id.Value)
					}
				}
			}
			if ref.Raw != "" || ref.DOI != "" || ref.PMID != "" {
				out = append(out, ref)
			}
		}
		out = references(l.Lists, out, depth+1)
	}
	return out
}

// charsetReader accepts the encodings PubMed files declare. Latin-1 is
// converted; anything else is refused, which reports the file as a Problem.
func charsetReader(charset string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(charset)) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return input, nil
	case "iso-8859-1", "latin1", "latin-1", "l1":
		return &latin1Reader{r: bufio.NewReader(input)}, nil
	}
	return nil, fmt.Errorf("unsupported charset %q", charset)
}

// latin1Reader converts ISO-8859-1 bytes to UTF-8.
type latin1Reader struct {
	r       *bufio.Reader
	pending []byte
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(l.pending) > 0 {
			c := copy(p[n:], l.pending)
			l.pending = l.pending[c:]
			n += c
			continue
		}
		b, err := l.r.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if b < 0x80 {
			p[n] = b
			n++
			continue
		}
		l.pending = []byte(string(rune(b)))
	}
	return n, nil
}
