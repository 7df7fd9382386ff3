package licence

import (
	"slices"
	"strings"
	"testing"
	"time"
)

var runDate = time.Date(2026, 5, 1, 2, 0, 0, 0, time.UTC)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func href(src Source, v string) Evidence { return Evidence{Kind: KindJATSHref, Source: src, Value: v} }
func licP(src Source, v string) Evidence {
	return Evidence{Kind: KindJATSLicenseP, Source: src, Value: v}
}
func crossref(v, cv string, start time.Time, delay int) Evidence {
	return Evidence{Kind: KindCrossref, Source: SourceCrossref, Value: v, ContentVersion: cv, Start: start, DelayDays: delay}
}
func openalex(v, version string) Evidence {
	return Evidence{Kind: KindOpenAlex, Source: SourceOpenAlex, Value: v, ContentVersion: version}
}

const (
	by20   = "http://creativecommons.org/licenses/by/2.0"
	by30   = "http://creativecommons.org/licenses/by/3.0/"
	by40   = "http://creativecommons.org/licenses/by/4.0/"
	bysa40 = "https://creativecommons.org/licenses/by-sa/4.0/"
	byigo  = "https://creativecommons.org/licenses/by/3.0/igo/"
	nc30   = "http://creativecommons.org/licenses/by-nc/3.0"
	ncnd40 = "http://creativecommons.org/licenses/by-nc-nd/4.0/"
	ncnd30 = "http://creativecommons.org/licenses/by-nc-nd/3.0/"
	zero   = "http://creativecommons.org/publicdomain/zero/1.0/"
	mark   = "http://creativecommons.org/publicdomain/mark/1.0/"
	tdmEls = "http://www.elsevier.com/tdm/userlicense/1.0/"
	tdmWil = "http://doi.wiley.com/10.1002/tdm_license_1.1"
)

type decideCase struct {
	name    string
	ev      []Evidence
	now     time.Time // zero: runDate
	family  Family    // accepted family, "" when rejected
	version string
	port    string
	url     string
	reason  Reason
	detail  string // substring expected in Detail
}

