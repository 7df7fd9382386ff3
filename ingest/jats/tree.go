package jats

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"
)

// tree is a small element tree captured from the token stream: the front
// matter of one article, or one table, or the elements a paragraph's or
// title's text leaves out (captureText); references are read without one
// (refReader). Nodes, names and text live in flat slices that are reused
// from one capture to the next, so capturing allocates only while the
// slices grow.
//
// Only bounded pieces are captured; the body of an article is streamed
// section by section and never held as a tree.
type tree struct {
	nodes []tnode
	attrs []tattr
	data  []byte // text and decoded attribute values
	stack []int32
	fl    []byte // flattening scratch
	pend  []byte // captureText's pending text
	open  []bool // captureText's open elements
	ab    []byte // attrLen's scratch
	names *interner

	maxData int
}

// tnode is an element, or a text node when local is "".
type tnode struct {
	local, prefix     string
	first, last, next int32 // children and next sibling; -1 for none
	a0, a1            int32 // attrs[a0:a1]
	t0, t1            int32 // data[t0:t1] for a text node
}

type tattr struct {
	prefix, local string
	v0, v1        int32
}

const none int32 = -1

// interner turns element and attribute names into shared strings, so the
// tree holds no per-capture name allocations. A small direct-mapped cache
// in front of the map catches the few dozen names that make up most tags.
type interner struct {
	m     map[string]string
	cache [256]string
}

func (in *interner) get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	h := (uint(len(b))*31 + uint(b[0])*7 + uint(b[len(b)-1])) & 255
	if c := in.cache[h]; c == string(b) {
		return c
	}
	s, ok := in.m[string(b)]
	if !ok {
		s = string(b)
		if len(in.m) < 4096 { // bounded: hostile input may invent names forever
			in.m[s] = s
		}
	}
	in.cache[h] = s
	return s
}

// release drops oversized slices before the tree goes back to the pool.
func (t *tree) release() {
	const keep = 1 << 20
	t.reset()
	if cap(t.data) > keep || cap(t.nodes) > keep/16 {
		t.nodes, t.attrs, t.data = nil, nil, nil
	}
	if cap(t.fl) > keep {
		t.fl = nil
	}
	if cap(t.pend) > keep {
		t.pend = nil
	}
}

func (t *tree) reset() {
	t.nodes, t.attrs, t.data = t.nodes[:0], t.attrs[:0], t.data[:0]
}

// capture reads the element whose start token is current, up to and
// including its end token, into the tree and returns its node. Elements for
// which skip reports true are consumed without being kept.
func (t *tree) capture(s *scanner, skip func(local []byte) bool) (int32, error) {
	root := t.addElem(s)
	t.stack = append(t.stack[:0], root)
	for {
		if err := s.next(); err != nil {
			return none, err
		}
		switch s.kind {
		case tokStart:
			if skip != nil && skip(s.local) {
				// Keep an empty node: the gap is still a word boundary.
				t.link(t.stack[len(t.stack)-1], t.addBare(s))
				if err := s.skip(); err != nil {
					return none, err
				}
				continue
			}
			n := t.addElem(s)
			t.link(t.stack[len(t.stack)-1], n)
			t.stack = append(t.stack, n)
		case tokEnd:
			t.stack = t.stack[:len(t.stack)-1]
			if len(t.stack) == 0 {
				return root, nil
			}
		case tokText:
			t.addText(t.stack[len(t.stack)-1], s.text)
		case tokEOF:
			return none, s.syntaxErr("unexpected end of input")
		}
		if len(t.data) > t.maxData || len(t.nodes) > t.maxData/4 {
			return none, fmt.Errorf("%w: element <%s> holds more than %d bytes", errCaptureLimit, t.nodes[root].local, t.maxData)
		}
	}
}

func (t *tree) addElem(s *scanner) int32 {
	n := tnode{local: t.names.get(s.local), first: none, last: none, next: none, a0: int32(len(t.attrs))}
	if len(s.prefix) > 0 {
		n.prefix = t.names.get(s.prefix)
	}
	for _, a := range s.attributes() {
		v0 := int32(len(t.data))
		t.data = appendUnescaped(t.data, a.val)
		ta := tattr{local: t.names.get(a.local), v0: v0, v1: int32(len(t.data))}
		if len(a.prefix) > 0 {
			ta.prefix = t.names.get(a.prefix)
		}
		t.attrs = append(t.attrs, ta)
	}
	n.a1 = int32(len(t.attrs))
	t.nodes = append(t.nodes, n)
	return int32(len(t.nodes) - 1)
}

// attrLen returns how many bytes addElem would add to data for the
// current element's attributes: their decoded values. Most elements have
// none: that case is inlined.
func (t *tree) attrLen(s *scanner) int {
	if s.parsed && len(s.attrs) == 0 {
		return 0
	}
	return t.attrsLen(s)
}

