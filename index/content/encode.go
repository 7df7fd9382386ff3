package content

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrCorrupt reports a content file or record that does not decode.
var ErrCorrupt = errors.New("content: corrupt content store")

// Author is a document author as served.
type Author struct {
	Name         string
	ORCID        string
	Affiliations []string
}

// Document is part 0: the fields of a document response, rights included.
type Document struct {
	ID                             string
	Aliases                        []string
	DOI, PMID, PMCID, OpenAlex     string
	Title                          string
	Authors                        []Author
	Venue, Publisher               string
	Year                           int32
	Date, Type, Language, Abstract string
	Keywords, Topics, Sources      []string
	HasFulltext, HasReferences     bool
	License, LicenseVersion        string
	LicenseName, LicenseURL        string
	Attribution, CopyrightNotice   string
	ShareAlikeNotice               string
	// LicenseEvidence is the licence receipt, a JSON array of
	// licence.Receipt. It is encoded last: records written before it
	// existed decode with it empty.
	LicenseEvidence string
	// Merge is what a later build needs to merge the document again
	// from this store alone; the server does not serve it. Encoded after
	// LicenseEvidence: records written before it decode with it nil.
	Merge *MergeFields
}

// MergeFields are the fields of a published document that a delta build
// carries into the merger (package index) besides the served ones.
type MergeFields struct {
	Subjects []string
	// Given and Family are each author's name parts, in Authors' order.
	Given, Family []string
	Retracted     bool
	Origin        string
	// Updated is the source's update time in Unix microseconds (the
	// precision of documents.parquet), 0 when unknown.
	Updated int64
	// Evidence is the licence evidence as documents.parquet stores it
	// (a JSON array of licence.Evidence).
	Evidence string
	// Tables are the full text's tables (a JSON array of ingest.Table,
	// "" for none), which no table of the snapshot keeps and whose
	// statements the specs table holds.
	Tables string
}

// Section is one full-text section, in document order (depth first); Parent
// is the index of its parent section, -1 at the top.
type Section struct {
	Parent     int32
	Title      string
	Paragraphs []string
}

// Reference is one parsed reference; its ordinal is its index.
type Reference struct {
	Label                                                     string
	Authors                                                   []string
	Title, Source, Year, Volume, Issue, Pages, DOI, PMID, Raw string
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// AppendDocument appends the encoding of d to b.
func AppendDocument(b []byte, d *Document) []byte {
	b = appendString(b, d.ID)
	b = appendStrings(b, d.Aliases)
	for _, s := range []string{d.DOI, d.PMID, d.PMCID, d.OpenAlex, d.Title} {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(d.Authors)))
	for _, a := range d.Authors {
		b = appendString(b, a.Name)
		b = appendString(b, a.ORCID)
		b = appendStrings(b, a.Affiliations)
	}
	b = appendString(b, d.Venue)
	b = appendString(b, d.Publisher)
	b = binary.AppendVarint(b, int64(d.Year))
	for _, s := range []string{d.Date, d.Type, d.Language, d.Abstract} {
		b = appendString(b, s)
	}
	b = appendStrings(b, d.Keywords)
	b = appendStrings(b, d.Topics)
	b = appendStrings(b, d.Sources)
	b = appendBool(b, d.HasFulltext)
	b = appendBool(b, d.HasReferences)
	for _, s := range []string{d.License, d.LicenseVersion, d.LicenseName, d.LicenseURL, d.Attribution,
		d.CopyrightNotice, d.ShareAlikeNotice, d.LicenseEvidence} {
		b = appendString(b, s)
	}
	if m := d.Merge; m != nil {
		b = appendStrings(b, m.Subjects)
		b = appendStrings(b, m.Given)
		b = appendStrings(b, m.Family)
		b = appendBool(b, m.Retracted)
		b = appendString(b, m.Origin)
		b = binary.AppendVarint(b, m.Updated)
		b = appendString(b, m.Evidence)
		b = appendString(b, m.Tables)
	}
	return b
}

// AppendSections appends the encoding of secs to b.
func AppendSections(b []byte, secs []Section) []byte {
	b = binary.AppendUvarint(b, uint64(len(secs)))
	for _, s := range secs {
		b = binary.AppendVarint(b, int64(s.Parent))
		b = appendString(b, s.Title)
		b = appendStrings(b, s.Paragraphs)
	}
	return b
}

// AppendReferences appends the encoding of refs to b.
func AppendReferences(b []byte, refs []Reference) []byte {
	b = binary.AppendUvarint(b, uint64(len(refs)))
	for _, r := range refs {
		b = appendString(b, r.Label)
		b = appendStrings(b, r.Authors)
		for _, s := range []string{r.Title, r.Source, r.Year, r.Volume, r.Issue, r.Pages, r.DOI, r.PMID, r.Raw} {
			b = appendString(b, s)
		}
	}
	return b
}

