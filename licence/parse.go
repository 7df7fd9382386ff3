package licence

import (
	"bytes"
	"strings"
)

// Basis says how a Term was recognised, which decides how much it can prove.
type Basis uint8

const (
	BasisNone  Basis = iota
	BasisURL         // a licence URL (href, ali:license_ref, Crossref URL, URL inside text)
	BasisCode        // a licence code (OpenAlex value, PMC license_code)
	BasisText        // wording of a licence statement (license-p, copyright-statement)
	BasisLabel       // a label that is not a licence by itself (JATS license-type)
)

func (b Basis) String() string {
	switch b {
	case BasisURL:
		return "url"
	case BasisCode:
		return "code"
	case BasisText:
		return "text"
	case BasisLabel:
		return "label"
	}
	return "none"
}

// Term is what one piece of evidence says about the licence: either an
// accepted family (Family set, Reason empty) or a restriction (Reason set,
// Family empty).
type Term struct {
	Family  Family `json:"family,omitempty"`
	Reason  Reason `json:"reason,omitempty"`
	Version string `json:"version,omitempty"` // "4.0"; "" when not stated
	Port    string `json:"port,omitempty"`    // "igo", "uk"...; "" when none
	// URL is the canonical licence URL of an accepted term.
	URL string `json:"url,omitempty"`
	// Code is the Creative Commons licence code when one was read ("by",
	// "by-nc-nd", "zero", "mark"), used to describe restrictions.
	Code string `json:"code,omitempty"`
	// NoDerivs marks a non-commercial term that also forbids derivatives.
	NoDerivs bool  `json:"no_derivs,omitempty"`
	Basis    Basis `json:"basis"`
	// Weak terms (JATS license-type labels, PubMed copyright text) may veto
	// but never prove a licence on their own.
	Weak bool `json:"weak,omitempty"`
	// Note explains a restriction that has no code ("all rights reserved").
	Note string `json:"note,omitempty"`
	// Generic marks a restriction that is only reservation wording, generic
	// ("All rights reserved") or conditional on an express grant ("No
	// commercial use is permitted unless otherwise expressly granted"). In
	// a copyright statement it does not override an express licence (see
	// doc.go); anywhere else it restricts like any other.
	Generic bool `json:"generic,omitempty"`
}

// Accepted reports whether the term permits publication.
func (t Term) Accepted() bool { return t.Family != "" && t.Reason == "" }

// Label is a short description for logs and Decision.Detail: "CC BY 4.0",
// "CC BY-NC-ND 3.0 IGO", "CC0 1.0", or the Note of a restriction.
func (t Term) Label() string {
	if t.Accepted() {
		s := ShortName(t.Family, t.Version, t.Port)
		if t.Version == "" && (t.Family == CCBY || t.Family == CCBYSA) {
			s += " (version not stated)"
		}
		if t.Note != "" {
			s += " [" + t.Note + "]"
		}
		return s
	}
	if t.Code != "" && t.Code != "zero" && t.Code != "mark" {
		s := "CC " + strings.ToUpper(t.Code)
		if t.Version != "" {
			s += " " + t.Version
		}
		if t.Port != "" {
			s += " " + portShort(t.Port)
		}
		return s
	}
	if t.Note != "" {
		return t.Note
	}
	return string(t.Reason)
}

