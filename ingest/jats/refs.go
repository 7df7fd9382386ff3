package jats

import (
	"bytes"
	"fmt"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openshelf/openshelf/ingest"
)

// refReader reads one <ref> as it streams past, without capturing it into
// a tree: reference lists are a large part of an article, and capturing
// each reference into a tree and walking it cost more than scanning it.
// It flattens the texts a reference needs, each as tree.text would
// flatten its element, in slots that are reused from one reference to the
// next, and builds the strings of a reference in one allocation (a DOI
// or PMID from a pub-id aside).
type refReader struct {
	slots   [numSlots]refSlot
	on      uint8     // the open slots, a bit each
	stack   []refElem // the open elements below the ref
	pend    []byte    // the text of consecutive tokens: a tree joins them in one node
	arena   []byte    // the reference's fields but Raw, back to back
	authors []refSpan // in arena
	ab      []byte    // attribute scratch
	inName  bool      // a name's slots are open
}

// refSpan is a field's bytes in refReader.arena.
type refSpan struct{ off, end int }

func (sp refSpan) empty() bool { return sp.end == sp.off }

// refSlot flattens the content of one open element (at level) as
// tree.text does, leaving out the elements skip reports true for.
type refSlot struct {
	f     flattener
	level int // the element's depth below the ref (the ref is 0)
	hide  int // depth of the left-out element the stream is in; 0 for none
	skip  func(string) bool
}

// The slots, a name's parts first: flush writes them first, so that a
// name's own text is read only while they are empty.
const (
	slotSurname = iota // a name's first surname
	slotGiven          // a name's first given-names
	slotField          // a citation field, a name (skipInName) or a date's year
	slotRaw            // the citation that gives Raw
	slotLabel          // the ref's first label
	slotBare           // the whole ref but its labels, until a citation starts
	numSlots
)

// refRole is what an open element of a reference is read for.
type refRole uint8

const (
	roleOther    refRole = iota
	roleLabel            // the ref's first label
	roleAlt              // citation-alternatives on the way to a citation
	roleCite             // the first structured or first mixed citation
	roleGroup            // an author person-group of the fields' citation
	roleName             // name or string-name: an author
	roleCollab           // collab: an author
	roleSurname          // a name's first surname
	roleGiven            // a name's first given-names
	roleTitle            // Title
	roleSource           // Source
	roleYear             // Year
	roleDate             // a date whose first year gives Year
	roleDateYear         // that year
	roleVolume           // Volume
	roleIssue            // Issue
	roleFpage            // the first fpage
	roleLpage            // the first lpage
	rolePages            // page-range or elocation-id: Pages
	roleDOI              // pub-id of type doi
	rolePMID             // pub-id of type pmid
	roleLinkDOI          // a DOI ext-link or uri without href: its text
)

type refElem struct {
	role   refRole
	inline bool
}

// refFields are the fields of the citation read so far, in the arena.
type refFields struct {
	title, source, year, volume, issue, pages, fpage, lpage refSpan
	doi, pmid                                               string
}

// release drops oversized buffers before the parser goes back to the
// pool.
func (rr *refReader) release() {
	const keep = 1 << 20
	for _, b := range []*[]byte{&rr.pend, &rr.arena, &rr.ab} {
		if cap(*b) > keep {
			*b = nil
		}
	}
	for i := range rr.slots {
		if sl := &rr.slots[i]; cap(sl.f.b) > keep {
			sl.f.b = nil
		}
		rr.slots[i].skip = nil
	}
}

// open starts slot i on the element at level.
func (rr *refReader) open(i, level int, skip func(string) bool) {
	sl := &rr.slots[i]
	sl.f = flattener{b: sl.f.b[:0]}
	sl.level, sl.hide, sl.skip = level, 0, skip
	rr.on |= 1 << i
}

func (rr *refReader) close(i int) { rr.on &^= 1 << i }

// flush writes the pending text to every open slot outside a left-out
// element.
func (rr *refReader) flush() {
	if len(rr.pend) == 0 {
		return
	}
	c := clean(rr.pend)
	for m := rr.on; m != 0; m &= m - 1 {
		i := bits.TrailingZeros8(m)
		if i == slotField && rr.inName && (len(rr.slots[slotSurname].f.b) > 0 || len(rr.slots[slotGiven].f.b) > 0) {
			// The name's own text is read only while both parts are empty.
			rr.close(slotField)
			continue
		}
		if sl := &rr.slots[i]; sl.hide == 0 {
			sl.f.writeKnown(rr.pend, c)
		}
	}
	rr.pend = rr.pend[:0]
}

