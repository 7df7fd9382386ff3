package archive

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/openshelf/openshelf/index/bundle"
	"github.com/openshelf/openshelf/index/content"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/serve/apierr"
)

// Rights are the fields every content response carries.
type Rights struct {
	License          string `json:"license"`
	LicenseVersion   string `json:"license_version,omitempty"`
	LicenseName      string `json:"license_name"`
	LicenseURL       string `json:"license_url"`
	Attribution      string `json:"attribution"`
	CopyrightNotice  string `json:"copyright_notice"`
	ShareAlikeNotice string `json:"share_alike_notice,omitempty"`
}

const rightsColumns = "license, license_version, license_name, license_url, attribution, copyright_notice, share_alike_notice"

func errTopicNotFound(slug string) error {
	return apierr.NotFound("topic_not_found", fmt.Sprintf("no topic %q in this snapshot", slug))
}

func errDocumentNotFound(id string) error {
	return apierr.NotFound("document_not_found", fmt.Sprintf("no document %q in this snapshot", id))
}

// resolve maps any id or alias to the canonical id.
func (g *generation) resolve(ctx context.Context, id string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	d := g.catalog.Lookup(id)
	if d < 0 {
		return "", errDocumentNotFound(id)
	}
	return string(g.catalog.ID(d)), nil
}

// Author is a document author in content responses.
type Author struct {
	Name         string   `json:"name"`
	ORCID        string   `json:"orcid,omitempty"`
	Affiliations []string `json:"affiliations,omitempty"`
}

// Document is the body of GET /api/document/{id}.
type Document struct {
	ID            string   `json:"id"`
	RequestedID   string   `json:"requested_id,omitempty"`
	Aliases       []string `json:"aliases"`
	DOI           string   `json:"doi,omitempty"`
	PMID          string   `json:"pmid,omitempty"`
	PMCID         string   `json:"pmcid,omitempty"`
	OpenAlex      string   `json:"openalex,omitempty"`
	Title         string   `json:"title"`
	Authors       []Author `json:"authors"`
	Venue         string   `json:"venue,omitempty"`
	Publisher     string   `json:"publisher,omitempty"`
	Year          int      `json:"year,omitempty"`
	Date          string   `json:"date,omitempty"`
	Type          string   `json:"type,omitempty"`
	Language      string   `json:"language,omitempty"`
	Abstract      string   `json:"abstract,omitempty"`
	Keywords      []string `json:"keywords"`
	Topics        []string `json:"topics"`
	Sources       []string `json:"sources"`
	HasFulltext   bool     `json:"has_fulltext"`
	HasReferences bool     `json:"has_references"`
	// CitedByCount is how many archive documents cite this one.
	CitedByCount int32 `json:"cited_by_count"`
	Rights
	// LicenseEvidence is the licence receipt: every piece of evidence
	// behind the licence decision, where it was read and from which input
	// (issue 13).
	LicenseEvidence []licence.Receipt `json:"license_evidence"`
}

// contentDoc returns the doc number of canonical id in the content store.
func (g *generation) contentDoc(ctx context.Context, id string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	d := g.catalog.Find(id)
	if d < 0 {
		return 0, errDocumentNotFound(id)
	}
	return int(d), nil
}

// contentRecord reads the document part of id from the content store.
func (g *generation) contentRecord(ctx context.Context, id string) (int, *content.Document, error) {
	d, err := g.contentDoc(ctx, id)
	if err != nil {
		return 0, nil, err
	}
	cd, err := g.content.Document(d)
	if err != nil {
		return 0, nil, fmt.Errorf("document %s: %w", id, err)
	}
	if cd.ID != id {
		return 0, nil, fmt.Errorf("%w: content record of doc %d is %q, not %q", errIndex, d, cd.ID, id)
	}
	return d, cd, nil
}

func rightsOf(cd *content.Document) Rights {
	return Rights{License: cd.License, LicenseVersion: cd.LicenseVersion, LicenseName: cd.LicenseName,
		LicenseURL: cd.LicenseURL, Attribution: cd.Attribution, CopyrightNotice: cd.CopyrightNotice,
		ShareAlikeNotice: cd.ShareAlikeNotice}
}