// Normalised marker phrases (see words). Phrases with a leading and trailing
// space need word boundaries; the others are distinctive enough to match
// anywhere, which also catches camel-case spellings run together
// ("AttributionNonCommercial").
var (
	// allowedCommercial are wordings that mention non-commercial use
	// without restricting to it; they are blanked before the NC scan.
	allowedCommercial = gate([]string{"commerc"},
		" commercial and non commercial ", " commercial and noncommercial ",
		" commercial or non commercial ", " commercial or noncommercial ",
		" non commercial and commercial ", " noncommercial and commercial ",
		" non commercial or commercial ", " noncommercial or commercial ",
	)
	ncMarkers = gate([]string{"commerc", "comerc", "kommerz", " nc "},
		"noncommercial", " non commercial ", " by nc ", " cc nc ", " nc nd ", " nc sa ", " nd nc ",
		"naocomercial", " nao comercial ", "nocomercial", " no comercial ",
		" non commerciale ", "nichtkommerziell", " nicht kommerziell ",
		" pas dutilisation commerciale ", " not for commercial ", " no commercial use ",
		" commercial use is not permitted ", " commercial use is prohibited ",
		" not used for commercial ", " not be used for commercial ",
	)
	ndMarkers = gate([]string{"deriv", " nd ", "modification", "bearbeitung", "changed in any way"},
		"noderiv", " no derivs ", " no derivatives ", " no derivative ", " no deriv ",
		" by nd ", " cc nd ", " nc nd ", " nd nc ",
		"semderivacoes", " sem derivacoes ", "sinderivadas", " sin derivadas ",
		"sinobraderivada", " sin obra derivada ", " sin obras derivadas ",
		" pas de modification ", "keinebearbeitung", " keine bearbeitung",
		" not changed in any way ", " non opere derivate ",
	)
	// conditionalNC are non-commercial reservations conditional on an
	// express grant (BMJ's copyright statement); they are blanked before
	// the NC scan and read as generic reservations. Only these exact
	// wordings: any other NC wording restricts unconditionally.
	conditionalNC = gate([]string{"expressly"},
		" no commercial use is permitted unless otherwise expressly granted ",
	)
	// customMarkers: wording of terms that are not an open licence; generic
	// ones only reserve rights that an express licence may still grant.
	customMarkers = []struct {
		phrase  []byte
		note    string
		generic bool
	}{
		{[]byte("all rights reserved"), "all rights reserved", true},
		{[]byte(" todos los derechos reservados "), "all rights reserved", true},
		{[]byte(" todos os direitos reservados "), "all rights reserved", true},
		{[]byte(" may not be redistributed "), "no redistribution allowed", false},
		{[]byte(" no reuse allowed "), "no reuse allowed", false},
		{[]byte(" promotion of commercial products "), "restricts commercial promotion (not a Creative Commons licence)", false},
		{[]byte(" in the spirit of the public library of science "), "\"in the spirit of\" open access (not a Creative Commons licence)", false},
		{[]byte(" personal use only "), "personal use only", false},
		{[]byte(" user license "), "publisher user licence", false},
	}
	cc0Markers = gate([]string{" cc", "zero", "free of all"}, " cc0 ", " cc 0 ", " cc zero ", " creative commons zero ", " free of all copyright ")
	pdMarkers  = gate([]string{"public domain"},
		" public domain declaration ", " public domain dedication ", " in the public domain ",
		" public domain mark ",
	)
	// pdQualified: public domain only in one jurisdiction (US government
	// works abroad may still be protected) - not accepted from text.
	pdQualified = gate([]string{"public domain", "subject to copyright"},
		" public domain in the united states", " public domain in the usa ", " public domain in the us ",
		" public domain in the u s ", " not subject to copyright in the united states",
		" not in the public domain ",
	)
	saMarkers = gate([]string{"share", "compart", "partage", "weitergabe", " by sa "},
		"sharealike", " share alike ", " by sa ", "compartilhaigual", " compartilha igual ",
		"compartirigual", " compartir igual ", " partage dans les memes conditions ",
		" weitergabe unter gleichen bedingungen ",
	)
	byMarkers = gate([]string{" creative commons ", " cc"},
		" creative commons attribution", " cc by ", " ccby ", " creative commons atribuicao",
		" creative commons atribucion", " creative commons reconocimiento",
		" creative commons namensnennung", " creative commons paternite",
	)
)

