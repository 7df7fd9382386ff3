package jats

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openshelf/openshelf/ingest"
)

// refReader reads one <ref> as it streams past, without capturing it into
// a tree: a reference list is about a fifth of an article's bytes, and its
// tree, built and walked once per reference, was half the cost of reading
// it. It keeps the flattened texts a reference needs, each as tree.text
// would flatten its element, in slots that are reused from one reference
// to the next.
//
// What it reads (as [parser.reference] documents) is decided element by
// element from the element's name and its parent's role, in document
// order, which is the order the fields were once read from the tree in.
type refReader struct {
	slots   [numSlots]refSlot
	stack   []refElem // the open elements below the ref
	pend    []byte    // the text of consecutive tokens: a tree joins them in one node
	authors []string
	nb      []byte // name scratch
	ab      []byte // attribute scratch
	inName  bool   // a name's slots are open
}

// refSlot flattens the content of one open element (at level) as
// tree.text does, leaving out the elements skip reports true for.
type refSlot struct {
	f     flattener
	level int // the element's depth below the ref (the ref is 0)
	hide  int // depth of the left-out element the stream is in; 0 for none
	skip  func(string) bool
	on    bool
}

const (
	slotBare    = iota // the whole ref but its labels, until a citation starts
	slotLabel          // the ref's first label
	slotRaw            // the citation that gives Raw
	slotField          // a citation field, a name (skipInName) or a date's year
	slotSurname        // a name's first surname
	slotGiven          // a name's first given-names
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
	roleTitle            // the fields' Title
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

// release drops oversized buffers before the parser goes back to the
// pool.
func (rr *refReader) release() {
	const keep = 1 << 20
	if cap(rr.pend) > keep {
		rr.pend = nil
	}
	for i := range rr.slots {
		if sl := &rr.slots[i]; cap(sl.f.b) > keep {
			sl.f.b = nil
		}
		rr.slots[i].skip = nil
	}
	if cap(rr.nb) > keep {
		rr.nb = nil
	}
	if cap(rr.ab) > keep {
		rr.ab = nil
	}
	clear(rr.authors[:cap(rr.authors)])
	rr.authors = rr.authors[:0]
}

// open starts slot i on the element at level.
func (rr *refReader) open(i, level int, skip func(string) bool) {
	sl := &rr.slots[i]
	sl.f = flattener{b: sl.f.b[:0]}
	sl.level, sl.hide, sl.skip, sl.on = level, 0, skip, true
}

// flush writes the pending text to every slot outside a left-out element.
func (rr *refReader) flush() {
	if len(rr.pend) == 0 {
		return
	}
	for i := range rr.slots {
		if sl := &rr.slots[i]; sl.on && sl.hide == 0 {
			sl.f.write(rr.pend)
		}
	}
	rr.pend = rr.pend[:0]
	if rr.inName && (len(rr.slots[slotSurname].f.b) > 0 || len(rr.slots[slotGiven].f.b) > 0) {
		// The name's own text is read only when both parts are empty.
		rr.slots[slotField].on = false
	}
}

// enter tells the open slots that an element starts at level.
func (rr *refReader) enter(level int, local string, inline bool) {
	for i := range rr.slots {
		sl := &rr.slots[i]
		if !sl.on || sl.hide != 0 {
			continue
		}
		if sl.skip != nil && sl.skip(local) {
			sl.f.soft = sl.f.soft || !inline
			sl.hide = level
		} else if !inline {
			sl.f.soft = true
		}
	}
}

// leave tells the open slots that the element at level ends; a slot of
// that element is left to its role.
func (rr *refReader) leave(level int, inline bool) {
	for i := range rr.slots {
		sl := &rr.slots[i]
		switch {
		case !sl.on || sl.level >= level:
		case sl.hide == level:
			sl.hide = 0
		case sl.hide == 0 && !inline:
			sl.f.soft = true
		}
	}
}

// text closes slot i and returns its text.
func (rr *refReader) text(i int) string {
	rr.slots[i].on = false
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
	lastText := false
	rr.stack, rr.pend, rr.authors, rr.inName = rr.stack[:0], rr.pend[:0], rr.authors[:0], false
	for i := range rr.slots {
		rr.slots[i].on = false
	}
	rr.open(slotBare, 0, skipLabel)
	var (
		r                        ingest.Reference
		structured, mixed        bool // seen
		citeFields               bool // the open citation gives the fields
		label                    bool // seen
		fpage, lpage             string
		surname, given, dateYear bool // a name's or date's first part seen
	)
	for {
		if err := s.next(); err != nil {
			return r, false, err
		}
		switch s.kind {
		case tokEOF:
			return r, false, s.syntaxErr("unexpected end of input")
		case tokText:
			if len(s.text) > 0 {
				if !lastText {
					nodes++
				}
				lastText = true
				data += len(s.text)
				rr.pend = append(rr.pend, s.text...)
			}
		case tokStart:
			rr.flush()
			lastText = false
			nodes++
			data += t.attrLen(s)
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
					if level == 1 && !label {
						label, role = true, roleLabel
						rr.open(slotLabel, level, nil)
					}
				case "citation-alternatives":
					role = roleAlt
				case "element-citation", "nlm-citation", "citation":
					if structured {
						break
					}
					structured, role, citeFields = true, roleCite, true
					rr.slots[slotBare].on = false
					// Fields read from a mixed citation are dropped.
					r = ingest.Reference{Label: r.Label}
					rr.authors, fpage, lpage = rr.authors[:0], "", ""
					if !mixed {
						rr.open(slotRaw, level, skipInCitation)
					}
				case "mixed-citation":
					if mixed {
						break
					}
					mixed, role, citeFields = true, roleCite, !structured
					rr.slots[slotBare].on = false
					rr.open(slotRaw, level, skipInCitation)
				}
			case roleCite:
				if citeFields {
					role = rr.citationField(s, local, level, &r, fpage, lpage, &dateYear)
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
			if role == roleName || role == roleCollab {
				surname, given = false, false
			}
			rr.stack = append(rr.stack, refElem{role: role, inline: in})
		case tokEnd:
			rr.flush()
			lastText = false
			level := len(rr.stack)
			if level == 0 {
				return rr.end(&r, structured || mixed)
			}
			e := rr.stack[level-1]
			rr.stack = rr.stack[:level-1]
			rr.leave(level, e.inline)
			switch e.role {
			case roleLabel:
				r.Label = trimLabel(rr.text(slotLabel))
			case roleCite:
				rr.slots[slotRaw].on = false
				if citeFields {
					switch {
					case fpage != "" && lpage != "" && lpage != fpage:
						r.Pages = fpage + "-" + lpage
					case fpage != "":
						r.Pages = fpage
					}
				}
				citeFields = false
			case roleName, roleCollab:
				if a := rr.endName(e.role); a != "" {
					rr.authors = append(rr.authors, a)
				}
			case roleSurname:
				rr.slots[slotSurname].on = false
			case roleGiven:
				rr.slots[slotGiven].on = false
			case roleTitle:
				r.Title = rr.text(slotField)
			case roleSource:
				r.Source = rr.text(slotField)
			case roleYear, roleDateYear:
				r.Year = rr.text(slotField)
			case roleVolume:
				r.Volume = rr.text(slotField)
			case roleIssue:
				r.Issue = rr.text(slotField)
			case roleFpage:
				fpage = rr.text(slotField)
			case roleLpage:
				lpage = rr.text(slotField)
			case rolePages:
				r.Pages = rr.text(slotField)
			case roleDOI, roleLinkDOI:
				r.DOI = ingest.NormaliseDOI(rr.text(slotField))
			case rolePMID:
				r.PMID = ingest.NormalisePMID(rr.text(slotField))
			}
		}
		if data > t.maxData || nodes > t.maxData/4 {
			return r, false, fmt.Errorf("%w: element <%s> holds more than %d bytes", errCaptureLimit, root, t.maxData)
		}
	}
}

// citationField opens what a child of the fields' citation is read for;
// the fields read so far decide whether it is still wanted.
func (rr *refReader) citationField(s *scanner, local string, level int, r *ingest.Reference, fpage, lpage string, dateYear *bool) refRole {
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
		if r.Title == "" {
			return field(roleTitle, skipInTitle)
		}
	case "source":
		if r.Source == "" {
			return field(roleSource, skipInTitle)
		}
	case "year":
		if r.Year == "" {
			return field(roleYear, nil)
		}
	case "date":
		if r.Year == "" {
			*dateYear = false
			return roleDate
		}
	case "volume":
		if r.Volume == "" {
			return field(roleVolume, nil)
		}
	case "issue":
		if r.Issue == "" {
			return field(roleIssue, nil)
		}
	case "fpage":
		if fpage == "" {
			return field(roleFpage, nil)
		}
	case "lpage":
		if lpage == "" {
			return field(roleLpage, nil)
		}
	case "page-range", "elocation-id":
		if r.Pages == "" {
			return field(rolePages, nil)
		}
	case "pub-id":
		switch {
		case r.DOI == "" && rr.attrIs(s, "pub-id-type", "doi"):
			return field(roleDOI, nil)
		case r.PMID == "" && rr.attrIs(s, "pub-id-type", "pmid"):
			return field(rolePMID, nil)
		}
	case "ext-link", "uri":
		if r.DOI == "" && rr.attrIs(s, "ext-link-type", "doi") {
			v, _ := rr.attr(s, "href")
			if href := strings.TrimSpace(string(v)); href != "" {
				r.DOI = ingest.NormaliseDOI(href)
				return roleOther
			}
			return field(roleLinkDOI, nil)
		}
	}
	return roleOther
}

