package index

import (
	"fmt"

	"github.com/openshelf/openshelf/index/content"
	"github.com/openshelf/openshelf/snapshot"
)

// contentTable writes content/docs.bin (package content): the paid
// content of each published document, from the very rows written to
// documents, fulltext and references.parquet, so the read server serves
// it with positioned reads instead of a Parquet query. Sections and
// references are collected as the builder writes their rows; add writes
// the document's record after its documents row.
//
// Encoding and compressing the records runs in a goroutine of its own, fed
// through a short queue (as the tables' pages are, see table): it is as
// much work as compressing the full-text table, and the builder's
// goroutine is the one every document goes through.
type contentTable struct {
	out  *hashFile
	w    *content.Writer
	secs []content.Section
	refs []content.Reference
	docs int64
	ops  *worker[contentOp] // encodes and writes the records, in order
}

// contentOp is one document for the content goroutine.
type contentOp struct {
	d    *content.Document
	secs []content.Section
	refs []content.Reference
}

// contentQueue bounds the documents waiting for the content goroutine.
const contentQueue = 64

func newContentTable(dir string) (*contentTable, error) {
	out, err := createHashFile(dir, content.File)
	if err != nil {
		return nil, fmt.Errorf("index: create %s: %w", content.File, err)
	}
	w, err := content.NewWriter(out)
	if err != nil {
		out.abort()
		return nil, fmt.Errorf("index: %s: %w", content.File, err)
	}
	c := &contentTable{out: out, w: w}
	c.ops = newWorker(contentQueue, func(op contentOp) error {
		if err := w.Add(op.d, op.secs, op.refs); err != nil {
			return fmt.Errorf("index: %s: %w", content.File, err)
		}
		return nil
	})
	return c, nil
}

// section records a fulltext row of the document being added.
func (c *contentTable) section(r *sectionRow) {
	c.secs = append(c.secs, content.Section{Parent: r.Parent, Title: r.Title, Paragraphs: r.Paragraphs})
}

// expectReferences makes room for the n references of the document being
// added.
func (c *contentTable) expectReferences(n int) {
	if c.refs == nil && n > 0 {
		c.refs = make([]content.Reference, 0, n)
	}
}

// reference records a references row of the document being added.
func (c *contentTable) reference(r *referenceRow) {
	c.refs = append(c.refs, content.Reference{Label: r.Label, Authors: r.Authors, Title: r.Title, Source: r.Source,
		Year: r.Year, Volume: r.Volume, Issue: r.Issue, Pages: r.Pages, DOI: r.DOI, PMID: r.PMID, Raw: r.Raw})
}

// add writes the record of the document of row with the sections and
// references recorded since the last add.
func (c *contentTable) add(r *documentRow, receipts, tables string) error {
	d := &content.Document{ID: r.ID, Aliases: r.Aliases, DOI: r.DOI, PMID: r.PMID, PMCID: r.PMCID, OpenAlex: r.OpenAlex,
		Title: r.Title, Authors: make([]content.Author, 0, len(r.Authors)), Venue: r.Venue, Publisher: r.Publisher,
		Year: r.Year, Date: r.Date, Type: r.Type, Language: r.Language, Abstract: r.Abstract, Keywords: r.Keywords,
		Topics: r.Topics, Sources: r.Sources, HasFulltext: r.HasFulltext, HasReferences: r.HasReferences,
		License: r.License, LicenseVersion: r.LicenseVersion, LicenseName: r.LicenseName, LicenseURL: r.LicenseURL,
		Attribution: r.Attribution, CopyrightNotice: r.CopyrightNotice, ShareAlikeNotice: r.ShareAlikeNotice,
		LicenseEvidence: receipts}
	m := &content.MergeFields{Subjects: r.Subjects, Retracted: r.Retracted, Origin: r.Origin,
		Evidence: r.LicenceEvidence, Tables: tables, Given: make([]string, 0, len(r.Authors)), Family: make([]string, 0, len(r.Authors))}
	if r.Updated != nil {
		m.Updated = r.Updated.UnixMicro()
	}
	for _, a := range r.Authors {
		d.Authors = append(d.Authors, content.Author{Name: a.Name, ORCID: a.ORCID, Affiliations: a.Affiliations})
		m.Given, m.Family = append(m.Given, a.Given), append(m.Family, a.Family)
	}
	d.Merge = m
	// The goroutine owns the lists now; the next document gets new ones.
	if err := c.ops.send(contentOp{d: d, secs: c.secs, refs: c.refs}); err != nil {
		return err
	}
	c.secs, c.refs = nil, nil
	c.docs++
	return nil
}

func (c *contentTable) close() (snapshot.File, error) {
	if err := c.ops.stop(); err != nil {
		c.out.abort()
		return snapshot.File{}, err
	}
	if err := c.w.Close(); err != nil {
		c.out.abort()
		return snapshot.File{}, fmt.Errorf("index: %s: %w", content.File, err)
	}
	return c.out.close(c.docs)
}

func (c *contentTable) abort() {
	c.ops.stop()
	c.out.abort()
}