// markers is the result of scanning normalised text for restriction words.
type markers struct {
	nc, nd bool
	custom string // note of the first unconditional custom-terms marker found
	// reserved is the note of the first generic custom-terms marker
	// ("all rights reserved"); conditional is set when a conditional NC
	// reservation was blanked.
	reserved    string
	conditional bool
}

func scanRestrictions(w []byte) markers {
	var m markers
	if allowedCommercial.gates.in(w) {
		for _, p := range allowedCommercial.list {
			blank(w, p)
		}
	}
	if conditionalNC.in(w) {
		m.conditional = true
		for _, p := range conditionalNC.list {
			blank(w, p)
		}
	}
	m.nc = ncMarkers.in(w)
	m.nd = ndMarkers.in(w)
	for _, c := range customMarkers {
		if !bytes.Contains(w, c.phrase) {
			continue
		}
		if !c.generic {
			m.custom = c.note
			break
		}
		if m.reserved == "" {
			m.reserved = c.note
		}
	}
	return m
}

// stackBuf is the size of the scratch buffer used for normalised text; longer
// values spill to the heap, which is correct but slower.
const stackBuf = 1024

// Parse normalises one piece of evidence into a Term. ok is false when the
// evidence says nothing about a licence: blank values, "open-access" labels,
// copyright lines without licence wording, publisher web pages that are not
// licences. A value that looks like a licence but cannot be classified gives
// a Term with Reason Unknown, which counts as a restriction.
//
// How Value is read depends on Kind (see the Kind constants): URLs for
// jats-href, jats-ali, url and crossref; codes for openalex,
// pmc-license-code and jats-license-type; wording (plus any
// creativecommons.org URL inside it) for jats-license-p, jats-copyright and
// pubmed-copyright. Whatever the kind, a value containing a non-commercial
// or no-derivatives marker ("by-nc", "NonCommercial", "NoDerivs"...) never
// yields an accepted term.
func Parse(e Evidence) (Term, bool) {
	v := strings.TrimSpace(e.Value)
	if v == "" {
		return Term{}, false
	}
	var buf [stackBuf]byte
	w := words(buf[:0], v)
	m := scanRestrictions(w)

	var t Term
	var ok bool
	switch e.Kind {
	case KindJATSHref, KindJATSALI, KindURL:
		t, ok = parseURL(v, false)
	case KindCrossref:
		t, ok = parseURL(v, true)
	case KindOpenAlex:
		t, ok = parseOpenAlex(v, w)
	case KindPMCLicenseCode:
		t, ok = parsePMCCode(w)
	case KindJATSLicenseType:
		t, ok = parseLabel(w)
	case KindJATSLicenseP, KindJATSCopyright:
		t, ok = parseText(v, w)
	default:
		// PubMed copyright text, and kinds this package does not know, are
		// read as wording that can veto but not prove.
		t, ok = parseText(v, w)
		t.Weak = ok
	}
	return applyMarkers(t, ok, m, e.Kind)
}

// applyMarkers lets restriction markers found anywhere in the value override
// what the kind-specific parser concluded (most restrictive wins). A more
// specific restriction from the parser (with its code and version) is kept
// when it is at least as severe.
func applyMarkers(t Term, ok bool, m markers, k Kind) (Term, bool) {
	basis := t.Basis
	if basis == BasisNone {
		basis = basisOf(k)
	}
	var mt Term
	switch {
	case m.nc:
		mt = Term{Reason: NonCommercial, NoDerivs: m.nd, Note: "non-commercial wording"}
	case m.nd:
		mt = Term{Reason: NoDerivatives, Note: "no-derivatives wording"}
	case m.custom != "":
		mt = Term{Reason: CustomTerms, Note: m.custom}
	case m.conditional:
		// Generic only when nothing else in the value restricts.
		mt = Term{Reason: NonCommercial, Note: "no commercial use unless expressly granted", Generic: t.Reason == ""}
	case m.reserved != "":
		mt = Term{Reason: CustomTerms, Note: m.reserved, Generic: t.Reason == ""}
	default:
		return t, ok
	}
	mt.Basis, mt.Weak = basis, t.Weak
	if !ok || t.Reason == "" || restrRank(mt) > restrRank(t) {
		if mt.Reason == NonCommercial && t.Reason == NoDerivatives {
			mt.NoDerivs = true
		}
		return mt, true
	}
	if m.nd && t.Reason == NonCommercial {
		t.NoDerivs = true
	}
	return t, true
}

