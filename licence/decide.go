package licence

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Source precedence (sources.md section 7.5); lower is stronger. Evidence
// without a Source gets one from its Kind; an unrecognised Source ranks last.
const (
	rankPMC = iota
	rankPublisher
	rankCrossref
	rankOpenAlex
	rankPubMed
	rankOther
	numRanks
)

// sourceOf is e.Source, or the source its Kind implies when empty.
func sourceOf(e *Evidence) Source {
	s := e.Source
	if s == "" {
		switch e.Kind {
		case KindPMCLicenseCode:
			s = SourcePMC
		case KindCrossref:
			s = SourceCrossref
		case KindOpenAlex:
			s = SourceOpenAlex
		case KindPubMedCopyright:
			s = SourcePubMed
		default:
			s = SourcePublisher
		}
	}
	return s
}

func rankOf(e *Evidence) int {
	switch sourceOf(e) {
	case SourcePMC:
		return rankPMC
	case SourcePublisher:
		return rankPublisher
	case SourceCrossref:
		return rankCrossref
	case SourceOpenAlex:
		return rankOpenAlex
	case SourcePubMed:
		return rankPubMed
	}
	return rankOther
}

// role says how one parsed piece of evidence takes part in its source's
// decision.
type role uint8

const (
	roleNone         role = iota // says nothing about a licence
	roleMain                     // current licence for the version of record
	roleFuture                   // licence not yet in force (embargo)
	roleCopyright                // JATS copyright-statement: last resort only
	roleTDMVersion               // Crossref content-version tdm
	roleOtherVersion             // Crossref am, OpenAlex accepted/submitted version
	roleWeakLabel                // permissive label that proves nothing
	roleOtherFuture              // another version's licence, not yet in force
	roleReservation              // generic reservation in a copyright statement
	roleSubArticle               // a sub-article's or response's own licence
)

// inSubArticle reports whether evidence was read in a JATS sub-article or
// response (referee report, decision letter, author response, translation,
// reply): the JATS reader's paths start there ("sub-article[1]/front-stub[1]/
// permissions[1]/..."). Such a licence is that sub-article's, not the
// article's, and the sub-article's text is never served.
func inSubArticle(e *Evidence) bool {
	return strings.HasPrefix(e.Path, "sub-article[") || strings.HasPrefix(e.Path, "response[")
}

// isCopyrightText reports whether evidence is a copyright statement: JATS
// copyright-statement or PubMed CopyrightInformation.
func isCopyrightText(k Kind) bool { return k == KindJATSCopyright || k == KindPubMedCopyright }

// servableVersion reports whether a content version names a text the archive
// can serve in place of the version of record: an accepted manuscript
// (Crossref am, OpenAlex acceptedVersion) or a preprint (OpenAlex
// submittedVersion). An unstated or unknown version proves nothing.
func servableVersion(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "am", "acceptedversion", "submittedversion":
		return true
	}
	return false
}

func otherVersionRole(e *Evidence, now time.Time) role {
	if isFuture(e, now) {
		return roleOtherFuture
	}
	return roleOtherVersion
}