// document returns the body of GET /api/document/{id} for a canonical id:
// from the content store (two positioned reads and a small decode), or
// through DuckDB for a snapshot without one.
func (g *generation) document(ctx context.Context, id string) (*Document, error) {
	if g.content == nil {
		return g.documentSQL(ctx, id)
	}
	_, cd, err := g.contentRecord(ctx, id)
	if err != nil {
		return nil, err
	}
	d := &Document{ID: cd.ID, Aliases: cd.Aliases, DOI: cd.DOI, PMID: cd.PMID, PMCID: cd.PMCID, OpenAlex: cd.OpenAlex,
		Title: cd.Title, Authors: make([]Author, len(cd.Authors)), Venue: cd.Venue, Publisher: cd.Publisher,
		Year: int(cd.Year), Date: cd.Date, Type: cd.Type, Language: cd.Language, Abstract: cd.Abstract,
		Keywords: cd.Keywords, Topics: cd.Topics, Sources: cd.Sources, HasFulltext: cd.HasFulltext,
		HasReferences: cd.HasReferences, Rights: rightsOf(cd), LicenseEvidence: []licence.Receipt{}}
	for i, a := range cd.Authors {
		d.Authors[i] = Author{Name: a.Name, ORCID: a.ORCID, Affiliations: a.Affiliations}
	}
	if cd.LicenseEvidence != "" {
		if err := json.Unmarshal([]byte(cd.LicenseEvidence), &d.LicenseEvidence); err != nil {
			return nil, fmt.Errorf("document %s: licence receipt: %w", id, err)
		}
	}
	return d, nil
}

// documentSQL is document through DuckDB (and the tests' oracle).
func (g *generation) documentSQL(ctx context.Context, id string) (*Document, error) {
	// DuckDB renders the nested columns as JSON; Go decodes them into the
	// documented shape.
	var raw string
	err := g.db.QueryRowContext(ctx, `SELECT to_json(struct_pack(id, aliases, doi, pmid, pmcid, openalex, title,
			authors := [struct_pack(name := a.name, orcid := a.orcid, affiliations := a.affiliations) FOR a IN authors],
			venue, publisher, year, date, type, language, abstract, keywords, topics, sources, has_fulltext,
			has_references, `+rightsColumns+`))::VARCHAR
		FROM documents WHERE id = ?`, id).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errDocumentNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("document %s: %w", id, err)
	}
	var d Document
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		return nil, fmt.Errorf("document %s: %w", id, err)
	}
	nonNil(&d.Aliases, &d.Keywords, &d.Topics, &d.Sources)
	if d.Authors == nil {
		d.Authors = []Author{}
	}
	// The receipt, from the evidence documents.parquet keeps.
	var ev string
	if err := g.db.QueryRowContext(ctx, `SELECT licence_evidence FROM documents WHERE id = ?`, id).Scan(&ev); err != nil {
		return nil, fmt.Errorf("document %s: %w", id, err)
	}
	var dec licence.Decision
	if err := json.Unmarshal([]byte(ev), &dec.Evidence); err != nil {
		return nil, fmt.Errorf("document %s: licence evidence: %w", id, err)
	}
	d.LicenseEvidence = licence.Receipts(dec)
	return &d, nil
}

func nonNil(ss ...*[]string) {
	for _, s := range ss {
		if *s == nil {
			*s = []string{}
		}
	}
}

func (g *generation) rights(ctx context.Context, id string) (Rights, string, error) {
	var r Rights
	var title string
	err := g.db.QueryRowContext(ctx, "SELECT title, "+rightsColumns+" FROM documents WHERE id = ?", id).Scan(
		&title, &r.License, &r.LicenseVersion, &r.LicenseName, &r.LicenseURL, &r.Attribution, &r.CopyrightNotice, &r.ShareAlikeNotice)
	if errors.Is(err, sql.ErrNoRows) {
		return r, "", errDocumentNotFound(id)
	}
	return r, title, err
}

// Section is a part of the full text; sections nest.
type Section struct {
	Title      string    `json:"title,omitempty"`
	Paragraphs []string  `json:"paragraphs,omitempty"`
	Children   []Section `json:"children,omitempty"`
}

// Fulltext is the body of GET /api/document/{id}/fulltext.
type Fulltext struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Sections []Section `json:"sections"`
	Rights
}

// fulltext returns the body of GET /api/document/{id}/fulltext for a
// canonical id.
func (g *generation) fulltext(ctx context.Context, id string) (*Fulltext, error) {
	if g.content == nil {
		return g.fulltextSQL(ctx, id)
	}
	d, cd, err := g.contentRecord(ctx, id)
	if err != nil {
		return nil, err
	}
	cs, err := g.content.Sections(d)
	if err != nil {
		return nil, fmt.Errorf("fulltext %s: %w", id, err)
	}
	secs := make([]flatSection, len(cs))
	for i, s := range cs {
		secs[i] = flatSection{parent: s.Parent, sec: Section{Title: s.Title, Paragraphs: s.Paragraphs}}
	}
	return &Fulltext{ID: id, Title: cd.Title, Sections: sectionTree(secs), Rights: rightsOf(cd)}, nil
}

// flatSection is a section row: its parent's index (-1 at the top) and
// its fields.
type flatSection struct {
	parent int32
	sec    Section
}

