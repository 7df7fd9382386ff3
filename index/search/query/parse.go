package query

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openshelf/openshelf/index/tokenize"
)

// Limits on what one query may ask, so that a 200-character query cannot
// make the evaluator do unbounded work.
const (
	MaxLeaves = 32 // terms, prefixes and phrases
	MaxDepth  = 8  // nested parentheses
)

// Parse parses q. A blank q gives a nil Node (a listing, no query); a q
// whose words all fold away (only punctuation) gives an empty *Or, which
// matches nothing. Any other refusal is a *SyntaxError.
//
// Precedence, tightest first: NOT (or -), AND (or juxtaposition), OR.
func Parse(q string) (Node, error) {
	if strings.TrimSpace(q) == "" {
		return nil, nil
	}
	n, err := parse(q, true)
	if err != nil {
		return nil, err
	}
	if n == nil {
		// Every word was a stop word (or punctuation): search for the
		// stop words themselves, as "The The" must find the band.
		if n, err = parse(q, false); err != nil {
			return nil, err
		}
	}
	if n == nil {
		return &Or{}, nil
	}
	if !positive(n) {
		return nil, &SyntaxError{Pos: 0, Msg: "the query only excludes; add a word to search for"}
	}
	return n, nil
}

func parse(q string, dropStop bool) (Node, error) {
	toks, err := lex(q)
	if err != nil {
		return nil, err
	}
	p := &parser{q: q, toks: toks, dropStop: dropStop}
	n, err := p.or(0)
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		t := p.toks[p.i]
		if t.kind == tRParen {
			return nil, &SyntaxError{Pos: t.pos, Msg: "closing parenthesis without an opening one"}
		}
		return nil, &SyntaxError{Pos: t.pos, Msg: fmt.Sprintf("unexpected %q", t.text)}
	}
	return n, nil
}

type tokKind uint8

const (
	tWord   tokKind = iota // text, possibly field:text or text*
	tPhrase                // "..." (text without the quotes)
	tLParen
	tRParen
	tOr
	tAnd
	tNot   // NOT or a leading -
	tField // field: directly followed by a phrase or a group
)

type tok struct {
	kind tokKind
	text string
	pos  int
}

