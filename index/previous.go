package index

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/openshelf/openshelf/index/content"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/snapshot"
)

// readPrevious streams the documents of a snapshot, full text and
// references included, in id order. It reads documents, fulltext and
// references in lockstep: all three are sorted by id.
//
// A snapshot whose content stores keep what merging needs (all those a
// delta build can follow, deltaCapable) is read from them: its Parquet
// tables lack the full text's tables, from which the specs table's
// statements come.
func readPrevious(ctx context.Context, s *snapshot.Snapshot, fn func(*ingest.Document) error) (n int64, err error) {
	if deltaCapable(s) {
		return readContentStores(ctx, s, fn)
	}
	return readSnapshot(ctx, s, func(_ *documentRow, _ []sectionRow, d *ingest.Document) error { return fn(d) })
}

// readSnapshot is readPrevious giving also each document's row and its
// full-text rows (in ordinal order), valid only during the call.
func readSnapshot(ctx context.Context, s *snapshot.Snapshot,
	fn func(row *documentRow, sections []sectionRow, d *ingest.Document) error) (n int64, err error) {
	docs, err := snapshot.OpenRows[documentRow](s.Path(snapshot.Documents))
	if err != nil {
		return 0, err
	}
	defer docs.Close()
	secs, err := snapshot.OpenRows[sectionRow](s.Path(snapshot.Fulltext))
	if err != nil {
		return 0, err
	}
	defer secs.Close()
	refs, err := snapshot.OpenRows[referenceRow](s.Path(snapshot.References))
	if err != nil {
		return 0, err
	}
	defer refs.Close()

	var rows []sectionRow
	for {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return n, err
			}
		}
		row, err := docs.Peek()
		if err != nil {
			return n, err
		}
		if row == nil {
			return n, nil
		}
		d, err := documentOf(row)
		if err != nil {
			return n, fmt.Errorf("index: previous snapshot %s: %w", s.ID, err)
		}
		docRow := *row
		docs.Next()

		rows = rows[:0]
		for {
			r, err := secs.Peek()
			if err != nil {
				return n, err
			}
			if r == nil || r.ID > d.ID {
				break
			}
			if r.ID == d.ID {
				rows = append(rows, *r)
			}
			secs.Next()
		}
		d.Sections = sectionTree(rows)
		for {
			r, err := refs.Peek()
			if err != nil {
				return n, err
			}
			if r == nil || r.ID > d.ID {
				break
			}
			if r.ID == d.ID {
				d.References = append(d.References, ingest.Reference{Label: r.Label, Authors: r.Authors,
					Title: r.Title, Source: r.Source, Year: r.Year, Volume: r.Volume, Issue: r.Issue,
					Pages: r.Pages, DOI: r.DOI, PMID: r.PMID, Raw: r.Raw})
			}
			refs.Next()
		}
		if err := fn(&docRow, rows, d); err != nil {
			return n, err
		}
		n++
	}
}

// documentOf rebuilds a Document from its documents.parquet row. The
// licence is rebuilt from the stored evidence; the merger decides it again.
func documentOf(r *documentRow) (*ingest.Document, error) {
	d := &ingest.Document{
		ID: r.ID, Aliases: r.Aliases, DOI: r.DOI, PMID: r.PMID, PMCID: r.PMCID, OpenAlex: r.OpenAlex,
		Title: r.Title, Venue: r.Venue, Publisher: r.Publisher, Year: int(r.Year), Date: r.Date,
		Type: r.Type, Language: r.Language, Abstract: r.Abstract, Keywords: r.Keywords,
		Subjects: r.Subjects, Topics: r.Topics, Retracted: r.Retracted, Sources: r.Sources, Origin: r.Origin,
		Licence: licence.Decision{Accepted: true, Family: licence.Family(r.License), Version: r.LicenseVersion,
			URL: r.LicenseURL},
	}
	if r.Updated != nil {
		d.Updated = r.Updated.UTC()
	}
	if r.LicenceEvidence != "" {
		if err := json.Unmarshal([]byte(r.LicenceEvidence), &d.Licence.Evidence); err != nil {
			return nil, fmt.Errorf("%s: licence_evidence: %w", r.ID, err)
		}
	}
	for _, a := range r.Authors {
		d.Authors = append(d.Authors, ingest.Author{Name: a.Name, Given: a.Given, Family: a.Family,
			ORCID: a.ORCID, Affiliations: a.Affiliations})
	}
	return d, nil
}