// sectionTree rebuilds the section tree bottom-up: a child always follows
// its parent, so walking backwards attaches every finished subtree once.
func sectionTree(secs []flatSection) []Section {
	children := make([][]Section, len(secs))
	var top []Section
	for i := len(secs) - 1; i >= 0; i-- {
		s := secs[i].sec
		s.Children = reverse(children[i])
		if p := secs[i].parent; p >= 0 && int(p) < i {
			children[p] = append(children[p], s)
		} else {
			top = append(top, s)
		}
	}
	return nonNilSections(reverse(top))
}

// fulltextSQL is fulltext through DuckDB (and the tests' oracle).
func (g *generation) fulltextSQL(ctx context.Context, id string) (*Fulltext, error) {
	r, title, err := g.rights(ctx, id)
	if err != nil {
		return nil, err
	}
	rows, err := g.db.QueryContext(ctx, "SELECT ordinal, parent, title, paragraphs FROM fulltext WHERE id = ? ORDER BY ordinal", id)
	if err != nil {
		return nil, fmt.Errorf("fulltext %s: %w", id, err)
	}
	defer rows.Close()
	var secs []flatSection
	for rows.Next() {
		var ord, parent int32
		var f flatSection
		var paras []any
		if err := rows.Scan(&ord, &parent, &f.sec.Title, &paras); err != nil {
			return nil, err
		}
		f.parent, f.sec.Paragraphs = parent, strings_(paras)
		secs = append(secs, f)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return &Fulltext{ID: id, Title: title, Sections: sectionTree(secs), Rights: r}, nil
}

func reverse(s []Section) []Section {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
	return s
}

func nonNilSections(s []Section) []Section {
	if s == nil {
		return []Section{}
	}
	return s
}

// Reference is one parsed reference.
type Reference struct {
	Ordinal int      `json:"ordinal"`
	Label   string   `json:"label,omitempty"`
	Authors []string `json:"authors,omitempty"`
	Title   string   `json:"title,omitempty"`
	Source  string   `json:"source,omitempty"`
	Year    string   `json:"year,omitempty"`
	Volume  string   `json:"volume,omitempty"`
	Issue   string   `json:"issue,omitempty"`
	Pages   string   `json:"pages,omitempty"`
	DOI     string   `json:"doi,omitempty"`
	PMID    string   `json:"pmid,omitempty"`
	Raw     string   `json:"raw,omitempty"`
}

// References is the body of GET /api/document/{id}/references.
type References struct {
	ID         string      `json:"id"`
	Title      string      `json:"title"`
	References []Reference `json:"references"`
	Rights
}

// references returns the body of GET /api/document/{id}/references for a
// canonical id.
func (g *generation) references(ctx context.Context, id string) (*References, error) {
	if g.content == nil {
		return g.referencesSQL(ctx, id)
	}
	d, cd, err := g.contentRecord(ctx, id)
	if err != nil {
		return nil, err
	}
	crs, err := g.content.References(d)
	if err != nil {
		return nil, fmt.Errorf("references %s: %w", id, err)
	}
	out := &References{ID: id, Title: cd.Title, References: make([]Reference, len(crs)), Rights: rightsOf(cd)}
	for i, r := range crs {
		out.References[i] = Reference{Ordinal: i, Label: r.Label, Authors: r.Authors, Title: r.Title, Source: r.Source,
			Year: r.Year, Volume: r.Volume, Issue: r.Issue, Pages: r.Pages, DOI: r.DOI, PMID: r.PMID, Raw: r.Raw}
	}
	return out, nil
}

// referencesSQL is references through DuckDB (and the tests' oracle).
func (g *generation) referencesSQL(ctx context.Context, id string) (*References, error) {
	r, title, err := g.rights(ctx, id)
	if err != nil {
		return nil, err
	}
	rows, err := g.db.QueryContext(ctx, `SELECT ordinal, label, authors, title, source, year, volume, issue, pages, doi, pmid, raw
		FROM refs WHERE id = ? ORDER BY ordinal`, id)
	if err != nil {
		return nil, fmt.Errorf("references %s: %w", id, err)
	}
	defer rows.Close()
	out := &References{ID: id, Title: title, References: []Reference{}, Rights: r}
	for rows.Next() {
		var ref Reference
		var authors []any
		if err := rows.Scan(&ref.Ordinal, &ref.Label, &authors, &ref.Title, &ref.Source, &ref.Year, &ref.Volume,
			&ref.Issue, &ref.Pages, &ref.DOI, &ref.PMID, &ref.Raw); err != nil {
			return nil, err
		}
		ref.Authors = strings_(authors)
		out.References = append(out.References, ref)
	}
	return out, rows.Err()
}

// openBundle opens a topic's bundle: its file, or the frames a delta
// build's snapshot keeps in packs (bundle.Open). The open files
// stay readable after a snapshot switch, and even after the old snapshot
// is pruned.
func (g *generation) openBundle(slug string) (io.ReadCloser, error) {
	if _, ok := g.byTopic[slug]; !ok {
		return nil, errTopicNotFound(slug)
	}
	return bundle.Open(g.snap, slug)
}