func (t *tree) attrsLen(s *scanner) int {
	n := 0
	for _, a := range s.attributes() {
		if bytes.IndexByte(a.val, '&') < 0 {
			n += len(a.val)
			continue
		}
		t.ab = appendUnescaped(t.ab[:0], a.val)
		n += len(t.ab)
	}
	return n
}

// addBare adds the current element without its attributes.
func (t *tree) addBare(s *scanner) int32 {
	a := int32(len(t.attrs))
	t.nodes = append(t.nodes, tnode{local: t.names.get(s.local), first: none, last: none, next: none, a0: a, a1: a})
	return int32(len(t.nodes) - 1)
}

func (t *tree) link(parent, child int32) {
	p := &t.nodes[parent]
	if p.last == none {
		p.first = child
	} else {
		t.nodes[p.last].next = child
	}
	p.last = child
}

func (t *tree) addText(parent int32, text []byte) {
	if len(text) == 0 {
		return
	}
	// Text split across tokens (entities, CDATA, long runs) joins one node.
	if l := t.nodes[parent].last; l != none && t.nodes[l].local == "" && int(t.nodes[l].t1) == len(t.data) {
		t.data = append(t.data, text...)
		t.nodes[l].t1 = int32(len(t.data))
		return
	}
	t0 := int32(len(t.data))
	t.data = append(t.data, text...)
	t.nodes = append(t.nodes, tnode{first: none, last: none, next: none, t0: t0, t1: int32(len(t.data))})
	t.link(parent, int32(len(t.nodes)-1))
}

// child returns the first element child of n named local, or none.
func (t *tree) child(n int32, local string) int32 {
	if n == none {
		return none
	}
	for c := t.nodes[n].first; c != none; c = t.nodes[c].next {
		if t.nodes[c].local == local {
			return c
		}
	}
	return none
}

func (t *tree) is(n int32, local string) bool { return n != none && t.nodes[n].local == local }

// attrBytes returns the decoded value of n's attribute named local (any
// prefix).
func (t *tree) attrBytes(n int32, local string) ([]byte, bool) {
	nd := &t.nodes[n]
	for _, a := range t.attrs[nd.a0:nd.a1] {
		if a.local == local {
			return t.data[a.v0:a.v1], true
		}
	}
	return nil, false
}

func (t *tree) attr(n int32, local string) string {
	v, _ := t.attrBytes(n, local)
	return strings.TrimSpace(string(v))
}

// attrIs reports whether n's attribute local equals val, ignoring case and
// surrounding space.
func (t *tree) attrIs(n int32, local, val string) bool {
	v, ok := t.attrBytes(n, local)
	return ok && strings.EqualFold(string(bytes.TrimSpace(v)), val)
}

// lang returns n's xml:lang.
func (t *tree) lang(n int32) string {
	nd := &t.nodes[n]
	for _, a := range t.attrs[nd.a0:nd.a1] {
		if a.local == "lang" && a.prefix == "xml" {
			return strings.TrimSpace(string(t.data[a.v0:a.v1]))
		}
	}
	return ""
}

// hasOwnText reports whether n has a non-blank text child.
func (t *tree) hasOwnText(n int32) bool {
	for c := t.nodes[n].first; c != none; c = t.nodes[c].next {
		if nd := &t.nodes[c]; nd.local == "" && len(bytes.TrimSpace(t.data[nd.t0:nd.t1])) > 0 {
			return true
		}
	}
	return false
}

// text flattens n to plain text: whitespace collapsed, inline markup
// transparent, other element boundaries separated by a space (unless the
// text on either side is punctuation that does not take one). Elements for
// which skip reports true are left out.
func (t *tree) text(n int32, skip func(local string) bool) string {
	if n == none {
		return ""
	}
	t.fl = t.appendText(t.fl[:0], n, skip)
	return validString(t.fl)
}

// appendText appends the flattened text of n to dst, which should be
// empty or end in a word boundary.
func (t *tree) appendText(dst []byte, n int32, skip func(local string) bool) []byte {
	if n == none {
		return dst
	}
	f := flattener{b: dst}
	t.flatten(&f, n, skip)
	return f.b
}

// flattener accumulates flattened text.
type flattener struct {
	b    []byte
	hard bool // whitespace seen in the text
	soft bool // an element boundary seen
}

func (t *tree) flatten(f *flattener, n int32, skip func(local string) bool) {
	for c := t.nodes[n].first; c != none; c = t.nodes[c].next {
		nd := &t.nodes[c]
		if nd.local == "" {
			f.write(t.data[nd.t0:nd.t1])
			continue
		}
		inline := isInline(nd.local)
		if skip != nil && skip(nd.local) {
			f.soft = f.soft || !inline
			continue
		}
		if !inline {
			f.soft = true
		}
		t.flatten(f, c, skip)
		if !inline {
			f.soft = true
		}
	}
}

