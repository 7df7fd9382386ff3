package jats

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
)

// scanner is a lenient, allocation-free pull tokenizer for the XML that JATS
// files are written in. It exists because encoding/xml, which allocates
// every name, attribute and text run, tokenises the fixture corpus at about
// 33 MB/s with RawToken alone on the project machine, below the pipeline's
// 60 MB/s budget. The scanner hands out slices into its read buffer
// instead; they stay valid until the next call to next.
//
// It is deliberately forgiving, like encoding/xml with Strict=false and
// AutoClose: unknown entities stay literal, a stray '<' is text, an end tag
// that matches an open ancestor closes everything above it, an end tag that
// matches nothing is dropped, and DTDs are skipped, never fetched. It
// guarantees its consumer a balanced stream: every start token is followed,
// eventually, by exactly one end token, and an input that ends with open
// elements is an error, not a silently truncated document.
type scanner struct {
	ctx context.Context
	r   io.Reader
	buf []byte
	pos int   // next unread byte
	end int   // end of valid data
	off int64 // stream offset of buf[0]
	eof bool
	err error // sticky read error (not io.EOF)

	maxTok   int // largest tag, comment, CDATA section or declaration
	maxDepth int

	// Open elements: qualified names back to back in names, where each
	// starts and where its local name starts in open.
	names []byte
	open  []openElem
	// closeTo >= 0 means synthetic end tokens are due until len(open) ==
	// closeTo (an end tag closed several elements at once).
	closeTo   int
	selfClose bool // the last start tag was <x/>: its end token is due
	raw       bool // skipping: do not decode text

	// The current token.
	kind     tokKind
	prefix   []byte
	local    []byte
	rawAttrs []byte    // the current start tag after its name, parsed on demand
	parsed   bool      // attrs holds rawAttrs parsed
	attrs    []rawAttr // see attributes
	text     []byte
	tbuf     []byte
}

// openElem is where an open element's qualified name, and its local
// name, start in scanner.names: an end token needs no second splitName.
// A plain name can be matched by endsTop.
type openElem struct {
	start, local int32
	plain        bool
}

type tokKind uint8

const (
	tokEOF tokKind = iota
	tokStart
	tokEnd
	tokText
)

// rawAttr is an attribute of the current start tag; val is undecoded.
type rawAttr struct {
	prefix, local, val []byte
}

const (
	minBuf = 4 << 10
	maxBuf = 64 << 10
)

// reset prepares the scanner for a new input, keeping its buffers.
func (s *scanner) reset(ctx context.Context, r io.Reader, maxTok, maxDepth int) {
	s.ctx, s.r = ctx, r
	s.maxTok, s.maxDepth = max(maxTok, minBuf), maxDepth
	if len(s.buf) == 0 || len(s.buf) > maxBuf || len(s.buf) > s.maxTok {
		s.buf = make([]byte, max(min(maxBuf, s.maxTok), minBuf))
	}
	s.pos, s.end, s.off, s.eof, s.err = 0, 0, 0, false, nil
	s.names, s.open = s.names[:0], s.open[:0]
	s.closeTo, s.selfClose, s.raw = -1, false, false
	s.kind, s.prefix, s.local, s.text = tokEOF, nil, nil, nil
	s.rawAttrs, s.parsed, s.attrs = nil, true, s.attrs[:0]
}

// release drops references to the input and oversized buffers before the
// scanner goes back to the pool.
func (s *scanner) release() {
	s.ctx, s.r = nil, nil
	s.prefix, s.local, s.text = nil, nil, nil
	if cap(s.tbuf) > maxBuf {
		s.tbuf = nil
	}
	if cap(s.names) > maxBuf {
		s.names = nil
	}
}

