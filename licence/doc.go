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
//   - Crossref entries count only for content-version vor, unspecified or
//     empty; tdm entries grant mining, not republication (TDMOnly when they
//     are all there is); am entries license a text we do not redistribute.
//     OpenAlex locations count only for publishedVersion (the SHILAP
//     repository copies and other mis-attached licences are submitted
//     versions).
//   - The most restrictive current term wins: any non-commercial,
//     no-derivatives, custom or unrecognised licence rejects; otherwise CC
//     BY-SA over CC BY over CC0/PDM. TDM-only licences do not veto a reuse
//     licence stated alongside them.
//   - Conflict is reported when the evidence cannot be reconciled by taking
//     the most restrictive: two different versions or ports of the same
//     family (by/3.0 and by/4.0), or CC0 against PDM stated equally
//     directly. Wording refines nothing: a versioned URL plus CC BY wording is
//     the URL's version.
//   - A JATS copyright-statement is read only when the source has no other
//     licence evidence (a CC sentence in a bare copyright-statement, PLoS ONE
//     2007). PubMed copyright text and JATS license-type labels are weak:
//     they can veto but never prove a licence.
//
// Finally an accepted decision becomes a Conflict when a lower-precedence
// source explicitly states a non-commercial or no-derivatives licence for
// the version of record (Crossref vor, OpenAlex publishedVersion, publisher
// JATS): one source would otherwise overrule another's explicit
// restriction. No evidence at all, or only copyright lines and open-access
// labels, is Missing; licence evidence that cannot be read is Unknown.
//
// # Attribution
//
// [Attribution], [CopyrightNotice] and [ShareAlikeNotice] produce the
// texts a published document must carry; [Name], [ShortName] and
// [CanonicalURL] name licences.
//
// The package imports nothing else from this module.
package licence