// tablesJSON encodes a document's tables for its content store record.
func tablesJSON(tables []ingest.Table) (string, error) {
	if len(tables) == 0 {
		return "", nil
	}
	b, err := json.Marshal(tables)
	if err != nil {
		return "", fmt.Errorf("index: encode tables: %w", err)
	}
	return string(b), nil
}

// documentFromContent rebuilds a Document from its record in a content
// store (package content), as documentOf does from its Parquet rows: the
// delta build reads the few documents a run touches this way.
func documentFromContent(cd *content.Document, secs []content.Section, refs []content.Reference) (*ingest.Document, error) {
	m := cd.Merge
	if m == nil || len(m.Given) != len(cd.Authors) || len(m.Family) != len(cd.Authors) {
		return nil, fmt.Errorf("%s: %w: the content store lacks the merge fields", cd.ID, errNoDelta)
	}
	row := &documentRow{ID: cd.ID, Aliases: cd.Aliases, DOI: cd.DOI, PMID: cd.PMID, PMCID: cd.PMCID,
		OpenAlex: cd.OpenAlex, Title: cd.Title, Venue: cd.Venue, Publisher: cd.Publisher, Year: cd.Year,
		Date: cd.Date, Type: cd.Type, Language: cd.Language, Abstract: cd.Abstract, Keywords: cd.Keywords,
		Subjects: m.Subjects, Topics: cd.Topics, Retracted: m.Retracted, Sources: cd.Sources, Origin: m.Origin,
		License: cd.License, LicenseVersion: cd.LicenseVersion, LicenseURL: cd.LicenseURL, LicenceEvidence: m.Evidence}
	if m.Updated != 0 {
		u := time.UnixMicro(m.Updated).UTC()
		row.Updated = &u
	}
	for i, a := range cd.Authors {
		row.Authors = append(row.Authors, authorRow{Name: a.Name, Given: m.Given[i], Family: m.Family[i],
			ORCID: a.ORCID, Affiliations: a.Affiliations})
	}
	d, err := documentOf(row)
	if err != nil {
		return nil, err
	}
	if m.Tables != "" {
		if err := json.Unmarshal([]byte(m.Tables), &d.Tables); err != nil {
			return nil, fmt.Errorf("%s: tables: %w", cd.ID, err)
		}
	}
	rows := make([]sectionRow, len(secs))
	for i, s := range secs {
		rows[i] = sectionRow{Ordinal: int32(i), Parent: s.Parent, Title: s.Title, Paragraphs: s.Paragraphs}
	}
	d.Sections = sectionTree(rows)
	for _, r := range refs {
		d.References = append(d.References, ingest.Reference{Label: r.Label, Authors: r.Authors,
			Title: r.Title, Source: r.Source, Year: r.Year, Volume: r.Volume, Issue: r.Issue,
			Pages: r.Pages, DOI: r.DOI, PMID: r.PMID, Raw: r.Raw})
	}
	return d, nil
}

// sectionTree rebuilds nested sections from fulltext rows of one document
// (ordinal order, parent ordinal or -1).
func sectionTree(rows []sectionRow) []ingest.Section {
	if len(rows) == 0 {
		return nil
	}
	children := make(map[int32][]int, len(rows))
	for i, r := range rows {
		p := r.Parent
		// A parent must come before its child; anything else is damage,
		// and the section is kept at the top level rather than lost.
		if p >= r.Ordinal || p < -1 {
			p = -1
		}
		children[p] = append(children[p], i)
	}
	var build func(parent int32) []ingest.Section
	build = func(parent int32) []ingest.Section {
		var out []ingest.Section
		for _, i := range children[parent] {
			r := rows[i]
			out = append(out, ingest.Section{Title: r.Title, Paragraphs: r.Paragraphs, Children: build(r.Ordinal)})
		}
		return out
	}
	return build(-1)
}
