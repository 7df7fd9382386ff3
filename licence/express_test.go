package licence

import "testing"

// Copyright statements and licence texts of OUP and BMJ articles that PMC
// files as CC BY: an express CC BY grant in <license> beside boilerplate
// reservation wording in <copyright-statement>.
const (
	// BMJ's copyright statement, as PubMed records it for J NeuroInterv
	// Surg 10.1136/neurintsurg-2017-013179 (2018); BMJ's JATS carries the
	// same sentence.
	copyBMJ = "© Article author(s) (or their employer(s) unless otherwise stated in the text of the article) 2018. All rights reserved. No commercial use is permitted unless otherwise expressly granted."
	// BMJ's CC BY 4.0 licence paragraph.
	textBMJBy = "This is an open access article distributed in accordance with the Creative Commons Attribution 4.0 Unported (CC BY 4.0) license, which permits others to copy, redistribute, remix, transform and build upon this work for any purpose, provided the original work is properly cited, a link to the licence is given, and indication of whether changes were made. See: https://creativecommons.org/licenses/by/4.0/."
	// Written here in the form of OUP's copyright statements (holder,
	// publisher, society, reservation, permissions address).
	copyOUP = "© The Author 2014. Published by Oxford University Press on behalf of the Society for Molecular Biology and Evolution. All rights reserved. For permissions, please e-mail: journals.permissions@oup.com"
)

// Paths the JATS reader gives a sub-article's and a response's licence.
const (
	pathSub  = "sub-article[1]/front-stub[1]/permissions[1]/license[1]/@xlink:href"
	pathResp = "response[2]/front-stub[1]/permissions[1]/license[1]/@xlink:href"
	pathMain = "front/article-meta[1]/permissions[1]/license[1]/@xlink:href"
)

func copyright(src Source, v string) Evidence {
	return Evidence{Kind: KindJATSCopyright, Source: src, Value: v}
}

// expressCases: an express CC grant beats generic reservation wording,
// and a sub-article's licence is not the article's. They join decideCases
// (and so the order and combination tests).
var expressCases = []decideCase{
	// --- generic and conditional reservations ---
	{name: "OUP all rights reserved beside CC BY", ev: []Evidence{
		copyright(SourcePMC, copyOUP), {Kind: KindJATSLicenseType, Source: SourcePMC, Value: "cc-by"},
		href(SourcePMC, by40), licP(SourcePMC, textOUPBy),
	}, family: CCBY, version: "4.0", detail: "all rights reserved (pmc jats-copyright) is a generic reservation"},
	{name: "BMJ conditional no-commercial-use beside CC BY", ev: []Evidence{
		copyright(SourcePMC, copyBMJ), {Kind: KindJATSLicenseType, Source: SourcePMC, Value: "open-access"},
		href(SourcePMC, by40), licP(SourcePMC, textBMJBy),
	}, family: CCBY, version: "4.0", detail: "generic reservation"},
	{name: "BMJ reservation beside CC BY wording only", ev: []Evidence{
		copyright(SourcePublisher, copyBMJ), licP(SourcePublisher, textPLOSBy),
	}, family: CCBY, version: ""},
	{name: "BMJ reservation without a licence", ev: []Evidence{copyright(SourcePMC, copyBMJ)},
		reason: NonCommercial, detail: "no commercial use unless expressly granted"},
	{name: "OUP reservation without a licence", ev: []Evidence{copyright(SourcePMC, copyOUP)},
		reason: CustomTerms, detail: "all rights reserved"},
	{name: "reservation beside a weak label only", ev: []Evidence{
		copyright(SourcePMC, copyOUP), {Kind: KindJATSLicenseType, Source: SourcePMC, Value: "cc-by"},
	}, reason: CustomTerms},
	{name: "reservation beside a licence not yet in force", ev: []Evidence{
		copyright(SourcePublisher, copyOUP), {Kind: KindJATSALI, Source: SourcePublisher, Value: by40, Start: day(2030, 1, 1)},
	}, reason: CustomTerms},
	{name: "reservation beside an NC licence", ev: []Evidence{copyright(SourcePMC, copyOUP), href(SourcePMC, nc30)},
		reason: NonCommercial},
	{name: "reservation and CC BY in one copyright statement", ev: []Evidence{
		copyright(SourcePMC, "© 2019 The Authors. All rights reserved. "+textPLOSBy),
	}, reason: CustomTerms},
	{name: "unconditional non-commercial copyright beside CC BY", ev: []Evidence{
		copyright(SourcePMC, "© The Author(s) 2019. All rights reserved. For non-commercial purposes only."), href(SourcePMC, by40),
	}, reason: NonCommercial},
	{name: "conditional wording with an unconditional restriction", ev: []Evidence{
		copyright(SourcePMC, copyBMJ+" The material may not be redistributed."), href(SourcePMC, by40),
	}, reason: CustomTerms, detail: "no redistribution allowed"},
	{name: "no-reuse copyright beside CC BY", ev: []Evidence{copyright(SourcePublisher, textBioRxivAR), href(SourcePublisher, by40)},
		reason: CustomTerms},
	{name: "reservation in license-p still restricts", ev: []Evidence{
		href(SourcePMC, by40), licP(SourcePMC, "© 2019 Elsevier Ltd. All rights reserved."),
	}, reason: CustomTerms},
	{name: "lower pubmed BMJ reservation yields", ev: []Evidence{
		href(SourcePMC, by40), {Kind: KindPubMedCopyright, Source: SourcePubMed, Value: copyBMJ},
	}, family: CCBY, version: "4.0"},
	{name: "pubmed BMJ reservation alone", ev: []Evidence{{Kind: KindPubMedCopyright, Source: SourcePubMed, Value: copyBMJ}},
		reason: NonCommercial},

	// --- sub-articles ---
	{name: "CC BY only in a sub-article", ev: []Evidence{
		copyright(SourcePMC, "© 2019 Smith et al."),
		{Kind: KindJATSHref, Source: SourcePMC, Value: by40, Path: pathSub},
	}, reason: Unknown, detail: "is a sub-article's own"},
	{name: "CC BY only in a response", ev: []Evidence{
		{Kind: KindJATSHref, Source: SourcePublisher, Value: by40, Path: pathResp},
	}, reason: Unknown, detail: pathResp},
	{name: "main CC BY, sub-article NC", ev: []Evidence{
		{Kind: KindJATSHref, Source: SourcePMC, Value: by40, Path: pathMain},
		{Kind: KindJATSHref, Source: SourcePMC, Value: ncnd40, Path: pathSub},
	}, family: CCBY, version: "4.0", detail: "covers only that sub-article, whose text is not served"},
	{name: "main NC, sub-article CC BY", ev: []Evidence{
		{Kind: KindJATSHref, Source: SourcePMC, Value: nc30, Path: pathMain},
		{Kind: KindJATSHref, Source: SourcePMC, Value: by40, Path: pathSub},
	}, reason: NonCommercial},
	{name: "main CC BY 4.0, sub-article CC BY 3.0", ev: []Evidence{
		{Kind: KindJATSHref, Source: SourcePMC, Value: by40, Path: pathMain},
		{Kind: KindJATSHref, Source: SourcePMC, Value: by30, Path: pathSub},
	}, family: CCBY, version: "4.0"},
	{name: "sub-article CC BY, crossref vor states the article's", ev: []Evidence{
		{Kind: KindJATSHref, Source: SourcePMC, Value: by40, Path: pathSub},
		crossref(by40, "vor", day(2019, 1, 1), 0),
	}, family: CCBY, version: "4.0", detail: "crossref"},
}

