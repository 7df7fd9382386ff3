package licence

import (
	"strings"
	"testing"
)

// parseCase is one spelling and what it must normalise to. Values come from
// the fixtures (shared/fixtures/*, see SOURCES.md) and sources.md section 6
// unless marked as constructed.
type parseCase struct {
	kind    Kind
	value   string
	ok      bool
	family  Family
	version string
	port    string
	reason  Reason
}

func acc(k Kind, v string, f Family, version, port string) parseCase {
	return parseCase{kind: k, value: v, ok: true, family: f, version: version, port: port}
}

func rej(k Kind, v string, r Reason) parseCase {
	return parseCase{kind: k, value: v, ok: true, reason: r}
}

func none(k Kind, v string) parseCase { return parseCase{kind: k, value: v} }

const (
	textPLOSBy    = "This is an open-access article distributed under the terms of the Creative Commons Attribution License, which permits unrestricted use, distribution, and reproduction in any medium, provided the original author and source are credited."
	textELifeBy   = "This article is distributed under the terms of the Creative Commons Attribution License, which permits unrestricted use and redistribution provided that the original author and source are credited."
	textF1000By   = "This is an open access article distributed under the terms of the Creative Commons Attribution Licence, which permits unrestricted use, distribution, and reproduction in any medium, provided the original work is properly cited."
	textSpringer  = "Open AccessThis article is licensed under a Creative Commons Attribution 4.0 International License, which permits use, sharing, adaptation, distribution and reproduction in any medium or format, as long as you give appropriate credit to the original author(s) and the source, provide a link to the Creative Commons licence, and indicate if changes were made. The images or other third party material in this article are included in the article's Creative Commons licence, unless indicated otherwise in a credit line to the material. If material is not included in the article's Creative Commons licence and your intended use is not permitted by statutory regulation or exceeds the permitted use, you will need to obtain permission directly from the copyright holder. To view a copy of this licence, visit http://creativecommons.org/licenses/by/4.0/."
	textOUPBy     = "This is an Open Access article distributed under the terms of the Creative Commons Attribution License (http://creativecommons.org/licenses/by/4.0/), which permits unrestricted reuse, distribution, and reproduction in any medium, provided the original work is properly cited."
	textBioRxivNC = "This pre-print is available under a Creative Commons License (Attribution-NonCommercial-NoDerivs 4.0 International), CC BY-NC-ND 4.0, as described at http://creativecommons.org/licenses/by-nc-nd/4.0/"
	textBioRxivBy = "This pre-print is available under a Creative Commons License (Attribution 4.0 International), CC BY 4.0, as described at http://creativecommons.org/licenses/by/4.0/"
	textBioRxivAR = "The copyright holder for this pre-print is the author. All rights reserved. The material may not be redistributed, re-used or adapted without the author's permission."
	textOUPNC     = "This is an Open Access article distributed under the terms of the Creative Commons Attribution Non-Commercial License (http://creativecommons.org/licenses/by-nc/3.0), which permits unrestricted non-commercial use, distribution, and reproduction in any medium, provided the original work is properly cited."
	textRBA       = "This is an Open Access article distributed under the terms of the Creative Commons Attribution Non-Commercial No Derivative License, which permits unrestricted non-commercial use, distribution, and reproduction in any medium provided the original work is properly cited and the work is not changed in any way."
	textRSPNC     = "This is an Open Access article distributed under the terms of the Creative Commons Attribution Non-Commercial License, which permits unrestricted non-commercial use, distribution, and reproduction in any medium, provided the original work is properly cited."
	textCeramica  = "Este é um artigo publicado em acesso aberto sob uma licença Creative Commons"
	textMediacoes = " Este es un artículo publicado en acceso abierto ( Open Access ) bajo la licencia Creative Commons Attribution , que permite su uso, distribución y reproducción en cualquier medio, sin restricciones siempre que el trabajo original sea debidamente citado. "
	textRBEF      = "This is an open-access article distributed under the terms of the Creative Commons Attribution License (CC BY). The use, distribution or reproduction in other forums is permitted, provided the original author(s) and the copyright owner(s) are credited and that the original publication in this journal is cited, in accordance with accepted academic practice. No use, distribution or reproduction is permitted which does not comply with these terms."
	textCC0       = "This is an open-access article, free of all copyright, and may be freely reproduced, distributed, transmitted, modified, built upon, or otherwise used by anyone for any lawful purpose. The work is made available under the Creative Commons CC0 public domain dedication."
	textPDDecl    = "This is an open-access article distributed under the terms of the Creative Commons Public Domain Declaration, which stipulates that, once placed in the public domain, this work may be freely reproduced, distributed, transmitted, modified, built upon, or otherwise used by anyone for any lawful purpose."
	textEHP       = "Publication of EHP lies in the public domain and is therefore without copyright. All text from EHP may be reprinted freely. Use of materials published in EHP should be acknowledged (for example, ?Reproduced with permission from Environmental Health Perspectives?); pertinent reference information should be provided for the article from which the material was reproduced. Articles from EHP, especially the News section, may contain photographs or illustrations copyrighted by other commercial organizations or individuals that may not be used without obtaining prior approval from the holder of the copyright. "
	textWHO       = "This is an Open Access article in the spirit of the Public Library of Science (PLoS) principles for Open Access http://www.plos.org/oa/, without any waiver of WHO's privileges and immunities under international law, convention, or agreement. This article should not be reproduced for use in association with the promotion of commercial products, services, or any legal entity. There should be no suggestion that WHO endorses any specific organization or products. The use of the WHO logo is not permitted. This notice should be preserved along with the article's original URL."
	textBMC       = "This is an Open Access article distributed under the terms of the Creative Commons Attribution License (http://creativecommons.org/licenses/by/2.0), which permits unrestricted use, distribution, and reproduction in any medium, provided the original work is properly cited."
	// constructed: WHO's later CC BY IGO wording keeps the logo sentence.
	textWHOIGO = "This is an open access article distributed under the Creative Commons Attribution IGO License (https://creativecommons.org/licenses/by/3.0/igo/legalcode), which permits unrestricted use. In any reproduction of this article there should not be any suggestion that WHO or this article endorse any specific organization or products. The use of the WHO logo is not permitted."
)