// lex splits q into tokens. A '-' starts a negation only at the start of
// a word ("-mouse"); inside a word it is a hyphen ("SARS-CoV-2").
func lex(q string) ([]tok, error) {
	var toks []tok
	for i := 0; i < len(q); {
		r, size := utf8.DecodeRuneInString(q[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
		case r == '(':
			toks = append(toks, tok{tLParen, "(", i})
			i++
		case r == ')':
			toks = append(toks, tok{tRParen, ")", i})
			i++
		case r == '"':
			end := strings.IndexByte(q[i+1:], '"')
			if end < 0 {
				return nil, &SyntaxError{Pos: i, Msg: "unterminated phrase: add the closing quote"}
			}
			toks = append(toks, tok{tPhrase, q[i+1 : i+1+end], i})
			i += end + 2
		case (r == '-' || r == '+') && i+1 < len(q) && !isBreak(q[i+1]):
			if r == '-' {
				toks = append(toks, tok{tNot, "-", i})
			}
			i++
		default:
			j := wordEnd(q, i)
			w := q[i:j]
			if f, rest, ok := fieldPrefix(w); ok {
				if rest == "" && j < len(q) && (q[j] == '"' || q[j] == '(') {
					toks = append(toks, tok{tField, f, i})
					i = j
					continue
				}
				if f == DOI.String() && rest != "" {
					j = doiEnd(q, i)
					w = q[i:j]
				}
			}
			switch w {
			case "OR":
				toks = append(toks, tok{tOr, w, i})
			case "AND":
				toks = append(toks, tok{tAnd, w, i})
			case "NOT":
				toks = append(toks, tok{tNot, w, i})
			default:
				toks = append(toks, tok{tWord, w, i})
			}
			i = j
		}
	}
	return toks, nil
}

func isBreak(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ')' }

// wordEnd returns the end of the word starting at i: the next space,
// parenthesis or quote.
func wordEnd(q string, i int) int {
	for j := i; j < len(q); {
		r, size := utf8.DecodeRuneInString(q[j:])
		if unicode.IsSpace(r) || r == '(' || r == ')' || r == '"' {
			return j
		}
		j += size
	}
	return len(q)
}

// doiEnd returns the end of a doi: word starting at i. DOIs contain
// parentheses (10.1016/S0140-6736(20)30183-5), so the word runs to the next
// space, less the closing parentheses that close groups rather than
// parentheses of the DOI.
func doiEnd(q string, i int) int {
	j := i
	for j < len(q) {
		r, size := utf8.DecodeRuneInString(q[j:])
		if unicode.IsSpace(r) {
			break
		}
		j += size
	}
	for j > i && q[j-1] == ')' && strings.Count(q[i:j], ")") > strings.Count(q[i:j], "(") {
		j--
	}
	return j
}

// fieldPrefix splits "title:rest" when the name before the colon is a
// field. Any other colon is text: a pasted title "Cancer: a review" must
// still search for its words.
func fieldPrefix(w string) (field, rest string, ok bool) {
	name, rest, found := strings.Cut(w, ":")
	if !found {
		return "", "", false
	}
	if _, ok := FieldByName(strings.ToLower(name)); !ok {
		return "", "", false
	}
	return strings.ToLower(name), rest, true
}

type parser struct {
	q        string
	toks     []tok
	i        int
	leaves   int
	dropStop bool
}

func (p *parser) peek() (tok, bool) {
	if p.i < len(p.toks) {
		return p.toks[p.i], true
	}
	return tok{}, false
}

// or parses and-expressions separated by OR. A nil result means every
// part folded away.
func (p *parser) or(depth int) (Node, error) {
	var parts []Node
	for {
		start := p.i
		n, err := p.and(depth)
		if err != nil {
			return nil, err
		}
		t, ok := p.peek()
		if p.i == start && ok && t.kind == tOr {
			return nil, &SyntaxError{Pos: t.pos, Msg: "OR needs a term on its left"}
		}
		if n != nil {
			parts = append(parts, n)
		}
		if !ok || t.kind != tOr {
			break
		}
		p.i++
		if next, ok := p.peek(); !ok || next.kind == tOr || next.kind == tRParen {
			return nil, &SyntaxError{Pos: t.pos, Msg: "OR needs a term on its right"}
		}
	}
	if len(parts) > 1 {
		for _, n := range parts {
			if !positive(n) {
				return nil, &SyntaxError{Pos: p.posOf(n), Msg: "an excluded term cannot be an alternative of OR; put it beside a term to search for"}
			}
		}
	}
	return flatten(&Or{Children: parts}), nil
}

// and parses unary expressions until OR, ')' or the end.
func (p *parser) and(depth int) (Node, error) {
	var parts []Node
	start := p.i
	for {
		t, ok := p.peek()
		if !ok || t.kind == tOr || t.kind == tRParen {
			break
		}
		if t.kind == tAnd {
			p.i++
			if next, ok := p.peek(); !ok || next.kind == tOr || next.kind == tAnd || next.kind == tRParen || p.i-1 == start {
				return nil, &SyntaxError{Pos: t.pos, Msg: "AND needs a term on each side"}
			}
			continue
		}
		n, err := p.unary(depth)
		if err != nil {
			return nil, err
		}
		if n != nil {
			parts = append(parts, n)
		}
	}
	return flatten(&And{Children: parts}), nil
}

func (p *parser) unary(depth int) (Node, error) {
	t, _ := p.peek()
	if t.kind != tNot {
		return p.primary(depth)
	}
	p.i++
	next, ok := p.peek()
	if !ok || next.kind == tOr || next.kind == tAnd || next.kind == tRParen || next.kind == tNot {
		return nil, &SyntaxError{Pos: t.pos, Msg: t.text + " needs a term to exclude"}
	}
	n, err := p.primary(depth)
	if n == nil || err != nil {
		return nil, err
	}
	if !positive(n) {
		return nil, &SyntaxError{Pos: t.pos, Msg: "a double negation; remove one"}
	}
	return &Not{Child: n}, nil
}

func (p *parser) primary(depth int) (Node, error) {
	t, _ := p.peek()
	p.i++
	switch t.kind {
	case tLParen:
		return p.group(t, depth, Any)
	case tField:
		f, _ := FieldByName(t.text)
		next, _ := p.peek()
		if next.kind == tLParen && f == DOI {
			return nil, &SyntaxError{Pos: t.pos, Msg: "doi: takes one DOI, not a group"}
		}
		if next.kind == tLParen {
			p.i++
			return p.group(next, depth, f)
		}
		p.i++ // the phrase
		return p.text(next.text, next.pos, f, true)
	case tPhrase:
		return p.text(t.text, t.pos, Any, true)
	case tWord:
		return p.word(t)
	}
	return nil, &SyntaxError{Pos: t.pos, Msg: fmt.Sprintf("unexpected %q", t.text)}
}

func (p *parser) group(open tok, depth int, field Field) (Node, error) {
	if depth+1 > MaxDepth {
		return nil, &SyntaxError{Pos: open.pos, Msg: fmt.Sprintf("parentheses nested deeper than %d", MaxDepth)}
	}
	n, err := p.scoped(depth+1, field)
	if err != nil {
		return nil, err
	}
	if t, ok := p.peek(); !ok || t.kind != tRParen {
		return nil, &SyntaxError{Pos: open.pos, Msg: "opening parenthesis without a closing one"}
	}
	p.i++
	return n, nil
}

// scoped parses an OR expression whose unscoped terms take field.
func (p *parser) scoped(depth int, field Field) (Node, error) {
	if field == Any {
		return p.or(depth)
	}
	n, err := p.or(depth)
	if err != nil {
		return nil, err
	}
	return n, setField(n, field)
}

// setField gives field to every unscoped leaf of n; a leaf scoped to
// another field is an error.
func setField(n Node, field Field) error {
	switch n := n.(type) {
	case *Term:
		if n.Field != Any && n.Field != field {
			return &SyntaxError{Pos: n.Pos, Msg: fmt.Sprintf("field %s: inside field %s:", n.Field, field)}
		}
		n.Field = field
	case *Phrase:
		if n.Field != Any && n.Field != field {
			return &SyntaxError{Pos: n.Pos, Msg: fmt.Sprintf("field %s: inside field %s:", n.Field, field)}
		}
		n.Field = field
	case *And:
		for _, c := range n.Children {
			if err := setField(c, field); err != nil {
				return err
			}
		}
	case *Or:
		for _, c := range n.Children {
			if err := setField(c, field); err != nil {
				return err
			}
		}
	case *Not:
		return setField(n.Child, field)
	}
	return nil
}

// word parses a bare word: field:word, word*, or plain text.
func (p *parser) word(t tok) (Node, error) {
	w, pos, field := t.text, t.pos, Any
	if name, rest, ok := fieldPrefix(w); ok {
		f, _ := FieldByName(name)
		if rest == "" {
			return nil, &SyntaxError{Pos: pos, Msg: fmt.Sprintf("%s: needs a word, a phrase or a group right after the colon", name)}
		}
		field, w, pos = f, rest, pos+len(name)+1
	}
	if field == DOI {
		return p.doi(w, pos)
	}
	if prefix, ok := strings.CutSuffix(w, "*"); ok {
		toks := tokenize.Tokens(prefix)
		if len(toks) == 0 && utf8.RuneCountInString(prefix) == 1 {
			return nil, &SyntaxError{Pos: pos, Msg: "a prefix search needs at least 2 letters before *"}
		}
		if len(toks) != 1 || strings.ContainsRune(prefix, '*') {
			return nil, &SyntaxError{Pos: pos, Msg: "a prefix search (word*) takes one word"}
		}
		if utf8.RuneCountInString(toks[0]) < 2 {
			return nil, &SyntaxError{Pos: pos, Msg: "a prefix search needs at least 2 letters before *"}
		}
		return p.leaf(&Term{Field: field, Word: toks[0], Prefix: true, Pos: pos})
	}
	return p.text(w, pos, field, false)
}

// text folds s into a term, or a phrase when it folds to several tokens
// (always a phrase when quoted). Stop words are dropped only from an
// unscoped, unquoted single word.
func (p *parser) text(s string, pos int, field Field, quoted bool) (Node, error) {
	if field == DOI {
		return p.doi(s, pos)
	}
	toks := tokenize.Tokens(s)
	switch {
	case len(toks) == 0 && quoted:
		return nil, &SyntaxError{Pos: pos, Msg: "empty phrase"}
	case len(toks) == 0:
		return nil, nil
	case len(toks) == 1:
		if !quoted && field == Any && p.dropStop && tokenize.IsStopWord(toks[0]) {
			return nil, nil
		}
		return p.leaf(&Term{Field: field, Word: toks[0], Pos: pos})
	}
	return p.leaf(&Phrase{Field: field, Words: toks, Pos: pos})
}

// doi is a DOI as one exact term: lower case, without a resolver prefix.
func (p *parser) doi(s string, pos int) (Node, error) {
	d := strings.ToLower(strings.TrimSpace(s))
	for _, pre := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"} {
		d = strings.TrimPrefix(d, pre)
	}
	if !strings.HasPrefix(d, "10.") || !strings.Contains(d, "/") {
		return nil, &SyntaxError{Pos: pos, Msg: "doi: takes a DOI such as 10.1371/journal.pone.0123456"}
	}
	return p.leaf(&Term{Field: DOI, Word: d, Pos: pos})
}