// enter tells the open slots that an element starts at level.
func (rr *refReader) enter(level int, local string, inline bool) {
	for m := rr.on; m != 0; m &= m - 1 {
		sl := &rr.slots[bits.TrailingZeros8(m)]
		switch {
		case sl.hide != 0:
		case sl.skip != nil && sl.skip(local):
			sl.f.soft = sl.f.soft || !inline
			sl.hide = level
		case !inline:
			sl.f.soft = true
		}
	}
}

// leave tells the open slots that the element at level ends; a slot of
// that element is left to its role.
func (rr *refReader) leave(level int, inline bool) {
	for m := rr.on; m != 0; m &= m - 1 {
		sl := &rr.slots[bits.TrailingZeros8(m)]
		switch {
		case sl.level >= level:
		case sl.hide == level:
			sl.hide = 0
		case sl.hide == 0 && !inline:
			sl.f.soft = true
		}
	}
}

// keep closes slot i and copies its text to the arena.
func (rr *refReader) keep(i int) refSpan {
	rr.close(i)
	off := len(rr.arena)
	rr.arena = append(rr.arena, rr.slots[i].f.b...)
	return refSpan{off, len(rr.arena)}
}

// text closes slot i and returns its text as a string of its own.
func (rr *refReader) text(i int) string {
	rr.close(i)
	return validString(rr.slots[i].f.b)
}

// attr returns the decoded value of the current start tag's attribute
// named local (any prefix), as tree.attrBytes would.
func (rr *refReader) attr(s *scanner, local string) ([]byte, bool) {
	v, ok := s.attr(local)
	if !ok || bytes.IndexByte(v, '&') < 0 {
		return v, ok
	}
	rr.ab = appendUnescaped(rr.ab[:0], v)
	return rr.ab, true
}

func (rr *refReader) attrIs(s *scanner, local, val string) bool {
	v, ok := rr.attr(s, local)
	return ok && strings.EqualFold(string(bytes.TrimSpace(v)), val)
}