// start checks the beginning of the input: a byte order mark, a first
// non-blank byte '<', and a declared encoding other than UTF-8, which it
// converts to UTF-8. White space before the first markup is dropped.
func (s *scanner) start() error {
	if err := s.need(4); err != nil {
		return err
	}
	head := s.buf[s.pos:s.end]
	var enc encoding.Encoding
	switch {
	case bytes.HasPrefix(head, []byte{0xef, 0xbb, 0xbf}):
		s.pos += 3
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		enc = unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		enc = unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM)
	}
	if enc == nil {
		if err := s.checkStart(); err != nil {
			return err
		}
		// Only the first maxDecl bytes: how much more happens to be
		// buffered depends on how the input was read.
		name := declaredEncoding(s.buf[s.pos:min(s.end, s.pos+maxDecl)])
		switch strings.ToLower(name) {
		case "", "utf-8", "utf8", "us-ascii", "ascii":
			return nil
		}
		var err error
		if enc, err = ianaindex.IANA.Encoding(name); err != nil || enc == nil {
			return fmt.Errorf("%w: %q", ErrEncoding, name)
		}
	}
	// Read what is buffered again, through the decoder.
	pending := bytes.Clone(s.buf[s.pos:s.end])
	s.r = enc.NewDecoder().Reader(io.MultiReader(bytes.NewReader(pending), s.r))
	s.pos, s.end, s.off, s.eof, s.err = 0, 0, 0, false, nil
	return s.checkStart()
}

// maxDecl is the most of an XML declaration that is read for its
// encoding: a longer one names none.
const maxDecl = 1024

// checkStart skips white space and requires markup next; it leaves up to
// maxDecl bytes buffered for the XML declaration.
func (s *scanner) checkStart() error {
	blank := false
	for {
		for s.pos < s.end && isSpace(s.buf[s.pos]) {
			s.pos++
			blank = true
		}
		if s.pos < s.end {
			break
		}
		ok, err := s.more()
		if err != nil {
			return err
		}
		if !ok {
			if blank {
				return fmt.Errorf("%w: only white space", ErrNotXML)
			}
			return fmt.Errorf("%w: empty input", ErrNotXML)
		}
	}
	if c := s.buf[s.pos]; c != '<' {
		if err := s.need(16); err != nil {
			return err
		}
		return fmt.Errorf("%w: starts with %q", ErrNotXML, preview(s.buf[s.pos:s.end]))
	}
	return s.need(maxDecl)
}

// depth is the number of open elements, including the one whose start
// token is current.
func (s *scanner) depth() int { return len(s.open) }

// offset is the stream offset of the next unread byte, for error messages.
func (s *scanner) offset() int64 { return s.off + int64(s.pos) }

func (s *scanner) syntaxErr(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", ErrSyntax, s.offset(), fmt.Sprintf(format, args...))
}

// more reads more input, compacting or growing the buffer. It returns false
// at the end of input, and an error for read failures, cancellation and
// tokens larger than maxTok.
func (s *scanner) more() (bool, error) {
	if s.eof {
		return false, s.err
	}
	if err := s.ctx.Err(); err != nil {
		return false, err
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.off += int64(s.pos)
		s.end, s.pos = n, 0
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= s.maxTok {
			return false, fmt.Errorf("%w: a tag, comment or declaration at byte %d is longer than %d bytes", ErrLimit, s.off, s.maxTok)
		}
		nb := make([]byte, min(2*len(s.buf), s.maxTok))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for range 100 {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.err = err
			}
			if n > 0 {
				return true, nil
			}
			return false, s.err
		}
		if n > 0 {
			return true, nil
		}
	}
	return false, io.ErrNoProgress
}

// need makes at least n unread bytes available if the input has them.
func (s *scanner) need(n int) error {
	for s.end-s.pos < n {
		ok, err := s.more()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
	}
	return nil
}

// index finds pat at or after from (relative to pos), reading as needed. It
// returns -1 when the input ends first.
func (s *scanner) index(pat []byte, from int) (int, error) {
	for {
		if i := bytes.Index(s.buf[s.pos+from:s.end], pat); i >= 0 {
			return from + i, nil
		}
		from = max(from, s.end-s.pos-len(pat)+1)
		ok, err := s.more()
		if err != nil {
			return -1, err
		}
		if !ok {
			return -1, nil
		}
	}
}

var (
	patCommentEnd = []byte("-->")
	patCDATAEnd   = []byte("]]>")
	patPIEnd      = []byte("?>")
	patGT         = []byte(">")
)

