package archive

import (
	"context"
	"fmt"
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
)

// SnippetChars is the longest snippet, in characters of text (the <mark>
// tags and ellipses aside).
const SnippetChars = 200

// matcher decides which words of a text a query matched. Words are folded
// with package index/tokenize, as the index folds them, and compared by
// stem when the search was stemmed.
type matcher struct {
	words    map[string]bool // stems when stemmed
	prefixes []string
	phrases  [][]string // stems when stemmed
	stem     func(string) string
}

// newMatcher collects the positive terms of n that can match a text of
// the given fields (abstract and unscoped terms for an abstract; full text
// and, with in=fulltext, unscoped terms for a paragraph).
func newMatcher(n query.Node, stem func(string) string, fields ...query.Field) *matcher {
	m := &matcher{words: map[string]bool{}, stem: stem}
	in := func(f query.Field) bool {
		for _, x := range fields {
			if x == f {
				return true
			}
		}
		return false
	}
	walk(n, func(t *query.Term, p *query.Phrase) {
		switch {
		case t != nil && in(t.Field) && t.Prefix:
			m.prefixes = append(m.prefixes, t.Word)
		case t != nil && in(t.Field):
			m.words[m.norm(t.Word)] = true
		case p != nil && in(p.Field):
			ws := make([]string, len(p.Words))
			for i, w := range p.Words {
				ws[i] = m.norm(w)
			}
			m.phrases = append(m.phrases, ws)
		}
	})
	return m
}

func (m *matcher) norm(w string) string {
	if m.stem != nil {
		return m.stem(w)
	}
	return w
}

func (m *matcher) empty() bool {
	return len(m.words) == 0 && len(m.prefixes) == 0 && len(m.phrases) == 0
}

// word is a run of word characters of a text and its folded tokens.
type word struct {
	start, end int // bytes
	toks       []string
}

// words splits text into runs of letters, digits and marks: each run is
// what the tokeniser reads as one or more tokens, so highlighting a run
// highlights what matched, folded exactly as the index folded it.
func words(text string) []word {
	var out []word
	start := -1
	flush := func(end int) {
		if start >= 0 {
			if toks := tokenize.Tokens(text[start:end]); len(toks) > 0 {
				out = append(out, word{start: start, end: end, toks: toks})
			}
			start = -1
		}
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(text))
	return out
}

// marks returns which words of ws the query matched.
func (m *matcher) marks(ws []word) []bool {
	mark := make([]bool, len(ws))
	// The token stream, with each token's word.
	var toks []string
	var owner []int
	for i, w := range ws {
		for _, t := range w.toks {
			toks, owner = append(toks, m.norm(t)), append(owner, i)
			if m.words[toks[len(toks)-1]] {
				mark[i] = true
			}
			for _, p := range m.prefixes {
				if strings.HasPrefix(t, p) {
					mark[i] = true
				}
			}
		}
	}
	for _, p := range m.phrases {
		for i := 0; i+len(p) <= len(toks); i++ {
			if equalAt(toks, i, p) {
				for j := i; j < i+len(p); j++ {
					mark[owner[j]] = true
				}
			}
		}
	}
	return mark
}

func equalAt(toks []string, i int, p []string) bool {
	for j, w := range p {
		if toks[i+j] != w {
			return false
		}
	}
	return true
}

// snippet returns the best passage of text of at most SnippetChars
// characters, HTML-escaped, with matched words in <mark>, and how many
// words it marked. The passage is the window holding the most matched
// words, starting a little before the first of them; a text without any
// gives its beginning.
func (m *matcher) snippet(text string) (string, int) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", 0
	}
	ws := words(text)
	mark := m.marks(ws)
	// Best window: most marked words among those starting within
	// SnippetChars bytes of a marked word (bytes bound characters).
	best, bestN := -1, 0
	for i := range ws {
		if !mark[i] {
			continue
		}
		n := 0
		for j := i; j < len(ws) && ws[j].end-ws[i].start <= SnippetChars; j++ {
			if mark[j] {
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	from := 0
	if best >= 0 {
		// A little context before the first match, from a word start.
		from = ws[best].start
		for k := best - 1; k >= 0 && ws[best].start-ws[k].start <= SnippetChars/5; k-- {
			from = ws[k].start
		}
	}
	to := len(text)
	if utf8.RuneCountInString(text[from:]) > SnippetChars {
		// End at the last word that fits.
		to = from
		for _, w := range ws {
			if w.start >= from && utf8.RuneCountInString(text[from:w.end]) <= SnippetChars {
				to = w.end
			}
		}
		if to == from {
			to = from + runeBytes(text[from:], SnippetChars)
		}
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	at := from
	for i, w := range ws {
		if !mark[i] || w.start < from || w.end > to {
			continue
		}
		b.WriteString(html.EscapeString(text[at:w.start]))
		b.WriteString("<mark>")
		b.WriteString(html.EscapeString(text[w.start:w.end]))
		b.WriteString("</mark>")
		at = w.end
	}
	b.WriteString(html.EscapeString(text[at:to]))
	if to < len(text) {
		b.WriteString("…")
	}
	return b.String(), bestN
}

// runeBytes is the byte length of the first n characters of s.
func runeBytes(s string, n int) int {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// addSnippets gives each item a snippet of its document's open text: the
// abstract, or with in=fulltext the full-text paragraph with the most
// matches when the abstract has none. The text comes from the content
// store (a snapshot without one gets no snippets), with the attribution
// and copyright notice that go with it.
func (g *generation) addSnippets(ctx context.Context, items []Entry, docs []int32, n query.Node, stem, fulltext bool) error {
	if g.content == nil {
		return nil
	}
	var st func(string) string
	if stem {
		st = stemmer
	}
	abstract := newMatcher(n, st, query.Any, query.Abstract)
	paragraphs := newMatcher(n, st, query.Fulltext)
	if fulltext {
		paragraphs = newMatcher(n, st, query.Any, query.Fulltext)
	}
	for i := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		cd, err := g.content.Document(int(docs[i]))
		if err != nil {
			return fmt.Errorf("snippet of doc %d: %w", docs[i], err)
		}
		items[i].Attribution, items[i].CopyrightNotice = cd.Attribution, cd.CopyrightNotice
		snip, hits := abstract.snippet(cd.Abstract)
		if hits == 0 && cd.HasFulltext && !paragraphs.empty() {
			if p, ok, err := g.bestParagraph(int(docs[i]), paragraphs); err != nil {
				return err
			} else if ok {
				snip = p
			}
		}
		items[i].Snippet = snip
	}
	return nil
}

// bestParagraph returns the snippet of the full-text paragraph (or
// section title) with the most matched words, if any has one.
func (g *generation) bestParagraph(doc int, m *matcher) (string, bool, error) {
	secs, err := g.content.Sections(doc)
	if err != nil {
		return "", false, fmt.Errorf("snippet of doc %d: %w", doc, err)
	}
	best, bestN := "", 0
	for _, s := range secs {
		// Section titles are full text too (the index holds them).
		for _, p := range append([]string{s.Title}, s.Paragraphs...) {
			if snip, n := m.snippet(p); n > bestN {
				best, bestN = snip, n
			}
		}
	}
	return best, bestN > 0, nil
}
