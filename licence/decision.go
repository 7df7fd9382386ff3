package licence

import "time"

// Family is an accepted licence family.
type Family string

const (
	CC0    Family = "CC0"
	PDM    Family = "PDM"
	CCBY   Family = "CC-BY"
	CCBYSA Family = "CC-BY-SA"
)

// Families lists the accepted families in a stable order.
var Families = []Family{CC0, PDM, CCBY, CCBYSA}

// Reason is a machine-readable rejection reason.
type Reason string

const (
	NonCommercial Reason = "non-commercial"
	NoDerivatives Reason = "no-derivatives"
	TDMOnly       Reason = "tdm-only"
	CustomTerms   Reason = "custom-terms"
	Unknown       Reason = "unknown"
	Missing       Reason = "missing"
	Embargoed     Reason = "embargoed"
	Conflict      Reason = "conflict"
)

// Reasons lists every rejection reason in a stable order.
var Reasons = []Reason{NonCommercial, NoDerivatives, TDMOnly, CustomTerms, Unknown, Missing, Embargoed, Conflict}

// Kind says where a piece of evidence was found.
type Kind string

const (
	KindURL             Kind = "url"               // a bare licence URL of unknown provenance
	KindJATSLicenseType Kind = "jats-license-type" // <license license-type="...">
	KindJATSHref        Kind = "jats-href"         // <license xlink:href="...">
	KindJATSALI         Kind = "jats-ali"          // <ali:license_ref start_date="...">
	KindJATSLicenseP    Kind = "jats-license-p"    // text (and URLs) inside <license-p>
	KindJATSCopyright   Kind = "jats-copyright"    // <copyright-statement> text
	KindOpenAlex        Kind = "openalex"          // OpenAlex location licence value
	KindCrossref        Kind = "crossref"          // Crossref license[] entry
	KindPMCLicenseCode  Kind = "pmc-license-code"  // PMC OA file list / bucket license_code
	KindPubMedCopyright Kind = "pubmed-copyright"  // PubMed <CopyrightInformation>
)

// Source ranks where a record came from, for precedence between sources that
// disagree: PMC JATS > publisher JATS > Crossref version of record > OpenAlex.
type Source string

const (
	SourcePMC       Source = "pmc"       // JATS from PMC (has a pmc article id)
	SourcePublisher Source = "publisher" // JATS from a publisher or preprint server
	SourceCrossref  Source = "crossref"
	SourceOpenAlex  Source = "openalex"
	SourcePubMed    Source = "pubmed"
)

// Evidence is one observation about a document's licence.
type Evidence struct {
	Kind   Kind   `json:"kind"`
	Source Source `json:"source,omitempty"`
	// Value is what was seen: a URL, a license-type attribute, a text, an
	// OpenAlex value such as "cc-by-nc", or a PMC licence code.
	Value string `json:"value"`
	// Start is when the licence takes effect (ali:license_ref/@start_date,
	// Crossref start date). Zero when not stated.
	Start time.Time `json:"start,omitempty"`
	// DelayDays is Crossref's delay-in-days.
	DelayDays int `json:"delay_days,omitempty"`
	// ContentVersion is Crossref's content-version (vor, am, tdm, unspecified)
	// or OpenAlex's version (publishedVersion, acceptedVersion...).
	ContentVersion string `json:"content_version,omitempty"`
	// Lang is the xml:lang of the licence element, when stated.
	Lang string `json:"lang,omitempty"`
}

// Decision is the outcome for one document.
type Decision struct {
	Accepted bool   `json:"accepted"`
	Family   Family `json:"family,omitempty"`
	Version  string `json:"version,omitempty"` // "4.0", "1.0"; "" when unversioned
	// Port is a jurisdiction or IGO port ("igo", "us", "nl"...) when stated.
	Port string `json:"port,omitempty"`
	// URL is the canonical licence URL, e.g.
	// https://creativecommons.org/licenses/by/4.0/.
	URL    string `json:"url,omitempty"`
	Reason Reason `json:"reason,omitempty"` // set when rejected
	// Detail explains the decision in words, for the rejects table and logs.
	Detail   string     `json:"detail,omitempty"`
	Evidence []Evidence `json:"evidence,omitempty"`
}