// next advances to the next token.
func (s *scanner) next() error {
	s.parsed, s.attrs = true, s.attrs[:0] // rawAttrs is read only when !parsed
	if s.selfClose {
		s.selfClose = false
		s.popEnd()
		return nil
	}
	if s.closeTo >= 0 {
		s.popEnd()
		if len(s.open) <= s.closeTo {
			s.closeTo = -1
		}
		return nil
	}
	for {
		if s.pos >= s.end {
			ok, err := s.more()
			if err != nil {
				return err
			}
			if !ok {
				if len(s.open) > 0 {
					return s.syntaxErr("unexpected end of input inside <%s>", s.names[s.open[len(s.open)-1].start:])
				}
				s.kind = tokEOF
				return nil
			}
		}
		if s.buf[s.pos] != '<' {
			return s.scanText(0)
		}
		if s.end-s.pos < 2 {
			if err := s.need(2); err != nil {
				return err
			}
		}
		if s.end-s.pos < 2 {
			return s.scanText(1) // a lone '<' at the end
		}
		switch c := s.buf[s.pos+1]; {
		case c == '/':
			done, err := s.scanEndTag()
			if done || err != nil {
				return err
			}
		case c == '!':
			done, err := s.scanBang()
			if done || err != nil {
				return err
			}
		case c == '?':
			i, err := s.index(patPIEnd, 2)
			if err != nil {
				return err
			}
			if i < 0 {
				return s.syntaxErr("unterminated processing instruction")
			}
			s.pos += i + len(patPIEnd)
		case isNameStart(c):
			return s.scanStartTag()
		default:
			return s.scanText(1) // "a < b": the '<' is text
		}
	}
}

// popEnd emits an end token for the innermost open element.
func (s *scanner) popEnd() {
	top := len(s.open) - 1
	e := s.open[top]
	s.prefix, s.local = nil, s.names[e.local:]
	if e.local > e.start {
		s.prefix = s.names[e.start : e.local-1]
	}
	s.names = s.names[:e.start]
	s.open = s.open[:top]
	s.kind = tokEnd
}

func (s *scanner) scanText(from int) error {
	for {
		if i := bytes.IndexByte(s.buf[s.pos+from:s.end], '<'); i >= 0 {
			s.emitText(from + i)
			return nil
		}
		avail := s.end - s.pos
		if s.eof {
			s.emitText(avail)
			return nil
		}
		// Long text runs are handed out in pieces, so text never forces the
		// buffer to grow.
		if avail >= len(s.buf)/4 {
			s.emitText(safeCut(s.buf[s.pos:s.end]))
			return nil
		}
		from = avail
		if _, err := s.more(); err != nil {
			return err
		}
	}
}

// safeCut returns how much of b can be handed out as text without cutting
// an entity reference in two.
func safeCut(b []byte) int {
	i := bytes.LastIndexByte(b, '&')
	if i <= 0 || bytes.IndexByte(b[i:], ';') >= 0 || len(b)-i > maxEntityLen {
		return len(b)
	}
	return i
}

func (s *scanner) emitText(n int) {
	raw := s.buf[s.pos : s.pos+n]
	s.pos += n
	s.kind = tokText
	if s.raw || bytes.IndexByte(raw, '&') < 0 {
		s.text = raw
		return
	}
	s.tbuf = appendUnescaped(s.tbuf[:0], raw)
	s.text = s.tbuf
}

// scanBang handles "<!": comments, CDATA sections and declarations. It
// reports whether it produced a token.
func (s *scanner) scanBang() (bool, error) {
	if err := s.need(9); err != nil {
		return false, err
	}
	rest := s.buf[s.pos:s.end]
	switch {
	case bytes.HasPrefix(rest, []byte("<!--")):
		i, err := s.index(patCommentEnd, 4)
		if err != nil {
			return false, err
		}
		if i < 0 {
			return false, s.syntaxErr("unterminated comment")
		}
		s.pos += i + len(patCommentEnd)
		return false, nil
	case bytes.HasPrefix(rest, []byte("<![CDATA[")):
		i, err := s.index(patCDATAEnd, 9)
		if err != nil {
			return false, err
		}
		if i < 0 {
			return false, s.syntaxErr("unterminated CDATA section")
		}
		s.kind = tokText
		s.text = s.buf[s.pos+9 : s.pos+i]
		s.pos += i + len(patCDATAEnd)
		return true, nil
	}
	// <!DOCTYPE ...> possibly with an internal subset in brackets, or any
	// other declaration: skip to the matching '>'.
	i, depth := 2, 0
	var quote byte
	for {
		for ; s.pos+i < s.end; i++ {
			c := s.buf[s.pos+i]
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'':
				quote = c
			case c == '[':
				depth++
			case c == ']':
				if depth > 0 {
					depth--
				}
			case c == '>' && depth == 0:
				s.pos += i + 1
				return false, nil
			}
		}
		ok, err := s.more()
		if err != nil {
			return false, err
		}
		if !ok {
			return false, s.syntaxErr("unterminated declaration")
		}
	}
}