// openName starts reading an author: a name or string-name ("Surname
// GN" from its first surname and given-names, else its text), or a
// collab (its text).
func (rr *refReader) openName(local string, level int) refRole {
	rr.open(slotField, level, skipInName)
	if local == "collab" {
		return roleCollab
	}
	rr.inName = true
	sur, given := &rr.slots[slotSurname], &rr.slots[slotGiven]
	sur.on, sur.f.b = false, sur.f.b[:0]
	given.on, given.f.b = false, given.f.b[:0]
	return roleName
}

// endName returns the author that the name or collab just ended gives,
// building the string in scratch buffers: a reference list holds
// thousands of names.
func (rr *refReader) endName(role refRole) string {
	rr.inName = false
	b, g := rr.slots[slotSurname].f.b, rr.slots[slotGiven].f.b
	if role == roleCollab || len(b) == 0 && len(g) == 0 {
		return rr.text(slotField)
	}
	rr.slots[slotField].on = false
	n := append(rr.nb[:0], b...)
	switch {
	case len(b) == 0:
		n = append(n, g...)
	case len(g) > 0:
		n = appendInitials(append(n, ' '), g)
	}
	rr.nb = n
	return validString(n)
}

// end finishes the reference when its end tag is read.
func (rr *refReader) end(r *ingest.Reference, cited bool) (ingest.Reference, bool, error) {
	if !cited {
		// A bare ref holding only text.
		r.Raw = rr.text(slotBare)
		return *r, r.Raw != "", nil
	}
	if len(rr.authors) > 0 {
		r.Authors = slices.Clone(rr.authors)
	}
	r.Raw = rr.text(slotRaw)
	if r.DOI == "" {
		r.DOI = doiInText(r.Raw)
	}
	ok := r.Raw != "" || r.Title != "" || r.Source != "" || len(r.Authors) > 0
	return *r, ok, nil
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

// trimLabel turns "[12]" or "12." into "12".
func trimLabel(s string) string { return strings.Trim(s, " []().") }

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