var parseCases = []parseCase{
	// --- licence URLs, every spelling (jats-href) ---
	acc(KindJATSHref, "http://creativecommons.org/licenses/by/2.0", CCBY, "2.0", ""),
	acc(KindJATSHref, "http://creativecommons.org/licenses/by/3.0/", CCBY, "3.0", ""),
	acc(KindJATSHref, "http://creativecommons.org/licenses/by/4.0/", CCBY, "4.0", ""),
	acc(KindJATSHref, "https://creativecommons.org/licenses/by/4.0/", CCBY, "4.0", ""),
	acc(KindJATSHref, "https://creativecommons.org/licenses/by/4.0", CCBY, "4.0", ""),
	acc(KindJATSHref, "https://creativecommons.org/licenses/by/4.0/deed.en", CCBY, "4.0", ""),
	acc(KindJATSHref, "https://creativecommons.org/licenses/by/4.0/deed.pt_BR", CCBY, "4.0", ""),
	acc(KindJATSHref, "https://creativecommons.org/licenses/by/3.0/legalcode", CCBY, "3.0", ""),
	acc(KindJATSHref, "https://creativecommons.org/licenses/by/4.0/legalcode.de", CCBY, "4.0", ""),
	acc(KindJATSHref, "https://creativecommons.org/licenses/by/3.0/igo/", CCBY, "3.0", "igo"),
	acc(KindJATSHref, "https://creativecommons.org/licenses/by/3.0/igo/legalcode", CCBY, "3.0", "igo"),
	acc(KindJATSHref, "http://creativecommons.org/licenses/by/2.0/uk/", CCBY, "2.0", "uk"),
	acc(KindJATSHref, "http://creativecommons.org/licenses/by/3.0/us/", CCBY, "3.0", "us"),
	acc(KindJATSHref, "http://creativecommons.org/licenses/by/2.5/scotland/deed.en", CCBY, "2.5", "scotland"),
	acc(KindJATSHref, "http://www.creativecommons.org/licenses/by/4.0/", CCBY, "4.0", ""),
	acc(KindJATSHref, "HTTPS://CreativeCommons.org/Licenses/BY/4.0/", CCBY, "4.0", ""),
	acc(KindJATSHref, "  https://creativecommons.org/licenses/by/4.0/?ref=chooser-v1  ", CCBY, "4.0", ""),
	acc(KindJATSHref, "https://creativecommons.org/licenses/by/4.0/#top", CCBY, "4.0", ""),
	acc(KindJATSHref, "creativecommons.org/licenses/by/4.0/", CCBY, "4.0", ""),
	acc(KindJATSHref, "//creativecommons.org/licenses/by/4.0/", CCBY, "4.0", ""),
	acc(KindJATSHref, "http://creativecommons.org/licences/by/4.0", CCBY, "4.0", ""),
	acc(KindJATSHref, "http://creativecommons.org/licenses/by/4.0/.", CCBY, "4.0", ""),
	acc(KindJATSHref, "http://creativecommons.org/licenses/by/", CCBY, "", ""),
	acc(KindJATSHref, "http://creativecommons.org/licenses/by-sa/3.0/", CCBYSA, "3.0", ""),
	acc(KindJATSHref, "https://creativecommons.org/licenses/by-sa/4.0/", CCBYSA, "4.0", ""),
	acc(KindJATSHref, "https://creativecommons.org/licenses/by-sa/3.0/igo/", CCBYSA, "3.0", "igo"),
	acc(KindJATSHref, "http://creativecommons.org/publicdomain/zero/1.0/", CC0, "1.0", ""),
	acc(KindJATSHref, "https://creativecommons.org/publicdomain/zero/1.0/", CC0, "1.0", ""),
	acc(KindJATSHref, "https://creativecommons.org/publicdomain/zero/1.0/legalcode", CC0, "1.0", ""),
	acc(KindJATSHref, "http://creativecommons.org/publicdomain/zero/1.0", CC0, "1.0", ""),
	acc(KindJATSHref, "http://creativecommons.org/publicdomain/mark/1.0/", PDM, "1.0", ""),
	acc(KindJATSHref, "http://creativecommons.org/licenses/publicdomain/", PDM, "1.0", ""),
	rej(KindJATSHref, "http://creativecommons.org/licenses/by-nc/3.0", NonCommercial),
	rej(KindJATSHref, "https://creativecommons.org/licenses/by-nc/4.0/", NonCommercial),
	rej(KindJATSHref, "http://creativecommons.org/licenses/by-nc-nd/4.0", NonCommercial),
	rej(KindJATSHref, "http://creativecommons.org/licenses/by-nc-nd/3.0/", NonCommercial),
	rej(KindJATSHref, "http://creativecommons.org/licenses/by-nc-sa/4.0/", NonCommercial),
	rej(KindJATSHref, "https://creativecommons.org/licenses/by-nc/3.0/igo/", NonCommercial),
	rej(KindJATSHref, "https://creativecommons.org/licenses/by-nc-nd/3.0/igo/", NonCommercial),
	rej(KindJATSHref, "http://creativecommons.org/licenses/by-nd/4.0/", NoDerivatives),
	rej(KindJATSHref, "http://creativecommons.org/licenses/by-nd/2.0/uk/", NoDerivatives),
	rej(KindJATSHref, "http://creativecommons.org/licenses/by-nd-nc/1.0/", NonCommercial),
	rej(KindJATSHref, "http://creativecommons.org/licenses/sampling+/1.0/", CustomTerms),
	rej(KindJATSHref, "http://creativecommons.org/licenses/by/5.0/", Unknown),
	rej(KindJATSHref, "http://creativecommons.org/licenses/by/4.0/igo/", Unknown),
	rej(KindJATSHref, "http://creativecommons.org/licenses/by/4.0/a/b/c", Unknown),
	rej(KindJATSHref, "http://creativecommons.org/licenses/", Unknown),
	rej(KindJATSHref, "http://www.elsevier.com/open-access/userlicense/1.0/", CustomTerms),
	none(KindJATSHref, "http://www.frontiersin.org/licenseagreement"),
	none(KindJATSHref, "http://www.plos.org/oa/"),
	none(KindJATSHref, "https://evilcreativecommons.org/licenses/by/4.0/"),
	none(KindJATSHref, "https://creativecommons.org.example.net/licenses/by/4.0/"),
	none(KindJATSHref, "   "),
	none(KindURL, "https://example.org/licence"),
	acc(KindURL, "http://creativecommons.org/licenses/by/4.0/", CCBY, "4.0", ""),

	// --- ali:license_ref ---
	acc(KindJATSALI, "http://creativecommons.org/licenses/by/4.0/", CCBY, "4.0", ""),
	acc(KindJATSALI, "http://creativecommons.org/publicdomain/zero/1.0/", CC0, "1.0", ""),

	// --- Crossref license[] URLs ---
	acc(KindCrossref, "http://creativecommons.org/licenses/by/3.0/", CCBY, "3.0", ""),
	rej(KindCrossref, "http://creativecommons.org/licenses/by-nc-nd/4.0/", NonCommercial),
	rej(KindCrossref, "http://www.elsevier.com/tdm/userlicense/1.0/", TDMOnly),
	rej(KindCrossref, "https://www.elsevier.com/tdm/userlicense/1.0/", TDMOnly),
	rej(KindCrossref, "http://doi.wiley.com/10.1002/tdm_license_1.1", TDMOnly),
	rej(KindCrossref, "http://www.springer.com/tdm", TDMOnly),
	rej(KindCrossref, "https://www.springernature.com/gp/researchers/text-and-data-mining", TDMOnly),
	rej(KindCrossref, "http://onlinelibrary.wiley.com/termsAndConditions#vor", CustomTerms),
	rej(KindCrossref, "http://www.elsevier.com/open-access/userlicense/1.0/", CustomTerms),
	rej(KindCrossref, "https://academic.oup.com/journals/pages/open_access/funder_policies/chorus/standard_publication_model", CustomTerms),
	rej(KindCrossref, "https://www.acs.org/content/acs/en/copyright.html", CustomTerms),
	rej(KindCrossref, "https://doi.org/10.15223/policy-029", CustomTerms),

	// --- OpenAlex values (sources.md 4.3) ---
	acc(KindOpenAlex, "cc-by", CCBY, "", ""),
	acc(KindOpenAlex, "CC-BY", CCBY, "", ""),
	acc(KindOpenAlex, "cc-by-sa", CCBYSA, "", ""),
	acc(KindOpenAlex, "https://openalex.org/licenses/cc-by", CCBY, "", ""),
	rej(KindOpenAlex, "https://openalex.org/licenses/cc-by-nc-nd", NonCommercial),
	rej(KindOpenAlex, "cc-by-nc", NonCommercial),
	rej(KindOpenAlex, "cc-by-nd", NoDerivatives),
	rej(KindOpenAlex, "cc-by-nc-sa", NonCommercial),
	rej(KindOpenAlex, "cc-by-nc-nd", NonCommercial),
	rej(KindOpenAlex, "public-domain", Unknown),
	rej(KindOpenAlex, "other-oa", CustomTerms),
	rej(KindOpenAlex, "publisher-specific-oa", CustomTerms),
	rej(KindOpenAlex, "implied-oa", Unknown),
	rej(KindOpenAlex, "unspecified-oa", Unknown),
	rej(KindOpenAlex, "mit", CustomTerms),
	rej(KindOpenAlex, "apache-2-0", CustomTerms),
	rej(KindOpenAlex, "gpl-v3", CustomTerms),
	rej(KindOpenAlex, "gpl-v2", CustomTerms),
	rej(KindOpenAlex, "isc", CustomTerms),
	rej(KindOpenAlex, "elsevier-specific: oa user license", CustomTerms),
	rej(KindOpenAlex, "acs-specific: authorchoice/editors choice usage agreement", CustomTerms),
	rej(KindOpenAlex, "publisher-specific, author manuscript", CustomTerms),
	rej(KindOpenAlex, "some-new-value", Unknown),

	// --- PMC license_code / legacy file-list License ---
	acc(KindPMCLicenseCode, "CC BY", CCBY, "", ""),
	acc(KindPMCLicenseCode, "CC-BY", CCBY, "", ""),
	acc(KindPMCLicenseCode, "CC BY-SA", CCBYSA, "", ""),
	acc(KindPMCLicenseCode, "CC BY 4.0", CCBY, "4.0", ""),
	acc(KindPMCLicenseCode, "CC0", CC0, "1.0", ""),
	acc(KindPMCLicenseCode, "CC-0 1.0", CC0, "1.0", ""),
	acc(KindPMCLicenseCode, "PDM", PDM, "1.0", ""),
	rej(KindPMCLicenseCode, "CC BY-NC", NonCommercial),
	rej(KindPMCLicenseCode, "CC BY-NC-ND", NonCommercial),
	rej(KindPMCLicenseCode, "CC BY-NC-SA", NonCommercial),
	rej(KindPMCLicenseCode, "CC BY-ND", NoDerivatives),
	rej(KindPMCLicenseCode, "NO-CC CODE", CustomTerms),
	rej(KindPMCLicenseCode, "TDM", TDMOnly),
	rej(KindPMCLicenseCode, "weird", Unknown),
	none(KindPMCLicenseCode, ""),

	// --- JATS license-type: labels, weak (sources.md 7.6) ---
	none(KindJATSLicenseType, "open-access"),
	none(KindJATSLicenseType, "OpenAccess"),
	none(KindJATSLicenseType, "creative-commons"),
	none(KindJATSLicenseType, "open"),
	none(KindJATSLicenseType, "author-manuscript"),
	acc(KindJATSLicenseType, "cc-by", CCBY, "", ""),
	acc(KindJATSLicenseType, "CC BY 4.0", CCBY, "4.0", ""),
	acc(KindJATSLicenseType, "public-domain", PDM, "1.0", ""),
	rej(KindJATSLicenseType, "cc-by-nc", NonCommercial),

	// --- license-p wording (fixtures) ---
	acc(KindJATSLicenseP, textPLOSBy, CCBY, "", ""),
	acc(KindJATSLicenseP, textELifeBy, CCBY, "", ""),
	acc(KindJATSLicenseP, textF1000By, CCBY, "", ""),
	acc(KindJATSLicenseP, textSpringer, CCBY, "4.0", ""),
	acc(KindJATSLicenseP, textOUPBy, CCBY, "4.0", ""),
	acc(KindJATSLicenseP, textBMC, CCBY, "2.0", ""),
	acc(KindJATSLicenseP, textBioRxivBy, CCBY, "4.0", ""),
	acc(KindJATSLicenseP, textMediacoes, CCBY, "", ""),
	acc(KindJATSLicenseP, textRBEF, CCBY, "", ""),
	acc(KindJATSLicenseP, textCC0, CC0, "1.0", ""),
	acc(KindJATSLicenseP, textPDDecl, PDM, "1.0", ""),
	acc(KindJATSLicenseP, textEHP, PDM, "1.0", ""),
	acc(KindJATSLicenseP, textWHOIGO, CCBY, "3.0", "igo"),
	rej(KindJATSLicenseP, textBioRxivNC, NonCommercial),
	rej(KindJATSLicenseP, textOUPNC, NonCommercial),
	rej(KindJATSLicenseP, textRBA, NonCommercial),
	rej(KindJATSLicenseP, textRSPNC, NonCommercial),
	rej(KindJATSLicenseP, textWHO, CustomTerms),
	rej(KindJATSLicenseP, textBioRxivAR, CustomTerms),
	none(KindJATSLicenseP, textCeramica),
	none(KindJATSLicenseP, "Open Access. This is an open access article."),
	none(KindJATSLicenseP, "This article is a U.S. Government work and is in the public domain in the USA."),
	// --- license-p wording (constructed variants of the rules) ---
	acc(KindJATSLicenseP, "This article is in the public domain.", PDM, "1.0", ""),
	acc(KindJATSLicenseP, "Licensed under the Creative Commons Attribution-ShareAlike 4.0 International License.", CCBYSA, "", ""),
	acc(KindJATSLicenseP, "Creative Commons Attribution Share Alike licence", CCBYSA, "", ""),
	acc(KindJATSLicenseP, "Published under a CC-BY licence.", CCBY, "", ""),
	acc(KindJATSLicenseP, "Creative Commons CC0", CC0, "1.0", ""),
	acc(KindJATSLicenseP, "Distributed under the Creative Commons Attribution License, which permits commercial and non-commercial use.", CCBY, "", ""),
	acc(KindJATSLicenseP, "Licença Creative Commons Atribuição 4.0 Internacional", CCBY, "", ""),
	rej(KindJATSLicenseP, "Creative Commons Attribution-NonCommercial 4.0 International", NonCommercial),
	rej(KindJATSLicenseP, "Creative Commons Attribution-NoDerivatives 4.0 International", NoDerivatives),
	rej(KindJATSLicenseP, "Attribution-NonCommercial-NoDerivs", NonCommercial),
	rej(KindJATSLicenseP, "AttributionNonCommercial", NonCommercial),
	rej(KindJATSLicenseP, "licensed under CC BY-NC", NonCommercial),
	rej(KindJATSLicenseP, "licensed under CC BY-ND", NoDerivatives),
	rej(KindJATSLicenseP, "Creative Commons Attribution License; commercial use is not permitted.", NonCommercial),
	rej(KindJATSLicenseP, "Creative Commons Attribution License, which permits use provided the original work is properly cited and is not used for commercial purposes.", NonCommercial),
	rej(KindJATSLicenseP, "This is an open access article under the CC BY-NC-ND license (http://creativecommons.org/licenses/by-nc-nd/4.0/).", NonCommercial),
	acc(KindJATSLicenseP, "This is an open access article under the CC BY license (http://creativecommons.org/licenses/by/4.0/).", CCBY, "4.0", ""),
	none(KindJATSLicenseP, "This is a work of the U.S. Government and is not subject to copyright protection in the United States. Foreign copyrights may apply."),
	rej(KindJATSLicenseP, "Licença Creative Commons Atribuição-NãoComercial 4.0 Internacional", NonCommercial),
	rej(KindJATSLicenseP, "Licencia Creative Commons Atribución-NoComercial-SinDerivadas 4.0 Internacional", NonCommercial),
	rej(KindJATSLicenseP, "Licença Creative Commons Atribuição-SemDerivações 4.0", NoDerivatives),
	rej(KindJATSLicenseP, "Creative Commons Namensnennung - Nicht kommerziell 4.0", NonCommercial),
	rej(KindJATSLicenseP, "Creative Commons Attribution License (http://creativecommons.org/licenses/by-nc/3.0)", NonCommercial),
	rej(KindJATSLicenseP, "See http://creativecommons.org/licenses/by/3.0/ and http://creativecommons.org/licenses/by/4.0/", Conflict),
	rej(KindJATSLicenseP, "This article is made available under the Elsevier user license. Creative Commons Attribution", CustomTerms),
	rej(KindJATSLicenseP, "No reuse allowed without permission.", CustomTerms),
	none(KindJATSLicenseP, "see notcreativecommons.org/licenses/by/4.0/"),
	none(KindJATSLicenseP, ""),

	// --- copyright statements ---
	acc(KindJATSCopyright, "Tenaillon et al. "+textPLOSBy, CCBY, "", ""),
	rej(KindJATSCopyright, "© 2012 Elsevier Ltd. All rights reserved.", CustomTerms),
	rej(KindJATSCopyright, "Todos los derechos reservados", CustomTerms),
	none(KindJATSCopyright, "Copyright (c) 2010 Cancer Research UK"),
	none(KindJATSCopyright, "© 2014, Bowman et al"),
	none(KindJATSCopyright, "Copyright © 2008 van der Meulen et al; licensee BioMed Central Ltd."),
	none(KindJATSCopyright, "© 2022, Posted by Cold Spring Harbor Laboratory"),
	none(KindPubMedCopyright, "Copyright 2000 Wiley-Liss, Inc."),
	acc(KindPubMedCopyright, "© 2019 The Authors. This is an open access article under the CC BY license.", CCBY, "", ""),
	rej(KindPubMedCopyright, "Copyright © 2011 Elsevier Inc. All rights reserved.", CustomTerms),
	rej(KindPubMedCopyright, "This is an open access article under the CC BY-NC-ND license.", NonCommercial),
}