var decideCases = []decideCase{
	// --- missing / unknown ---
	{name: "no evidence", reason: Missing, detail: "no licence evidence"},
	{name: "blank values", ev: []Evidence{href(SourcePMC, "  "), licP(SourcePMC, "")}, reason: Missing},
	{name: "copyright only (BJC 6605965a)", ev: []Evidence{
		{Kind: KindJATSCopyright, Source: SourcePMC, Value: "Copyright (c) 2010 Cancer Research UK"},
	}, reason: Missing, detail: "no licence stated"},
	{name: "open-access label only", ev: []Evidence{
		{Kind: KindJATSLicenseType, Source: SourcePublisher, Value: "open-access"},
	}, reason: Missing},
	{name: "publisher page href only", ev: []Evidence{href(SourcePublisher, "http://www.frontiersin.org/licenseagreement")},
		reason: Unknown, detail: "frontiersin"},
	{name: "license-p without licence wording", ev: []Evidence{licP(SourcePublisher, "Este é um artigo publicado em acesso aberto")},
		reason: Unknown},
	{name: "license-type cc-by alone is a label", ev: []Evidence{
		{Kind: KindJATSLicenseType, Source: SourcePMC, Value: "cc-by"},
	}, reason: Unknown, detail: "weak"},
	{name: "pubmed copyright only", ev: []Evidence{
		{Kind: KindPubMedCopyright, Source: SourcePubMed, Value: "Copyright 2000 Wiley-Liss, Inc."},
	}, reason: Missing},
	{name: "pubmed CC BY text is weak", ev: []Evidence{
		{Kind: KindPubMedCopyright, Value: "© 2019 The Authors. This is an open access article under the CC BY license."},
	}, reason: Unknown},
	{name: "pubmed all rights reserved", ev: []Evidence{
		{Kind: KindPubMedCopyright, Value: "Copyright © 2011 Elsevier Inc. All rights reserved."},
	}, reason: CustomTerms},

	// --- accepted, JATS ---
	{name: "BMC href no slash", ev: []Evidence{
		{Kind: KindJATSLicenseType, Source: SourcePMC, Value: "open-access"}, href(SourcePMC, by20), licP(SourcePMC, textBMC),
	}, family: CCBY, version: "2.0", url: "https://creativecommons.org/licenses/by/2.0/"},
	{name: "frontiers page plus CC URL in license-p", ev: []Evidence{
		href(SourcePublisher, "http://www.frontiersin.org/licenseagreement"),
		{Kind: KindURL, Source: SourcePublisher, Value: "http://creativecommons.org/licenses/by/4.0/"},
	}, family: CCBY, version: "4.0"},
	{name: "text-only CC BY is unversioned", ev: []Evidence{licP(SourcePMC, textPLOSBy)},
		family: CCBY, version: "", url: "https://creativecommons.org/licenses/by/", detail: "version not stated"},
	{name: "text refines nothing, URL gives version", ev: []Evidence{licP(SourcePublisher, textELifeBy), href(SourcePublisher, by30)},
		family: CCBY, version: "3.0"},
	{name: "IGO port kept", ev: []Evidence{href(SourcePublisher, byigo)},
		family: CCBY, version: "3.0", port: "igo", url: "https://creativecommons.org/licenses/by/3.0/igo/"},
	{name: "CC0 href and text", ev: []Evidence{href(SourcePublisher, zero), licP(SourcePublisher, textCC0)},
		family: CC0, version: "1.0", url: "https://creativecommons.org/publicdomain/zero/1.0/"},
	{name: "CC0 text only", ev: []Evidence{licP(SourcePublisher, textCC0)}, family: CC0, version: "1.0"},
	{name: "PDM href with public-domain label (EHP)", ev: []Evidence{
		{Kind: KindJATSLicenseType, Source: SourcePMC, Value: "public-domain"}, href(SourcePMC, mark), licP(SourcePMC, textEHP),
	}, family: PDM, version: "1.0", url: "https://creativecommons.org/publicdomain/mark/1.0/"},
	{name: "PD declaration (PLoS Med 2005) -> PDM", ev: []Evidence{licP(SourcePublisher, textPDDecl)},
		family: PDM, url: "https://creativecommons.org/publicdomain/mark/1.0/", version: "1.0"},
	{name: "SciELO licence per language", ev: []Evidence{
		{Kind: KindJATSHref, Source: SourcePublisher, Value: "https://creativecommons.org/licenses/by/4.0/", Lang: "en"},
		{Kind: KindJATSHref, Source: SourcePublisher, Value: "https://creativecommons.org/licenses/by/4.0/deed.pt", Lang: "pt"},
		{Kind: KindJATSHref, Source: SourcePublisher, Value: "https://creativecommons.org/licenses/by/4.0", Lang: "es"},
	}, family: CCBY, version: "4.0"},
	{name: "bare copyright-statement (pone.0000217)", ev: []Evidence{
		{Kind: KindJATSCopyright, Source: SourcePMC, Value: "Tenaillon et al. " + textPLOSBy},
	}, family: CCBY, detail: "copyright statement"},
	{name: "copyright ignored when a licence exists", ev: []Evidence{
		{Kind: KindJATSCopyright, Source: SourcePublisher, Value: "© 2013 X. " + textPLOSBy},
		href(SourcePublisher, nc30),
	}, reason: NonCommercial},
	// Unconditional restrictive wording in a copyright-statement vetoes;
	// a generic reservation yields to an express licence.
	{name: "all rights reserved copyright next to CC BY", ev: []Evidence{
		{Kind: KindJATSCopyright, Source: SourcePublisher, Value: "© 2013 Elsevier. All rights reserved."},
		href(SourcePublisher, by40),
	}, family: CCBY, version: "4.0", detail: "generic reservation"},
	{name: "not for commercial use in copyright next to CC BY", ev: []Evidence{
		href(SourcePMC, by40),
		{Kind: KindJATSCopyright, Source: SourcePMC, Value: "© The Authors 2019. Not for commercial use."},
	}, reason: NonCommercial},
	{name: "non-commercial copyright next to CC BY", ev: []Evidence{
		href(SourcePMC, by40),
		{Kind: KindJATSCopyright, Source: SourcePMC, Value: "Licensed for non-commercial use only"},
	}, reason: NonCommercial},
	{name: "plain copyright next to CC BY", ev: []Evidence{
		href(SourcePMC, by40),
		{Kind: KindJATSCopyright, Source: SourcePMC, Value: "© 2019 Smith et al."},
	}, family: CCBY, version: "4.0"},
	{name: "two license elements disagree", ev: []Evidence{href(SourcePMC, by40), href(SourcePMC, nc30)},
		reason: NonCommercial},
	{name: "NC text under a CC BY href", ev: []Evidence{
		href(SourcePMC, by40),
		{Kind: KindJATSLicenseP, Source: SourcePMC, Value: "This article may be used for non-commercial purposes only."},
	}, reason: NonCommercial},
	{name: "ND URL beside CC BY", ev: []Evidence{href(SourcePMC, by40), {Kind: KindJATSALI, Source: SourcePMC, Value: "https://creativecommons.org/licenses/by-nd/4.0/"}},
		reason: NoDerivatives},
	{name: "CC BY starting in the future", ev: []Evidence{{Kind: KindJATSALI, Source: SourcePMC, Value: by40, Start: day(2030, 1, 1)}},
		reason: Embargoed},
	{name: "PMC code plus PMC JATS href", ev: []Evidence{
		{Kind: KindPMCLicenseCode, Value: "CC BY"}, href(SourcePMC, by40),
	}, family: CCBY, version: "4.0"},
	{name: "most restrictive accepted: BY over CC0", ev: []Evidence{href(SourcePublisher, zero), {Kind: KindURL, Value: by40}},
		family: CCBY, version: "4.0"},
	{name: "most restrictive accepted: BY-SA over BY", ev: []Evidence{href(SourcePublisher, by40), {Kind: KindURL, Value: bysa40}},
		family: CCBYSA, version: "4.0", url: "https://creativecommons.org/licenses/by-sa/4.0/"},
	{name: "CC0 URL beats PD wording", ev: []Evidence{href(SourcePublisher, zero), licP(SourcePublisher, "This article is in the public domain.")},
		family: CC0, version: "1.0"},

	// --- rejected, JATS ---
	{name: "NC href (mds526)", ev: []Evidence{
		{Kind: KindJATSLicenseType, Source: SourcePMC, Value: "creative-commons"}, href(SourcePMC, nc30), licP(SourcePMC, textOUPNC),
	}, reason: NonCommercial, detail: "CC BY-NC 3.0"},
	{name: "NC-ND SciELO with open-access label", ev: []Evidence{
		{Kind: KindJATSLicenseType, Source: SourcePublisher, Value: "open-access"},
		href(SourcePublisher, "http://creativecommons.org/licenses/by-nc-nd/4.0"), licP(SourcePublisher, textRBA),
	}, reason: NonCommercial},
	{name: "BY href but NC wording", ev: []Evidence{href(SourcePublisher, by40), licP(SourcePublisher, textRSPNC)},
		reason: NonCommercial},
	{name: "BY href but NC license-type label", ev: []Evidence{
		href(SourcePublisher, by40), {Kind: KindJATSLicenseType, Source: SourcePublisher, Value: "cc-by-nc"},
	}, reason: NonCommercial},
	{name: "ND only", ev: []Evidence{href(SourcePublisher, "http://creativecommons.org/licenses/by-nd/4.0/")}, reason: NoDerivatives},
	{name: "WHO custom terms", ev: []Evidence{licP(SourcePublisher, textWHO)}, reason: CustomTerms},
	{name: "bioRxiv all rights reserved", ev: []Evidence{licP(SourcePublisher, textBioRxivAR)}, reason: CustomTerms},
	{name: "two versions conflict", ev: []Evidence{href(SourcePublisher, by30), {Kind: KindURL, Source: SourcePublisher, Value: by40}},
		reason: Conflict, detail: "CC BY 3.0"},
	{name: "port vs no port conflict", ev: []Evidence{href(SourcePublisher, by30), {Kind: KindURL, Source: SourcePublisher, Value: byigo}},
		reason: Conflict},
	{name: "CC0 vs PDM conflict", ev: []Evidence{href(SourcePublisher, zero), {Kind: KindURL, Source: SourcePublisher, Value: mark}},
		reason: Conflict},
	{name: "unrecognised CC URL vetoes", ev: []Evidence{href(SourcePublisher, by40), {Kind: KindURL, Value: "http://creativecommons.org/licenses/by/9.9/"}},
		reason: Unknown},

	// --- embargo (ali start_date, Crossref start) ---
	{name: "ali future start", ev: []Evidence{
		{Kind: KindJATSALI, Source: SourcePublisher, Value: by40, Start: day(2027, 1, 1)},
	}, reason: Embargoed, detail: "2027-01-01"},
	{name: "ali future start shadows undated href", ev: []Evidence{
		href(SourcePublisher, by40),
		{Kind: KindJATSALI, Source: SourcePublisher, Value: by40, Start: day(2027, 1, 1)},
	}, reason: Embargoed},
	{name: "ali past start", ev: []Evidence{
		href(SourcePublisher, by40),
		{Kind: KindJATSALI, Source: SourcePublisher, Value: by40, Start: day(2019, 3, 1)},
	}, family: CCBY, version: "4.0"},
	{name: "start exactly now is current", ev: []Evidence{{Kind: KindJATSALI, Value: by40, Start: runDate}}, family: CCBY, version: "4.0"},
	{name: "crossref vor future", ev: []Evidence{crossref(by40, "vor", day(2030, 1, 1), 365)}, reason: Embargoed},
	{name: "crossref delay without start", ev: []Evidence{crossref(by40, "vor", time.Time{}, 365)}, reason: Embargoed, detail: "365 days"},
	{name: "crossref future NC is not embargo", ev: []Evidence{crossref(ncnd40, "vor", day(2030, 1, 1), 9000)},
		reason: NonCommercial, detail: "not yet in force"},
	{name: "current TDM + future CC BY is embargoed", ev: []Evidence{
		crossref(tdmEls, "tdm", day(2001, 10, 1), 0), crossref(by40, "vor", day(2030, 1, 1), 10000),
	}, reason: Embargoed},

	// --- Crossref (fixtures/crossref) ---
	{name: "eLife by/3.0 six times", ev: []Evidence{
		crossref(by30, "vor", day(2014, 2, 11), 0), crossref(by30, "am", day(2014, 2, 11), 0), crossref(by30, "tdm", day(2014, 2, 11), 0),
		crossref(by30, "vor", day(2014, 2, 11), 0), crossref(by30, "am", day(2014, 2, 11), 0), crossref(by30, "tdm", day(2014, 2, 11), 0),
	}, family: CCBY, version: "3.0"},
	{name: "Hindawi vor by/3.0", ev: []Evidence{crossref(by30, "vor", day(2002, 1, 1), 0)}, family: CCBY, version: "3.0"},
	{name: "Elsevier tdm + vor NC-ND after delay", ev: []Evidence{
		crossref(tdmEls, "tdm", day(2001, 10, 1), 0), crossref(ncnd40, "vor", day(2016, 10, 7), 5485),
	}, reason: NonCommercial},
	{name: "Elsevier tdm + vor NC-ND before the delay ran out", now: day(2010, 1, 1), ev: []Evidence{
		crossref(tdmEls, "tdm", day(2001, 10, 1), 0), crossref(ncnd40, "vor", day(2016, 10, 7), 5485),
	}, reason: NonCommercial, detail: "not yet in force"},
	{name: "Elsevier tdm only", ev: []Evidence{crossref(tdmEls, "tdm", day(1998, 11, 1), 0)}, reason: TDMOnly},
	{name: "Wiley tdm only", ev: []Evidence{crossref(tdmWil, "tdm", day(2015, 9, 1), 6452)}, reason: TDMOnly},
	{name: "Springer tdm only", ev: []Evidence{crossref("http://www.springer.com/tdm", "tdm", day(2009, 9, 23), 0)}, reason: TDMOnly},
	{name: "Wiley tdm + vor NC-ND without start", ev: []Evidence{
		crossref(tdmWil, "tdm", day(2015, 9, 1), 6452), crossref(ncnd30, "vor", time.Time{}, 0),
	}, reason: NonCommercial},
	{name: "TDM URL does not veto a vor CC BY", ev: []Evidence{
		crossref(tdmEls, "unspecified", day(2015, 1, 1), 0), crossref(by40, "vor", day(2015, 1, 1), 0),
	}, family: CCBY, version: "4.0"},
	// Issue 13: the only licensed version is the one served.
	{name: "crossref am only", ev: []Evidence{crossref(by40, "am", day(2015, 1, 1), 0)}, family: CCBY, version: "4.0", detail: "licence of the am"},
	{name: "crossref am CC BY plus tdm", ev: []Evidence{crossref(by40, "am", day(2015, 1, 1), 0), crossref("https://www.elsevier.com/tdm/userlicense/1.0/", "tdm", day(2015, 1, 1), 0)},
		family: CCBY, version: "4.0"},
	{name: "crossref am NC", ev: []Evidence{crossref(nc30, "am", day(2015, 1, 1), 0)}, reason: NonCommercial},
	{name: "crossref am in the future", ev: []Evidence{crossref(by40, "am", day(2030, 1, 1), 0)}, reason: Embargoed},
	{name: "crossref vor CC BY in the future, am now", ev: []Evidence{crossref(by40, "vor", day(2030, 1, 1), 0), crossref(by40, "am", day(2015, 1, 1), 0)},
		reason: Embargoed},
	{name: "crossref tdm-only versus vor", ev: []Evidence{crossref("https://www.elsevier.com/tdm/userlicense/1.0/", "tdm", day(2015, 1, 1), 0), crossref(by40, "vor", day(2015, 1, 1), 0)},
		family: CCBY, version: "4.0"},
	{name: "crossref two vor versions", ev: []Evidence{crossref(by30, "vor", day(2015, 1, 1), 0), crossref(by40, "vor", day(2015, 1, 1), 0)},
		reason: Conflict},
	{name: "crossref publisher terms vor", ev: []Evidence{crossref("http://onlinelibrary.wiley.com/termsAndConditions#vor", "vor", day(2015, 1, 1), 0)},
		reason: CustomTerms},
	{name: "source inferred from kind", ev: []Evidence{{Kind: KindCrossref, Value: by40, ContentVersion: "VOR"}}, family: CCBY, version: "4.0",
		detail: "(crossref crossref)"},

	// --- OpenAlex (fixtures/openalex) ---
	{name: "openalex cc-by published", ev: []Evidence{openalex("cc-by", "publishedVersion")}, family: CCBY, version: ""},
	{name: "openalex SHILAP cc-by-sa submitted ignored", ev: []Evidence{
		openalex("cc-by", "publishedVersion"), openalex("cc-by-sa", "submittedVersion"), openalex("cc-by", "submittedVersion"),
	}, family: CCBY},
	{name: "openalex submitted only", ev: []Evidence{openalex("cc-by", "submittedVersion")}, family: CCBY, detail: "submittedVersion"},
	{name: "openalex accepted only", ev: []Evidence{openalex("cc-by", "acceptedVersion")}, family: CCBY, detail: "acceptedVersion"},
	{name: "openalex preprint CC BY, manuscript NC", ev: []Evidence{openalex("cc-by", "submittedVersion"), openalex("cc-by-nc", "acceptedVersion")},
		reason: NonCommercial},
	{name: "openalex published CC BY wins over other versions", ev: []Evidence{openalex("cc-by", "publishedVersion"), openalex("other-oa", "acceptedVersion")},
		family: CCBY},
	{name: "openalex version unknown NC", ev: []Evidence{openalex("cc-by-nc-nd", "")}, reason: NonCommercial},
	{name: "openalex version unknown CC BY", ev: []Evidence{openalex("cc-by", "")}, reason: Unknown},
	{name: "openalex public-domain (Nature 1992)", ev: []Evidence{openalex("public-domain", "publishedVersion")}, reason: Unknown},
	{name: "openalex other-oa", ev: []Evidence{openalex("other-oa", "publishedVersion")}, reason: CustomTerms},
	{name: "openalex cc-by + other-oa published", ev: []Evidence{openalex("cc-by", "publishedVersion"), openalex("other-oa", "publishedVersion")},
		reason: CustomTerms},

	// --- precedence between sources ---
	{name: "PMC NC never upgraded by OpenAlex cc-by", ev: []Evidence{href(SourcePMC, nc30), openalex("cc-by", "publishedVersion")},
		reason: NonCommercial},
	{name: "publisher NC never upgraded by crossref BY", ev: []Evidence{href(SourcePublisher, nc30), crossref(by40, "vor", day(2015, 1, 1), 0)},
		reason: NonCommercial},
	{name: "PMC CC BY against crossref vor NC-ND", ev: []Evidence{href(SourcePMC, by40), crossref(ncnd40, "vor", day(2015, 1, 1), 0)},
		reason: Conflict, detail: "crossref"},
	{name: "PMC CC BY against openalex published NC-ND", ev: []Evidence{href(SourcePMC, by40), openalex("cc-by-nc-nd", "publishedVersion")},
		reason: Conflict},
	{name: "PMC CC BY, openalex NC-ND on a repository copy", ev: []Evidence{href(SourcePMC, by40), openalex("cc-by-nc-nd", "submittedVersion")},
		family: CCBY, version: "4.0"},
	{name: "PMC CC BY, crossref tdm", ev: []Evidence{href(SourcePMC, by40), crossref(tdmEls, "tdm", day(2015, 1, 1), 0)},
		family: CCBY, version: "4.0"},
	{name: "PMC CC BY, openalex other-oa ignored", ev: []Evidence{href(SourcePMC, by40), openalex("other-oa", "publishedVersion")},
		family: CCBY, version: "4.0"},
	{name: "PMC CC BY beats OpenAlex CC0", ev: []Evidence{href(SourcePMC, by40), openalex("public-domain", "publishedVersion")},
		family: CCBY, version: "4.0"},
	{name: "PMC label only falls through to crossref", ev: []Evidence{
		{Kind: KindJATSLicenseType, Source: SourcePMC, Value: "open-access"},
		{Kind: KindJATSCopyright, Source: SourcePMC, Value: "© 2020 The Authors"},
		crossref(by40, "vor", day(2020, 1, 1), 0),
	}, family: CCBY, version: "4.0", detail: "crossref"},
	{name: "PMC TDM code (author manuscript)", ev: []Evidence{{Kind: KindPMCLicenseCode, Value: "TDM"}, crossref(by40, "vor", day(2020, 1, 1), 0)},
		reason: TDMOnly},
	{name: "PMC NO-CC CODE", ev: []Evidence{{Kind: KindPMCLicenseCode, Value: "NO-CC CODE"}}, reason: CustomTerms},
	{name: "PubMed weak text does not block crossref", ev: []Evidence{
		{Kind: KindPubMedCopyright, Value: "Copyright 2000 Wiley-Liss, Inc."}, crossref(by40, "vor", day(2015, 1, 1), 0),
	}, family: CCBY, version: "4.0"},
	{name: "lower weak pubmed NC conflicts", ev: []Evidence{
		href(SourcePMC, by40), {Kind: KindPubMedCopyright, Value: "Published under CC BY-NC-ND"},
	}, reason: Conflict},
	{name: "lower pubmed all rights reserved yields", ev: []Evidence{
		href(SourcePMC, by40), {Kind: KindPubMedCopyright, Value: "Copyright 2014 Elsevier Inc. All rights reserved."},
	}, family: CCBY, version: "4.0"},
	{name: "lower pubmed not for commercial use conflicts", ev: []Evidence{
		href(SourcePMC, by40), {Kind: KindPubMedCopyright, Value: "© 2014 The Authors. Not for commercial use."},
	}, reason: Conflict},
	{name: "lower crossref custom vor conflicts", ev: []Evidence{
		href(SourcePMC, by40), crossref("http://onlinelibrary.wiley.com/termsAndConditions#vor", "vor", day(2015, 1, 1), 0),
	}, reason: Conflict},
	{name: "lower crossref future vor conflicts", ev: []Evidence{
		href(SourcePMC, by40), crossref(by40, "vor", day(2030, 1, 1), 0),
	}, reason: Conflict},
	{name: "unknown source ranks last", ev: []Evidence{
		{Kind: KindJATSHref, Source: "mystery", Value: by40}, href(SourcePublisher, nc30),
	}, reason: NonCommercial},
}

