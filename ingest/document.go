package ingest

import (
	"strings"
	"time"

	"github.com/openshelf/openshelf/licence"
)

// Document is one scholarly work, normalised from any source.
//
// Its JSON form is the bundle line format and the Parquet row layout (see
// data/README.md), so field names are a documented interface.
type Document struct {
	// ID is the canonical id: pmc-, doi-, oa-w or pmid- (in that order of
	// preference). Aliases holds every other id the document is known by.
	ID      string   `json:"id"`
	Aliases []string `json:"aliases,omitempty"`

	DOI      string `json:"doi,omitempty"`      // normalised, lower case, no resolver prefix
	PMID     string `json:"pmid,omitempty"`     // digits
	PMCID    string `json:"pmcid,omitempty"`    // digits, no "PMC"
	OpenAlex string `json:"openalex,omitempty"` // "W123", upper-case W as OpenAlex spells it

	Title     string   `json:"title"`
	Authors   []Author `json:"authors,omitempty"`
	Venue     string   `json:"venue,omitempty"`
	Publisher string   `json:"publisher,omitempty"`
	Year      int      `json:"year,omitempty"`
	Date      string   `json:"date,omitempty"`     // ISO 8601, as precise as the source: 2019, 2019-05, 2019-05-07
	Type      string   `json:"type,omitempty"`     // research-article, review, editorial, correction, retraction, preprint...
	Language  string   `json:"language,omitempty"` // ISO 639-1 where known
	Abstract  string   `json:"abstract,omitempty"`
	Keywords  []string `json:"keywords,omitempty"`
	// Subjects are the source's own subject headings (publisher subjects,
	// MeSH descriptors, OpenAlex topics, fields and concepts), the input to
	// topic mapping.
	Subjects []string `json:"subjects,omitempty"`
	// Topics are slugs from the curated taxonomy (pipelines/topics.csv).
	Topics []string `json:"topics,omitempty"`

	Licence licence.Decision `json:"licence"`

	Sections   []Section   `json:"sections,omitempty"`
	References []Reference `json:"references,omitempty"`
	// Tables are the full text's tables in document order (body, floats
	// and back matter). They feed the specs table; they are not part of
	// the served full text.
	Tables []Table `json:"tables,omitempty"`
	// SectionsUTF8 and ReferencesUTF8 are set by a reader that has made
	// every string in Sections (titles, paragraphs) or References valid
	// UTF-8 itself (the JATS reader, as it flattens them), so the index
	// builder need not check them again. Whatever replaces or edits those
	// must clear the flag unless it keeps the guarantee; false only costs
	// the check. Not part of the JSON form nor of the encoded records.
	SectionsUTF8   bool `json:"-"`
	ReferencesUTF8 bool `json:"-"`

	// Retracted marks a retraction notice or a retracted work; such documents
	// are removed from the archive.
	Retracted bool `json:"retracted,omitempty"`
	// Updated is the source's own modification time (OpenAlex updated_date,
	// Crossref indexed date), used so the newest version wins.
	Updated time.Time `json:"updated,omitempty"`

	// Sources names the inputs merged into this document ("jats:pmc",
	// "pubmed", "openalex", "crossref"...).
	Sources []string `json:"sources,omitempty"`
	// Origin is the path (and member, for archives) the record was read from.
	Origin string `json:"origin,omitempty"`

	// Records are, on a document a Merger emits with MergeConfig.Records
	// set, the source records it was merged from, encoded (DecodeRecord);
	// nil otherwise. They are not part of the JSON form.
	Records [][]byte `json:"-"`
}

// Author is one contributor.
type Author struct {
	Name         string   `json:"name"`
	Given        string   `json:"given,omitempty"`
	Family       string   `json:"family,omitempty"`
	ORCID        string   `json:"orcid,omitempty"` // 0000-0002-1825-0097 form
	Affiliations []string `json:"affiliations,omitempty"`
}

// Section is a titled part of the full text; sections nest.
type Section struct {
	Title      string    `json:"title,omitempty"`
	Paragraphs []string  `json:"paragraphs,omitempty"`
	Children   []Section `json:"children,omitempty"`
}

// Table is one table of the full text, as cell text. Spanning cells are
// expanded: a cell with colspan or rowspan n is repeated in each row and
// column it covers, so every row has one cell per column and each body
// cell's column header is the header cells above it.
type Table struct {
	Label   string `json:"label,omitempty"`   // "Table 2"
	Caption string `json:"caption,omitempty"` // title and caption paragraphs, flattened
	// Header holds the header rows (<thead>, or leading rows of <th>
	// cells); Rows the body rows.
	Header    [][]string `json:"header,omitempty"`
	Rows      [][]string `json:"rows,omitempty"`
	Footnotes []string   `json:"footnotes,omitempty"`
}

// ColumnHeader returns the header of column j: its header cells top to
// bottom, repeats (from a colspan) dropped, joined by " / ".
func (t *Table) ColumnHeader(j int) string {
	var parts []string
	for _, row := range t.Header {
		if j >= len(row) || row[j] == "" {
			continue
		}
		if len(parts) > 0 && parts[len(parts)-1] == row[j] {
			continue // a rowspan repeats the cell above
		}
		parts = append(parts, row[j])
	}
	return strings.Join(parts, " / ")
}

// Reference is one entry of the reference list.
type Reference struct {
	Label   string   `json:"label,omitempty"`
	Authors []string `json:"authors,omitempty"`
	Title   string   `json:"title,omitempty"`
	Source  string   `json:"source,omitempty"` // journal or book
	Year    string   `json:"year,omitempty"`
	Volume  string   `json:"volume,omitempty"`
	Issue   string   `json:"issue,omitempty"`
	Pages   string   `json:"pages,omitempty"` // "123-130" or an elocation id
	DOI     string   `json:"doi,omitempty"`
	PMID    string   `json:"pmid,omitempty"`
	// Raw is the flattened text of a mixed or unparsed citation.
	Raw string `json:"raw,omitempty"`
}

// Deletion is a request to remove a document (PubMed DeleteCitation).
type Deletion struct {
	ID     string // project id, e.g. pmid-12345
	Origin string
}

// Problem is a record or file that could not be read.
type Problem struct {
	Path   string `json:"path"`
	Record string `json:"record,omitempty"` // source id or position within the file
	Reason string `json:"reason"`
}

// Sink receives what a reader finds. Implementations need not be safe for
// concurrent use; a reader calls them from one goroutine.
type Sink interface {
	Document(*Document) error
	Delete(Deletion) error
	Problem(Problem)
}