// reference reads the <ref> whose start token is current, through its end
// token, under tree.capture's limits. Structured fields come from the
// element-citation (or the NLM citation/nlm-citation) when there is one,
// else from the mixed-citation; Raw is the flattened mixed-citation when
// there is one (it keeps the publisher's punctuation), else the flattened
// structured citation. SciELO puts both kinds in one ref. A ref with
// neither is read as bare text. The citations are the first of each kind
// among the ref's children and those of its citation-alternatives.
//
// Which citation gives the fields is known only at the end: a mixed
// citation's fields are read while no structured one has been seen, and
// dropped when one follows.
func (p *parser) reference() (ingest.Reference, bool, error) {
	s, t, rr := &p.s, &p.tmp, &p.refs
	root := t.names.get(s.local)
	// data and nodes count the bytes and nodes a tree of the ref would hold
	// (tree.capture's limits).
	data, nodes := t.attrLen(s), 1
	maxData, maxNodes := t.maxData, t.maxData/4
	lastText := false
	opaque := 0 // depth in an element without a local name
	rr.stack, rr.pend, rr.arena, rr.authors, rr.inName, rr.on = rr.stack[:0], rr.pend[:0], rr.arena[:0], rr.authors[:0], false, 0
	rr.open(slotBare, 0, skipLabel)
	var (
		f                        refFields
		label                    refSpan
		structured, mixed        bool // seen
		citeFields               bool // the open citation gives the fields
		labelSeen                bool
		surname, given, dateYear bool // a name's or date's first part seen
	)
	for {
		if err := s.next(); err != nil {
			return ingest.Reference{}, false, err
		}
		switch s.kind {
		case tokEOF:
			return ingest.Reference{}, false, s.syntaxErr("unexpected end of input")
		case tokText:
			if len(s.text) > 0 {
				if !lastText {
					nodes++
				}
				lastText = true
				data += len(s.text)
				if opaque == 0 {
					rr.pend = append(rr.pend, s.text...)
				}
			}
		case tokStart:
			rr.flush()
			lastText = false
			nodes++
			data += t.attrLen(s)
			if opaque > 0 || len(s.local) == 0 {
				// An element without a local name ("<a:>") is a text
				// node to a tree: what it holds is in no text, and the
				// text right after it joins it while the tree holds no
				// data.
				opaque++
				break
			}
			local := t.names.get(s.local)
			in := isInline(local)
			level := len(rr.stack) + 1
			rr.enter(level, local, in)
			parent := roleAlt // the ref itself, as far as citations go
			if level > 1 {
				parent = rr.stack[level-2].role
			}
			role := roleOther
			switch parent {
			case roleAlt:
				switch local {
				case "label":
					if level == 1 && !labelSeen {
						labelSeen, role = true, roleLabel
						rr.open(slotLabel, level, nil)
					}
				case "citation-alternatives":
					role = roleAlt
				case "element-citation", "nlm-citation", "citation":
					if structured {
						break
					}
					structured, role, citeFields = true, roleCite, true
					rr.close(slotBare)
					// Fields read from a mixed citation are dropped.
					f, rr.authors = refFields{}, rr.authors[:0]
					if !mixed {
						rr.open(slotRaw, level, skipInCitation)
					}
				case "mixed-citation":
					if mixed {
						break
					}
					mixed, role, citeFields = true, roleCite, !structured
					rr.close(slotBare)
					rr.open(slotRaw, level, skipInCitation)
				}
			case roleCite:
				if citeFields {
					role = rr.citationField(s, local, level, &f, &dateYear)
				}
			case roleGroup:
				switch local {
				case "name", "string-name", "collab":
					role = rr.openName(local, level)
				}
			case roleName:
				switch {
				case local == "surname" && !surname:
					surname, role = true, roleSurname
					rr.open(slotSurname, level, nil)
				case local == "given-names" && !given:
					given, role = true, roleGiven
					rr.open(slotGiven, level, nil)
				}
			case roleDate:
				if local == "year" && !dateYear {
					dateYear, role = true, roleDateYear
					rr.open(slotField, level, nil)
				}
			}
			if role == roleName {
				surname, given = false, false
			}
			rr.stack = append(rr.stack, refElem{role: role, inline: in})
		case tokEnd:
			if opaque > 0 {
				opaque--
				lastText = len(s.local) == 0 && data == 0
				break
			}
			rr.flush()
			lastText = false
			level := len(rr.stack)
			if level == 0 {
				return rr.end(&f, label, structured || mixed)
			}
			e := rr.stack[level-1]
			rr.stack = rr.stack[:level-1]
			rr.leave(level, e.inline)
			switch e.role {
			case roleLabel:
				label = rr.keep(slotLabel)
				label = rr.trimLabel(label)
			case roleCite:
				rr.close(slotRaw)
				if citeFields {
					f.pages = rr.pages(f)
				}
				citeFields = false
			case roleName, roleCollab:
				if a := rr.endName(e.role); !a.empty() {
					rr.authors = append(rr.authors, a)
				}
			case roleSurname:
				rr.close(slotSurname)
			case roleGiven:
				rr.close(slotGiven)
			case roleTitle:
				f.title = rr.keep(slotField)
			case roleSource:
				f.source = rr.keep(slotField)
			case roleYear, roleDateYear:
				f.year = rr.keep(slotField)
			case roleVolume:
				f.volume = rr.keep(slotField)
			case roleIssue:
				f.issue = rr.keep(slotField)
			case roleFpage:
				f.fpage = rr.keep(slotField)
			case roleLpage:
				f.lpage = rr.keep(slotField)
			case rolePages:
				f.pages = rr.keep(slotField)
			case roleDOI, roleLinkDOI:
				f.doi = ingest.NormaliseDOI(rr.text(slotField))
			case rolePMID:
				f.pmid = ingest.NormalisePMID(rr.text(slotField))
			}
		}
		if data > maxData || nodes > maxNodes {
			return ingest.Reference{}, false, fmt.Errorf("%w: element <%s> holds more than %d bytes", errCaptureLimit, root, maxData)
		}
	}
}