func basisOf(k Kind) Basis {
	switch k {
	case KindJATSHref, KindJATSALI, KindURL, KindCrossref:
		return BasisURL
	case KindOpenAlex, KindPMCLicenseCode:
		return BasisCode
	case KindJATSLicenseType:
		return BasisLabel
	}
	return BasisText
}

// parseURL classifies a licence URL. Non-Creative-Commons URLs are TDM
// licences, known publisher licences (custom terms), or - for JATS hrefs -
// web pages that are not licences at all (ok false: "look inside
// license-p", sources.md section 6, Frontiers). A Crossref license[] URL is
// always a licence statement, so an unrecognised one is custom terms.
func parseURL(v string, crossref bool) (Term, bool) {
	s := strings.ToLower(strings.TrimSpace(v)) // no copy when already lower case
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	rest := s
	switch {
	case strings.HasPrefix(rest, "https://"):
		rest = rest[len("https://"):]
	case strings.HasPrefix(rest, "http://"):
		rest = rest[len("http://"):]
	case strings.HasPrefix(rest, "//"):
		rest = rest[2:]
	}
	rest = strings.TrimPrefix(rest, "www.")
	host, path, _ := strings.Cut(rest, "/")
	if host == "creativecommons.org" {
		if t, ok := parseCCPath(path); ok {
			return t, true
		}
		return Term{Reason: Unknown, Basis: BasisURL, Note: "unrecognised Creative Commons URL"}, true
	}
	if host == "openalex.org" && strings.HasPrefix(path, "licenses/") {
		var wb [64]byte
		code := path[len("licenses/"):]
		return openAlexValue(words(wb[:0], code))
	}
	switch {
	case strings.Contains(s, "/tdm") || strings.Contains(s, "tdm_license") || strings.Contains(s, "tdm-license") ||
		strings.Contains(s, "text-and-data-mining") || strings.Contains(s, "tdmrep"):
		return Term{Reason: TDMOnly, Basis: BasisURL, Note: "text-and-data-mining licence"}, true
	case strings.Contains(s, "userlicense") || strings.Contains(s, "user-license") ||
		strings.Contains(s, "termsandconditions") || strings.Contains(s, "terms-and-conditions") ||
		strings.Contains(s, "authorchoice") || strings.Contains(s, "/chorus/") ||
		host == "rightsstatements.org":
		return Term{Reason: CustomTerms, Basis: BasisURL, Note: "publisher licence"}, true
	case host == "opensource.org" || host == "gnu.org" || host == "apache.org":
		return Term{Reason: CustomTerms, Basis: BasisURL, Note: "software licence"}, true
	}
	if crossref {
		return Term{Reason: CustomTerms, Basis: BasisURL, Note: "publisher licence"}, true
	}
	return Term{}, false
}

// ccVersion returns the canonical spelling of a Creative Commons licence
// version, or "" when v is not one.
func ccVersion(v string) string {
	switch v {
	case "1.0":
		return "1.0"
	case "2.0":
		return "2.0"
	case "2.1":
		return "2.1"
	case "2.5":
		return "2.5"
	case "3.0":
		return "3.0"
	case "4.0":
		return "4.0"
	}
	return ""
}

// ccPort validates a jurisdiction or IGO port segment ("igo", "uk",
// "scotland") and returns it without allocating for common ports.
func ccPort(p string) string {
	if len(p) < 2 || len(p) > 12 {
		return ""
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 'a' || p[i] > 'z' {
			return ""
		}
	}
	if n, ok := portNames[p]; ok {
		return n.code
	}
	return strings.Clone(p)
}