func TestDecide(t *testing.T) {
	for _, c := range decideCases {
		t.Run(c.name, func(t *testing.T) {
			now := c.now
			if now.IsZero() {
				now = runDate
			}
			d := Decide(c.ev, now)
			checkDecision(t, d)
			if c.family != "" {
				if !d.Accepted || d.Family != c.family || d.Version != c.version || d.Port != c.port {
					t.Fatalf("got %+v, want accepted %s %q %q", d, c.family, c.version, c.port)
				}
				if c.url != "" && d.URL != c.url {
					t.Fatalf("URL = %q, want %q", d.URL, c.url)
				}
			} else if d.Accepted || d.Reason != c.reason {
				t.Fatalf("got accepted=%v reason=%q detail=%q, want reason %q", d.Accepted, d.Reason, d.Detail, c.reason)
			}
			if c.detail != "" && !strings.Contains(d.Detail, c.detail) {
				t.Fatalf("Detail %q does not mention %q", d.Detail, c.detail)
			}
			if len(c.ev) > 0 && len(d.Evidence) != len(c.ev) {
				t.Fatalf("Evidence not kept: %d of %d", len(d.Evidence), len(c.ev))
			}
		})
	}
}

// checkDecision asserts the invariants of every decision.
func checkDecision(t testing.TB, d Decision) {
	t.Helper()
	if d.Detail == "" {
		t.Fatalf("empty Detail: %+v", d)
	}
	if d.Accepted {
		if !slices.Contains(Families, d.Family) || d.URL == "" || d.Reason != "" {
			t.Fatalf("bad accepted decision %+v", d)
		}
		if d.URL != CanonicalURL(d.Family, d.Version, d.Port) {
			t.Fatalf("URL %q not canonical", d.URL)
		}
		return
	}
	if !slices.Contains(Reasons, d.Reason) || d.Family != "" || d.URL != "" {
		t.Fatalf("bad rejected decision %+v", d)
	}
}

