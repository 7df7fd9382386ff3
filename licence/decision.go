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

// Kind says where a piece of evidence was found, and so how Parse reads
// Evidence.Value. Readers emit one Evidence per observation, unmodified
// (Parse normalises case, scheme, www., trailing slashes, deed/legalcode
// suffixes and spacing itself):
//
//   - KindJATSHref: the xlink:href of article-meta/permissions/license, e.g.
//     "http://creativecommons.org/licenses/by/2.0". Publisher pages that are
//     not licences (frontiersin.org/licenseagreement) are ignored.
//   - KindJATSALI: the text of <ali:license_ref>; its start_date goes in Start.
//   - KindJATSLicenseP: the text content of <license-p> (or of <p> directly
//     inside <license>, BMC 2008), markup removed. creativecommons.org URLs
//     in the text are read too; give each <ext-link>/<uri> xlink:href inside
//     it as a separate KindURL evidence, since attribute values are not text.
//   - KindJATSLicenseType: the license-type attribute ("open-access",
//     "cc-by"...). A label only: it can veto ("cc-by-nc") but never proves
//     a licence, and "open-access" says nothing.
//   - KindJATSCopyright: <copyright-statement> text, from permissions or bare
//     in article-meta (old NLM DTD). Read as a licence only when the same
//     source has no licence evidence at all (pone.0000217: a CC BY sentence
//     lives there); its restrictions veto, generic reservations only when
//     no express licence is stated (doc.go).
//   - KindURL: any other licence URL, e.g. an ext-link href inside license-p.
//   - KindCrossref: one license[] item: Value = URL, ContentVersion =
//     content-version (vor, am, tdm, unspecified), Start = start.date-time
//     (which already includes delay-in-days), DelayDays = delay-in-days.
//   - KindOpenAlex: a location's license ("cc-by", "other-oa"...) or
//     license_id URL; ContentVersion = the location's version. Only
//     publishedVersion locations count.
//     An open location whose licence is null is recorded with Value
//     [OpenAlexNoLicence]: the version it holds is open but unlicensed.
//   - KindPMCLicenseCode: PMC metadata license_code or file-list License
//     ("CC BY", "CC BY-NC-ND", "CC0", "TDM", "NO-CC CODE").
//   - KindPubMedCopyright: PubMed <CopyrightInformation>; weak evidence (see
//     doc.go).
//
// Never emit figure or table permissions. Sub-article and response
// permissions are emitted with a Path starting "sub-article[" or
// "response[": they are the sub-article's own licence, recorded in the
// receipt but not the article's (doc.go).
type Kind string

const (
	KindURL             Kind = "url"               // a licence URL not covered below (e.g. ext-link in license-p)
	KindJATSLicenseType Kind = "jats-license-type" // <license license-type="...">: a label, not a licence
	KindJATSHref        Kind = "jats-href"         // <license xlink:href="...">
	KindJATSALI         Kind = "jats-ali"          // <ali:license_ref start_date="...">URL</ali:license_ref>
	KindJATSLicenseP    Kind = "jats-license-p"    // text (and URLs) inside <license-p>
	KindJATSCopyright   Kind = "jats-copyright"    // <copyright-statement> text (last resort)
	KindOpenAlex        Kind = "openalex"          // OpenAlex location licence value; ContentVersion = location version
	KindCrossref        Kind = "crossref"          // Crossref license[] URL; ContentVersion, Start, DelayDays set
	KindPMCLicenseCode  Kind = "pmc-license-code"  // PMC OA file list / bucket license_code
	KindPubMedCopyright Kind = "pubmed-copyright"  // PubMed <CopyrightInformation> (weak)
)

// OpenAlexNoLicence is the Value of KindOpenAlex evidence for an open
// location whose license is null.
const OpenAlexNoLicence = "null"

// Source ranks where a record came from, for precedence between sources that
// disagree: PMC JATS > publisher JATS > Crossref version of record > OpenAlex
// > PubMed. When empty, Decide infers it from Kind (JATS kinds and url:
// publisher).
type Source string

const (
	SourcePMC       Source = "pmc"       // JATS from PMC (has a pmc article id)
	SourcePublisher Source = "publisher" // JATS from a publisher or preprint server
	SourceCrossref  Source = "crossref"
	SourceOpenAlex  Source = "openalex"
	SourcePubMed    Source = "pubmed"
)

// RulesVersion names the present rules of Decide. Change it with any
// change that can turn a decision: a build under another version decides
// every document of the archive again (a full merge, package index)
// instead of only those its inputs touch.
const RulesVersion = "2026-12-07"

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
	// Path is where in the record the value was read, for the receipt:
	// "front/article-meta[1]/permissions[1]/license[1]/@xlink:href",
	// "license[0].URL", "locations[2].license". A JATS path starting
	// "sub-article[" or "response[" marks a sub-article's own licence,
	// which Decide does not take for the article's.
	Path string `json:"path,omitempty"`
	// Origin is the input file (and archive member) the record was read
	// from, InputSHA256 that file's SHA-256 and ReadAt the time of the run
	// that read it: the provenance of the receipt. The ingest run fills
	// them in; readers leave them empty.
	Origin      string    `json:"origin,omitempty"`
	InputSHA256 string    `json:"input_sha256,omitempty"`
	ReadAt      time.Time `json:"read_at,omitzero"`
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