func (p *parser) leaf(n Node) (Node, error) {
	p.leaves++
	if p.leaves > MaxLeaves {
		return nil, &SyntaxError{Pos: p.posOf(n), Msg: fmt.Sprintf("more than %d terms and phrases", MaxLeaves)}
	}
	return n, nil
}

func (p *parser) posOf(n Node) int {
	switch n := n.(type) {
	case *Term:
		return n.Pos
	case *Phrase:
		return n.Pos
	case *Not:
		return p.posOf(n.Child)
	case *And:
		if len(n.Children) > 0 {
			return p.posOf(n.Children[0])
		}
	case *Or:
		if len(n.Children) > 0 {
			return p.posOf(n.Children[0])
		}
	}
	return 0
}

// positive reports whether n matches something by itself: it is not a
// Not, and an And has a positive child.
func positive(n Node) bool {
	switch n := n.(type) {
	case *Not:
		return false
	case *And:
		for _, c := range n.Children {
			if positive(c) {
				return true
			}
		}
		return false
	}
	return true
}

// flatten merges nested nodes of the same kind, drops duplicate leaves
// of an And or Or, and collapses a single child. It returns nil for no
// children.
func flatten(n Node) Node {
	var kids []Node
	and := false
	switch n := n.(type) {
	case *And:
		kids, and = n.Children, true
	case *Or:
		kids = n.Children
	default:
		return n
	}
	var out []Node
	seen := map[string]bool{}
	for _, c := range kids {
		var inner []Node
		switch c := c.(type) {
		case *And:
			if and {
				inner = c.Children
			}
		case *Or:
			if !and {
				inner = c.Children
			}
		}
		if inner == nil {
			inner = []Node{c}
		}
		for _, k := range inner {
			if key := leafKey(k); key != "" {
				if seen[key] {
					continue
				}
				seen[key] = true
			}
			out = append(out, k)
		}
	}
	switch {
	case len(out) == 0:
		return nil
	case len(out) == 1:
		return out[0]
	case and:
		return &And{Children: out}
	}
	return &Or{Children: out}
}

// leafKey identifies a leaf for de-duplication ("" for inner nodes).
func leafKey(n Node) string {
	switch n := n.(type) {
	case *Term:
		return fmt.Sprintf("t%d|%t|%s", n.Field, n.Prefix, n.Word)
	case *Phrase:
		return fmt.Sprintf("p%d|%s", n.Field, strings.Join(n.Words, " "))
	case *Not:
		if k := leafKey(n.Child); k != "" {
			return "-" + k
		}
	}
	return ""
}