// decoder reads an encoded part; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: bad %s", ErrCorrupt, what)
	}
	d.b = nil
}

func (d *decoder) uvarint(what string) uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int32(what string) int32 {
	v, n := binary.Varint(d.b)
	if n <= 0 || v < math.MinInt32 || v > math.MaxInt32 {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return int32(v)
}

func (d *decoder) int64(what string) int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string(what string) string {
	n := d.uvarint(what)
	if n > uint64(len(d.b)) {
		d.fail(what)
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// count reads a list length; every element takes at least min bytes, so a
// length the remaining bytes cannot hold is corrupt (and allocates nothing).
func (d *decoder) count(what string, min int) int {
	n := d.uvarint(what)
	if n > uint64(len(d.b)/min) {
		d.fail(what)
		return 0
	}
	return int(n)
}

func (d *decoder) strings(what string) []string {
	n := d.count(what, 1)
	out := make([]string, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, d.string(what))
	}
	return out
}

func (d *decoder) bool(what string) bool {
	if len(d.b) == 0 || d.b[0] > 1 {
		d.fail(what)
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

func (d *decoder) done(what string) error {
	if d.err == nil && len(d.b) != 0 {
		d.fail(what + " (trailing bytes)")
	}
	return d.err
}

// DecodeDocument decodes part 0. Lists are never nil.
func DecodeDocument(b []byte) (*Document, error) {
	d := &decoder{b: b}
	doc := &Document{ID: d.string("id"), Aliases: d.strings("aliases"), DOI: d.string("doi"), PMID: d.string("pmid"),
		PMCID: d.string("pmcid"), OpenAlex: d.string("openalex"), Title: d.string("title")}
	n := d.count("authors", 3)
	doc.Authors = make([]Author, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		doc.Authors = append(doc.Authors, Author{Name: d.string("author"), ORCID: d.string("orcid"),
			Affiliations: d.strings("affiliations")})
	}
	doc.Venue, doc.Publisher = d.string("venue"), d.string("publisher")
	doc.Year = d.int32("year")
	doc.Date, doc.Type, doc.Language, doc.Abstract = d.string("date"), d.string("type"), d.string("language"), d.string("abstract")
	doc.Keywords, doc.Topics, doc.Sources = d.strings("keywords"), d.strings("topics"), d.strings("sources")
	doc.HasFulltext, doc.HasReferences = d.bool("has_fulltext"), d.bool("has_references")
	doc.License, doc.LicenseVersion, doc.LicenseName = d.string("license"), d.string("license_version"), d.string("license_name")
	doc.LicenseURL, doc.Attribution = d.string("license_url"), d.string("attribution")
	doc.CopyrightNotice, doc.ShareAlikeNotice = d.string("copyright_notice"), d.string("share_alike_notice")
	if d.err == nil && len(d.b) > 0 {
		doc.LicenseEvidence = d.string("license_evidence")
	}
	if d.err == nil && len(d.b) > 0 {
		doc.Merge = &MergeFields{Subjects: d.strings("subjects"), Given: d.strings("given"), Family: d.strings("family"),
			Retracted: d.bool("retracted"), Origin: d.string("origin"), Updated: d.int64("updated"),
			Evidence: d.string("evidence")}
		if d.err == nil && len(d.b) > 0 { // records written before Tables have none
			doc.Merge.Tables = d.string("tables")
		}
	}
	if err := d.done("document"); err != nil {
		return nil, err
	}
	return doc, nil
}

// DecodeSections decodes part 1 (empty: no sections).
func DecodeSections(b []byte) ([]Section, error) {
	if len(b) == 0 {
		return nil, nil
	}
	d := &decoder{b: b}
	n := d.count("sections", 3)
	out := make([]Section, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, Section{Parent: d.int32("parent"), Title: d.string("section title"),
			Paragraphs: d.strings("paragraphs")})
	}
	if err := d.done("sections"); err != nil {
		return nil, err
	}
	return out, nil
}

// DecodeReferences decodes part 2 (empty: no references).
func DecodeReferences(b []byte) ([]Reference, error) {
	if len(b) == 0 {
		return nil, nil
	}
	d := &decoder{b: b}
	n := d.count("references", 11)
	out := make([]Reference, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, Reference{Label: d.string("label"), Authors: d.strings("ref authors"),
			Title: d.string("ref title"), Source: d.string("source"), Year: d.string("ref year"),
			Volume: d.string("volume"), Issue: d.string("issue"), Pages: d.string("pages"),
			DOI: d.string("ref doi"), PMID: d.string("ref pmid"), Raw: d.string("raw")})
	}
	if err := d.done("references"); err != nil {
		return nil, err
	}
	return out, nil
}
