package licence

import (
	"strings"
	"time"
)

// Receipt is one piece of evidence behind a decision, in the form shown to
// buyers (the paid document answer's license_evidence), written to the
// snapshot's licence_evidence table and printed by `openshelf explain`: where
// it was read, what it said, what it was read as and which version of the
// work it applies to.
type Receipt struct {
	Source Source `json:"source"`
	Kind   Kind   `json:"kind"`
	// Path is the field the value was read from, e.g.
	// "front/article-meta[1]/permissions[1]/license[1]/@xlink:href".
	Path  string `json:"path,omitempty"`
	Value string `json:"value"`
	// SPDX is the SPDX identifier of the licence the value names
	// ("CC-BY-4.0", "CC-BY-NC-ND-3.0", "CC0-1.0"); LicenseRef-... when SPDX
	// has none (an unversioned CC BY stated in words, the Public Domain
	// Mark); "" when the value names no licence.
	SPDX string `json:"spdx,omitempty"`
	// Family is the accepted family the value names (CC0, PDM, CC-BY,
	// CC-BY-SA), or "" for a restriction or a value that names nothing.
	Family Family `json:"family,omitempty"`
	// Restriction is the rejection reason the value carries on its own
	// (non-commercial, no-derivatives, custom-terms, tdm-only, unknown).
	Restriction    Reason `json:"restriction,omitempty"`
	LicenceVersion string `json:"licence_version,omitempty"`
	// Reading says how the decision reads a value beyond the restriction
	// it carries on its own: "generic-reservation" for reservation wording
	// in a copyright statement, generic ("All rights reserved") or
	// conditional on an express grant ("No commercial use is permitted
	// unless otherwise expressly granted"), which does not override an
	// express licence and restricts only where there is none; "" otherwise.
	Reading string `json:"reading,omitempty"`
	// AppliesTo is the version of the work the value is about: "vor"
	// (version of record), "am" (accepted manuscript), "tdm" (text and
	// data mining only), an OpenAlex version (publishedVersion,
	// acceptedVersion, submittedVersion), "record" (the record itself:
	// JATS permissions, PMC codes, PubMed copyright), "sub-article" (a
	// JATS sub-article or response: its own licence, not the article's,
	// for text that is not served) or "unstated".
	AppliesTo string    `json:"applies_to"`
	Start     time.Time `json:"start,omitzero"`
	// Input is the file (and archive member) the record was read from,
	// InputSHA256 that file's checksum, ReadAt when it was read.
	Input       string    `json:"input,omitempty"`
	InputSHA256 string    `json:"input_sha256,omitempty"`
	ReadAt      time.Time `json:"read_at,omitzero"`
}

// Receipts returns one Receipt per piece of evidence of d, in order.
func Receipts(d Decision) []Receipt {
	out := make([]Receipt, 0, len(d.Evidence))
	for i := range d.Evidence {
		out = append(out, ReceiptOf(&d.Evidence[i]))
	}
	return out
}

// ReceiptOf describes one piece of evidence.
func ReceiptOf(e *Evidence) Receipt {
	r := Receipt{
		Source: sourceOf(e), Kind: e.Kind, Path: e.Path, Value: e.Value,
		AppliesTo: AppliesTo(e), Start: e.Start,
		Input: e.Origin, InputSHA256: e.InputSHA256, ReadAt: e.ReadAt,
	}
	if t, ok := Parse(*e); ok {
		r.SPDX = SPDX(t)
		r.LicenceVersion = t.Version
		if t.Accepted() {
			r.Family = t.Family
		} else {
			r.Restriction = t.Reason
		}
		if t.Generic && isCopyrightText(e.Kind) {
			r.Reading = ReadingGenericReservation
		}
	}
	return r
}

// ReadingGenericReservation is the Receipt.Reading of reservation wording
// in a copyright statement that yields to an express licence.
const ReadingGenericReservation = "generic-reservation"

// AppliesTo names the version of the work a piece of evidence is about (see
// Receipt.AppliesTo).
func AppliesTo(e *Evidence) string {
	if inSubArticle(e) {
		return "sub-article"
	}
	v := strings.TrimSpace(e.ContentVersion)
	switch e.Kind {
	case KindCrossref:
		switch strings.ToLower(v) {
		case "vor", "unspecified", "":
			return "vor"
		}
		return strings.ToLower(v)
	case KindOpenAlex:
		if v == "" {
			return "unstated"
		}
		return v
	}
	if v != "" {
		return v
	}
	return "record"
}

// SPDX returns the SPDX licence identifier of a term: CC-BY-4.0,
// CC-BY-3.0-IGO, CC-BY-NC-ND-4.0, CC0-1.0. Terms SPDX has no identifier for
// get a LicenseRef: LicenseRef-CC-PDM-1.0, LicenseRef-CC-BY (a CC BY whose
// version was not stated). Restrictions without a licence code ("all
// rights reserved") and unrecognised values give "".
func SPDX(t Term) string {
	switch t.Family {
	case CC0:
		return "CC0-1.0"
	case PDM:
		return "LicenseRef-CC-PDM-1.0"
	}
	code := t.Code
	if code == "" {
		switch t.Family {
		case CCBY:
			code = "by"
		case CCBYSA:
			code = "by-sa"
		}
	}
	if code == "" || code == "zero" || code == "mark" {
		return ""
	}
	id := "CC-" + strings.ToUpper(code)
	if t.Version == "" {
		return "LicenseRef-" + id
	}
	id += "-" + t.Version
	if t.Port != "" {
		id += "-" + strings.ToUpper(t.Port)
	}
	return id
}