func TestParse(t *testing.T) {
	if len(parseCases) < 100 {
		t.Fatalf("only %d spellings", len(parseCases))
	}
	for _, c := range parseCases {
		name := string(c.kind) + "/" + c.value
		if len(name) > 80 {
			name = name[:80]
		}
		t.Run(name, func(t *testing.T) {
			got, ok := Parse(Evidence{Kind: c.kind, Value: c.value})
			if ok != c.ok {
				t.Fatalf("Parse ok = %v, want %v (term %+v)", ok, c.ok, got)
			}
			if !ok {
				return
			}
			// Versions and ports are asserted for accepted terms only; a
			// restriction's version is informative.
			if got.Family != c.family || got.Reason != c.reason ||
				(got.Accepted() && (got.Version != c.version || got.Port != c.port)) {
				t.Fatalf("Parse = {family %q reason %q version %q port %q}, want {%q %q %q %q} (note %q)",
					got.Family, got.Reason, got.Version, got.Port, c.family, c.reason, c.version, c.port, got.Note)
			}
			checkTerm(t, got)
		})
	}
}

// checkTerm asserts the invariants every parsed term keeps.
func checkTerm(t *testing.T, got Term) {
	t.Helper()
	if (got.Family == "") == (got.Reason == "") {
		t.Fatalf("term must have exactly one of family/reason: %+v", got)
	}
	if got.Accepted() {
		if got.URL == "" || got.URL != CanonicalURL(got.Family, got.Version, got.Port) {
			t.Fatalf("accepted term URL %q, want canonical %q", got.URL, CanonicalURL(got.Family, got.Version, got.Port))
		}
		if !strings.HasPrefix(got.URL, "https://creativecommons.org/") || !strings.HasSuffix(got.URL, "/") {
			t.Fatalf("URL %q not canonical", got.URL)
		}
	}
	if got.Label() == "" {
		t.Fatalf("empty label for %+v", got)
	}
}

