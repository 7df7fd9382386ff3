package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// NormaliseDOI strips resolver prefixes and the "doi:" scheme, trims space
// and lower-cases the DOI (DOIs are case-insensitive). It returns "" when
// what remains does not look like a DOI (it must start with "10.").
func NormaliseDOI(s string) string {
	s = strings.TrimSpace(s)
	lower := strings.ToLower(s)
	for _, p := range []string{
		"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/",
		"doi.org/", "dx.doi.org/", "doi:", "doi ",
	} {
		if strings.HasPrefix(lower, p) {
			lower = strings.TrimSpace(lower[len(p):])
			break
		}
	}
	if !strings.HasPrefix(lower, "10.") || len(lower) < 6 || !strings.Contains(lower, "/") {
		return ""
	}
	return lower
}

// DOIID is the project id of a DOI: "doi-" and the first 20 hex characters
// of the SHA-256 of the normalised DOI. It returns "" for a non-DOI.
func DOIID(doi string) string {
	n := NormaliseDOI(doi)
	if n == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(n))
	return "doi-" + hex.EncodeToString(sum[:])[:20]
}

// digits returns s reduced to its trailing run of 1 to 12 digits after
// stripping a URL and a prefix such as "PMC", or "" when none.
func digits(s string, prefix string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(strings.TrimRight(s, "/"), '/'); i >= 0 {
		s = strings.TrimRight(s, "/")[i+1:]
	}
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		s = s[len(prefix):]
	}
	// PMC article versions (PMC123.2) share one id.
	if i := strings.IndexByte(s, '.'); i > 0 {
		s = s[:i]
	}
	if s == "" || len(s) > max {
		return ""
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return ""
		}
	}
	s = strings.TrimLeft(s, "0")
	if s == "" {
		return ""
	}
	return s
}

// NormalisePMCID returns the digits of a PMC id ("PMC3166277", "3166277",
// "https://www.ncbi.nlm.nih.gov/pmc/articles/2453743"), or "".
func NormalisePMCID(s string) string { return digits(s, "PMC", 12) }

// NormalisePMID returns the digits of a PubMed id or URL, or "".
func NormalisePMID(s string) string { return digits(s, "", 12) }

// NormaliseOpenAlex returns "W" and the digits of an OpenAlex work id or URL,
// or "".
func NormaliseOpenAlex(s string) string {
	d := digits(s, "W", 15)
	if d == "" {
		return ""
	}
	return "W" + d
}

// IDs returns the project ids of d in canonical order (pmc, doi, oa-w, pmid);
// the first is the canonical id, the rest are aliases.
func (d *Document) IDs() []string {
	var ids []string
	if d.PMCID != "" {
		ids = append(ids, "pmc-"+d.PMCID)
	}
	if id := DOIID(d.DOI); id != "" {
		ids = append(ids, id)
	}
	if d.OpenAlex != "" {
		ids = append(ids, "oa-w"+strings.TrimPrefix(strings.ToLower(d.OpenAlex), "w"))
	}
	if d.PMID != "" {
		ids = append(ids, "pmid-"+d.PMID)
	}
	return ids
}

// AssignIDs sets ID and Aliases from the document's identifiers. It reports
// false when the document has no identifier at all.
func (d *Document) AssignIDs() bool {
	ids := d.IDs()
	if len(ids) == 0 {
		return false
	}
	d.ID, d.Aliases = ids[0], ids[1:]
	return true
}

// NormaliseORCID returns an ORCID iD in 0000-0002-1825-0097 form, or "" when
// s is not one (wrong length or check digit). Sources spell
// them as bare digits, with or without hyphens, or as orcid.org URLs.
func NormaliseORCID(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	var d []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			d = append(d, c)
		case c == 'x' || c == 'X':
			d = append(d, 'X')
		case c == '-' || c == ' ':
		default:
			return ""
		}
	}
	if len(d) != 16 {
		return ""
	}
	// ISO 7064 MOD 11-2 check digit.
	total := 0
	for _, c := range d[:15] {
		if c == 'X' {
			return ""
		}
		total = (total + int(c-'0')) * 2
	}
	check := (12 - total%11) % 11
	want := byte('0' + check)
	if check == 10 {
		want = 'X'
	}
	if d[15] != want {
		return ""
	}
	return string(d[0:4]) + "-" + string(d[4:8]) + "-" + string(d[8:12]) + "-" + string(d[12:16])
}