// Order of evidence must not change the outcome.
func TestDecideOrderIndependent(t *testing.T) {
	for _, c := range decideCases {
		if len(c.ev) < 2 {
			continue
		}
		now := c.now
		if now.IsZero() {
			now = runDate
		}
		want := Decide(c.ev, now)
		rev := slices.Clone(c.ev)
		slices.Reverse(rev)
		got := Decide(rev, now)
		if got.Accepted != want.Accepted || got.Reason != want.Reason || got.Family != want.Family ||
			got.Version != want.Version || got.Port != want.Port {
			t.Errorf("%s: reversed evidence gives %+v, want %+v", c.name, got, want)
		}
	}
}

// Adding a lower-precedence permissive licence never turns a rejection into
// an acceptance.
func TestDecideNoUpgrade(t *testing.T) {
	permissive := []Evidence{
		openalex("cc-by", "publishedVersion"),
		crossref(by40, "vor", day(2015, 1, 1), 0),
		{Kind: KindPubMedCopyright, Value: "This is an open access article under the CC BY license."},
	}
	for _, c := range decideCases {
		if c.family != "" || len(c.ev) == 0 || c.reason == Missing || c.reason == Unknown {
			continue
		}
		top := rankOther
		for i := range c.ev {
			top = min(top, rankOf(&c.ev[i]))
		}
		for _, p := range permissive {
			if rankOf(&p) <= top {
				continue
			}
			d := Decide(append(slices.Clone(c.ev), p), runDate)
			if d.Accepted {
				t.Errorf("%s + %s %q: accepted %+v", c.name, p.Kind, p.Value, d)
			}
		}
	}
}