func (s *scanner) scanStartTag() error {
	// Most tags are a bare name (<surname>, <br/>): one pass over the
	// name ends them at '>' or "/>". Any other byte that ends a name
	// (white space, a quote, '=') leaves the tag to scanAttrTag, which
	// need not read the name's bytes again.
	b := s.buf[s.pos+1 : s.end]
	j, colon := 0, -1
	for {
		for j < len(b) && nameStop[b[j]] == 0 {
			j++
		}
		if j == len(b) || b[j] != ':' {
			break
		}
		if colon < 0 {
			colon = j
		}
		j++
	}
	if j < len(b) {
		switch b[j] {
		case '>':
			s.pos += j + 2
			return s.startToken(b[:j], colon, false, false)
		case '/':
			if j+1 < len(b) && b[j+1] == '>' {
				s.pos += j + 3
				return s.startToken(b[:j], colon, false, true)
			}
		}
	}
	return s.scanAttrTag(j)
}

// nameStop marks the bytes that end a bare start tag's name ('>', '/'),
// or leave the tag to scanAttrTag (white space, quotes, '='), and the
// colon that splits it.
var nameStop = [256]byte{'>': '>', '/': '/', ':': ':', ' ': ' ', '\t': ' ', '\n': ' ', '\r': ' ', '"': ' ', '\'': ' ', '=': ' '}

// scanAttrTag reads a start tag with attributes (or a name longer than
// what is buffered); the first from bytes after its '<' are part of its
// name, without white space, a quote, '=', '/' or '>'.
func (s *scanner) scanAttrTag(from int) error {
	// Find the closing '>' outside quoted attribute values. A quote opens a
	// value only right after '=', so a stray apostrophe cannot swallow the
	// rest of the file.
	i := 1 + from
	var quote byte
	afterEq := false
	// A tag without attributes ends at the first '>', with no quote
	// before it: the loop below would stop there too.
	// Tags are short: one pass over the bytes beats three IndexByte calls.
	for j, c := range s.buf[s.pos+1+from : s.end] {
		if c == '>' {
			i += j
			goto found
		}
		if c == '"' || c == '\'' {
			// Go on from the quote: the bytes before it hold no quote
			// and no '>', so all they tell is whether the last of them
			// that is not blank is '='.
			i += j
			k := i - 1
			for k >= 1 && isSpace(s.buf[s.pos+k]) {
				k--
			}
			afterEq = k >= 1 && s.buf[s.pos+k] == '='
			break
		}
	}
	for {
		for s.pos+i < s.end {
			if quote != 0 {
				// A quoted value: jump to its closing quote.
				k := bytes.IndexByte(s.buf[s.pos+i:s.end], quote)
				if k < 0 {
					i = s.end - s.pos
					break
				}
				i += k + 1
				quote = 0
				continue
			}
			c := s.buf[s.pos+i]
			i++
			switch c {
			case '>':
				i--
				goto found
			case '=':
				afterEq = true
			case '"', '\'':
				if afterEq {
					quote = c
				}
				afterEq = false
			case ' ', '\t', '\n', '\r':
			default:
				afterEq = false
			}
		}
		ok, err := s.more()
		if err != nil {
			return err
		}
		if !ok {
			return s.syntaxErr("unterminated start tag")
		}
	}
found:
	tag := s.buf[s.pos+1 : s.pos+i]
	s.pos += i + 1
	self := false
	if n := len(tag); n > 0 && tag[n-1] == '/' {
		self = true
		tag = tag[:n-1]
	}
	n := from // the name goes on at least that far: '>' is further
	for n < len(tag) && !isSpace(tag[n]) {
		n++
	}
	qname := tag[:n]
	// Attributes are parsed only when asked for: skipped elements never are.
	s.rawAttrs, s.parsed = tag[n:], false
	return s.startToken(qname, bytes.IndexByte(qname, ':'), bytes.IndexByte(qname, '>') >= 0, self)
}