// parseCCPath classifies the path of a creativecommons.org URL (already
// lower-cased, without query): licenses/<code>/<version>[/<port>], with
// deed.xx / legalcode[.xx] / rdf suffixes ignored; publicdomain/zero/1.0;
// publicdomain/mark/1.0; the retired licenses/publicdomain/ dedication.
func parseCCPath(path string) (Term, bool) {
	var segs [8]string
	n := 0
	for path != "" {
		var s string
		s, path, _ = strings.Cut(path, "/")
		s = strings.TrimRight(s, ".,;:)]>\"' ")
		if s == "" || strings.HasPrefix(s, "deed") || strings.HasPrefix(s, "legalcode") || s == "rdf" {
			continue
		}
		if n == len(segs) {
			return Term{}, false
		}
		segs[n] = s
		n++
	}
	if n < 2 {
		return Term{}, false
	}
	switch segs[0] {
	case "publicdomain":
		if n > 3 || (n == 3 && segs[2] != "1.0") {
			return Term{}, false
		}
		switch segs[1] {
		case "zero":
			return Term{Family: CC0, Version: "1.0", URL: urlCC0, Code: "zero", Basis: BasisURL}, true
		case "mark":
			return Term{Family: PDM, Version: "1.0", URL: urlPDM, Code: "mark", Basis: BasisURL}, true
		}
		return Term{}, false
	case "licenses", "licences":
	default:
		return Term{}, false
	}
	code := segs[1]
	if code == "publicdomain" && n == 2 {
		// The retired Public Domain Dedication/Certification: the work is in
		// the public domain; labelled with the Public Domain Mark.
		return Term{Family: PDM, Version: "1.0", URL: urlPDM, Code: "publicdomain", Basis: BasisURL,
			Note: "retired Creative Commons public domain dedication"}, true
	}
	version, port := "", ""
	if n >= 3 {
		if version = ccVersion(segs[2]); version == "" {
			return Term{}, false
		}
	}
	if n >= 4 {
		if port = ccPort(segs[3]); port == "" {
			return Term{}, false
		}
		if version == "4.0" {
			return Term{}, false // 4.0 has no ports
		}
	}
	if n > 4 {
		return Term{}, false
	}
	t := Term{Version: version, Port: port, Basis: BasisURL}
	switch code {
	case "by":
		t.Family, t.Code = CCBY, "by"
	case "by-sa":
		t.Family, t.Code = CCBYSA, "by-sa"
	case "by-nc":
		t.Reason, t.Code = NonCommercial, "by-nc"
	case "by-nc-sa":
		t.Reason, t.Code = NonCommercial, "by-nc-sa"
	case "by-nc-nd":
		t.Reason, t.Code, t.NoDerivs = NonCommercial, "by-nc-nd", true
	case "by-nd-nc":
		t.Reason, t.Code, t.NoDerivs = NonCommercial, "by-nd-nc", true
	case "nc", "nc-sa", "nc-sampling+":
		t.Reason, t.Code = NonCommercial, strings.Clone(code)
	case "nd-nc":
		t.Reason, t.Code, t.NoDerivs = NonCommercial, "nd-nc", true
	case "by-nd", "nd":
		t.Reason, t.Code = NoDerivatives, strings.Clone(code)
	default:
		// sa/1.0 (no attribution), sampling, devnations...: real CC tools but
		// not ones this archive accepts.
		t.Reason, t.Code = CustomTerms, strings.Clone(code)
		return t, true
	}
	if t.Family != "" {
		t.URL = CanonicalURL(t.Family, version, port)
	}
	return t, true
}

func isFiller(x []byte) bool {
	switch string(x) {
	case "license", "licence", "licenses", "licences", "international", "unported", "generic",
		"universal", "public", "creative", "commons":
		return true
	}
	return false
}