// citationField opens what a child of the fields' citation is read for;
// the fields read so far decide whether it is still wanted.
func (rr *refReader) citationField(s *scanner, local string, level int, f *refFields, dateYear *bool) refRole {
	field := func(role refRole, skip func(string) bool) refRole {
		rr.open(slotField, level, skip)
		return role
	}
	switch local {
	case "person-group":
		if typ, ok := rr.attr(s, "person-group-type"); ok && len(typ) > 0 && !rr.attrIs(s, "person-group-type", "author") {
			return roleOther
		}
		return roleGroup
	case "name", "string-name", "collab":
		// NLM 2.x citations put names straight into the citation.
		return rr.openName(local, level)
	case "article-title", "chapter-title", "data-title", "part-title":
		if f.title.empty() {
			return field(roleTitle, skipInTitle)
		}
	case "source":
		if f.source.empty() {
			return field(roleSource, skipInTitle)
		}
	case "year":
		if f.year.empty() {
			return field(roleYear, nil)
		}
	case "date":
		if f.year.empty() {
			*dateYear = false
			return roleDate
		}
	case "volume":
		if f.volume.empty() {
			return field(roleVolume, nil)
		}
	case "issue":
		if f.issue.empty() {
			return field(roleIssue, nil)
		}
	case "fpage":
		if f.fpage.empty() {
			return field(roleFpage, nil)
		}
	case "lpage":
		if f.lpage.empty() {
			return field(roleLpage, nil)
		}
	case "page-range", "elocation-id":
		if f.pages.empty() {
			return field(rolePages, nil)
		}
	case "pub-id":
		switch {
		case f.doi == "" && rr.attrIs(s, "pub-id-type", "doi"):
			return field(roleDOI, nil)
		case f.pmid == "" && rr.attrIs(s, "pub-id-type", "pmid"):
			return field(rolePMID, nil)
		}
	case "ext-link", "uri":
		if f.doi == "" && rr.attrIs(s, "ext-link-type", "doi") {
			v, _ := rr.attr(s, "href")
			if href := strings.TrimSpace(string(v)); href != "" {
				f.doi = ingest.NormaliseDOI(href)
				return roleOther
			}
			return field(roleLinkDOI, nil)
		}
	}
	return roleOther
}

// pages returns Pages once the citation giving the fields has ended: the
// fpage-lpage range when it has both, else the fpage, else Pages.
func (rr *refReader) pages(f refFields) refSpan {
	fp, lp := rr.arena[f.fpage.off:f.fpage.end], rr.arena[f.lpage.off:f.lpage.end]
	switch {
	case len(fp) > 0 && len(lp) > 0 && !sameText(fp, lp):
		off := len(rr.arena)
		rr.arena = append(append(append(rr.arena, fp...), '-'), lp...)
		return refSpan{off, len(rr.arena)}
	case len(fp) > 0:
		return f.fpage
	}
	return f.pages
}

// sameText reports whether a and b read the same once invalid UTF-8 is
// replaced.
func sameText(a, b []byte) bool {
	if utf8.Valid(a) && utf8.Valid(b) {
		return bytes.Equal(a, b)
	}
	return validString(a) == validString(b)
}

// trimLabel turns "[12]" or "12." into "12".
func (rr *refReader) trimLabel(sp refSpan) refSpan {
	b := rr.arena[sp.off:sp.end]
	t := bytes.TrimLeft(b, labelCut)
	sp.off += len(b) - len(t)
	sp.end = sp.off + len(bytes.TrimRight(t, labelCut))
	return sp
}

const labelCut = " []()."

// openName starts reading an author: a name or string-name ("Surname
// GN" from its first surname and given-names, else its text), or a
// collab (its text).
func (rr *refReader) openName(local string, level int) refRole {
	rr.open(slotField, level, skipInName)
	if local == "collab" {
		return roleCollab
	}
	rr.inName = true
	rr.slots[slotSurname].f.b = rr.slots[slotSurname].f.b[:0]
	rr.slots[slotGiven].f.b = rr.slots[slotGiven].f.b[:0]
	return roleName
}

// endName returns the author that the name or collab just ended gives.
func (rr *refReader) endName(role refRole) refSpan {
	rr.inName = false
	b, g := rr.slots[slotSurname].f.b, rr.slots[slotGiven].f.b
	if role == roleCollab || len(b) == 0 && len(g) == 0 {
		return rr.keep(slotField)
	}
	rr.close(slotField)
	off := len(rr.arena)
	rr.arena = append(rr.arena, b...)
	switch {
	case len(b) == 0:
		rr.arena = append(rr.arena, g...)
	case len(g) > 0:
		rr.arena = appendInitials(append(rr.arena, ' '), g)
	}
	return refSpan{off, len(rr.arena)}
}