// startToken makes qname, whose first colon is at colon (-1 for none), the
// current start token and opens its element; gt says qname holds a '>'.
func (s *scanner) startToken(qname []byte, colon int, gt, self bool) error {
	if len(s.open) >= s.maxDepth {
		return fmt.Errorf("%w: elements nested deeper than %d at byte %d", ErrLimit, s.maxDepth, s.offset())
	}
	start := int32(len(s.names))
	s.names = append(s.names, qname...)
	e := openElem{start: start, local: start, plain: !gt && trimSafe(qname)}
	s.prefix, s.local = splitName(qname, colon)
	if len(s.prefix) > 0 {
		e.local += int32(len(s.prefix) + 1)
	}
	s.open = append(s.open, e)
	s.kind = tokStart
	s.selfClose = self
	return nil
}

// trimSafe reports whether q neither starts nor ends in a byte that
// bytes.TrimSpace might trim.
func trimSafe(q []byte) bool {
	n := len(q)
	return q[0] < 0x80 && q[n-1] > ' ' && q[n-1] < 0x80
}

// attributes returns the current start tag's attributes; the slices are
// valid until the next call to next.
func (s *scanner) attributes() []rawAttr {
	if !s.parsed {
		s.parsed = true
		s.parseAttrs(s.rawAttrs)
	}
	return s.attrs
}

func (s *scanner) parseAttrs(b []byte) {
	// Indices and byte tables rather than reslicing and compares: every
	// attribute of a paragraph's or a reference's elements is parsed, if
	// only to count its bytes (tree.attrLen).
	i := 0
	for {
		for i < len(b) && spaceTab[b[i]] {
			i++
		}
		if i == len(b) {
			return
		}
		start, colon := i, -1
		for ; i < len(b); i++ {
			if c := attrNameByte[b[i]]; c == ' ' {
				break
			} else if c == ':' && colon < 0 {
				colon = i - start
			}
		}
		name := b[start:i]
		for i < len(b) && spaceTab[b[i]] {
			i++
		}
		var val []byte
		if i < len(b) && b[i] == '=' {
			i++
			for i < len(b) && spaceTab[b[i]] {
				i++
			}
			if i < len(b) && (b[i] == '"' || b[i] == '\'') {
				end := bytes.IndexByte(b[i+1:], b[i])
				if end < 0 {
					val, i = b[i+1:], len(b)
				} else {
					val, i = b[i+1:i+1+end], i+2+end
				}
			} else {
				v := i
				for i < len(b) && !spaceTab[b[i]] {
					i++
				}
				val = b[v:i]
			}
		}
		if len(name) == 0 {
			// "=value" with no name: drop it, but always make progress.
			if i < len(b) && val == nil {
				i++
			}
			continue
		}
		p, l := splitName(name, colon)
		s.attrs = append(s.attrs, rawAttr{prefix: p, local: l, val: val})
	}
}

// attrNameByte marks the bytes that end an attribute's name (white space
// and '='), and the colon that splits it.
var attrNameByte = [256]byte{' ': ' ', '\t': ' ', '\n': ' ', '\r': ' ', '=': ' ', ':': ':'}

// scanEndTag handles "</name>". It reports whether it produced a token: an
// end tag matching no open element is dropped.
func (s *scanner) scanEndTag() (bool, error) {
	if s.endsTop() {
		return true, nil
	}
	// End tags are short: look for the '>' in what is buffered first.
	i := -1
	for j, c := range s.buf[s.pos+2 : s.end] {
		if c == '>' {
			i = j + 2
			break
		}
	}
	if i < 0 {
		var err error
		if i, err = s.index(patGT, 2); err != nil {
			return false, err
		}
		if i < 0 {
			return false, s.syntaxErr("unterminated end tag")
		}
	}
	qname := bytes.TrimSpace(s.buf[s.pos+2 : s.pos+i])
	s.pos += i + 1
	for k := len(s.open) - 1; k >= 0; k-- {
		var open []byte
		if k+1 < len(s.open) {
			open = s.names[s.open[k].start:s.open[k+1].start]
		} else {
			open = s.names[s.open[k].start:]
		}
		if bytes.Equal(open, qname) {
			s.popEnd()
			if len(s.open) > k {
				s.closeTo = k
			}
			return true, nil
		}
	}
	return false, nil
}