// parseCode reads a licence code such as "CC BY", "cc-by-sa", "CC BY 4.0",
// "CC0", "CC-0 1.0", "PDM", "CC BY 3.0 IGO". ok is false when w is not such a
// code. NC/ND codes are left to the restriction markers.
func parseCode(w []byte) (Term, bool) {
	// Split into at most 8 fields sharing w's memory; filled by index, not
	// append, so that w (a stack buffer in Parse) does not escape.
	var fb [8][]byte
	n := 0
	for i := 0; i < len(w); {
		for i < len(w) && w[i] == ' ' {
			i++
		}
		j := i
		for j < len(w) && w[j] != ' ' {
			j++
		}
		if j > i {
			if n == len(fb) {
				return Term{}, false
			}
			fb[n] = w[i:j]
			n++
		}
		i = j
	}
	if n == 0 {
		return Term{}, false
	}
	f := fb[:n]
	is := func(i int, s string) bool { return i < len(f) && string(f[i]) == s }
	switch {
	case is(0, "cc0") || (is(0, "cc") && (is(1, "0") || is(1, "zero"))):
		rest := f[1:]
		if is(0, "cc") {
			rest = f[2:]
		}
		for _, x := range rest {
			if string(x) != "1.0" && !isFiller(x) {
				return Term{}, false
			}
		}
		return Term{Family: CC0, Version: "1.0", URL: urlCC0, Code: "zero", Basis: BasisCode}, true
	case is(0, "pdm") || (is(0, "public") && is(1, "domain") && is(2, "mark")):
		return Term{Family: PDM, Version: "1.0", URL: urlPDM, Code: "mark", Basis: BasisCode}, true
	}
	var rest [][]byte
	switch {
	case is(0, "cc") && is(1, "by"):
		rest = f[2:]
	case is(0, "ccby"):
		rest = f[1:]
	case is(0, "creative") && is(1, "commons") && is(2, "attribution"):
		rest = f[3:]
	default:
		return Term{}, false
	}
	t := Term{Family: CCBY, Code: "by", Basis: BasisCode}
	for i, x := range rest {
		switch {
		case i == 0 && (string(x) == "sa" || string(x) == "sharealike"):
			t.Family, t.Code = CCBYSA, "by-sa"
		case isFiller(x):
		case t.Version == "" && ccVersion(string(x)) != "":
			t.Version = ccVersion(string(x))
		case t.Version != "" && t.Port == "" && ccPort(string(x)) != "":
			t.Port = ccPort(string(x))
		default:
			return Term{}, false
		}
	}
	if t.Version == "4.0" && t.Port != "" {
		return Term{}, false
	}
	t.URL = CanonicalURL(t.Family, t.Version, t.Port)
	return t, true
}

// parseOpenAlex reads an OpenAlex / Unpaywall licence value ("cc-by",
// "cc-by-nc-nd", "public-domain", "other-oa", "implied-oa", "mit"...), or
// its license_id URL form (https://openalex.org/licenses/cc-by).
func parseOpenAlex(v string, w []byte) (Term, bool) {
	if indexFold(v, "openalex.org/licenses/", 0) >= 0 {
		return parseURL(v, false)
	}
	return openAlexValue(w)
}

// openAlexValue classifies a normalised OpenAlex licence value.
func openAlexValue(w []byte) (Term, bool) {
	if t, ok := parseCode(w); ok {
		return t, true
	}
	switch {
	case contains(w, " public domain "):
		// Covers CC0 and PDM and is sometimes plainly wrong (sources.md
		// section 6: a 1992 Nature article): not proof of either.
		return Term{Reason: Unknown, Basis: BasisCode, Note: "OpenAlex public-domain label is unverified"}, true
	case contains(w, " implied oa ") || contains(w, " unspecified oa "):
		return Term{Reason: Unknown, Basis: BasisCode, Note: "open access without a stated licence"}, true
	case contains(w, " mit ") || contains(w, " apache ") || contains(w, " gpl ") || contains(w, " gpl v") ||
		contains(w, " isc ") || contains(w, " bsd ") || contains(w, " lgpl") || contains(w, " mpl "):
		return Term{Reason: CustomTerms, Basis: BasisCode, Note: "software licence"}, true
	case contains(w, " other oa ") || contains(w, " specific"):
		return Term{Reason: CustomTerms, Basis: BasisCode, Note: "publisher-specific open access terms"}, true
	}
	return Term{Reason: Unknown, Basis: BasisCode, Note: "unrecognised OpenAlex licence"}, true
}