// end builds the reference when its end tag is read: Raw and the fields
// in one string.
func (rr *refReader) end(f *refFields, label refSpan, cited bool) (ingest.Reference, bool, error) {
	raw := slotRaw
	if !cited {
		raw = slotBare // a bare ref holding only text
	}
	rb := rr.slots[raw].f.b
	all := append(rb, rr.arena...)
	rr.slots[raw].f.b = all[:0]
	str := string(all)
	n := len(rb)
	// When all is valid, so is every piece of it that starts and ends at
	// the start of a rune: one test instead of one per field.
	valid := utf8.Valid(all)
	whole := func(i, j int) bool {
		return valid && (i == len(all) || utf8.RuneStart(all[i])) && (j == len(all) || utf8.RuneStart(all[j]))
	}
	field := func(sp refSpan) string {
		if b := all[n+sp.off : n+sp.end]; !whole(n+sp.off, n+sp.end) && !utf8.Valid(b) {
			return strings.ToValidUTF8(string(b), "\uFFFD")
		}
		return str[n+sp.off : n+sp.end]
	}
	r := ingest.Reference{Label: field(label), Raw: str[:n]}
	if !whole(0, n) && !utf8.Valid(rb) {
		r.Raw = strings.ToValidUTF8(r.Raw, "\uFFFD")
	}
	if !cited {
		return r, r.Raw != "", nil
	}
	r.Title, r.Source, r.Year = field(f.title), field(f.source), field(f.year)
	r.Volume, r.Issue, r.Pages = field(f.volume), field(f.issue), field(f.pages)
	r.DOI, r.PMID = f.doi, f.pmid
	if len(rr.authors) > 0 {
		r.Authors = make([]string, len(rr.authors))
		for i, a := range rr.authors {
			r.Authors[i] = field(a)
		}
	}
	if r.DOI == "" {
		r.DOI = doiInText(r.Raw)
	}
	// The other fields are valid UTF-8 (field, Raw above; PMID is digits),
	// as Document.ReferencesUTF8 promises; a DOI from an attribute is made
	// so here rather than on NormaliseDOI's lower-casing.
	if !utf8.ValidString(r.DOI) {
		r.DOI = strings.ToValidUTF8(r.DOI, "\uFFFD")
	}
	ok := r.Raw != "" || r.Title != "" || r.Source != "" || len(r.Authors) > 0
	return r, ok, nil
}

// skipLabel leaves labels out of a bare ref's text.
func skipLabel(local string) bool { return local == "label" }

// skipInCitation leaves non-text alternatives out of citations; comments
// ("Accessed 3 May 2019") stay.
func skipInCitation(local string) bool {
	switch local {
	case "annotation", "tex-math", "inline-graphic":
		return true
	}
	return false
}

// initials reduces given names to initials: "Timothy M" and "T. M." are
// "TM"; names already written as capitals ("KM", "RVS") stay.
func initials(given string) string { return string(appendInitials(nil, []byte(given))) }

func appendInitials(dst, given []byte) []byte {
	hasLower := false
	for i := 0; i < len(given); {
		r, size := utf8.DecodeRune(given[i:])
		if unicode.IsLower(r) {
			hasLower = true
			break
		}
		i += size
	}
	start := true
	for i := 0; i < len(given); {
		r, size := utf8.DecodeRune(given[i:])
		i += size
		if !unicode.IsLetter(r) {
			start = r == ' ' || r == '.' || r == '-' || r == '\u2010'
			continue
		}
		if !hasLower || start {
			dst = utf8.AppendRune(dst, unicode.ToUpper(r))
		}
		start = false
	}
	return dst
}

// doiInText finds a DOI written out in a citation ("doi: 10.36660/abc.2020",
// "https://doi.org/10...").
func doiInText(s string) string {
	i := strings.Index(s, "10.")
	for i >= 0 {
		rest := s[i:]
		// 10.NNNN/...: registrant code of at least four digits.
		j := 3
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j-3 >= 4 && j < len(rest) && rest[j] == '/' && (i == 0 || !isDOIChar(s[i-1])) {
			end := j + 1
			for end < len(rest) {
				r, size := utf8.DecodeRuneInString(rest[end:])
				if r == ' ' || r == '\t' || r == '\n' || r == '"' || r == '<' || r == '>' || r >= 0x80 {
					break
				}
				end += size
			}
			doi := strings.TrimRight(rest[:end], ".,;:)]")
			if n := ingest.NormaliseDOI(doi); n != "" && len(doi) > j+1 {
				return n
			}
		}
		k := strings.Index(rest[1:], "10.")
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return ""
}

func isDOIChar(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