// endsTop reads the end tag at pos when it is "</name>" for the innermost
// open element, as most are, and reports whether it did: one comparison
// instead of a search for '>', a trim and a comparison. It declines a name
// that is not plain: one that holds a '>' (found first by the search) or
// starts or ends in a byte that bytes.TrimSpace might trim.
func (s *scanner) endsTop() bool {
	if len(s.open) == 0 || !s.open[len(s.open)-1].plain {
		return false
	}
	top := s.names[s.open[len(s.open)-1].start:]
	n := len(top)
	if s.end-s.pos < n+3 || s.buf[s.pos+2+n] != '>' || !bytes.Equal(s.buf[s.pos+2:s.pos+2+n], top) {
		return false
	}
	s.pos += n + 3
	s.popEnd()
	return true
}

// skip consumes the rest of the element whose start token is current.
func (s *scanner) skip() error {
	target := len(s.open) - 1
	s.raw = true
	defer func() { s.raw = false }()
	for {
		if err := s.next(); err != nil {
			return err
		}
		if s.kind == tokEnd && len(s.open) <= target {
			return nil
		}
	}
}

// attr returns the raw value of the current start tag's attribute with the
// given local name (any prefix, so xlink:href and a re-prefixed href both
// match).
func (s *scanner) attr(local string) ([]byte, bool) {
	for _, a := range s.attributes() {
		if string(a.local) == local {
			return a.val, true
		}
	}
	return nil, false
}

// attrString decodes an attribute of the current start tag.
func (s *scanner) attrString(local string) string {
	v, ok := s.attr(local)
	if !ok {
		return ""
	}
	if bytes.IndexByte(v, '&') < 0 {
		return string(v)
	}
	return string(appendUnescaped(nil, v))
}

// splitName splits a qualified name at its first colon, which the pass
// that found the name's end noted (-1 for none). A name with nothing
// before or after that colon ("b:", ":b", ":") is not split, as
// encoding/xml does: an element's local name is never empty, which marks
// a text node in a tree (tree.flatten), so that capturing an element and
// flattening its tree read "<b:>" as captureText does.
func splitName(q []byte, colon int) (prefix, local []byte) {
	if colon <= 0 || colon >= len(q)-1 {
		return nil, q
	}
	return q[:colon], q[colon+1:]
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || c >= 0x80
}

// maxEntityLen bounds the name of an entity reference, ";" included; longer
// "&...;" runs are literal text.
const maxEntityLen = 40

// appendUnescaped appends src to dst with entity and character references
// replaced. Unknown or malformed references stay as written; character
// references to invalid code points become U+FFFD.
func appendUnescaped(dst, src []byte) []byte {
	for len(src) > 0 {
		i := bytes.IndexByte(src, '&')
		if i < 0 {
			return append(dst, src...)
		}
		dst = append(dst, src[:i]...)
		src = src[i:]
		j := bytes.IndexByte(src[:min(len(src), maxEntityLen)], ';')
		if j < 2 {
			dst = append(dst, '&')
			src = src[1:]
			continue
		}
		name := src[1:j]
		if name[0] == '#' {
			if r, ok := charRef(name[1:]); ok {
				dst = utf8.AppendRune(dst, r)
				src = src[j+1:]
				continue
			}
		} else if v, ok := namedEntity(name); ok {
			dst = append(dst, v...)
			src = src[j+1:]
			continue
		}
		dst = append(dst, '&')
		src = src[1:]
	}
	return dst
}

func namedEntity(name []byte) (string, bool) {
	switch string(name) {
	case "lt":
		return "<", true
	case "gt":
		return ">", true
	case "amp":
		return "&", true
	case "quot":
		return `"`, true
	case "apos":
		return "'", true
	}
	// JATS DTDs declare the HTML/ISO entity sets; files that keep named
	// entities (rather than numeric ones) need them resolved without the DTD.
	v, ok := xml.HTMLEntity[string(name)]
	return v, ok
}

func charRef(b []byte) (rune, bool) {
	base := int32(10)
	if len(b) > 0 && (b[0] == 'x' || b[0] == 'X') {
		base, b = 16, b[1:]
	}
	if len(b) == 0 || len(b) > 8 {
		return 0, false
	}
	var r int32
	for _, c := range b {
		var d int32
		switch {
		case c >= '0' && c <= '9':
			d = int32(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = int32(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = int32(c-'A') + 10
		default:
			return 0, false
		}
		r = r*base + d
	}
	if r == 0 || !utf8.ValidRune(r) {
		return utf8.RuneError, true
	}
	return r, true
}