// parsePMCCode reads a PMC license_code ("CC BY", "CC BY-NC-ND", "CC0",
// "TDM", "NO-CC CODE").
func parsePMCCode(w []byte) (Term, bool) {
	if t, ok := parseCode(w); ok {
		return t, true
	}
	switch {
	case contains(w, " tdm "):
		return Term{Reason: TDMOnly, Basis: BasisCode, Note: "PMC author manuscript (text mining only)"}, true
	case contains(w, " no cc code "):
		return Term{Reason: CustomTerms, Basis: BasisCode, Note: "PMC NO-CC CODE (not a Creative Commons licence)"}, true
	}
	return Term{Reason: Unknown, Basis: BasisCode, Note: "unrecognised PMC licence code"}, true
}

// parseLabel reads a JATS license-type attribute. It is never proof: an
// accepted code is returned Weak, and "open-access" style labels say
// nothing (sources.md section 7.6: SciELO puts open-access on BY-NC-ND).
func parseLabel(w []byte) (Term, bool) {
	if t, ok := parseCode(w); ok {
		t.Basis, t.Weak = BasisLabel, true
		return t, true
	}
	if contains(w, " public domain ") && !pdQualified.in(w) {
		return Term{Family: PDM, Version: "1.0", URL: urlPDM, Code: "mark", Basis: BasisLabel, Weak: true}, true
	}
	return Term{}, false
}

// parseText reads licence wording (sources.md section 7.2): Creative Commons
// Attribution -> CC BY (ShareAlike -> CC BY-SA), CC0 / "free of all
// copyright" -> CC0, an unqualified public-domain statement -> PDM; plus
// every creativecommons.org URL found in the text. Restriction markers are
// applied by the caller. Version is never guessed from wording.
func parseText(v string, w []byte) (Term, bool) {
	var m merger
	switch {
	case cc0Markers.in(w):
		m.add(Term{Family: CC0, Version: "1.0", URL: urlCC0, Code: "zero", Basis: BasisText}, nil)
	case byMarkers.in(w) && saMarkers.in(w):
		m.add(Term{Family: CCBYSA, URL: urlBYSA, Code: "by-sa", Basis: BasisText}, nil)
	case byMarkers.in(w):
		m.add(Term{Family: CCBY, URL: urlBY, Code: "by", Basis: BasisText}, nil)
	case pdMarkers.in(w) && !pdQualified.in(w):
		m.add(Term{Family: PDM, Version: "1.0", URL: urlPDM, Code: "mark", Basis: BasisText,
			Note: "public-domain statement"}, nil)
	}
	for i := indexFold(v, "creativecommons.org/", 0); i >= 0; i = indexFold(v, "creativecommons.org/", i+1) {
		if i > 0 {
			if c := v[i-1]; c != '/' && c != '.' && c != ' ' && c != '(' && c != '<' && c != '"' && c != '\'' && c != '\n' && c != '\t' {
				continue // e.g. "notcreativecommons.org/"
			}
		}
		j := i
		for j < len(v) && !strings.ContainsRune(" \t\r\n\"'<>()[]{},;", rune(v[j])) {
			j++
		}
		t, ok := parseURL(v[i:j], false)
		if !ok {
			continue
		}
		m.add(t, nil)
	}
	return m.result()
}
