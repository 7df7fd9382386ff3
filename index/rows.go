package index

import "time"

// Row types of the snapshot tables. The parquet tags are the column names of
// the contract in data/README.md: the read server and analysts query them by
// name, so a rename is a schema change (snapshot.SchemaVersion).

type authorRow struct {
	Name         string   `parquet:"name"`
	Given        string   `parquet:"given"`
	Family       string   `parquet:"family"`
	ORCID        string   `parquet:"orcid"`
	Affiliations []string `parquet:"affiliations,list"`
}

type documentRow struct {
	ID               string      `parquet:"id"`
	Aliases          []string    `parquet:"aliases,list"`
	DOI              string      `parquet:"doi"`
	PMID             string      `parquet:"pmid"`
	PMCID            string      `parquet:"pmcid"`
	OpenAlex         string      `parquet:"openalex"`
	Title            string      `parquet:"title"`
	Authors          []authorRow `parquet:"authors,list"`
	Venue            string      `parquet:"venue,dict"`
	Publisher        string      `parquet:"publisher,dict"`
	Year             int32       `parquet:"year"`
	Date             string      `parquet:"date"`
	Type             string      `parquet:"type,dict"`
	Language         string      `parquet:"language,dict"`
	Abstract         string      `parquet:"abstract"`
	Keywords         []string    `parquet:"keywords,list"`
	Subjects         []string    `parquet:"subjects,list"`
	Topics           []string    `parquet:"topics,list"`
	License          string      `parquet:"license,dict"`
	LicenseVersion   string      `parquet:"license_version,dict"`
	LicenseURL       string      `parquet:"license_url,dict"`
	LicenseName      string      `parquet:"license_name,dict"`
	Attribution      string      `parquet:"attribution"`
	CopyrightNotice  string      `parquet:"copyright_notice"`
	ShareAlikeNotice string      `parquet:"share_alike_notice,dict"`
	LicenceEvidence  string      `parquet:"licence_evidence"`
	HasFulltext      bool        `parquet:"has_fulltext"`
	HasReferences    bool        `parquet:"has_references"`
	NSections        int32       `parquet:"n_sections"`
	NReferences      int32       `parquet:"n_references"`
	Sources          []string    `parquet:"sources,list"`
	Origin           string      `parquet:"origin"`
	Updated          *time.Time  `parquet:"updated,optional,timestamp(microsecond)"`
	Retracted        bool        `parquet:"retracted"`
}

// documentProse, sectionProse and referenceProse are the columns of prose
// of their tables, written without page bounds (proseColumns).
var (
	documentProse  = []string{"title", "abstract", "attribution", "copyright_notice", "licence_evidence"}
	sectionProse   = []string{"title", "paragraphs.list.element"}
	referenceProse = []string{"label", "authors.list.element", "title", "source", "raw"}
)

type aliasRow struct {
	Alias string `parquet:"alias"`
	ID    string `parquet:"id"`
}

type sectionRow struct {
	ID         string   `parquet:"id"`
	Ordinal    int32    `parquet:"ordinal"`
	Parent     int32    `parquet:"parent"`
	Depth      int32    `parquet:"depth"`
	Title      string   `parquet:"title"`
	Paragraphs []string `parquet:"paragraphs,list"`
}

type referenceRow struct {
	ID      string   `parquet:"id"`
	Ordinal int32    `parquet:"ordinal"`
	Label   string   `parquet:"label"`
	Authors []string `parquet:"authors,list"`
	Title   string   `parquet:"title"`
	Source  string   `parquet:"source"`
	Year    string   `parquet:"year"`
	Volume  string   `parquet:"volume"`
	Issue   string   `parquet:"issue"`
	Pages   string   `parquet:"pages"`
	DOI     string   `parquet:"doi"`
	PMID    string   `parquet:"pmid"`
	Raw     string   `parquet:"raw"`
}

type topicRow struct {
	Slug         string `parquet:"slug"`
	Name         string `parquet:"name"`
	Parent       string `parquet:"parent"`
	Documents    int64  `parquet:"documents"`
	BundleBytes  int64  `parquet:"bundle_bytes"`
	BundleSHA256 string `parquet:"bundle_sha256"`
	BundlePath   string `parquet:"bundle_path"`
}

type rejectRow struct {
	Path     string   `parquet:"path"`
	SourceID string   `parquet:"source_id"`
	Reason   string   `parquet:"reason,dict"`
	Detail   string   `parquet:"detail"`
	Evidence string   `parquet:"evidence"`
	Sources  []string `parquet:"sources,list"`
}

type termRow struct {
	TermID int32  `parquet:"term_id"`
	Term   string `parquet:"term"`
	DF     int32  `parquet:"df"`
}

type postingRow struct {
	TermID int32 `parquet:"term_id,delta"`
	Doc    int32 `parquet:"doc,delta"`
	Field  int8  `parquet:"field"`
	TF     int16 `parquet:"tf"`
}

type searchDocRow struct {
	Doc         int32    `parquet:"doc"`
	ID          string   `parquet:"id"`
	LenTitle    int16    `parquet:"len_title"`
	LenKeywords int16    `parquet:"len_keywords"`
	LenAuthors  int16    `parquet:"len_authors"`
	Year        int32    `parquet:"year"`
	License     string   `parquet:"license,dict"`
	Topics      []string `parquet:"topics,list"`
	HasFulltext bool     `parquet:"has_fulltext"`
}

type fieldRow struct {
	Field  int8    `parquet:"field"`
	Name   string  `parquet:"name"`
	AvgLen float64 `parquet:"avg_len"`
	Weight float64 `parquet:"weight"`
	// B is the BM25F length-normalisation parameter of the field.
	B float64 `parquet:"b"`
}
