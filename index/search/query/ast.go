// Package query parses the archive's search query language into a syntax
// tree that package index/search evaluates.
//
// The language, for GET /api/search's q and the search_archive tool:
//
//	heart failure              every word must match (the default operator is AND)
//	"heart failure"            an exact phrase: the words adjacent, in order
//	heart OR cardiac           either
//	-mouse, NOT mouse          excludes; a query must have at least one positive part
//	(heart OR cardiac) failure parentheses group
//	title:failure              a field: title, abstract, author, keyword, doi, fulltext
//	title:"heart failure"      a phrase inside one field
//	cardio*                    a prefix, expanded to at most MaxExpansions terms
//
// Words are folded by package index/tokenize exactly as the indexer folds
// them. A bare word that folds to several tokens ("SARS-CoV-2") is a phrase
// of those tokens. Stop words are dropped from bare words (unless nothing
// else is left) but count inside phrases, where their positions matter.
// Operators are case sensitive (OR, NOT, AND); "or" is a word.
package query

import (
	"fmt"
	"strings"

	"github.com/openshelf/openshelf/index/tokenize"
)

// Field is where a term must occur.
type Field uint8

// The fields. Any is the default: title, abstract, keywords and authors,
// plus full text when the request asks for it (in=fulltext).
const (
	Any Field = iota
	Title
	Abstract
	Author
	Keyword
	DOI
	Fulltext
)

var fieldNames = [...]string{"", "title", "abstract", "author", "keyword", "doi", "fulltext"}

func (f Field) String() string {
	if int(f) < len(fieldNames) {
		return fieldNames[f]
	}
	return fmt.Sprintf("field(%d)", f)
}

// FieldByName returns the field of a name as written before the colon.
func FieldByName(name string) (Field, bool) {
	for i, n := range fieldNames {
		if i > 0 && n == name {
			return Field(i), true
		}
	}
	return Any, false
}

// MaxExpansions bounds the terms one prefix may expand to; the
// evaluator keeps the most frequent ones.
const MaxExpansions = 256

// Node is a node of the syntax tree: *Term, *Phrase, *And, *Or or *Not.
type Node interface{ node() }

// Term is one folded word, or a prefix of words when Prefix is set.
type Term struct {
	Field  Field
	Word   string // folded by index/tokenize; for DOI, the lower-cased DOI
	Prefix bool
	Pos    int // byte offset in the query, for messages
}

// Phrase is two or more folded words that must occur adjacent and in
// order within one field.
type Phrase struct {
	Field Field
	Words []string
	Pos   int
}

// And matches documents matching every child; Not children exclude.
type And struct{ Children []Node }

// Or matches documents matching any child; none is a Not.
type Or struct{ Children []Node }

// Not excludes documents matching Child. It occurs only as a child of
// And beside at least one positive child.
type Not struct{ Child Node }

func (*Term) node()   {}
func (*Phrase) node() {}
func (*And) node()    {}
func (*Or) node()     {}
func (*Not) node()    {}

// SyntaxError is a query the parser refuses, with the byte offset of the
// problem, so that a client can point at it.
type SyntaxError struct {
	Pos int
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("at position %d: %s", e.Pos, e.Msg) }

// Format renders n in the query language, fully parenthesised, with
// folded words: the form the search echoes back and tests compare.
// Parsing the result gives the same tree.
func Format(n Node) string {
	var b strings.Builder
	format(&b, n)
	return b.String()
}

func format(b *strings.Builder, n Node) {
	switch n := n.(type) {
	case nil:
	case *Term:
		if n.Field != Any {
			b.WriteString(n.Field.String() + ":")
		}
		if !n.Prefix && n.Field == Any && tokenize.IsStopWord(n.Word) {
			b.WriteString(`"` + n.Word + `"`) // bare, it would be dropped
			break
		}
		b.WriteString(n.Word)
		if n.Prefix {
			b.WriteByte('*')
		}
	case *Phrase:
		if n.Field != Any {
			b.WriteString(n.Field.String() + ":")
		}
		b.WriteString(`"` + strings.Join(n.Words, " ") + `"`)
	case *Not:
		b.WriteString("-")
		format(b, n.Child)
	case *And:
		group(b, n.Children, " ")
	case *Or:
		group(b, n.Children, " OR ")
	}
}

func group(b *strings.Builder, kids []Node, sep string) {
	b.WriteByte('(')
	for i, k := range kids {
		if i > 0 {
			b.WriteString(sep)
		}
		format(b, k)
	}
	b.WriteByte(')')
}
