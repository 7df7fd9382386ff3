// Package licence turns licence evidence found in source records into a
// publication decision.
//
// The archive may publish only documents whose licence permits commercial
// redistribution and derivatives: CC0, the Public Domain Mark, CC BY and
// CC BY-SA. Everything else (NC, ND, TDM-only, custom terms, unknown or
// missing licences) is rejected with a machine-readable reason. Publishing a
// wrongly licensed document is the worst defect this project can have, so
// every rule here errs towards rejection: a document is accepted only when
// its licence is proven.
//
// # Reading evidence
//
// Readers (JATS, PubMed, OpenAlex, Crossref, PMC metadata) record what they
// see as [Evidence]; the [Kind] constants document what goes in Value.
// [Parse] normalises one piece of evidence into a [Term]: every spelling of a
// Creative Commons URL (http/https, www., missing slash, deed.xx,
// legalcode[.xx], jurisdiction and IGO ports, the British "licences"),
// licence codes (OpenAlex, PMC, license-type) and licence wording
// (sources.md section 7.2). Rules for wording are deliberately narrow:
//
//   - Any non-commercial or no-derivatives marker anywhere in a value
//     ("NonCommercial", "Non-Commercial", "by-nc", "NoDerivs", "No
//     Derivative", Portuguese/Spanish/French/German equivalents, "not
//     changed in any way") makes the whole value a restriction, whatever
//     else it says. "commercial and non-commercial use" is not a marker.
//   - "All rights reserved", "may not be redistributed", "no reuse
//     allowed", WHO's pre-2013 "in the spirit of ... PLoS principles ...
//     promotion of commercial products" and publisher "user license"
//     wording are custom terms.
//   - Reservation wording is generic ([Term].Generic) when it is "All
//     rights reserved" (or its Spanish and Portuguese forms) or BMJ's "No
//     commercial use is permitted unless otherwise expressly granted" (a
//     non-commercial reservation conditional on an express grant; this
//     exact wording only), and nothing else in the value restricts. "Not
//     for commercial use", "for non-commercial purposes only", "may not be
//     redistributed" and every other marker restrict unconditionally.
//   - "Creative Commons Attribution" or "CC BY" is CC BY, and with
//     "ShareAlike" CC BY-SA; "CC0" or "free of all copyright" is CC0 1.0.
//     The version is never guessed from wording: text-only CC BY is accepted
//     with Version "" and URL https://creativecommons.org/licenses/by/ (the
//     family page), and Name "Creative Commons Attribution".
//   - An unqualified public-domain statement ("is in the public domain",
//     the pre-CC0 PLoS "Creative Commons Public Domain Declaration") is
//     accepted as the Public Domain Mark 1.0: it says the work is free of
//     copyright without claiming that the CC0 legal tool was used. A
//     public-domain statement limited to one country ("in the public domain
//     in the USA", typical for US government works) is not accepted.
//   - "open access" labels (license-type="open-access", OpenAlex is_oa,
//     implied-oa) are not licences.
//
// # Deciding
//
// Every piece of evidence a record carries counts: every <license>,
// ali:license_ref, license-p text and copyright-statement in any
// article-meta or front-stub of a JATS article; every Crossref license[]
// entry with its content-version and start; every OpenAlex location with
// its version; PubMed copyright text. One restrictive signal outweighs any
// number of permissive ones, with two exceptions:
//
//   - An express licence beats generic reservation wording. Reservation
//     wording in a copyright statement (JATS copyright-statement, PubMed
//     copyright text) that is generic or conditional on an express grant
//     (see above) does not override an express licence: OUP and BMJ state
//     CC BY in <license> beside "All rights reserved. No commercial use is
//     permitted unless otherwise expressly granted." in the copyright
//     statement, and PMC files these articles as CC BY. An express licence
//     is a current, accepted licence of the deciding source read from a
//     licence element, code or URL (not a license-type label, and not the
//     copyright statement itself); a lower source's generic reservation
//     does not make a conflict either. Without an express licence the
//     reservation rejects (custom-terms, or non-commercial for the
//     conditional form). An unconditional restriction in a copyright
//     statement still vetoes. The detail of an accepted decision says that
//     a reservation yielded, and the reservation's receipt reads
//     "generic-reservation".
//   - A sub-article's licence is not the article's. Permissions in a
//     <sub-article> or <response> (their front or front-stub: referee
//     reports, decision letters, author responses, translations, replies;
//     evidence whose Path starts with "sub-article[" or "response[") cover
//     that sub-article only. They neither prove nor restrict the article's
//     licence: a record whose only licence sits there is Unknown, and a
//     licensed article is accepted on its own licence even when a
//     sub-article is more restrictive, because the served full text never
//     includes sub-articles or responses (ingest/jats reads only their
//     permissions). The detail of an accepted decision names a
//     sub-article's restrictive licence when there is one, and every
//     sub-article receipt applies to "sub-article".
//
// [Decide] groups evidence by source, in the precedence of sources.md 7.5:
// PMC (JATS and license_code) > publisher JATS > Crossref > OpenAlex >
// PubMed. The first source that says anything about the licence decides; a
// lower-precedence source claiming a more permissive licence never upgrades
// the decision. Within the deciding source:
//
//   - Only current evidence counts. A licence whose Start is after now (JATS
//     ali:license_ref start_date, Crossref start) is not current, and an
//     undated copy of the same licence in that source is treated as starting
//     then too. When only future licences exist the document is Embargoed
//     (or rejected with their restriction when they would not be acceptable
//     anyway). Crossref start already includes delay-in-days; a Crossref
//     delay without a start date cannot be shown to have passed.
//   - A licence applies to the version that is served. Crossref vor,
//     unspecified or empty entries and OpenAlex publishedVersion locations
//     are about the version of record; tdm entries grant mining, not
//     republication (TDMOnly when they are all there is). When the source
//     has no licence for the version of record, the accepted manuscript
//     (Crossref am, OpenAlex acceptedVersion) or preprint (OpenAlex
//     submittedVersion) is the version served, and its licences decide, all
//     of them (the detail says "licence of the am, the only version with a
//     licence"); an open OpenAlex publishedVersion location without a
//     licence ([OpenAlexNoLicence]) rules that out. A permissive licence on
//     a location whose version is not stated proves nothing; a restrictive
//     one still vetoes.
//   - The most restrictive current term wins: any non-commercial,
//     no-derivatives, custom or unrecognised licence rejects; otherwise CC
//     BY-SA over CC BY over CC0/PDM. TDM-only licences do not veto a reuse
//     licence stated alongside them.
//   - Conflict is reported when the evidence cannot be reconciled by taking
//     the most restrictive: two different versions or ports of the same
//     family (by/3.0 and by/4.0), or CC0 against PDM stated equally
//     directly. Wording refines nothing: a versioned URL plus CC BY wording is
//     the URL's version.
//   - A JATS copyright-statement that reads as a licence ("distributed under
//     the Creative Commons Attribution License") is used only when the source
//     has no other licence evidence (PLoS ONE 2007); one that restricts
//     unconditionally ("not for commercial use", "non-commercial") vetoes
//     like any licence, and a generic reservation ("All rights reserved")
//     vetoes only when the source states no express licence. PubMed
//     copyright text and JATS license-type labels are weak: they can veto
//     but never prove a licence.
//
// Finally an accepted decision becomes a Conflict when a lower-precedence
// source restricts the version of record: a current NC, ND or custom term
// (OpenAlex "other-oa" and generic reservations excepted: the first means
// "open, licence not named"), weak PubMed wording included, or a licence
// not yet in force. No evidence at all, or only copyright lines and
// open-access labels, is Missing; licence evidence that cannot be read, or
// a licence stated only for a sub-article, is Unknown.
//
// Retraction and correction notices are documents in their own right,
// judged by their own licence; readers set ingest.Document.Retracted only
// on a retracted work, which the merge removes.
//
// # Reason codes
//
// Decision.Reason of a rejected document, as written to rejects.parquet
// (the index adds its own: record_too_large, invalid, no-id, excluded):
//
//	code            meaning
//	non-commercial  an NC licence (URL, code or wording) among the evidence
//	no-derivatives  an ND licence among the evidence
//	custom-terms    publisher terms, "all rights reserved", other-oa, WHO terms
//	tdm-only        the only licence is for text and data mining
//	unknown         licence evidence that cannot be read, or only for a version
//	                not served or a sub-article, or only weak labels
//	missing         no licence evidence at all (copyright lines only)
//	embargoed       the only licence starts after the run date
//	conflict        sources disagree: two versions of a family, CC0 against
//	                PDM, or a lower source restricting what a higher one permits
//
// # Receipts
//
// Readers record where each value was read (Evidence.Path, e.g.
// "front/article-meta[1]/permissions[1]/license[1]/@xlink:href",
// "license[1].URL", "locations[2].license"); the ingest run adds the input
// file, its SHA-256 and the time it was read. [Receipts] turns a decision's
// evidence into [Receipt]s: source, kind, field path, raw value, the
// licence it was read as (SPDX id beside the family, or the restriction it
// carries on its own, and Reading "generic-reservation" for reservation
// wording that yields to an express licence), the version of the work (or
// "sub-article") it applies to and that provenance. The snapshot's licence_evidence
// table, the paid document answer's license_evidence and `openshelf
// explain ID` all show them.
//
// # Attribution
//
// [Attribution], [CopyrightNotice] and [ShareAlikeNotice] produce the
// texts a published document must carry; [Name], [ShortName] and
// [CanonicalURL] name licences.
//
// The package imports nothing else from this module.
package licence