func TestParseWeakness(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		weak bool
	}{
		{KindJATSLicenseType, true}, {KindPubMedCopyright, true}, {KindJATSHref, false},
		{KindJATSLicenseP, false}, {KindOpenAlex, false}, {KindPMCLicenseCode, false}, {Kind("new-kind"), true},
	} {
		v := "CC BY"
		if c.kind == KindJATSHref {
			v = "https://creativecommons.org/licenses/by/4.0/"
		}
		got, ok := Parse(Evidence{Kind: c.kind, Value: v})
		if !ok || got.Family != CCBY {
			t.Fatalf("%s %q: got %+v, %v", c.kind, v, got, ok)
		}
		if got.Weak != c.weak {
			t.Errorf("%s: Weak = %v, want %v", c.kind, got.Weak, c.weak)
		}
	}
}

func TestParseNoDerivsFlag(t *testing.T) {
	for _, v := range []string{textBioRxivNC, textRBA, "http://creativecommons.org/licenses/by-nc-nd/4.0/", "cc-by-nc-nd"} {
		got, _ := Parse(Evidence{Kind: KindJATSLicenseP, Value: v})
		if got.Reason != NonCommercial || !got.NoDerivs {
			t.Errorf("%q: got %+v, want non-commercial with NoDerivs", v, got)
		}
	}
}