func init() { decideCases = append(decideCases, expressCases...) }

// TestParseReservations checks which restrictions are only reservation
// wording (Term.Generic) and which restrict unconditionally.
func TestParseReservations(t *testing.T) {
	for _, c := range []struct {
		kind    Kind
		value   string
		reason  Reason
		generic bool
	}{
		{KindJATSCopyright, copyOUP, CustomTerms, true},
		{KindJATSCopyright, copyBMJ, NonCommercial, true},
		{KindJATSCopyright, "No commercial use is permitted unless otherwise expressly granted.", NonCommercial, true},
		{KindJATSCopyright, "Todos los derechos reservados", CustomTerms, true},
		{KindPubMedCopyright, "Copyright © 2011 Elsevier Inc. All rights reserved.", CustomTerms, true},
		{KindJATSCopyright, "© The Authors 2019. Not for commercial use.", NonCommercial, false},
		{KindJATSCopyright, "All rights reserved. For non-commercial purposes only.", NonCommercial, false},
		{KindJATSCopyright, "No commercial use is permitted.", NonCommercial, false},
		{KindJATSCopyright, "No commercial use is permitted unless expressly granted by the publisher in writing, and not for commercial use.", NonCommercial, false},
		{KindJATSCopyright, copyBMJ + " Personal use only.", CustomTerms, false},
		{KindJATSCopyright, textBioRxivAR, CustomTerms, false},
		{KindJATSCopyright, "All rights reserved. See http://creativecommons.org/licenses/by/9.9/", CustomTerms, false},
		{KindJATSCopyright, "All rights reserved. http://creativecommons.org/licenses/by-nc/4.0/", NonCommercial, false},
	} {
		got, ok := Parse(Evidence{Kind: c.kind, Value: c.value})
		if !ok || got.Reason != c.reason || got.Generic != c.generic {
			t.Errorf("Parse(%s %q) = %+v, %v; want %s, generic %v", c.kind, c.value, got, ok, c.reason, c.generic)
		}
	}
}