// Every pair and many triples of real evidence give the same decision in any
// order, and keep the decision invariants.
func TestDecideCombinationsOrderIndependent(t *testing.T) {
	var pool []Evidence
	for _, c := range decideCases {
		pool = append(pool, c.ev...)
	}
	for _, c := range parseCases {
		if c.ok && len(pool) < 400 {
			pool = append(pool, Evidence{Kind: c.kind, Value: c.value, Source: SourcePublisher})
		}
	}
	same := func(a, b Decision) bool {
		return a.Accepted == b.Accepted && a.Reason == b.Reason && a.Family == b.Family && a.Version == b.Version && a.Port == b.Port
	}
	for i := range pool {
		for j := i + 1; j < len(pool); j++ {
			a := Decide([]Evidence{pool[i], pool[j]}, runDate)
			b := Decide([]Evidence{pool[j], pool[i]}, runDate)
			checkDecision(t, a)
			if !same(a, b) {
				t.Fatalf("order matters for %+v / %+v:\n%+v\n%+v", pool[i], pool[j], a, b)
			}
			k := (i*7 + j*13) % len(pool) // a deterministic third piece
			x := Decide([]Evidence{pool[i], pool[j], pool[k]}, runDate)
			y := Decide([]Evidence{pool[k], pool[j], pool[i]}, runDate)
			z := Decide([]Evidence{pool[j], pool[k], pool[i]}, runDate)
			if !same(x, y) || !same(x, z) {
				t.Fatalf("order matters for %+v / %+v / %+v:\n%+v\n%+v\n%+v", pool[i], pool[j], pool[k], x, y, z)
			}
		}
	}
}