func TestTermLabel(t *testing.T) {
	for _, c := range []struct {
		value, want string
	}{
		{"http://creativecommons.org/licenses/by/4.0/", "CC BY 4.0"},
		{"https://creativecommons.org/licenses/by/3.0/igo/", "CC BY 3.0 IGO"},
		{"http://creativecommons.org/licenses/by-nc-nd/3.0/igo/", "CC BY-NC-ND 3.0 IGO"},
		{"http://creativecommons.org/publicdomain/zero/1.0/", "CC0 1.0"},
		{"http://creativecommons.org/licenses/by/", "CC BY (version not stated)"},
		{"http://www.elsevier.com/tdm/userlicense/1.0/", "text-and-data-mining licence"},
	} {
		got, _ := Parse(Evidence{Kind: KindJATSHref, Value: c.value})
		if got.Label() != c.want {
			t.Errorf("Label(%q) = %q, want %q", c.value, got.Label(), c.want)
		}
	}
}

func TestWords(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"CC BY-NC-ND 4.0", " cc by nc nd 4.0 "},
		{"Attribution-NonCommercial", " attribution noncommercial "},
		{"author's permission", " authors permission "},
		{"Não Comercial, Sem Derivações", " nao comercial sem derivacoes "},
		{"version 4.0.", " version 4.0 "},
		{"", " "},
	} {
		if got := string(words(nil, c.in)); got != c.want {
			t.Errorf("words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Every marker phrase must contain one of its list's gates, or the prefilter
// would hide it.
func TestMarkerGates(t *testing.T) {
	for name, g := range map[string]gated{
		"allowedCommercial": allowedCommercial, "conditionalNC": conditionalNC, "nc": ncMarkers, "nd": ndMarkers, "cc0": cc0Markers,
		"pd": pdMarkers, "pdQualified": pdQualified, "sa": saMarkers, "by": byMarkers,
	} {
		for _, p := range g.list {
			if !g.gates.in(p) {
				t.Errorf("%s: phrase %q contains no gate", name, p)
			}
		}
	}
}