// otherVersions names the versions of rank r's other-version evidence, for
// Decision.Detail: "am", "submittedVersion, acceptedVersion".
func otherVersions(ps []parsed, r int8) string {
	var vs []string
	for i := range ps {
		p := &ps[i]
		if p.rank != r || (p.role != roleOtherVersion && p.role != roleOtherFuture) {
			continue
		}
		v := strings.TrimSpace(p.e.ContentVersion)
		if v == "" {
			v = "unstated version"
		}
		if !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return strings.Join(vs, ", ")
}

type parsed struct {
	t    Term
	e    *Evidence
	rank int8
	role role
}

// licenceBearing kinds are places where a licence is expected; when they
// carry nothing recognisable the decision is unknown rather than missing.
func licenceBearing(k Kind) bool {
	switch k {
	case KindJATSCopyright, KindPubMedCopyright, KindJATSLicenseType:
		return false
	}
	return true
}

func isFuture(e *Evidence, now time.Time) bool {
	if !e.Start.IsZero() {
		return e.Start.After(now)
	}
	// Crossref's start already includes delay-in-days; a delay without a
	// start cannot be shown to have passed.
	return e.Kind == KindCrossref && e.DelayDays > 0
}

func classify(p *parsed, ok bool, now time.Time) {
	e, t := p.e, p.t
	switch {
	case inSubArticle(e):
		// Neither proves nor restricts the article's licence.
		p.role = roleSubArticle
		return
	case !ok || (e.Kind == KindOpenAlex && strings.TrimSpace(e.Value) == OpenAlexNoLicence):
		p.role = roleNone
		return
	case isCopyrightText(e.Kind) && t.Generic:
		// "All rights reserved" beside an express licence: it yields to
		// that licence, and restricts only when there is none.
		p.role = roleReservation
		return
	case e.Kind == KindJATSCopyright && t.Accepted():
		// A permissive copyright statement is a last resort; a
		// restrictive one ("all rights reserved", "not for commercial
		// use") vetoes like any other licence evidence.
		p.role = roleCopyright
		return
	case t.Weak && t.Accepted():
		p.role = roleWeakLabel
		return
	case e.Kind == KindCrossref:
		switch strings.ToLower(strings.TrimSpace(e.ContentVersion)) {
		case "vor", "unspecified", "":
		case "tdm":
			p.role = roleTDMVersion
			return
		default: // am and anything new: another version of the work
			p.role = otherVersionRole(e, now)
			return
		}
	case e.Kind == KindOpenAlex:
		if !strings.EqualFold(strings.TrimSpace(e.ContentVersion), "publishedVersion") {
			p.role = otherVersionRole(e, now)
			return
		}
	}
	if isFuture(e, now) {
		p.role = roleFuture
	} else {
		p.role = roleMain
	}
}

// Decide turns all evidence for one document into a decision, as of now.
//
// Procedure (sources.md sections 6 and 7, documented in doc.go):
//  1. Every piece of evidence is parsed (Parse) and grouped by source in
//     precedence order PMC > publisher JATS > Crossref > OpenAlex > PubMed.
//  2. The first source that says anything about the licence decides; a
//     lower source never upgrades it. Within that source all current
//     licences count and the most restrictive wins: any NC/ND/custom/unknown
//     term rejects; otherwise CC BY-SA > CC BY > CC0/PDM, with the version
//     taken from URLs or codes; two different versions or ports of the same
//     family, or CC0 against PDM stated equally directly, are a conflict.
//  3. Licences with a future start are not current: when they are all the
//     source has, the document is embargoed (or rejected with their
//     restriction if they would not be acceptable anyway).
//  4. An accepted decision is turned into a conflict when a lower source
//     explicitly states NC or ND for the same version of record.
//
// The returned Decision keeps ev (not a copy) in Evidence.
func Decide(ev []Evidence, now time.Time) Decision {
	var pbuf [16]parsed
	ps := pbuf[:0]
	seen := false
	for i := range ev {
		e := &ev[i]
		if strings.TrimSpace(e.Value) == "" {
			continue
		}
		seen = true
		t, ok := Parse(*e)
		p := parsed{t: t, e: e, rank: int8(rankOf(e))}
		classify(&p, ok, now)
		ps = append(ps, p)
	}
	if !seen {
		return Decision{Reason: Missing, Detail: "no licence evidence", Evidence: ev}
	}
	fb := fallback{-1, -1, -1, -1}
	for r := 0; r < numRanks; r++ {
		d, decisive := decideSource(ps, int8(r), &fb)
		if !decisive {
			continue
		}
		d.Evidence = ev
		if d.Accepted {
			if c, bad := contradicted(ps, int8(r)); bad {
				return Decision{Reason: Conflict, Evidence: ev,
					Detail: "conflict: " + d.Detail + " but " + describe(c) + " says otherwise"}
			}
			d.Detail += subArticleNote(ps)
		}
		return d
	}
	d := fb.decision(ps)
	d.Evidence = ev
	return d
}

// fallback remembers why no source was decisive, as indices into the
// parsed evidence (-1: none). Indices, not pointers, keep the parsed array
// on the stack.
type fallback struct {
	otherVersion, weakLabel, unrecognised, subArticle int
}

func (fb *fallback) decision(ps []parsed) Decision {
	switch {
	case fb.otherVersion >= 0:
		p := ps[fb.otherVersion]
		return Decision{Reason: Unknown, Detail: "licence stated only for another version (" +
			p.e.ContentVersion + "): " + describe(p)}
	case fb.unrecognised >= 0:
		e := ps[fb.unrecognised].e
		return Decision{Reason: Unknown, Detail: "no recognisable licence in " + where(e) + " " + quote(e.Value)}
	case fb.weakLabel >= 0:
		return Decision{Reason: Unknown, Detail: "only weak evidence (a label or PubMed copyright text), not a licence: " +
			describe(ps[fb.weakLabel])}
	case fb.subArticle >= 0:
		p := ps[fb.subArticle]
		return Decision{Reason: Unknown, Detail: "no licence for the article itself; " + describe(p) + " at " +
			p.e.Path + " is a sub-article's own"}
	}
	return Decision{Reason: Missing, Detail: "no licence stated (only copyright or open-access statements)"}
}

// decideSource applies the within-source rules to the evidence of rank r.
func decideSource(ps []parsed, r int8, fb *fallback) (Decision, bool) {
	var cur, fut, cpy, oth merger
	tdmVersion := -1
	reservation := -1 // first generic reservation
	vorOpen := false  // the version of record is there, without a licence
	for i := range ps {
		p := &ps[i]
		if p.rank != r {
			continue
		}
		switch p.role {
		case roleNone:
			if licenceBearing(p.e.Kind) && fb.unrecognised < 0 {
				fb.unrecognised = i
			}
			if p.e.Kind == KindOpenAlex && strings.TrimSpace(p.e.Value) == OpenAlexNoLicence {
				vorOpen = true
			}
		case roleWeakLabel:
			if fb.weakLabel < 0 {
				fb.weakLabel = i
			}
		case roleOtherVersion:
			if fb.otherVersion < 0 {
				fb.otherVersion = i
			}
			// A permissive licence counts only for a version we could serve
			// instead of the version of record; any restriction vetoes.
			if !p.t.Accepted() || servableVersion(p.e.ContentVersion) {
				oth.add(p.t, p.e)
			}
		case roleOtherFuture:
			// Another version's licence not yet in force: that version
			// cannot be served yet either.
			t := p.t
			if t.Accepted() {
				t = Term{Reason: Embargoed, Note: t.Label() + " not yet in force", Basis: t.Basis}
			}
			oth.add(t, p.e)
		case roleTDMVersion:
			if tdmVersion < 0 {
				tdmVersion = i
			}
		case roleCopyright:
			cpy.add(p.t, p.e)
		case roleReservation:
			if reservation < 0 {
				reservation = i
			}
		case roleSubArticle:
			if fb.subArticle < 0 && (p.t.Family != "" || p.t.Reason != "") {
				fb.subArticle = i
			}
		case roleFuture:
			fut.add(p.t, p.e)
		case roleMain:
			// An undated licence that a dated, future entry of the same
			// source also states (href plus ali:license_ref start_date) is
			// not current either.
			if p.t.Accepted() && p.e.Start.IsZero() && shadowedByFuture(ps, r, p.t) {
				fut.add(p.t, p.e)
			} else {
				cur.add(p.t, p.e)
			}
		}
	}
	yields := ""
	if reservation >= 0 {
		if cur.hasAcc() && !cur.hasRestr {
			// An express licence in force: generic reservations yield.
			yields = "; " + describe(ps[reservation]) + " is a generic reservation, not a restriction on the express licence"
		} else {
			for i := range ps {
				if p := &ps[i]; p.rank == r && p.role == roleReservation {
					cur.add(p.t, p.e)
				}
			}
		}
	}
	switch {
	case cur.hasRestr || cur.hasAcc():
		return outcome(&cur, yields), true
	case fut.hasRestr:
		return outcome(&fut, " (not yet in force)"), true
	case fut.hasAcc():
		d := outcome(&fut, "")
		if d.Accepted {
			return Decision{Reason: Embargoed, Detail: "embargoed: " + d.Detail + " takes effect " +
				startOf(earliestFuture(ps, r))}, true
		}
		return d, true
	case cur.hasTDM:
		return outcome(&cur, ""), true
	case !vorOpen && (oth.hasRestr || oth.hasAcc()):
		// No licence for the version of record: the only licensed
		// version (a preprint or accepted manuscript) is the one served,
		// so its licences decide, all of them.
		return outcome(&oth, " (licence of the "+otherVersions(ps, r)+", the only version with a licence)"), true
	case tdmVersion >= 0:
		return Decision{Reason: TDMOnly, Detail: "tdm-only: the only licence is for text and data mining: " +
			describe(ps[tdmVersion])}, true
	case fut.hasTDM:
		return outcome(&fut, ""), true
	case !cpy.empty():
		return outcome(&cpy, " (from the copyright statement; no licence element)"), true
	}
	return Decision{}, false
}

// subArticleNote says, for an accepted decision's Detail, that a
// sub-article's restrictive licence was not the article's: the first one,
// or "" when no sub-article restricts.
func subArticleNote(ps []parsed) string {
	for i := range ps {
		if p := &ps[i]; p.role == roleSubArticle && p.t.Reason != "" {
			return "; " + describe(*p) + " at " + p.e.Path + " covers only that sub-article, whose text is not served"
		}
	}
	return ""
}

// earliestFuture returns the future-dated evidence of rank r that starts
// first (nil if none is dated).
func earliestFuture(ps []parsed, r int8) *Evidence {
	var first *Evidence
	for i := range ps {
		p := &ps[i]
		if p.rank != r || p.role != roleFuture || !p.t.Accepted() {
			continue
		}
		if first == nil || (!p.e.Start.IsZero() && (first.Start.IsZero() || p.e.Start.Before(first.Start))) {
			first = p.e
		}
	}
	return first
}

// shadowedByFuture reports whether rank r holds a future-dated accepted term
// of the same family and a compatible version as t.
func shadowedByFuture(ps []parsed, r int8, t Term) bool {
	for i := range ps {
		p := &ps[i]
		if p.rank != r || p.role != roleFuture || !p.t.Accepted() || p.t.Family != t.Family {
			continue
		}
		if t.Version == "" || p.t.Version == "" || (t.Version == p.t.Version && t.Port == p.t.Port) {
			return true
		}
	}
	return false
}

// outcome turns a merged source into a decision.
func outcome(m *merger, suffix string) Decision {
	switch {
	case m.hasRestr:
		t := m.restr.t
		return Decision{Reason: t.Reason, Detail: string(t.Reason) + ": " + describe(parsed{t: t, e: m.restr.e}) + suffix}
	case m.hasAcc():
		best, other, conflict := m.resolve()
		if conflict {
			return Decision{Reason: Conflict, Detail: "conflict: " + describe(parsed{t: best.t, e: best.e}) +
				" against " + describe(parsed{t: other.t, e: other.e}) + suffix}
		}
		t := best.t
		return Decision{Accepted: true, Family: t.Family, Version: t.Version, Port: t.Port,
			URL: CanonicalURL(t.Family, t.Version, t.Port), Detail: describe(parsed{t: t, e: best.e}) + suffix}
	case m.hasTDM:
		t := m.tdm.t
		return Decision{Reason: TDMOnly, Detail: "tdm-only: " + describe(parsed{t: t, e: m.tdm.e}) + suffix}
	}
	return Decision{Reason: Unknown, Detail: "no licence" + suffix}
}

// contradicted looks below rank r for a restriction on the version of
// record (Crossref vor/unspecified, OpenAlex publishedVersion, JATS, PubMed
// copyright text): any current non-commercial, no-derivatives or custom
// term, or a licence not yet in force. One restrictive signal outweighs
// any number of permissive ones, so publishing would rest on one source
// overruling another's restriction; the document is held as a conflict
// instead. Unrecognised values, OpenAlex "other-oa" and TDM-only grants do
// not count.
func contradicted(ps []parsed, r int8) (parsed, bool) {
	for _, p := range ps {
		if p.rank <= r {
			continue
		}
		switch p.role {
		case roleMain:
			switch p.t.Reason {
			case NonCommercial, NoDerivatives:
				return p, true
			case CustomTerms:
				// OpenAlex "other-oa" means "open, licence not named":
				// it rejects when OpenAlex decides, but is not a
				// restriction that overrules a better source.
				if p.e.Kind != KindOpenAlex {
					return p, true
				}
			}
		case roleFuture:
			if p.t.Accepted() || p.t.Reason == NonCommercial || p.t.Reason == NoDerivatives || p.t.Reason == CustomTerms {
				return p, true
			}
		}
	}
	return parsed{}, false
}

// describe says what a term is and where it came from, e.g.
// "CC BY 4.0 (pmc jats-href)".
func describe(p parsed) string {
	s := p.t.Label()
	if p.e == nil {
		return s
	}
	return s + " (" + where(p.e) + ")"
}

func where(e *Evidence) string {
	return string(sourceOf(e)) + " " + string(e.Kind)
}

func startOf(e *Evidence) string {
	if e == nil || e.Start.IsZero() {
		if e != nil && e.DelayDays > 0 {
			return "after a delay of " + strconv.Itoa(e.DelayDays) + " days from publication"
		}
		return "later"
	}
	return "on " + e.Start.UTC().Format(time.DateOnly)
}

func quote(s string) string {
	s = strings.TrimSpace(s)
	const max = 120
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 { // keep UTF-8 intact
			cut--
		}
		s = s[:cut] + "..."
	}
	return `"` + s + `"`
}