func (f *flattener) write(b []byte) { f.writeKnown(b, len(b) >= 16 && clean(b)) }

// writeKnown is write for text whose cleanness is known: a reference's
// text goes to several flatteners, and flush tests it once, at any
// length (write tests only text of 16 bytes or more). Clean text of any
// length may take the fast path.
func (f *flattener) writeKnown(b []byte, isClean bool) {
	if isClean && len(b) > 0 {
		// Most text needs no collapsing: copy it whole.
		if b[0] == ' ' {
			f.hard = true
			b = b[1:]
		}
		trailing := false
		if n := len(b); n > 0 && b[n-1] == ' ' {
			trailing, b = true, b[:n-1]
		}
		if len(b) > 0 {
			if len(f.b) > 0 && (f.hard || f.soft && softSpace(f.b[len(f.b)-1], b[0])) {
				f.b = append(f.b, ' ')
			}
			f.hard, f.soft = false, false
			f.b = append(f.b, b...)
		}
		f.hard = f.hard || trailing
		return
	}
	for i := 0; i < len(b); {
		c := b[i]
		if spaceTab[c] {
			f.hard = true
			i++
			continue
		}
		// U+00A0 NO-BREAK SPACE counts as space.
		if c == 0xc2 && i+1 < len(b) && b[i+1] == 0xa0 {
			f.hard = true
			i += 2
			continue
		}
		if len(f.b) > 0 && (f.hard || f.soft && softSpace(f.b[len(f.b)-1], c)) {
			f.b = append(f.b, ' ')
		}
		f.hard, f.soft = false, false
		// Copy the whole run up to the next space at once, and a lone
		// ' ' before a word with it: that is the space it would become.
		j := i + 1
		for j < len(b) {
			if c := b[j]; spaceTab[c] || c == 0xc2 {
				if c != ' ' || j+1 == len(b) || spaceTab[b[j+1]] || b[j+1] == 0xc2 {
					break
				}
				j++
			}
			j++
		}
		f.b = append(f.b, b[i:j]...)
		i = j
	}
}

// clean reports whether b has no control byte (tab, newline...), no lead
// byte of U+00A0 and no doubled space, eight bytes at a time.
func clean(b []byte) bool {
	const lo, hi, low7 = 0x0101010101010101, 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	i := 0
	var prev uint64 // the high bit of the previous word's last byte: a space
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		y := x ^ (0xc2 * lo)
		if ((x-0x20*lo)&^x|(y-lo)&^y)&hi != 0 {
			return false
		}
		// The high bit of each space byte, exactly (no borrow between
		// bytes): a space beside a space is a doubled space.
		z := x ^ (0x20 * lo)
		sp := ^((z&low7 + low7) | z | low7)
		if sp&(sp<<8|prev) != 0 {
			return false
		}
		prev = sp >> 56
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 || b[i] == 0xc2 || b[i] == ' ' && i > 0 && b[i-1] == ' ' {
			return false
		}
	}
	return true
}

// spaceTab marks the XML white-space bytes.
var spaceTab = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// softSpace decides whether an element boundary between prev and next
// becomes a space: not before closing punctuation, not after an opening
// bracket or a space.
func softSpace(prev, next byte) bool {
	switch next {
	case ',', '.', ';', ':', ')', ']', '}', '!', '?':
		return false
	}
	switch prev {
	case '(', '[', '{', ' ', '/', '-':
		return false
	}
	return true
}

// validString converts b to a string, replacing invalid UTF-8.
func validString(b []byte) string {
	if !utf8.Valid(b) {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return string(b)
}

// isInline reports whether an element is run-in formatting whose edges are
// not word boundaries: "H<sub>2</sub>O" is "H2O".
func isInline(local string) bool {
	switch local {
	case "italic", "bold", "sup", "sub", "sc", "underline", "monospace", "roman",
		"sans-serif", "overline", "strike", "styled-content", "named-content",
		"inline-formula", "xref", "ext-link", "uri", "abbrev", "email", "phrase",
		"inline-graphic", "private-char", "glyph-ref", "hi", "span", "target",
		"fixed-case", "ruby", "num", "chem-struct", "milestone-start", "milestone-end",
		// MathML presentation elements: a formula reads as one run.
		"math", "mi", "mo", "mn", "ms", "mtext", "mrow", "msub", "msup", "msubsup",
		"mfrac", "msqrt", "mroot", "mstyle", "mover", "munder", "munderover",
		"mfenced", "mpadded", "mphantom", "menclose", "mspace", "semantics":
		return true
	}
	return false
}
